"""What a geometry-general surrogate sees of a shape: points sampled on its surface with their
normals, and its signed distance on a grid. Inputs: a closed, outward triangle mesh in metres."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from shapes.mesh import TriangleMesh, polydata


@dataclass(frozen=True)
class SurfaceSample:
    points_m: np.ndarray  # [n, 3]
    normals: np.ndarray  # [n, 3] outward unit normals of the faces the points lie on
    faces: np.ndarray  # [n] index of that face


@dataclass(frozen=True)
class DistanceGrid:
    distance_m: np.ndarray  # [nz, ny, nx] signed distance to the surface, negative inside [m]
    origin_m: np.ndarray  # [3] the first grid point (x, y, z) [m]
    spacing_m: np.ndarray  # [3] grid spacing along x, y, z [m]


def sample_surface(mesh: TriangleMesh, n_points: int, seed: int) -> SurfaceSample:
    """n_points uniformly distributed over the surface: faces drawn with probability
    proportional to their area, a uniform point in each (barycentric square-root rule,
    Osada et al. 2002, eq. 1)."""
    rng = np.random.default_rng(seed)
    v, f = mesh.vertices_m, mesh.faces
    a, b, c = v[f[:, 0]], v[f[:, 1]], v[f[:, 2]]
    cross = np.cross(b - a, c - a)
    area = 0.5 * np.linalg.norm(cross, axis=1)
    faces = rng.choice(len(f), size=n_points, p=area / area.sum())
    r1, r2 = rng.random(n_points), rng.random(n_points)
    s1 = np.sqrt(r1)
    points = (
        (1 - s1)[:, None] * a[faces]
        + (s1 * (1 - r2))[:, None] * b[faces]
        + (s1 * r2)[:, None] * c[faces]
    )
    normals = cross[faces] / (2 * area[faces])[:, None]
    return SurfaceSample(points_m=points, normals=normals, faces=faces)


def signed_distance_grid(
    mesh: TriangleMesh, shape_xyz: tuple[int, int, int], margin: float
) -> DistanceGrid:
    """The exact signed distance to the mesh (VTK's vtkImplicitPolyDataDistance, negative
    inside) at the points of a grid spanning the mesh's bounding box grown by margin times
    its largest extent on every side."""
    from vtkmodules.util.numpy_support import vtk_to_numpy
    from vtkmodules.vtkFiltersCore import vtkImplicitPolyDataDistance
    from vtkmodules.vtkImagingHybrid import vtkSampleFunction

    lo, hi = mesh.bounds_m()
    pad = margin * float(np.max(hi - lo))
    lo, hi = lo - pad, hi + pad
    distance = vtkImplicitPolyDataDistance()
    distance.SetInput(polydata(mesh))
    sampler = vtkSampleFunction()
    sampler.SetImplicitFunction(distance)
    sampler.SetModelBounds(lo[0], hi[0], lo[1], hi[1], lo[2], hi[2])
    sampler.SetSampleDimensions(*shape_xyz)
    sampler.SetOutputScalarTypeToDouble()
    sampler.ComputeNormalsOff()
    sampler.Update()
    values = vtk_to_numpy(sampler.GetOutput().GetPointData().GetScalars())
    nx, ny, nz = shape_xyz
    spacing = (hi - lo) / (np.array(shape_xyz) - 1)
    return DistanceGrid(
        distance_m=values.reshape(nz, ny, nx).astype(np.float32), origin_m=lo, spacing_m=spacing
    )
