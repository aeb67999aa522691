"""Closed triangle meshes: reading and writing through meshio, units and axes, and the checks a
mesh must pass before it is voxelized.

Frame: x is the flow direction (from the car's nose to its tail), y spans the width, z points
up; lengths in metres. Files from other tools often use millimetres, or y up, or the nose
towards +x: `read_mesh` takes the file's unit and axes and returns the mesh in this frame.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from shapes.errors import MeshError

if TYPE_CHECKING:
    from solver.rolling import RollingWheels

#: File suffixes meshio reads as surfaces, and those this module writes.
READ_SUFFIXES = (".stl", ".obj", ".ply", ".vtp", ".vtu", ".off")
WRITE_SUFFIXES = (".stl", ".obj", ".vtp")
#: metres per unit
UNITS = {"m": 1.0, "cm": 0.01, "mm": 0.001, "in": 0.0254, "ft": 0.3048}
AXES = {
    "+x": (0, 1.0),
    "-x": (0, -1.0),
    "+y": (1, 1.0),
    "-y": (1, -1.0),
    "+z": (2, 1.0),
    "-z": (2, -1.0),
}


@dataclass(frozen=True)
class TriangleMesh:
    """A triangle surface: vertices [n, 3] in metres, faces [m, 3] of vertex indices,
    counter-clockwise seen from outside (normals point out of the body). A shape generator may
    label its faces with named parts (face_part [m]: an index into part_names); a mesh without
    labels is one part, ``body``. rolling: which part's faces are wheels that roll on the road,
    and where their centres are (the car's, shapes/wheels.py; None: the surface is at rest)."""

    vertices_m: np.ndarray
    faces: np.ndarray
    face_part: np.ndarray | None = None
    part_names: tuple[str, ...] = ()
    rolling: RollingWheels | None = None

    def parts(self) -> tuple[np.ndarray, tuple[str, ...]]:
        """Each face's part index [m] and the parts' names (one part, body, without labels)."""
        if self.face_part is None:
            return np.zeros(len(self.faces), np.int32), ("body",)
        return np.asarray(self.face_part, np.int32), self.part_names

    def face_areas_m2(self) -> np.ndarray:
        return 0.5 * np.linalg.norm(self._cross(), axis=1)

    def volume_m3(self) -> float:
        """Signed enclosed volume (divergence theorem): positive for outward-facing triangles."""
        a, b, c = (self.vertices_m[self.faces[:, i]] for i in range(3))
        return float(np.sum(np.einsum("ij,ij->i", a, np.cross(b, c))) / 6.0)

    def face_normals(self) -> np.ndarray:
        """Outward unit normals of the faces [m, 3]."""
        cross = self._cross()
        return cross / np.maximum(np.linalg.norm(cross, axis=1, keepdims=True), 1e-300)

    def vertex_normals(self) -> np.ndarray:
        """Area-weighted unit normals at the vertices [n, 3]."""
        normals = np.zeros_like(self.vertices_m)
        cross = self._cross()
        for i in range(3):
            np.add.at(normals, self.faces[:, i], cross)
        return normals / np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-300)

    def bounds_m(self) -> tuple[np.ndarray, np.ndarray]:
        return self.vertices_m.min(axis=0), self.vertices_m.max(axis=0)

    def transformed(self, offset_m: np.ndarray) -> TriangleMesh:
        """The mesh moved by offset_m [m]."""
        rolling = None if self.rolling is None else self.rolling.shifted(offset_m)
        return TriangleMesh(
            self.vertices_m + offset_m, self.faces, self.face_part, self.part_names, rolling
        )

    def _cross(self) -> np.ndarray:
        a, b, c = (self.vertices_m[self.faces[:, i]] for i in range(3))
        return np.cross(b - a, c - a)


def check_mesh(mesh: TriangleMesh, name: str = "mesh") -> None:
    """Raise MeshError unless the mesh is closed, consistently oriented, outward and has no
    degenerate faces; the message names the defect and how many edges or faces have it."""
    faces = mesh.faces
    if faces.ndim != 2 or faces.shape[1] != 3 or len(faces) < 4:
        raise MeshError(f"{name}: needs at least 4 triangles, has {len(faces)}")
    scale = float(np.max(np.ptp(mesh.vertices_m, axis=0)))
    degenerate = int(np.sum(mesh.face_areas_m2() <= 1e-12 * scale**2))
    if degenerate:
        raise MeshError(
            f"{name}: {degenerate} degenerate (zero-area) faces: clean the mesh "
            "(merge close vertices, drop slivers) and export it again"
        )
    directed = np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]])
    undirected = np.sort(directed, axis=1)
    _, edge_id, edge_count = np.unique(undirected, axis=0, return_inverse=True, return_counts=True)
    open_edges = int(np.sum(edge_count == 1))
    if open_edges:
        raise MeshError(
            f"{name}: not closed, {open_edges} boundary edges (holes): close the "
            "holes so the surface encloses a volume"
        )
    non_manifold = int(np.sum(edge_count > 2))
    if non_manifold:
        raise MeshError(
            f"{name}: {non_manifold} edges shared by more than two faces: the surface "
            "must be a manifold"
        )
    forward = directed[:, 0] < directed[:, 1]
    per_edge = np.bincount(edge_id.ravel(), weights=forward, minlength=len(edge_count))
    flipped = int(np.sum(per_edge != 1))
    if flipped:
        raise MeshError(
            f"{name}: inconsistently oriented, {flipped} edges run the same way in both "
            "of their faces: make the face orientation consistent"
        )
    if mesh.volume_m3() <= 0:
        raise MeshError(
            f"{name}: faces point inwards (negative enclosed volume): flip the faces' orientation"
        )


def read_mesh(
    path: str | Path, unit: str = "m", downstream: str = "+x", up: str = "+z"
) -> TriangleMesh:
    """Read a surface (STL ASCII or binary, OBJ, PLY, OFF, VTU with meshio; VTP with VTK, which
    meshio does not read) and bring it to the solver's frame: lengths in `unit` become metres;
    the file's `downstream` axis (pointing from the nose to the tail) becomes +x and its `up`
    axis +z. Polygons are fanned into triangles."""
    path = Path(path)
    if not path.is_file():
        raise MeshError(f"mesh file '{path}' does not exist: check geometry.path")
    if path.suffix.lower() not in READ_SUFFIXES:
        raise MeshError(
            f"mesh file '{path}': unknown format '{path.suffix}', use one of {READ_SUFFIXES}"
        )
    if unit not in UNITS:
        raise MeshError(f"unit '{unit}' is unknown: use one of {tuple(UNITS)}")
    try:
        points, polygons = _read_vtp(path) if path.suffix.lower() == ".vtp" else _read_meshio(path)
    except MeshError:
        raise
    except Exception as exc:  # the readers raise many types for unreadable files
        first_line = str(exc).splitlines()[0] if str(exc) else ""
        raise MeshError(
            f"mesh file '{path}' cannot be read ({type(exc).__name__}: {first_line})"
        ) from exc
    triangles = [
        cells[:, [0, k, k + 1]] for cells in polygons for k in range(1, cells.shape[1] - 1)
    ]
    if not triangles:
        raise MeshError(f"mesh file '{path}' holds no surface triangles")
    faces = np.concatenate(triangles).astype(np.int64)
    vertices = np.asarray(points, dtype=np.float64)[:, :3] * UNITS[unit]
    vertices, faces = _merge_duplicate_vertices(vertices, faces)
    return TriangleMesh(_to_solver_frame(vertices, downstream, up), faces)


def write_mesh(
    mesh: TriangleMesh,
    path: str | Path,
    point_arrays: dict[str, np.ndarray] | None = None,
    file_format: str | None = None,
) -> Path:
    """Write binary STL or OBJ (through meshio) or VTP (through VTK); the format is file_format
    (stl, obj, vtp) or the path's suffix. point_arrays ([n] or [n, 3] per vertex) go into a VTP
    only, and so does the faces' part index (cell array ``part``, its names in the field data
    ``part_names``) where the mesh has labels. Writes path directly: callers that need atomic
    files pass a temporary path and rename."""
    path = Path(path)
    fmt = file_format or path.suffix.lower().lstrip(".")
    if f".{fmt}" not in WRITE_SUFFIXES:
        raise MeshError(f"cannot write '{path}' as '{fmt}': use one of {WRITE_SUFFIXES}")
    if point_arrays and fmt != "vtp":
        raise MeshError(f"'{path}': point arrays need the vtp format")
    if fmt == "vtp":
        import vtk

        writer = vtk.vtkXMLPolyDataWriter()
        writer.SetInputData(polydata(mesh, point_arrays))
        writer.SetFileName(str(path))
        if writer.Write() != 1:
            raise MeshError(f"VTK could not write '{path}'")
    else:
        import meshio

        kwargs = {"binary": True} if fmt == "stl" else {}
        meshio.write(
            path,
            meshio.Mesh(mesh.vertices_m, [("triangle", mesh.faces)]),
            file_format=fmt,
            **kwargs,
        )
    return path


def polydata(mesh: TriangleMesh, point_arrays: dict[str, np.ndarray] | None = None):
    """The mesh as a vtkPolyData, with optional point arrays ([n] scalars or [n, 3] vectors)."""
    import vtk
    from vtk.util.numpy_support import numpy_to_vtk, numpy_to_vtkIdTypeArray

    points = vtk.vtkPoints()
    points.SetData(numpy_to_vtk(np.ascontiguousarray(mesh.vertices_m), deep=True))
    offsets = np.arange(0, 3 * len(mesh.faces) + 1, 3, dtype=np.int64)
    cells = vtk.vtkCellArray()
    cells.SetData(
        numpy_to_vtkIdTypeArray(offsets, deep=True),
        numpy_to_vtkIdTypeArray(mesh.faces.astype(np.int64).ravel(), deep=True),
    )
    out = vtk.vtkPolyData()
    out.SetPoints(points)
    out.SetPolys(cells)
    for name, values in (point_arrays or {}).items():
        array = numpy_to_vtk(np.ascontiguousarray(values), deep=True)
        array.SetName(name)
        out.GetPointData().AddArray(array)
    if mesh.face_part is not None:
        part = numpy_to_vtk(np.ascontiguousarray(mesh.face_part, dtype=np.int32), deep=True)
        part.SetName("part")
        out.GetCellData().AddArray(part)
        names = vtk.vtkStringArray()
        names.SetName("part_names")
        for name in mesh.part_names:
            names.InsertNextValue(name)
        out.GetFieldData().AddArray(names)
    return out


def _read_meshio(path: Path) -> tuple[np.ndarray, list[np.ndarray]]:
    """Points and polygon blocks of a file meshio reads. meshio tells a binary STL from an ASCII
    one by comparing 84 + 50 n with the file size, n the uint32 at bytes 80-84; in an ASCII file
    those bytes are text, so the product overflows (numpy's "overflow encountered in scalar
    multiply"), the sizes differ and meshio reads the file as ASCII, as it should. The warning
    says nothing about the user's file, so it is silenced here."""
    import meshio

    with np.errstate(over="ignore"):
        data = meshio.read(path)
    polygons = [
        np.asarray(b.data)
        for b in data.cells
        if b.type in ("triangle", "quad") or b.type.startswith("polygon")
    ]
    return np.asarray(data.points), polygons


def _read_vtp(path: Path) -> tuple[np.ndarray, list[np.ndarray]]:
    import vtk
    from vtk.util.numpy_support import vtk_to_numpy

    reader = vtk.vtkXMLPolyDataReader()
    reader.SetFileName(str(path))
    reader.Update()
    data = reader.GetOutput()
    if data is None or data.GetNumberOfPoints() == 0:
        raise MeshError(f"mesh file '{path}' holds no VTK PolyData points")
    triangulate = vtk.vtkTriangleFilter()
    triangulate.SetInputData(data)
    triangulate.Update()
    tri = triangulate.GetOutput()
    faces = vtk_to_numpy(tri.GetPolys().GetConnectivityArray()).reshape(-1, 3)
    return vtk_to_numpy(tri.GetPoints().GetData()), [faces]


def _merge_duplicate_vertices(
    vertices: np.ndarray, faces: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """STL stores each triangle's corners separately: merge exact duplicates so edges are shared."""
    unique, inverse = np.unique(vertices, axis=0, return_inverse=True)
    return unique, inverse.reshape(-1)[faces]


def _to_solver_frame(vertices: np.ndarray, downstream: str, up: str) -> np.ndarray:
    if downstream not in AXES or up not in AXES:
        raise MeshError(
            f"axes must be one of {tuple(AXES)}: got downstream '{downstream}', up '{up}'"
        )
    (fa, fs), (ua, us) = AXES[downstream], AXES[up]
    if fa == ua:
        raise MeshError(f"downstream '{downstream}' and up '{up}' must be different axes")
    x = fs * vertices[:, fa]
    z = us * vertices[:, ua]
    y_unit = np.cross(np.eye(3)[ua] * us, np.eye(3)[fa] * fs)  # y = z x x in the file's frame
    y = vertices @ y_unit
    return np.stack([x, y, z], axis=1)
