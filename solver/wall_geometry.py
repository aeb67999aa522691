"""The body's wall as the wall model sees it from each fluid cell next to it: the surface's unit
normal, the cell centre's distance from it and the area of it the cell's links cut (lattice
units), for the rule about the true surface of ``cuda/lbm_wall_model.cuh`` (``lbm_wall_body``).

Each link from a fluid cell x into the body meets the surface at x - q_w c_q (q_w its wall
fraction, 1/2 for halfway bounce-back). Those wall points lie on the surface, so a plane fitted
through the points of the cell and of its 26 neighbours (least squares: the normal is the
eigenvector of the points' covariance with the smallest eigenvalue) is the surface's tangent
plane, exact for a plane at any orientation and off by O(dx^2 / R) on a surface of curvature
radius R. Its normal is oriented into the fluid; the distance is that of the cell centre from the
plane with this normal through the cell's own wall points. Where the points do not span a plane
(fewer than three, or on a line), the normal is that of the cell's own links, sum w_q c_q.

The area: a lattice direction c crosses a plane of unit normal n and area A at A |c . n| links
(one per lattice node in the slab of thickness |c . n| behind it). So the cell's share of the
surface, the weights of its cut links over the weighted crossings per unit area,
sum_cut w_q / sum_{q: c_q . n > 0} w_q (c_q . n), adds up along a plane to its area, whatever its
orientation; on a pipe's bore of 7.3, 10 and 15 cells of radius to 0.991, 0.998 and 1.000 of
2 pi R L (weighting each link by its c_q . n instead, with the cell's normal where the link's own
would be right, gave 0.963, 0.974 and 0.983).

Sharp edges: where the wall points of the 27 cells are not flat (the fit's smallest eigenvalue
over a share of the largest, or no plane at all), the cell sits on an edge or a corner of the body,
where one normal does not describe its links. The slip rule leaves those cells to the face rule
(``lbm_wall_function``).
"""

from __future__ import annotations

import numpy as np

from solver import lattice
from solver.grid import links_into_body

#: Columns of the per-slot record the kernels read (LbmParams.slot_wall).
WALL_FIELDS = ("normal_x", "normal_y", "normal_z", "distance", "area", "edge")

#: A fit whose smallest eigenvalue is over this share of the largest is not flat: a sharp edge or
#: corner. At 0.03 it marks 888 of the Ahmed body's 6,588 cells with links at 64 cells per length
#: and 384 of the parametric car's 6,141, and none on a cylinder of 20 cells' radius
#: (docs/validation.md, "The links' exchange pinned to the law").
_FLATNESS = 0.03

#: A fit whose middle eigenvalue is below this share of the largest is a line, not a plane.
_PLANARITY = 1e-3


def _neighbour_sums(
    slot: np.ndarray,
    cells: np.ndarray,
    periodic: np.ndarray,
    s0: np.ndarray,
    s1: np.ndarray,
    s2: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The point count, sum and sum of outer products of the wall points of each slot's cell and
    its 26 neighbours, in the frame of the slot's cell centre (cells: [n, 3] as (z, y, x))."""
    shape = np.array(slot.shape)
    t0, t1, t2 = np.zeros_like(s0), np.zeros_like(s1), np.zeros_like(s2)
    for dz, dy, dx in np.ndindex(3, 3, 3):
        o_zyx = np.array([dz - 1, dy - 1, dx - 1])
        nb = cells + o_zyx
        inside = np.all(periodic[::-1] | ((nb >= 0) & (nb < shape)), axis=1)
        nb = nb % shape
        k = np.where(inside, slot[nb[:, 0], nb[:, 1], nb[:, 2]], -1)
        use = k >= 0
        k = k[use]
        o = o_zyx[::-1].astype(float)  # the neighbour's centre in the slot's frame, (x, y, z)
        c0, c1, c2 = s0[k], s1[k], s2[k]
        t0[use] += c0
        t1[use] += c1 + c0[:, None] * o
        t2[use] += (
            c2
            + c1[:, :, None] * o[None, None, :]
            + o[None, :, None] * c1[:, None, :]
            + c0[:, None, None] * np.outer(o, o)[None]
        )
    return t0, t1, t2


def slot_wall_geometry(
    flags: np.ndarray, slot: np.ndarray, link_q: np.ndarray | None, periodic: np.ndarray
) -> np.ndarray:
    """float32 [n_slots, 6]: for each slot (fluid cell within two links of the body, slot order),
    the unit normal of the body's surface into the fluid, the distance of the cell centre from it,
    the area of it the cell's links cut (cells, cells^2) and 1 where the cell sits on a sharp edge
    (0 elsewhere); zero for a slot without links into the body. link_q: the slots' wall
    fractions [n_slots, 18] (None: halfway bounce-back); periodic: bool [3], the axes (x, y, z)
    the grid wraps."""
    cells = np.argwhere(slot >= 0)  # (z, y, x), slot order
    n_slots = len(cells)
    into = links_into_body(slot, (flags & lattice.BODY) != 0)
    q_w = (
        np.where(into, 0.5, 0.0)
        if link_q is None
        else np.where(into & (link_q > 0), link_q, 0.5 * into)
    )
    c = lattice.C[1:].astype(float)  # [18, 3] (x, y, z)
    points = -q_w[:, :, None] * c[None]  # wall points in the cell's frame
    s0 = into.sum(axis=1).astype(float)
    s1 = np.einsum("nq,nqa->na", into, points)
    s2 = np.einsum("nq,nqa,nqb->nab", into, points, points)
    t0, t1, t2 = _neighbour_sums(slot, cells, periodic, s0, s1, s2)

    own = into @ (lattice.W[1:, None] * c)  # sum w c over the cell's body links: out of the wall
    own_norm = np.linalg.norm(own, axis=1)
    fallback = own / np.maximum(own_norm, 1e-300)[:, None]
    mean = t1 / np.maximum(t0, 1.0)[:, None]
    cov = t2 / np.maximum(t0, 1.0)[:, None, None] - mean[:, :, None] * mean[:, None, :]
    eigval, eigvec = np.linalg.eigh(cov)
    normal = eigvec[:, :, 0]
    planar = (t0 >= 3) & (eigval[:, 1] > _PLANARITY * np.maximum(eigval[:, 2], 1e-300))
    normal = np.where(planar[:, None], normal, fallback)
    normal *= np.where(np.sum(normal * own, axis=1) < 0, -1.0, 1.0)[:, None]
    distance = -np.sum(s1 * normal, axis=1) / np.maximum(s0, 1.0)  # of the cell's own wall points
    per_area = np.sum(lattice.W[None, 1:] * np.maximum(normal @ c.T, 0.0), axis=1)
    area = (into @ lattice.W[1:]) / np.maximum(per_area, 1e-300)

    edge = ~planar | (eigval[:, 0] > _FLATNESS * np.maximum(eigval[:, 2], 1e-300))

    out = np.zeros((n_slots, len(WALL_FIELDS)), dtype=np.float32)
    has = s0 > 0
    out[has, :3] = normal[has]
    out[has, 3] = distance[has]
    out[has, 4] = area[has]
    out[has, 5] = edge[has]
    return out
