"""Simple closed solids as triangle meshes: icosphere, torus, box, cylinder and tube. Test bodies
for the voxelizer and building blocks for scenes; all outward-oriented, in metres."""

from __future__ import annotations

import numpy as np

from shapes.errors import MeshError
from shapes.mesh import TriangleMesh


def icosphere(radius_m: float, center_m=(0.0, 0.0, 0.0), subdivisions: int = 4) -> TriangleMesh:
    """A sphere from an icosahedron whose triangles are split in four `subdivisions` times
    (20 * 4^k faces) and pushed onto the sphere."""
    t = (1 + 5**0.5) / 2
    v = np.array(
        [
            [-1, t, 0],
            [1, t, 0],
            [-1, -t, 0],
            [1, -t, 0],
            [0, -1, t],
            [0, 1, t],
            [0, -1, -t],
            [0, 1, -t],
            [t, 0, -1],
            [t, 0, 1],
            [-t, 0, -1],
            [-t, 0, 1],
        ],
        float,
    )
    f = np.array(
        [
            [0, 11, 5],
            [0, 5, 1],
            [0, 1, 7],
            [0, 7, 10],
            [0, 10, 11],
            [1, 5, 9],
            [5, 11, 4],
            [11, 10, 2],
            [10, 7, 6],
            [7, 1, 8],
            [3, 9, 4],
            [3, 4, 2],
            [3, 2, 6],
            [3, 6, 8],
            [3, 8, 9],
            [4, 9, 5],
            [2, 4, 11],
            [6, 2, 10],
            [8, 6, 7],
            [9, 8, 1],
        ]
    )
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    for _ in range(subdivisions):
        edges = np.sort(np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]]), axis=1)
        unique, inverse = np.unique(edges, axis=0, return_inverse=True)
        mid = v[unique].mean(axis=1)
        mid /= np.linalg.norm(mid, axis=1, keepdims=True)
        m = len(v) + inverse.reshape(3, -1).T  # midpoints of edges (0-1, 1-2, 2-0) per face
        v = np.concatenate([v, mid])
        f = np.concatenate(
            [
                np.stack([f[:, 0], m[:, 0], m[:, 2]], 1),
                np.stack([m[:, 0], f[:, 1], m[:, 1]], 1),
                np.stack([m[:, 2], m[:, 1], f[:, 2]], 1),
                m,
            ]
        )
    return TriangleMesh(v * radius_m + np.asarray(center_m, float), f)


def torus(
    major_m: float, minor_m: float, center_m=(0.0, 0.0, 0.0), n_major: int = 96, n_minor: int = 48
) -> TriangleMesh:
    """A torus around the z axis: tube radius minor_m at distance major_m from the axis."""
    u = np.arange(n_major) * 2 * np.pi / n_major
    w = np.arange(n_minor) * 2 * np.pi / n_minor
    U, Wv = np.meshgrid(u, w, indexing="ij")
    ring = major_m + minor_m * np.cos(Wv)
    v = np.stack([ring * np.cos(U), ring * np.sin(U), minor_m * np.sin(Wv)], axis=-1).reshape(-1, 3)
    i, j = np.meshgrid(np.arange(n_major), np.arange(n_minor), indexing="ij")
    a = i * n_minor + j
    b = ((i + 1) % n_major) * n_minor + j
    c = ((i + 1) % n_major) * n_minor + (j + 1) % n_minor
    d = i * n_minor + (j + 1) % n_minor
    f = np.concatenate(
        [np.stack([a, b, c], -1).reshape(-1, 3), np.stack([a, c, d], -1).reshape(-1, 3)]
    )
    return TriangleMesh(v + np.asarray(center_m, float), f)


def box(size_m, center_m=(0.0, 0.0, 0.0), divisions: int = 1) -> TriangleMesh:
    """An axis-aligned box; each face split into divisions x divisions squares of two triangles."""
    h = np.asarray(size_m, float) / 2
    n = divisions
    t = np.linspace(-1.0, 1.0, n + 1)
    vertices, faces = [], []
    for axis in range(3):
        for sign in (-1.0, 1.0):
            u_axis, v_axis = [a for a in range(3) if a != axis]
            U, V = np.meshgrid(t, t, indexing="ij")
            p = np.zeros((n + 1, n + 1, 3))
            p[..., axis] = sign
            p[..., u_axis] = U
            p[..., v_axis] = V
            base = sum(len(v) for v in vertices)
            vertices.append(p.reshape(-1, 3))
            i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
            a = base + i * (n + 1) + j
            quad = [a, a + n + 1, a + n + 2, a + 1]
            tri = np.concatenate(
                [
                    np.stack([quad[0], quad[1], quad[2]], -1).reshape(-1, 3),
                    np.stack([quad[0], quad[2], quad[3]], -1).reshape(-1, 3),
                ]
            )
            normal = np.cross(p[1, 0] - p[0, 0], p[0, 1] - p[0, 0])
            faces.append(tri if normal[axis] * sign > 0 else tri[:, ::-1])
    v = np.concatenate(vertices)
    unique, inverse = np.unique(np.round(v, 12), axis=0, return_inverse=True)
    f = inverse.reshape(-1)[np.concatenate(faces)]
    return TriangleMesh(unique * h + np.asarray(center_m, float), f)


def cylinder_along(
    axis: int,
    center_m,
    radius_m: float,
    low_m: float,
    high_m: float,
    n: int = 96,
    stations: int = 8,
) -> TriangleMesh:
    """A circular cylinder along axis (0 x, 1 y, 2 z) from low_m to high_m, closed by fans."""
    from shapes.loft import loft

    angle = np.arange(n) * 2 * np.pi / n
    others = [a for a in range(3) if a != axis]
    ring = np.column_stack(
        [
            center_m[others[0]] + radius_m * np.cos(angle),
            center_m[others[1]] + radius_m * np.sin(angle),
        ]
    )
    along = np.linspace(low_m, high_m, stations)
    m = loft(along, np.repeat(ring[None], stations, axis=0))
    v = np.empty_like(m.vertices_m)
    v[:, axis] = m.vertices_m[:, 0]
    v[:, others[0]] = m.vertices_m[:, 1]
    v[:, others[1]] = m.vertices_m[:, 2]
    out = TriangleMesh(v, m.faces)
    return out if out.volume_m3() > 0 else TriangleMesh(v, m.faces[:, ::-1].copy())


def tube_along(
    axis: int,
    center_m,
    inner_radius_m: float,
    outer_radius_m: float,
    low_m: float,
    high_m: float,
    n: int = 192,
    stations: int = 2,
) -> TriangleMesh:
    """A thick-walled circular tube along axis (0 x, 1 y, 2 z) from low_m to high_m: the solid
    between inner_radius_m and outer_radius_m, closed by annular end caps. The fluid of a pipe is
    its bore; n facets round the circumference (the bore's polygon lies within
    R (1 - cos(pi / n)) of the circle), stations rings along the axis."""
    if not 0 < inner_radius_m < outer_radius_m or not low_m < high_m or n < 3:
        raise MeshError(
            f"a tube needs 0 < inner radius ({inner_radius_m}) < outer radius "
            f"({outer_radius_m}), low ({low_m}) < high ({high_m}) and at least 3 facets ({n})"
        )
    angle = np.arange(n) * 2 * np.pi / n
    along = np.linspace(low_m, high_m, stations)
    ring = np.column_stack([np.cos(angle), np.sin(angle)])
    local = np.concatenate(
        [
            np.column_stack([np.full(n, a), r * ring])
            for r in (inner_radius_m, outer_radius_m)
            for a in along
        ]
    )  # inner rings (station-major), then outer rings
    k = np.arange(n)
    k1 = (k + 1) % n

    def vid(outer: int, station: int, kk: np.ndarray) -> np.ndarray:
        return (outer * stations + station) * n + kk

    quads = []
    for s in range(stations - 1):  # (s, k), (s+1, k), (s+1, k+1), (s, k+1) faces the axis
        quads.append(
            np.stack([vid(0, s, k), vid(0, s + 1, k), vid(0, s + 1, k1), vid(0, s, k1)], 1)
        )
        quads.append(
            np.stack([vid(1, s, k), vid(1, s, k1), vid(1, s + 1, k1), vid(1, s + 1, k)], 1)
        )
    last = stations - 1  # (inner k, outer k, outer k+1, inner k+1) faces +axis
    quads.append(
        np.stack([vid(0, last, k), vid(1, last, k), vid(1, last, k1), vid(0, last, k1)], 1)
    )
    quads.append(np.stack([vid(0, 0, k), vid(0, 0, k1), vid(1, 0, k1), vid(1, 0, k)], 1))
    q = np.concatenate(quads)
    faces = np.concatenate([q[:, [0, 1, 2]], q[:, [0, 2, 3]]])
    others = [a for a in range(3) if a != axis]
    v = np.empty_like(local)
    v[:, axis] = local[:, 0]
    v[:, others[0]] = local[:, 1] + center_m[others[0]]
    v[:, others[1]] = local[:, 2] + center_m[others[1]]
    out = TriangleMesh(v, faces)  # the y axis maps (along, u, v) to (y, x, z): a mirror
    return out if out.volume_m3() > 0 else TriangleMesh(v, faces[:, ::-1].copy())


def primitive_surface(
    shape: str,
    center_m,
    radius_m: float,
    size_m,
    axis: int,
    domain_lo_m,
    domain_hi_m,
    cell_m: float,
) -> TriangleMesh:
    """A surface mesh of an analytic body for pressure sampling, with facets about a quarter of a
    lattice cell (cell_m): sphere, box, or a cylinder spanning the domain along its axis."""
    if shape == "sphere":
        # An icosahedron's edge is 1.05 R; each subdivision halves it.
        subdivisions = int(np.clip(np.ceil(np.log2(1.05 * radius_m / (0.25 * cell_m))), 2, 7))
        return icosphere(radius_m, center_m, subdivisions)
    if shape == "box":
        return box(
            size_m, center_m, divisions=int(np.clip(np.max(size_m) / (0.25 * cell_m), 4, 256))
        )
    if shape == "cylinder":
        n = int(np.clip(2 * np.pi * radius_m / (0.25 * cell_m), 32, 1024))
        length = domain_hi_m[axis] - domain_lo_m[axis]
        stations = int(np.clip(length / (0.25 * cell_m), 2, 512)) + 1
        return cylinder_along(
            axis, center_m, radius_m, domain_lo_m[axis], domain_hi_m[axis], n, stations
        )
    raise ValueError(f"no surface for shape '{shape}'")
