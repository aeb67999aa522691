#!/usr/bin/env python3
"""An experiment, not part of the solver: the volumetric wall of `volumetric_wall_2d.py` in three
dimensions, the step between the two-dimensional model and the kernel.

A standalone NumPy D3Q19 BGK model (float64) in a periodic box. The body is a triangle mesh (an
icosphere, or the two faces of a turned slab), each triangle a surface element after Chen, Teixeira
& Molvig (1998, Int. J. Mod. Phys. C 9, 1281): for each direction c it gathers from the cells the
particles that reach it within a step, those in the prism its triangle sweeps along -c (their exact
overlaps with the unit cells from the solver's geometry, `solver/surfels.py` and
`solver/volumetric_geometry.py`), and sends its outgoing particles into the prism it sweeps along
+c. Cells cut by the surface hold their fluid volume V (exact: the sphere's from the same geometry,
the slab's from clipping its polyhedron here); a cell's populations are densities, mass V f, and
every cell with fluid in it is a fluid cell. Cut cells with less fluid than --merge share one state
with the cell one step further out along the surface's normal. The element's rule:

- bounce-back: mass and normal momentum exact at any angle (no slip);
- free slip (--plane without the law): plus w A|c.n| (c.t_k) B_k on its outgoing directions,
  B solved from the 2 x 2 matrix of the tangents t_1, t_2 so the outgoing tangential momentum
  equals the incoming; a uniform flow along a plane element at any angle leaves it unchanged;
- the law of the wall (--plane): less rho u_tau^2 A along the input's tangential velocity, in the
  shape w A|c.n| (k . (1, c.t_1, c.t_2, c.n)), k from the 4 x 4 Gram matrix over the outgoing
  directions, so that it takes tangential momentum and neither mass nor normal momentum.

Two checks, each against an exact result:

    python docs/experiments/volumetric_wall_3d.py --stokes [--box 32] [--steps 4000]
        [--fractions 0.027 0.064 0.125 0.216]

no slip: Stokes flow through a simple cubic array of spheres, driven by a body force, K = F /
(6 pi mu a U) (a the sphere's radius, the icosphere scaled to its volume; U the mean velocity over
the whole box) against Zick & Homsy (1982, J. Fluid Mech. 115, 13, Table 2).

    python docs/experiments/volumetric_wall_3d.py --plane A:B [A:B ...] [--size 40]
        [--steps N] [--average N] [--y-input 2.5] [--re-lattice 10] [--merge V]

the law's stress on planes turned about the flow's axis x by atan(A/B) (the geometry of
benchmarks/turned_channel.py): the laminar channel of `volumetric_wall_2d.py --plane`, whose
steady state is exact, in a box 2 cells long along the flow; first one step from a uniform flow
along the planes under free slip (it must not change), then the driven run.

Each prints a table and ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from volumetric_wall_2d import (  # noqa: E402
    law_channel,
    parse_turn,
    plane_profile,
    report_plane,
    spalding_u_tau,
)

from solver.lattice import C, W  # noqa: E402
from solver.surfels import cut_into_cells  # noqa: E402
from solver.volumetric_geometry import fluid_volume, swept_parcels  # noqa: E402

OPP = np.array([int(np.flatnonzero((C == -c).all(axis=1))[0]) for c in C])
ZICK_HOMSY = {0.027: 2.008, 0.064: 2.810, 0.125: 4.292, 0.216: 7.442}  # simple cubic, Table 2
EPS = 1e-12

Face = np.ndarray  # (k, 3) vertices of a planar convex polygon, in order
Polyhedron = list[Face]


def equilibrium(rho: np.ndarray, u: np.ndarray) -> np.ndarray:
    """D3Q19 second-order equilibrium; rho (nx, ny, nz), u (3, nx, ny, nz)."""
    cu = np.tensordot(C.astype(float), u, axes=(1, 0))
    usq = (u * u).sum(axis=0)
    return W[:, None, None, None] * rho * (1 + 3 * cu + 4.5 * cu * cu - 1.5 * usq)


def clip(poly: Polyhedron, normal: np.ndarray, offset: float) -> Polyhedron:
    """The part of a convex polyhedron where normal . x <= offset, with its cap on the plane."""
    sides = [face @ normal - offset for face in poly]
    for s in sides:
        s[np.abs(s) < EPS] = 0.0
    if all((s <= 0).all() for s in sides):
        return poly  # nothing beyond the plane (a face lying on it is already a face)
    if all((s >= 0).all() for s in sides):
        return []
    out: Polyhedron = []
    cap: list[np.ndarray] = []
    for face, s in zip(poly, sides, strict=True):
        if (s <= 0).all():
            out.append(face)
            cap.extend(face[s == 0])
            continue
        kept = []
        for k in range(len(face)):
            p, q, sp, sq = face[k], face[(k + 1) % len(face)], s[k], s[(k + 1) % len(face)]
            if sp <= 0:
                kept.append(p)
                if sp == 0:
                    cap.append(p)
            if sp * sq < 0:
                x = p + (q - p) * (sp / (sp - sq))
                kept.append(x)
                cap.append(x)
        if len(kept) >= 3:
            out.append(np.array(kept))
    if len(cap) >= 3:
        pts = np.unique(np.round(np.array(cap), 11), axis=0)
        if len(pts) >= 3:
            centre = pts.mean(axis=0)
            e1 = np.cross(normal, [1.0, 0, 0] if abs(normal[0]) < 0.9 else [0, 1.0, 0])
            e1 /= np.linalg.norm(e1)
            e2 = np.cross(normal, e1)
            angle = np.arctan2((pts - centre) @ e2, (pts - centre) @ e1)
            out.append(pts[np.argsort(angle)])
    return out


def volume(poly: Polyhedron) -> float:
    """Volume of a convex polyhedron: pyramids from its vertices' mean, each face's area by
    Newell's formula (so the faces' orientation does not matter)."""
    if len(poly) < 4:
        return 0.0
    centre = np.concatenate(poly).mean(axis=0)
    total = 0.0
    for face in poly:
        n = 0.5 * np.cross(face, np.roll(face, -1, axis=0)).sum(axis=0)
        a = np.linalg.norm(n)
        if a > EPS:
            total += a * abs((n / a) @ (face[0] - centre)) / 3
    return total


def cell_pieces(poly: Polyhedron) -> list[tuple[int, int, int, Polyhedron]]:
    """(i, j, k, piece) of a convex polyhedron cut by each unit cell it overlaps (unwrapped),
    clipped slab by slab along x, then y, then z."""
    pts = np.concatenate(poly)
    lo, hi = np.floor(pts.min(axis=0) + EPS).astype(int), np.ceil(pts.max(axis=0) - EPS).astype(int)
    axes = np.eye(3)
    out = []
    for i in range(lo[0], hi[0]):
        px = clip(clip(poly, axes[0], i + 1), -axes[0], -i)
        if len(px) < 4:
            continue
        for j in range(lo[1], hi[1]):
            py = clip(clip(px, axes[1], j + 1), -axes[1], -j)
            if len(py) < 4:
                continue
            for k in range(lo[2], hi[2]):
                pz = clip(clip(py, axes[2], k + 1), -axes[2], -k)
                if len(pz) >= 4 and volume(pz) > 1e-13:
                    out.append((i, j, k, pz))
    return out


def cell_overlaps(poly: Polyhedron) -> list[tuple[int, int, int, float]]:
    """(i, j, k, volume) of a convex polyhedron's overlap with each unit cell."""
    return [(i, j, k, volume(piece)) for i, j, k, piece in cell_pieces(poly)]


def icosphere(centre: np.ndarray, radius: float, edge: float) -> np.ndarray:
    """Triangles (n, 3, 3) of an icosahedron whose faces are each cut into f^2 and projected onto
    the sphere, f chosen for edges of about `edge`; outward-ordered (counter-clockwise seen from
    outside)."""
    t = (1 + 5**0.5) / 2
    v = np.array(
        [[-1, t, 0], [1, t, 0], [-1, -t, 0], [1, -t, 0], [0, -1, t], [0, 1, t]]
        + [[0, -1, -t], [0, 1, -t], [t, 0, -1], [t, 0, 1], [-t, 0, -1], [-t, 0, 1]],
        float,
    )
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    faces = [[0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11], [1, 5, 9], [5, 11, 4]]
    faces += [[11, 10, 2], [10, 7, 6], [7, 1, 8], [3, 9, 4], [3, 4, 2], [3, 2, 6], [3, 6, 8]]
    faces += [[3, 8, 9], [4, 9, 5], [2, 4, 11], [6, 2, 10], [8, 6, 7], [9, 8, 1]]
    f = max(1, int(np.ceil(1.05 * radius / edge)))
    tris = []
    for ia, ib, ic in faces:
        a, b, c = v[ia], v[ib], v[ic]

        def point(i: int, j: int, a=a, b=b, c=c) -> np.ndarray:
            p = a + (b - a) * i / f + (c - a) * j / f
            return centre + radius * p / np.linalg.norm(p)

        for i in range(f):
            for j in range(f - i):
                tris.append([point(i, j), point(i + 1, j), point(i, j + 1)])
                if i + j < f - 1:
                    tris.append([point(i + 1, j), point(i + 1, j + 1), point(i, j + 1)])
    tris = np.array(tris)
    n = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
    flip = (n * (tris.mean(axis=1) - centre)).sum(axis=1) < 0
    tris[flip] = tris[flip][:, ::-1]
    return tris


class SphereBody:
    """A sphere as an icosphere whose polyhedron (the solid) has the sphere's volume."""

    def __init__(self, shape: tuple[int, int, int], centre: np.ndarray, radius: float) -> None:
        self.shape, self.centre = shape, centre
        unit = icosphere(np.zeros(3), 1.0, edge=1.0 / radius)
        inscribed = abs(np.einsum("ij,ij->i", unit[:, 0], np.cross(unit[:, 1], unit[:, 2]))).sum()
        scale = radius * (4 * np.pi / 3 / (inscribed / 6)) ** (1 / 3)
        self.triangles = centre + scale * unit
        a, b, c = self.triangles[:, 0], self.triangles[:, 1], self.triangles[:, 2]
        self.volume = abs(np.einsum("ij,ij->i", a - centre, np.cross(b - centre, c - centre))).sum()
        self.volume /= 6
        n = np.cross(b - a, c - a)
        self.planes = n / np.linalg.norm(n, axis=1, keepdims=True)
        self.offsets = np.einsum("ij,ij->i", self.planes, a)

    def radius_out(self) -> float:
        return float(np.linalg.norm(self.triangles[0, 0] - self.centre))

    def outward(self, point: np.ndarray) -> np.ndarray:
        out = point - self.centre
        return out / np.linalg.norm(out)


class SlabBody:
    """A slab periodic in a box, its faces planes containing the x axis and turned about it by
    atan(A/B): the box is (2, size B, size A) (A = 0: (2, 4, size)); a quarter of the period
    across the planes is solid. Each face is cut into triangles with sides of about a cell."""

    def __init__(self, a: int, b: int, size: int) -> None:
        self.shape = (2, size * b, size * a) if a else (2, 4, size)
        run = np.array([0.0, self.shape[1], self.shape[2] if a else 0.0])
        self.run = run
        self.along = run / np.linalg.norm(run)
        self.normal = np.cross([1.0, 0, 0], self.along)  # out of the slab's upper face
        self.period = size * a * b / np.hypot(a, b) if a else float(size)
        self.thickness = self.period / 4
        self.gap = self.period - self.thickness
        self.origin = np.array([0.0, 0.3, 0.45])
        ex = np.array([float(self.shape[0]), 0, 0])
        m_r = int(np.ceil(np.linalg.norm(run) / 1.0))
        tris = []
        for face_origin, outward in (
            (self.origin, -self.normal),
            (self.origin + self.thickness * self.normal, self.normal),
        ):
            for r in range(m_r):
                for half in range(2):  # two cells' width along x, one triangle pair each
                    p = face_origin + run * r / m_r + ex * half / 2
                    dr, dx = run / m_r, ex / 2
                    for tri in ([p, p + dr, p + dr + dx], [p, p + dr + dx, p + dx]):
                        tri = np.array(tri)
                        if np.cross(tri[1] - tri[0], tri[2] - tri[0]) @ outward < 0:
                            tri = tri[::-1]
                        tris.append(tri)
        self.triangles = np.array(tris)

    def solid_overlaps(self) -> list[tuple[int, int, int, float]]:
        o, t = self.origin, self.thickness * self.normal
        ex = np.array([float(self.shape[0]), 0, 0])
        corners = [
            o + a * ex + b * self.run + c * t for a in (0, 1) for b in (0, 1) for c in (0, 1)
        ]
        return cell_overlaps(hexahedron(corners))

    def outward(self, point: np.ndarray) -> np.ndarray:
        across = np.mod((point - self.origin) @ self.normal, self.period)
        upper = self.thickness / 2 < across < self.thickness + self.gap / 2
        return self.normal if upper else -self.normal

    def distance(self, points: np.ndarray) -> np.ndarray:
        """Distance from the nearer face into the gap (negative in the slab), points (..., 3)."""
        across = np.mod((points - self.origin) @ self.normal, self.period)
        inside = across < self.thickness
        return np.where(
            inside,
            -np.minimum(across, self.thickness - across),
            np.minimum(across - self.thickness, self.period - across),
        )


def hexahedron(c: list[np.ndarray]) -> Polyhedron:
    """The six faces of a hexahedron whose corner 4a + 2b + d lies at offsets (a, b, d)."""
    return [
        np.array([c[0], c[2], c[3], c[1]]),
        np.array([c[4], c[5], c[7], c[6]]),
        np.array([c[0], c[1], c[5], c[4]]),
        np.array([c[2], c[6], c[7], c[3]]),
        np.array([c[0], c[4], c[6], c[2]]),
        np.array([c[1], c[3], c[7], c[5]]),
    ]


class VolumetricWall:
    """The elements' gather and scatter over the cells, and each cell's fluid volume."""

    def __init__(self, body: SphereBody | SlabBody, merge_below: float, slip: bool) -> None:
        shape = body.shape
        self.shape, self.slip = shape, slip
        surfels = cut_into_cells(body.triangles)
        if isinstance(body, SphereBody):
            self.volume = fluid_volume(surfels, shape[::-1]).transpose(2, 1, 0)
        else:
            solid = np.zeros(shape)
            for i, j, k, v in body.solid_overlaps():
                solid[i % shape[0], j % shape[1], k % shape[2]] += v
            self.volume = np.clip(1.0 - solid, 0.0, 1.0)
        self.volume[self.volume < 1e-9] = 0.0  # slivers left by rounding in the clipping
        tris = body.triangles
        n_el = len(tris)
        normal = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
        self.area = 0.5 * np.linalg.norm(normal, axis=1)
        self.normal = normal / (2 * self.area[:, None])
        t1 = np.cross(self.normal, [1.0, 0, 0])
        small = np.linalg.norm(t1, axis=1) < 0.5
        t1[small] = np.cross(self.normal[small], [0, 1.0, 0])
        self.t1 = t1 / np.linalg.norm(t1, axis=1, keepdims=True)
        self.t2 = np.cross(self.normal, self.t1)
        self.centre = tris.mean(axis=1)
        # each triangle one element: its surfels' parcels, exact (solver/volumetric_geometry.py)
        parcels = swept_parcels(surfels, element=surfels.triangle)
        cell = np.ravel_multi_index(tuple((parcels.cell % np.array(shape)).T), shape)
        inc, out = ~parcels.outgoing, parcels.outgoing
        self.in_el, self.in_q = parcels.element[inc], parcels.q[inc]
        self.in_cell, self.in_vol = cell[inc], parcels.volume[inc]
        self.out_el, self.out_q = parcels.element[out], parcels.q[out]
        self.out_cell, self.out_vol = cell[out], parcels.volume[out]
        ijk = np.array(np.unravel_index(self.in_cell, shape))
        dest = (ijk + C[self.in_q].T) % np.array(shape)[:, None]
        self.in_dest = np.ravel_multi_index(tuple(dest), shape)
        cn = C @ self.normal.T  # (19, elements)
        self.swept = self.area[None, :] * np.abs(cn)
        outgoing = cn > 1e-12
        self.outgoing = outgoing
        c1, c2 = C @ self.t1.T, C @ self.t2.T
        self.c1, self.c2 = c1, c2
        weight = W[:, None] * self.swept * outgoing
        # free slip: w A|c.n| (c.t_k) B_k with the 2 x 2 matrix of the tangents
        self.slip_basis = np.stack([c1, c2]) * weight  # (2, 19, elements)
        self.slip_matrix = np.einsum(
            "aqe,bqe,qe->eab", np.stack([c1, c2]), np.stack([c1, c2]), weight
        )
        # the law's force: no mass, no normal momentum (4 x 4 Gram of 1, c.t1, c.t2, c.n)
        basis = np.stack([np.ones_like(cn), c1, c2, cn])
        gram = np.einsum("aqe,bqe,qe->eab", basis, basis, weight)
        inv = np.linalg.pinv(gram)
        self.stress_shape = np.stack(
            [np.einsum("ea,aqe->qe", inv[:, :, k], basis) * weight for k in (1, 2)]
        )  # (2, 19, elements): takes unit momentum along t1, t2
        self.stress = np.zeros((n_el, 3))  # the law's force on each element, lattice units
        self.n_el = n_el
        # cut cells under merge_below share a state with the cell one step out along the normal
        group = np.arange(int(np.prod(shape)))
        if merge_below > 0:
            for flat in np.flatnonzero((self.volume > 0) & (self.volume < merge_below)):
                p = np.array(np.unravel_index(flat, shape)) + 0.5
                out = body.outward(p)
                step = 1
                while True:
                    target = tuple((np.floor(p + step * out).astype(int)) % np.array(shape))
                    if self.volume[target] >= merge_below:
                        break
                    step += 1
                group[flat] = np.ravel_multi_index(target, shape)
        self.group = group
        self.merged = merge_below > 0

    def stream(self, f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """One streaming step of post-collision densities f (19, nx, ny, nz); returns the new f and
        the momentum the body took this step (lattice units)."""
        mass = f * self.volume
        moved = np.stack([np.roll(mass[q], shift=tuple(C[q]), axis=(0, 1, 2)) for q in range(19)])
        flat_f, flat_moved = f.reshape(19, -1), moved.reshape(19, -1)
        taken = flat_f[self.in_q, self.in_cell] * self.in_vol
        np.subtract.at(flat_moved, (self.in_q, self.in_dest), taken)
        gamma_in = np.zeros((19, self.n_el))
        np.add.at(gamma_in, (self.in_q, self.in_el), taken)
        gamma_out = gamma_in[OPP] * self.outgoing
        if self.slip:
            p_t = np.stack([(gamma_in * self.c1).sum(axis=0), (gamma_in * self.c2).sum(axis=0)])
            b = np.linalg.solve(self.slip_matrix, 2 * p_t.T[..., None])[..., 0]  # (elements, 2)
            gamma_out += np.einsum("kqe,ek->qe", self.slip_basis, b)
            f_t = np.stack(
                [(self.stress * self.t1).sum(axis=1), (self.stress * self.t2).sum(axis=1)]
            )
            gamma_out -= np.einsum("kqe,ke->qe", self.stress_shape, f_t)
        density_out = np.divide(
            gamma_out, self.swept, out=np.zeros_like(gamma_out), where=self.swept > 0
        )
        np.add.at(
            flat_moved,
            (self.out_q, self.out_cell),
            density_out[self.out_q, self.out_el] * self.out_vol,
        )
        force = C.T @ (gamma_in - gamma_out).sum(axis=1)
        vol = self.volume.reshape(-1)
        if self.merged:
            total_v = np.bincount(self.group, weights=vol, minlength=vol.size)
            for q in range(19):
                total = np.bincount(self.group, weights=flat_moved[q], minlength=vol.size)
                flat_moved[q] = total[self.group]
            vol_used = total_v[self.group]
        else:
            vol_used = vol
        f_new = np.divide(flat_moved, vol_used, out=np.zeros_like(flat_moved), where=vol_used > 0)
        return f_new.reshape(f.shape), force


def stokes_array(
    fraction: float,
    box: int,
    steps: int,
    tau: float = 1.0,
    make_wall: Callable[[SphereBody], Any] | None = None,
) -> dict:
    """No slip: Stokes flow through a simple cubic array of spheres (a periodic box of `box`
    cells, BGK at tau, driven by a body force g along x), K = F / (6 pi mu a U) against Zick &
    Homsy, F the drive over the whole box (the mean pressure gradient times the box's volume), U
    the mean velocity over the whole box, a the sphere's radius (the mesh has its volume).
    make_wall: another volumetric wall (volumetric_routing_3d.py), by default this one's."""
    radius = box * (3 * fraction / (4 * np.pi)) ** (1 / 3)
    centre = np.array([box / 2 + 0.3, box / 2 + 0.1, box / 2 - 0.2])
    body = SphereBody((box, box, box), centre, radius)
    t0 = time.time()
    if make_wall is not None:
        wall = make_wall(body)
    else:
        wall = VolumetricWall(body, merge_below=0.0, slip=False)
    setup = time.time() - t0
    fluid = wall.volume > 0
    g = 1e-6
    f = equilibrium(np.ones(wall.shape), np.zeros((3, *wall.shape))) * fluid[None]
    push = 3 * W[:, None, None, None] * C[:, 0, None, None, None] * g
    drag = []
    for _ in range(steps):
        rho = f.sum(axis=0)
        safe = np.where(fluid, rho, 1.0)
        u = np.tensordot(C.T.astype(float), f, axes=(1, 0)) / safe
        f = f - (f - equilibrium(rho, u)) / tau + push * rho[None]
        f *= fluid[None]
        f, force = wall.stream(f)
        drag.append(force[0])
    rho = f.sum(axis=0)
    momentum = (np.tensordot(C[:, 0].astype(float), f, axes=(0, 0)) + 0.5 * g * rho) * wall.volume
    u_mean = momentum.sum() / box**3
    rho_fluid = (rho * wall.volume).sum() / wall.volume.sum()
    nu = (tau - 0.5) / 3
    a_eff = (3 * body.volume / (4 * np.pi)) ** (1 / 3)
    k = g * rho_fluid * box**3 / (6 * np.pi * nu * rho_fluid * a_eff * u_mean)
    drive = g * (rho * wall.volume).sum()
    ref = ZICK_HOMSY[fraction]
    return {
        "fraction": fraction,
        "tau": tau,
        "box": box,
        "radius_cells": round(float(radius), 3),
        "elements": wall.n_el,
        "K": float(k),
        "zick_homsy": ref,
        "error": float(k / ref - 1),
        "exchange_over_drive": float(np.mean(drag[-100:]) / drive),
        "setup_s": round(setup, 1),
        "seconds": round(time.time() - t0, 1),
    }


def turned_plane(
    turn: tuple[int, int],
    size: int,
    steps: int,
    average: int,
    y_input: float,
    re_lattice: float,
    merge_below: float,
) -> dict:
    """volumetric_wall_2d.turned_plane in three dimensions: planes containing the flow's axis x,
    turned about it; first one free-slip step from a uniform flow along x (the largest change of
    a population, which must be round-off), then the driven laminar run with the law's stress."""
    slab = SlabBody(turn[0], turn[1], size)
    t0 = time.time()
    wall = VolumetricWall(slab, merge_below, slip=True)
    setup = time.time() - t0
    shape = wall.shape
    fluid = wall.volume > 0
    u_uniform = np.zeros((3, *shape))
    u_uniform[0] = 0.05
    f0 = equilibrium(np.ones(shape), u_uniform) * fluid[None]
    f1, _ = wall.stream(f0)
    uniform_change = float(np.abs(f1 - f0)[:, fluid].max())
    h = slab.gap / 2
    u_tau, g, nu, nu_law, u_in = law_channel(h, y_input, re_lattice)
    tau = 0.5 + 3 * nu

    def parabola(y: np.ndarray) -> np.ndarray:
        return u_in + g / nu * (h * y - y**2 / 2 - h * y_input + y_input**2 / 2)

    grid = np.stack(np.meshgrid(*(np.arange(n) + 0.5 for n in shape), indexing="ij"), axis=-1)
    sub = (np.arange(6) + 0.5) / 6 - 0.5
    offsets = np.stack(np.meshgrid(sub, sub, indexing="ij"), axis=-1).reshape(-1, 2)
    d_sub = np.stack(
        [slab.distance(grid + np.array([0.0, oy, oz])) for oy, oz in offsets], axis=-1
    )  # the cell's fluid part across the planes (they contain x, so x does not matter)
    in_gap = d_sub > 0
    exact = np.where(in_gap, parabola(np.minimum(d_sub, slab.gap - d_sub)), 0).sum(axis=-1)
    exact /= np.maximum(in_gap.sum(axis=-1), 1)
    dist = slab.distance(grid)
    yy = np.clip(np.minimum(dist, slab.gap - dist), 0, None)
    u0 = np.zeros((3, *shape))
    u0[0] = exact
    f = equilibrium(np.ones(shape), u0) * fluid[None]
    push = 3 * W[:, None, None, None] * C[:, 0, None, None, None] * g
    probe = wall.centre + y_input * wall.normal
    corner = np.floor(probe - 0.5).astype(int)
    frac = probe - 0.5 - corner
    sums = np.zeros((2, *shape))
    exchange, drive = np.zeros(2), np.zeros(2)
    for step in range(steps):
        rho = f.sum(axis=0)
        safe = np.where(fluid, rho, 1.0)
        j = np.tensordot(C.T.astype(float), f, axes=(1, 0))
        u = j / safe
        u[0] += 0.5 * g * rho / safe
        # the input: trilinear over the 8 cells round each element's probe point
        u_probe = np.zeros((wall.n_el, 3))
        rho_probe = np.zeros(wall.n_el)
        for dx in (0, 1):
            for dy in (0, 1):
                for dz in (0, 1):
                    wgt = (
                        (frac[:, 0] if dx else 1 - frac[:, 0])
                        * (frac[:, 1] if dy else 1 - frac[:, 1])
                        * (frac[:, 2] if dz else 1 - frac[:, 2])
                    )
                    idx = tuple((corner + [dx, dy, dz]).T % np.array(shape)[:, None])
                    u_probe += wgt[:, None] * u[(slice(None), *idx)].T
                    rho_probe += wgt * np.where(fluid, rho, 1.0)[idx]
        u_t = u_probe - (u_probe * wall.normal).sum(axis=1, keepdims=True) * wall.normal
        speed = np.linalg.norm(u_t, axis=1)
        u_tau_el = spalding_u_tau(speed, y_input, nu_law)
        direction = u_t / np.maximum(speed, 1e-300)[:, None]
        wall.stress = (rho_probe * u_tau_el**2 * wall.area)[:, None] * direction
        window = step >= steps - average
        half = int(step >= steps - average // 2)
        if window:
            sums[0] += u[0]
            sums[1] += rho
        f = f - (f - equilibrium(rho, j / safe)) / tau + push * rho[None]
        f *= fluid[None]
        f, force = wall.stream(f)
        if window:
            exchange[half] += force[0]
            drive[half] += g * (rho * wall.volume).sum()
        if not np.isfinite(f).all():
            raise SystemExit(f"turned plane {turn}: diverged at step {step}")
    u_mean = sums[0] / average
    bulk = (u_mean * wall.volume).sum() / wall.volume.sum()
    bulk_exact = u_in + g / nu * (h * h / 3 - h * y_input + y_input**2 / 2)
    profile = plane_profile(u_mean / u_tau, exact / u_tau, fluid, np.where(dist < 0, dist, yy))
    return {
        "turn": f"{turn[0]}:{turn[1]}",
        "angle_deg": round(float(np.degrees(np.arctan2(turn[0], turn[1]))), 2),
        "box": list(shape),
        "elements": wall.n_el,
        "half_gap_cells": round(float(h), 3),
        "merge_below": merge_below,
        "uniform_flow_change": uniform_change,
        "tau": tau,
        "steps": steps,
        "bulk_over_u_tau": float(bulk / u_tau),
        "bulk_exact_over_u_tau": float(bulk_exact / u_tau),
        "bulk_error": float(bulk / bulk_exact - 1),
        "wall_share_of_drive_halves": [float(v) for v in exchange / np.maximum(drive, 1e-300)],
        "profile_u_plus_measured_exact": profile,
        "setup_s": round(setup, 1),
        "seconds": round(time.time() - t0, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stokes", action="store_true", help="no slip: cubic arrays of spheres")
    ap.add_argument("--box", type=int, default=32, help="--stokes: the periodic box, cells")
    ap.add_argument(
        "--fractions", nargs="+", type=float, default=sorted(ZICK_HOMSY), help="--stokes: c"
    )
    ap.add_argument("--plane", nargs="+", metavar="A:B", help="the law's stress on turned planes")
    ap.add_argument("--size", type=int, default=40, help="--plane: the box is (2, size B, size A)")
    ap.add_argument("--steps", type=int, default=4000)
    ap.add_argument("--average", type=int, default=1000)
    ap.add_argument("--y-input", type=float, default=2.5, help="--plane: input height, cells")
    ap.add_argument("--re-lattice", type=float, default=10.0, help="--plane: u_tau h / nu")
    ap.add_argument(
        "--merge", type=float, default=0.0, metavar="V", help="merge cut cells under V of fluid"
    )
    args = ap.parse_args()
    problem = (
        "give --stokes or --plane A:B"
        if not args.stokes and not args.plane
        else "--plane takes turns A:B, whole numbers A >= 0 and B >= 1 (e.g. 0:1 1:2 1:1)"
        if args.plane and any(parse_turn(text) is None for text in args.plane)
        else f"--fractions takes values of Zick & Homsy's table: {sorted(ZICK_HOMSY)}"
        if any(c not in ZICK_HOMSY for c in args.fractions)
        else "--box must be at least 12 cells"
        if args.box < 12
        else "--size must be at least 8 cells"
        if args.size < 8
        else "--average must be between 1 and --steps"
        if not 0 < args.average <= args.steps
        else "--y-input must be at least 1.5 cells (the input's eight cells then lie in the fluid)"
        if args.y_input < 1.5
        else "--re-lattice must be positive"
        if args.re_lattice <= 0
        else "--merge must lie in [0, 1)"
        if not 0 <= args.merge < 1
        else ""
    )
    if problem:
        print(f"volumetric_wall_3d: {problem}", file=sys.stderr)
        raise SystemExit(2)
    rows = []
    if args.stokes:
        for c in args.fractions:
            r = stokes_array(c, args.box, args.steps)
            rows.append(r)
            print(
                f"fraction {c}, radius {r['radius_cells']} cells, {r['elements']} elements: K"
                f" {r['K']:.3f} against {r['zick_homsy']} ({100 * r['error']:+.1f}%), exchange /"
                f" drive {r['exchange_over_drive']:.4f}; {r['seconds']} s"
            )
    for text in args.plane or []:
        r = turned_plane(
            parse_turn(text),
            args.size,
            args.steps,
            args.average,
            args.y_input,
            args.re_lattice,
            args.merge,
        )
        rows.append(r)
        report_plane(
            r,
            f", {r['elements']} elements; a uniform flow along the planes changes by"
            f" {r['uniform_flow_change']:.1e} in a free-slip step",
        )
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
