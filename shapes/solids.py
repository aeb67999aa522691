"""Simple closed solids as triangle meshes: icosphere, torus and box. Test bodies for the
voxelizer and building blocks for scenes; all outward-oriented, in metres."""

from __future__ import annotations

import numpy as np

from shapes.mesh import TriangleMesh


def icosphere(radius_m: float, center_m=(0.0, 0.0, 0.0), subdivisions: int = 4) -> TriangleMesh:
    """A sphere from an icosahedron whose triangles are split in four `subdivisions` times
    (20 * 4^k faces) and pushed onto the sphere."""
    t = (1 + 5**0.5) / 2
    v = np.array([[-1, t, 0], [1, t, 0], [-1, -t, 0], [1, -t, 0], [0, -1, t], [0, 1, t],
                  [0, -1, -t], [0, 1, -t], [t, 0, -1], [t, 0, 1], [-t, 0, -1], [-t, 0, 1]], float)
    f = np.array([[0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11], [1, 5, 9], [5, 11, 4],
                  [11, 10, 2], [10, 7, 6], [7, 1, 8], [3, 9, 4], [3, 4, 2], [3, 2, 6], [3, 6, 8],
                  [3, 8, 9], [4, 9, 5], [2, 4, 11], [6, 2, 10], [8, 6, 7], [9, 8, 1]])
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    for _ in range(subdivisions):
        edges = np.sort(np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]]), axis=1)
        unique, inverse = np.unique(edges, axis=0, return_inverse=True)
        mid = v[unique].mean(axis=1)
        mid /= np.linalg.norm(mid, axis=1, keepdims=True)
        m = len(v) + inverse.reshape(3, -1).T  # midpoints of edges (0-1, 1-2, 2-0) per face
        v = np.concatenate([v, mid])
        f = np.concatenate([np.stack([f[:, 0], m[:, 0], m[:, 2]], 1), np.stack([m[:, 0], f[:, 1], m[:, 1]], 1),
                            np.stack([m[:, 2], m[:, 1], f[:, 2]], 1), m])
    return TriangleMesh(v * radius_m + np.asarray(center_m, float), f)


def torus(major_m: float, minor_m: float, center_m=(0.0, 0.0, 0.0), n_major: int = 96,
          n_minor: int = 48) -> TriangleMesh:
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
    f = np.concatenate([np.stack([a, b, c], -1).reshape(-1, 3), np.stack([a, c, d], -1).reshape(-1, 3)])
    return TriangleMesh(v + np.asarray(center_m, float), f)


def box(size_m, center_m=(0.0, 0.0, 0.0)) -> TriangleMesh:
    """An axis-aligned box, 12 triangles."""
    h = np.asarray(size_m, float) / 2
    v = np.array([[x, y, z] for z in (-1, 1) for y in (-1, 1) for x in (-1, 1)], float) * h
    f = np.array([[0, 2, 1], [1, 2, 3], [4, 5, 6], [5, 7, 6], [0, 1, 4], [1, 5, 4],
                  [2, 6, 3], [3, 6, 7], [0, 4, 2], [2, 4, 6], [1, 3, 5], [3, 7, 5]])
    return TriangleMesh(v + np.asarray(center_m, float), f)
