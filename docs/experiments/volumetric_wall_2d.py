#!/usr/bin/env python3
"""An experiment, not part of the solver: which boundary rule keeps the total pressure of the cells
next to a curved free-slip wall, where a staircase of voxel faces loses it?

A standalone NumPy D2Q9 BGK model (float64) of a circular cylinder in a periodic box, with free-
slip walls (no wall stress, the limit a wall model approaches at a car's Reynolds number, where
the boundary layer is far thinner than a cell), under three rules:

- ``staircase``: the cylinder as the cells whose centres lie inside it, and half-way specular
  reflection about the voxel faces (a link across one face is mirrored about that face, into a
  concave corner bounced back, past a convex corner the mean of the two mirrors): the free-slip
  limit of the solver's face rule.
- ``interpolated``: the same cells, their links to the body by interpolated bounce-back about the
  true surface (Bouzidi, Firdaouss & Lallemand 2001) with the moving-wall term of the cell's own
  velocity tangential to the surface there: for a uniform tangential flow the links bring what a
  fluid neighbour in the cell's state would, at any angle to the grid.
- ``interpolated-mass``: ``interpolated`` with the mass kept: what each cell's links bring
  beyond what it sent them (the interpolation's defect and the moving-wall term's mass) is taken
  back by weight, mass without momentum, in the same step: from the cell itself, or with
  ``--mass-radius R`` spread evenly over the linked cells within R cells of it (centre to
  centre), so the wall's cells may pass mass to one another but the wall as a whole neither
  gains nor loses any.
- ``volumetric``: the cylinder as a polygon of surface elements; after Chen, Teixeira & Molvig
  (1998, Int. J. Mod. Phys. C 9, 1281), each element gathers from the cells the particles of each
  direction c that reach it within a step, those in the parallelogram its segment sweeps along
  -c (exact polygon overlaps with the cells), and sends its outgoing particles into the
  parallelograms it sweeps along +c. Cells cut by the surface hold their fluid area V; a cell's
  populations are densities, mass V f. Every cell with fluid in it is a fluid cell, so there is
  no staircase. The element's rule: bounce-back (mass and the normal momentum exact at any angle)
  plus 3 w_j A |c_j.n| B (c_j.t) on its outgoing directions, B such that the outgoing tangential
  momentum equals the incoming (free slip). This adds no mass, since sum_{c.n>0} w (c.n)(c.t) = 0
  on the lattice, and a uniform flow along a plane element at any angle leaves it unchanged.

Over the front of an inviscid cylinder every cell keeps the free stream's total pressure,
Cp_t = (p - p_ref) / (rho U^2 / 2) + |u|^2 / U^2 = 1 (reference: the mean over an upstream band),
and a free-slip cylinder's drag vanishes as the viscosity does: to leading order in 1/Re it is the
potential flow's dissipation over U, Cd = 16 pi / Re_D alone (Levich's argument for a bubble),
times 1.047 in this box's periodic row (`free_slip_drag`), which the run prints beside its Cd
and the Cd of each half of the averaging window. The run starts from the potential
flow with Bernoulli's pressure; a sponge over the three diameters before the periodic wrap relaxes
to the free stream and takes the wake and the sound out. The table gives the mean Cp_t of the
time-averaged fields by the cell centre's distance from the true surface (cells; negative: a cut
cell whose centre lies inside the body) and by angle from the front stagnation point, both
halves, and Cd from the momentum the walls exchange; for the interpolated rules also the wall's
net mass into the fluid over the run per 15 degrees from the front (both halves), over U; it ends
with one JSON line.

    python docs/experiments/volumetric_wall_2d.py [--radius 20] [--steps 4000] [--average 1000]
        [--tau 0.55] [--rules staircase interpolated interpolated-mass volumetric] [--merge V]
        [--mass-radius R]
    python docs/experiments/volumetric_wall_2d.py --stokes BOX [--steps N] [--stokes-tau 1]
        [--collision bgk | regularized | trt] [--rules ...]
    python docs/experiments/volumetric_wall_2d.py --poiseuille OFFSET [...] [--size 40]
        [--taus 0.6 1.0 1.5] [--collision bgk | regularized | trt]
    python docs/experiments/volumetric_wall_2d.py --plane A:B [A:B ...] [--size 40]
        [--steps N] [--average N] [--y-input 2.5] [--re-lattice 10]

--stokes checks the three rules' no-slip forms against Sangani & Acrivos's Stokes flow through
square arrays of cylinders instead.

--poiseuille runs plane Poiseuille flow between aligned volumetric no-slip walls placed OFFSET into
their cells, and prints the flow rate's error and the wall shift it implies.

--plane gives the volumetric wall the law of the wall's stress (each element takes rho u_tau^2 of
tangential force, u_tau from Spalding's law at the velocity --y-input cells out along its normal,
in a shape that moves neither mass nor normal momentum) on planes at atan(A/B) to the grid: a
laminar channel between the faces of a periodic slab, driven by a body force, whose steady state
is known exactly (`turned_plane`); it prints the bulk velocity and the profile against it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

C = np.array([[0, 0], [1, 0], [0, 1], [-1, 0], [0, -1], [1, 1], [-1, 1], [-1, -1], [1, -1]])
W = np.array([4 / 9] + [1 / 9] * 4 + [1 / 36] * 4)
OPP = np.array([0, 3, 4, 1, 2, 7, 8, 5, 6])
DIRECTION = {tuple(c): q for q, c in enumerate(C)}


def equilibrium(rho: np.ndarray, ux: np.ndarray, uy: np.ndarray) -> np.ndarray:
    """D2Q9 second-order equilibrium, shape (9, nx, ny)."""
    cu = C[:, 0, None, None] * ux + C[:, 1, None, None] * uy
    usq = ux * ux + uy * uy
    return W[:, None, None] * rho * (1 + 3 * cu + 4.5 * cu * cu - 1.5 * usq)


def clip(poly: list[np.ndarray], normal: np.ndarray, offset: float) -> list[np.ndarray]:
    """Sutherland-Hodgman: the part of a convex polygon where normal . x <= offset."""
    out = []
    for k, p in enumerate(poly):
        q = poly[(k + 1) % len(poly)]
        sp, sq = normal @ p - offset, normal @ q - offset
        if sp <= 0:
            out.append(p)
        if sp * sq < 0:
            out.append(p + (q - p) * (sp / (sp - sq)))
    return out


def area(poly: list[np.ndarray]) -> float:
    if len(poly) < 3:
        return 0.0
    x = np.array([p[0] for p in poly])
    y = np.array([p[1] for p in poly])
    return 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def cell_pieces(poly: list[np.ndarray]) -> list[tuple[int, int, list[np.ndarray]]]:
    """(i, j, piece) of a convex polygon cut by each unit cell [i, i+1] x [j, j+1] it overlaps."""
    pts = np.array(poly)
    out = []
    for i in range(int(np.floor(pts[:, 0].min())), int(np.ceil(pts[:, 0].max()))):
        for j in range(int(np.floor(pts[:, 1].min())), int(np.ceil(pts[:, 1].max()))):
            piece = poly
            for normal, offset in (
                ((-1.0, 0.0), -i),
                ((1.0, 0.0), i + 1),
                ((0.0, -1.0), -j),
                ((0.0, 1.0), j + 1),
            ):
                piece = clip(piece, np.array(normal), offset)
                if not piece:
                    break
            if area(piece) > 1e-13:
                out.append((i, j, piece))
    return out


def cell_overlaps(poly: list[np.ndarray]) -> list[tuple[int, int, float]]:
    """(i, j, area) of a convex polygon's overlap with each unit cell [i, i+1] x [j, j+1]."""
    return [(i, j, area(piece)) for i, j, piece in cell_pieces(poly)]


@dataclass
class Cylinder:
    """A cylinder of `radius` cells about `centre` in a periodic nx x ny box, as a polygon of
    `segments` sides inscribed in the circle (the volumetric rule's surface elements)."""

    nx: int
    ny: int
    centre: np.ndarray
    radius: float
    segments: int

    def polygon(self) -> list[np.ndarray]:
        phi = np.linspace(0, 2 * np.pi, self.segments, endpoint=False)
        return [self.centre + self.radius * np.array([np.cos(a), np.sin(a)]) for a in phi]

    def solid(self) -> list[np.ndarray]:
        return self.polygon()

    def outward(self, point: np.ndarray) -> np.ndarray:
        """The unit normal of the nearer surface, out of the body, at a point."""
        out = point - self.centre
        return out / np.linalg.norm(out)

    def elements(self) -> list[tuple[np.ndarray, np.ndarray]]:
        poly = self.polygon()
        return [(p, poly[(k + 1) % len(poly)]) for k, p in enumerate(poly)]


@dataclass
class Slab:
    """A solid slab in a periodic nx x ny box, its faces planes along (B, A) / |(B, A)|, at
    atan(A/B) to the x axis: the box holds (nx, ny) = (size B, size A) (A = 0: (4, size)), so the
    planes are periodic, a period of `period` cells across them; the slab takes a quarter of it and
    the fluid gap between its faces the rest. Each face is cut into elements of about 0.8 cells."""

    a: int
    b: int
    size: int

    def __post_init__(self) -> None:
        self.nx, self.ny = (self.size * self.b, self.size * self.a) if self.a else (4, self.size)
        run = np.array([self.nx, self.ny if self.a else 0], float)  # one period along the planes
        self.along = run / np.linalg.norm(run)
        self.normal = np.array([-self.along[1], self.along[0]])  # out of the slab's upper face
        self.period = (
            self.size * self.a * self.b / np.hypot(self.a, self.b) if self.a else float(self.size)
        )
        self.thickness = self.period / 4
        self.gap = self.period - self.thickness
        self.origin = np.array([0.3, 0.45])  # on the slab's lower face
        self.run = run

    def solid(self) -> list[np.ndarray]:
        o, r, t = self.origin, self.run, self.thickness * self.normal
        return [o, o + r, o + r + t, o + t]

    def elements(self) -> list[tuple[np.ndarray, np.ndarray]]:
        o, r, t = self.origin, self.run, self.thickness * self.normal
        count = int(np.ceil(np.linalg.norm(r) / 0.8))
        cuts = [k / count for k in range(count + 1)]
        # an element's outward normal lies to the right of its run from p0 to p1
        lower = [(o + r * cuts[k], o + r * cuts[k + 1]) for k in range(count)]
        upper = [(o + t + r * cuts[k + 1], o + t + r * cuts[k]) for k in range(count)]
        return lower + upper

    def outward(self, point: np.ndarray) -> np.ndarray:
        """The unit normal of the nearer face, out of the slab, at a point."""
        across = np.mod((point - self.origin) @ self.normal, self.period)
        upper = self.thickness / 2 < across < self.thickness + self.gap / 2
        return self.normal if upper else -self.normal

    def distance(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Distance of points from the nearer face, measured into the fluid gap (negative in
        the slab)."""
        across = (x - self.origin[0]) * self.normal[0] + (y - self.origin[1]) * self.normal[1]
        across = np.mod(across, self.period)
        inside = across < self.thickness
        return np.where(
            inside,
            -np.minimum(across, self.thickness - across),
            np.minimum(across - self.thickness, self.period - across),
        )


class Volumetric:
    """The surface elements' gather and scatter, and each cell's fluid area."""

    def __init__(
        self,
        body: Cylinder | Slab,
        merge_below: float = 0.0,
        slip: bool = True,
    ) -> None:
        nx, ny = body.nx, body.ny
        self.slip = slip
        solid = np.zeros((nx, ny))
        for i, j, a in cell_overlaps(body.solid()):
            solid[i % nx, j % ny] += a
        self.volume = np.clip(1.0 - solid, 0.0, 1.0)
        self.volume[self.volume < 1e-9] = 0.0  # slivers left by rounding in the clipping
        segments = body.elements()
        n_el = len(segments)
        self.normal = np.zeros((n_el, 2))
        self.tangent = np.zeros((n_el, 2))
        self.length = np.zeros(n_el)
        self.centre = np.zeros((n_el, 2))
        self.stress = np.zeros(n_el)  # the law's tangential force on each element, along t
        rows_in, rows_out = [], []
        for e, (p0, p1) in enumerate(segments):
            self.centre[e] = 0.5 * (p0 + p1)
            t = (p1 - p0) / np.linalg.norm(p1 - p0)
            n = np.array([t[1], -t[0]])  # outward for a counter-clockwise polygon
            self.normal[e], self.tangent[e], self.length[e] = n, t, np.linalg.norm(p1 - p0)
            for q in range(1, 9):
                cn = C[q] @ n
                if abs(cn) < 1e-12:
                    continue
                sign = -1 if cn < 0 else 1
                para = [p0, p1, p1 + sign * C[q], p0 + sign * C[q]]
                for i, j, a in cell_overlaps(para):
                    (rows_in if sign < 0 else rows_out).append((e, q, i % nx, j % ny, a))
        rin, rout = np.array(rows_in), np.array(rows_out)
        self.in_el, self.in_q = rin[:, 0].astype(int), rin[:, 1].astype(int)
        self.in_cell = (rin[:, 2].astype(int), rin[:, 3].astype(int))
        self.in_area = rin[:, 4]
        self.out_el, self.out_q = rout[:, 0].astype(int), rout[:, 1].astype(int)
        self.out_cell = (rout[:, 2].astype(int), rout[:, 3].astype(int))
        self.out_area = rout[:, 4]
        # where an intercepted particle would have landed had there been no wall
        self.in_dest = (
            (self.in_cell[0] + C[self.in_q, 0]) % nx,
            (self.in_cell[1] + C[self.in_q, 1]) % ny,
        )
        ct = C @ self.tangent.T  # (9, elements)
        cn = C @ self.normal.T
        self.swept = self.length[None, :] * np.abs(cn)  # A |c.n| per direction and element
        outgoing = cn > 1e-12
        self.outgoing = outgoing
        self.s2 = (W[:, None] * self.swept * ct * ct * outgoing).sum(axis=0)
        self.ct = ct
        # free slip: w A|c.n| (c.t) B, which the uniform flow along a plane needs at any angle
        # (what a fluid continuation would send back, its normal momentum included)
        self.slip_shape = W[:, None] * self.swept * ct * outgoing / self.s2
        # the law's force: w A|c.n| (k_0 + k_t c.t + k_n c.n), k from the Gram matrix of
        # (1, c.t, c.n) over the outgoing directions, so that it takes tangential momentum and
        # neither mass nor normal momentum, at any angle
        basis = np.stack([np.ones_like(ct), ct, cn])  # (3, 9, elements)
        weight = W[:, None] * self.swept * outgoing
        gram = np.einsum("aqe,bqe,qe->eab", basis, basis, weight)
        self.stress_shape = np.einsum("ea,aqe->qe", np.linalg.pinv(gram)[:, :, 1], basis) * weight
        self.n_el = n_el
        # cut cells with less fluid than merge_below share one state with the cell whose
        # centre lies nearest one cell further out along the surface's normal (cut-cell merging)
        group = np.arange(nx * ny).reshape(nx, ny)
        for i, j in zip(*np.nonzero((self.volume > 0) & (self.volume < merge_below)), strict=True):
            out = body.outward(np.array([i + 0.5, j + 0.5]))
            step = 1
            while True:
                pi, pj = (
                    int(np.floor(i + 0.5 + step * out[0])),
                    int(np.floor(j + 0.5 + step * out[1])),
                )
                if self.volume[pi % nx, pj % ny] >= merge_below:
                    break
                step += 1
            group[i, j] = (pi % nx) * ny + pj % ny
        self.group = group.ravel()
        self.merged = merge_below > 0

    def merge(self, f: np.ndarray) -> np.ndarray:
        """Each merged group's cells take the group's volume-weighted mean populations."""
        if not self.merged:
            return f
        vol = self.volume.ravel()
        flat = f.reshape(9, -1)
        total_v = np.bincount(self.group, weights=vol, minlength=vol.size)
        out = np.empty_like(flat)
        for q in range(9):
            total = np.bincount(self.group, weights=flat[q] * vol, minlength=vol.size)
            mean = np.divide(total, total_v, out=np.zeros_like(total), where=total_v > 0)
            out[q] = mean[self.group]
        return out.reshape(f.shape)

    def stream(self, f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """One streaming step of post-collision densities f; returns the new f and the force on
        the body (lattice units) this step."""
        mass = f * self.volume
        moved = np.stack([np.roll(mass[q], shift=tuple(C[q]), axis=(0, 1)) for q in range(9)])
        taken = f[self.in_q, self.in_cell[0], self.in_cell[1]] * self.in_area
        np.subtract.at(moved, (self.in_q, *self.in_dest), taken)
        gamma_in = np.zeros((9, self.n_el))
        np.add.at(gamma_in, (self.in_q, self.in_el), taken)
        # bounce-back, then the tangential term that makes the element free-slip
        gamma_out = np.zeros((9, self.n_el))
        gamma_out[1:] = gamma_in[OPP[1:]] * self.outgoing[1:]
        p_t_in = (gamma_in * self.ct).sum(axis=0)
        if self.slip:  # outgoing tangential momentum: the incoming less the law's force
            gamma_out += self.slip_shape * (2 * p_t_in)[None, :]
            gamma_out -= self.stress_shape * self.stress[None, :]
        density_out = np.divide(
            gamma_out, self.swept, out=np.zeros_like(gamma_out), where=self.swept > 0
        )
        np.add.at(
            moved,
            (self.out_q, *self.out_cell),
            density_out[self.out_q, self.out_el] * self.out_area,
        )
        force = (C.T @ (gamma_in - gamma_out)).sum(axis=1)
        f_new = np.divide(
            moved, self.volume[None], out=np.zeros_like(moved), where=self.volume[None] > 0
        )
        return self.merge(f_new), force


class Staircase:
    """Half-way specular reflection about the voxel faces of the cells whose centres lie inside
    the cylinder."""

    def __init__(self, cyl: Cylinder, slip: bool = True) -> None:
        nx, ny = cyl.nx, cyl.ny
        x, y = np.meshgrid(np.arange(nx) + 0.5, np.arange(ny) + 0.5, indexing="ij")
        solid = (x - cyl.centre[0]) ** 2 + (y - cyl.centre[1]) ** 2 < cyl.radius**2
        self.volume = (~solid).astype(float)
        rows = []  # (cell x, cell y, q, source x, source y, source q, weight)
        for i, j in zip(*np.nonzero(~solid), strict=True):
            for q in range(1, 9):
                cx, cy = C[q]
                if not solid[(i - cx) % nx, (j - cy) % ny]:
                    continue
                if cx == 0 or cy == 0 or not slip:
                    rows.append((i, j, q, i, j, OPP[q], 1.0))
                    continue
                a = solid[(i - cx) % nx, j]
                b = solid[i, (j - cy) % ny]
                mirror_x = (i, (j - cy) % ny, DIRECTION[(-cx, cy)])
                mirror_y = ((i - cx) % nx, j, DIRECTION[(cx, -cy)])
                if a and b:
                    rows.append((i, j, q, i, j, OPP[q], 1.0))
                elif a:
                    rows.append((i, j, q, *mirror_x, 1.0))
                elif b:
                    rows.append((i, j, q, *mirror_y, 1.0))
                else:
                    rows.append((i, j, q, *mirror_x, 0.5))
                    rows.append((i, j, q, *mirror_y, 0.5))
        r = np.array(rows)
        fluid_x, fluid_y = np.nonzero(~solid)
        sent = [
            (q, i, j)
            for i, j in zip(fluid_x, fluid_y, strict=True)
            for q in range(1, 9)
            if solid[(i + C[q, 0]) % nx, (j + C[q, 1]) % ny]
        ]
        self.sent = tuple(np.array(sent).T)
        self.dst = (r[:, 2].astype(int), r[:, 0].astype(int), r[:, 1].astype(int))
        self.links = tuple(np.unique(np.stack(self.dst), axis=1))
        self.src = (r[:, 5].astype(int), r[:, 3].astype(int), r[:, 4].astype(int))
        self.weight = r[:, 6]

    def stream(self, f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        moved = np.stack([np.roll(f[q], shift=tuple(C[q]), axis=(0, 1)) for q in range(9)])
        moved[self.dst] = 0.0
        np.add.at(moved, self.dst, f[self.src] * self.weight)
        moved *= self.volume[None]
        # the body's force: the momentum sent into it less the momentum it sends back
        force = C[self.sent[0]].T @ f[self.sent] - C[self.links[0]].T @ moved[self.links]
        return moved, force


class Interpolated:
    """Interpolated bounce-back (Bouzidi, Firdaouss & Lallemand 2001) about the true surface on
    the links of the same staircase, its wall moving with the cell's velocity tangential to the
    surface there (free slip; no slip with slip=False): the free-slip limit of the solver's
    surface rule, whose moving-wall term carries a slip velocity."""

    def __init__(
        self, cyl: Cylinder, slip: bool = True, keep_mass: bool = False, mass_radius: float = 0.0
    ) -> None:
        nx, ny = cyl.nx, cyl.ny
        self.slip, self.keep_mass = slip, keep_mass
        x, y = np.meshgrid(np.arange(nx) + 0.5, np.arange(ny) + 0.5, indexing="ij")
        solid = (x - cyl.centre[0]) ** 2 + (y - cyl.centre[1]) ** 2 < cyl.radius**2
        self.volume = (~solid).astype(float)
        rows = []  # (cell x, cell y, q towards the wall, wall fraction, normal x, normal y)
        for i, j in zip(*np.nonzero(~solid), strict=True):
            for q in range(1, 9):
                if not solid[(i + C[q, 0]) % nx, (j + C[q, 1]) % ny]:
                    continue
                d = np.array([i + 0.5, j + 0.5]) - cyl.centre
                # |d + s c|^2 = R^2, the smaller root in (0, 1]
                a, b, c = C[q] @ C[q], 2 * d @ C[q], d @ d - cyl.radius**2
                frac = (-b - np.sqrt(b * b - 4 * a * c)) / (2 * a)
                normal = (d + frac * C[q]) / cyl.radius
                rows.append((i, j, q, frac, *normal))
        r = np.array(rows)
        self.cell = (r[:, 0].astype(int), r[:, 1].astype(int))
        self.q = r[:, 2].astype(int)
        self.frac = r[:, 3]
        self.normal = r[:, 4:6]
        behind = ((self.cell[0] - C[self.q, 0]) % nx, (self.cell[1] - C[self.q, 1]) % ny)
        self.behind = behind
        self.near = (self.frac < 0.5) & ~solid[behind]
        # the linked cells, and for keep_mass the share of cell j's gain that cell i takes back
        linked = np.unique(np.stack(self.cell), axis=1)
        self.linked = (linked[0], linked[1])
        index = np.full((nx, ny), -1)
        index[self.linked] = np.arange(linked.shape[1])
        self.link_cell = index[self.cell]
        gap = np.hypot(*(linked[:, :, None] - linked[:, None, :]))
        near_j = gap <= mass_radius
        self.spread = near_j / near_j.sum(axis=0, keepdims=True)
        self.linked_angle = np.degrees(
            np.arctan2(np.abs(linked[1] + 0.5 - cyl.centre[1]), cyl.centre[0] - linked[0] - 0.5)
        )
        self.blown = np.zeros(linked.shape[1])  # each linked cell's net gain, summed over steps
        self.steps = 0

    def stream(self, f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        moved = np.stack([np.roll(f[q], shift=tuple(C[q]), axis=(0, 1)) for q in range(9)])
        q, opp, (i, j), s = self.q, OPP[self.q], self.cell, self.frac
        rho = f[:, i, j].sum(axis=0)
        u = (C.T @ f[:, i, j]).T / rho[:, None]
        u_n = (u * self.normal).sum(axis=1)
        u_wall = (u - u_n[:, None] * self.normal) if self.slip else np.zeros_like(u)
        moving = 6 * W[q] * rho * (C[opp] * u_wall).sum(axis=1)
        near = 2 * s * f[q, i, j] + (1 - 2 * s) * f[q, self.behind[0], self.behind[1]] + moving
        far = (f[q, i, j] + (2 * s - 1) * f[opp, i, j] + moving) / (2 * s)
        # a wall within half a link with no fluid behind the cell: plain bounce-back
        back = np.where(self.near, near, np.where(s >= 0.5, far, f[q, i, j] + moving))
        moved[opp, i, j] = back
        gain = np.zeros(self.spread.shape[0])
        np.add.at(gain, self.link_cell, back - f[q, i, j])
        if self.keep_mass:  # the cells' gains through their links taken back by weight
            taken = self.spread @ gain
            moved[:, self.linked[0], self.linked[1]] -= W[:, None] * taken[None]
            gain -= taken
        self.blown += gain
        self.steps += 1
        moved *= self.volume[None]
        force = C[q].T @ f[q, i, j] - C[opp].T @ back
        return moved, force


def run(
    rule: str,
    radius: float,
    steps: int,
    average: int,
    tau: float,
    merge_below: float = 0.0,
    mass_radius: float = 0.0,
    make_wall: Callable[[Cylinder], Any] | None = None,
) -> dict:
    diameter = 2 * radius
    nx, ny = int(12 * diameter), int(6 * diameter)
    cyl = Cylinder(nx, ny, np.array([4 * diameter, ny / 2 + 0.3]), radius, int(8 * radius))
    walls = {
        "staircase": Staircase,
        "interpolated": Interpolated,
        "interpolated-mass": lambda c: Interpolated(c, keep_mass=True, mass_radius=mass_radius),
    }
    if make_wall is not None:  # another volumetric wall (volumetric_routing_2d.py)
        wall = make_wall(cyl)
    else:
        wall = Volumetric(cyl, merge_below) if rule == "volumetric" else walls[rule](cyl)
    u0 = 0.05
    fluid = wall.volume > 0
    x, y = np.meshgrid(np.arange(nx) + 0.5, np.arange(ny) + 0.5, indexing="ij")
    dx, dy = x - cyl.centre[0], y - cyl.centre[1]
    # start from the potential flow, its pressure from Bernoulli, so few sound waves start
    r2 = np.maximum(dx * dx + dy * dy, radius**2)
    ux0 = u0 * (1 - radius**2 * (dx * dx - dy * dy) / r2**2)
    uy0 = -u0 * radius**2 * 2 * dx * dy / r2**2
    rho0 = 1 + 1.5 * (u0 * u0 - ux0 * ux0 - uy0 * uy0)
    f = equilibrium(rho0, ux0, uy0) * fluid[None]
    # a sponge over the 3 diameters before the periodic wrap takes the wake and the sound out
    sponge = 0.1 * np.clip((dx - 5 * diameter) / (3 * diameter), 0, 1) ** 2
    target = equilibrium(np.ones((nx, ny)), np.full((nx, ny), u0), np.zeros((nx, ny)))
    mass0 = (f.sum(axis=0) * wall.volume).sum()
    sums = np.zeros((3, nx, ny))
    drag = np.zeros(2)  # over the first and the second half of the averaging window
    t0 = time.time()
    for step in range(steps):
        rho = f.sum(axis=0)
        safe = np.where(fluid, rho, 1.0)
        ux = (f * C[:, 0, None, None]).sum(axis=0) / safe
        uy = (f * C[:, 1, None, None]).sum(axis=0) / safe
        if step >= steps - average:
            sums += np.stack([rho, ux, uy])
        f = f - (f - equilibrium(rho, ux, uy)) / tau
        f += sponge[None] * (target - f)
        f *= fluid[None]
        f, force = wall.stream(f)
        if step >= steps - average:
            drag[int(step >= steps - average // 2)] += force[0]
        if not np.isfinite(f).all():
            raise SystemExit(f"{rule}: diverged at step {step}")
    mass_change = (f.sum(axis=0) * wall.volume).sum() / mass0 - 1
    rho, ux, uy = sums / average
    upstream = fluid & (dx < -2 * diameter) & (dx > -3.5 * diameter)
    p = rho / 3
    head = p + 0.5 * (ux**2 + uy**2)
    u_ref2 = (ux**2 + uy**2)[upstream].mean()
    cp_t = (head - head[upstream].mean()) / (0.5 * u_ref2) + 1
    dist = np.hypot(dx, dy) - radius
    theta = np.degrees(np.arctan2(np.abs(dy), -dx))
    table = {}
    for lo, hi in ((-1, 0), (0, 0.5), (0.5, 1), (1, 1.5), (1.5, 2), (2, 3)):
        row = []
        for a in range(0, 90, 15):
            sel = fluid & (dist >= lo) & (dist < hi) & (theta >= a) & (theta < a + 15)
            row.append(round(float(cp_t[sel].mean()), 3) if sel.any() else None)
        table[f"{lo}..{hi}"] = row
    counts = np.maximum([average - average // 2, average // 2], 1)
    halves = drag / counts / (0.5 * u_ref2 * diameter)
    cd = drag.sum() / average / (0.5 * u_ref2 * diameter)
    blowing = []  # the wall's net mass into the fluid per 15 degrees over the run, over U
    if isinstance(wall, Interpolated):
        arc = 2 * radius * np.radians(15.0)  # both halves
        for a in range(0, 180, 15):
            band = (wall.linked_angle >= a) & (wall.linked_angle < a + 15)
            blowing.append(round(float(wall.blown[band].sum() / wall.steps / arc / u0), 4))
    return {
        "rule": rule,
        "radius_cells": radius,
        "tau": tau,
        "steps": steps,
        "mass_change": float(mass_change),
        "cd": float(cd),
        "cd_halves": [float(h) for h in halves],
        "cd_shear_free_leading_order": free_slip_drag(u0 * diameter * 3 / (tau - 0.5), ny / radius),
        "cp_t": table,
        "blowing_by_15deg": blowing,
        "seconds": round(time.time() - t0, 1),
    }


def free_slip_drag(re_d: float, spacing_over_radius: float, terms: int = 5) -> float:
    """Leading-order drag coefficient (on the diameter) of a shear-free cylinder in a periodic row
    across the flow, from the dissipation of the potential flow (the argument of Levich 1962 for a
    bubble): D U = mu * integral over the surface of -d|u|^2/dn. Alone, D = 8 pi mu U, so Cd =
    16 pi / Re_D; the row's potential (the doublet and odd multipoles, periodic sums, fitted so
    the circle is a streamline) raises it by a factor computed here (1.047 at a spacing of 12
    radii). The next order in 1/Re is left out."""
    period = spacing_over_radius  # radius 1, U 1, mu 1
    theta = np.linspace(0, 2 * np.pi, 256, endpoint=False)
    z = np.exp(1j * theta)
    images = 1j * period * np.arange(-400, 401)

    def lattice_sum(power: int) -> np.ndarray:
        return (1.0 / (z[:, None] - images[None, :]) ** power).sum(axis=1)

    orders = range(1, 2 * terms, 2)  # odd multipoles keep the flow's symmetries
    k = np.pi / period
    potentials = [k / np.tanh(k * z) if m == 1 else lattice_sum(m) for m in orders]
    strength, *_ = np.linalg.lstsq(np.stack([w.imag for w in potentials], 1), -z.imag, rcond=None)
    dw = 1 + sum(
        a * (-(k**2) / np.sinh(k * z) ** 2 if m == 1 else -m * lattice_sum(m + 1))
        for a, m in zip(strength, orders, strict=True)
    )
    d2w = sum(a * m * (m + 1) * lattice_sum(m + 2) for a, m in zip(strength, orders, strict=True))
    d_speed2_dr = 2 * (np.conj(dw) * d2w * z).real
    dissipation = -d_speed2_dr.mean() * 2 * np.pi
    return float(16 * np.pi / re_d * dissipation / (8 * np.pi))


KAPPA, B_LOG = 0.41, 5.2  # Spalding's constants, as cuda/lbm_wall_model.cuh


def spalding_y_plus(u_plus: np.ndarray) -> np.ndarray:
    """Spalding (1961): y+ of u+ over the whole inner layer."""
    k = KAPPA * np.minimum(u_plus, 1000.0)
    return u_plus + np.exp(-KAPPA * B_LOG) * (np.expm1(k) - k - k * k / 2 - k**3 / 6)


def spalding_u_tau(u_t: np.ndarray, y: float, nu: float) -> np.ndarray:
    """u_tau from the tangential speed u_t at height y (lattice units) by Spalding's law,
    bisection in log u_tau."""
    speed = np.maximum(np.abs(u_t), 1e-12)
    lo, hi = np.full_like(speed, np.log(1e-9)), np.log(speed)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        u_tau = np.exp(mid)
        high = y * u_tau / nu > spalding_y_plus(speed / u_tau)
        hi, lo = np.where(high, mid, hi), np.where(high, lo, mid)
    return np.exp(0.5 * (lo + hi))


def spalding_u_plus(y_plus: float) -> float:
    """u+ at y+ by Spalding's law (bisection)."""
    lo, hi = 0.0, 100.0
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if spalding_y_plus(np.array(mid)) > y_plus else (mid, hi)
    return 0.5 * (lo + hi)


def bilinear(field: np.ndarray, px: np.ndarray, py: np.ndarray) -> np.ndarray:
    """A cell-centred periodic field at the points (px, py), bilinear."""
    nx, ny = field.shape
    i0, j0 = np.floor(px - 0.5).astype(int), np.floor(py - 0.5).astype(int)
    fx, fy = px - 0.5 - i0, py - 0.5 - j0
    out = np.zeros_like(px)
    for di, wx in ((0, 1 - fx), (1, fx)):
        for dj, wy in ((0, 1 - fy), (1, fy)):
            out += wx * wy * field[(i0 + di) % nx, (j0 + dj) % ny]
    return out


def law_channel(
    half_gap: float, y_input: float, re_lattice: float
) -> tuple[float, float, float, float, float]:
    """The laminar law-of-the-wall channel of turned_plane, lattice units: u_tau 0.0025, the drive
    g = u_tau^2 / h that the walls take in the steady state, the lattice viscosity nu (u_tau h /
    nu = re_lattice), the law's viscosity (u_tau h / nu_law = 1000) and the law's speed u_in at
    the input height."""
    u_tau = 0.0025
    nu_law = u_tau * half_gap / 1000.0
    u_in = u_tau * spalding_u_plus(y_input * u_tau / nu_law)
    return u_tau, u_tau**2 / half_gap, u_tau * half_gap / re_lattice, nu_law, u_in


def turned_plane(
    turn: tuple[int, int],
    size: int,
    steps: int,
    average: int,
    y_input: float,
    re_lattice: float,
    merge_below: float = 0.0,
) -> dict:
    """The volumetric wall with the law of the wall's stress on a plane at atan(A/B) to the grid:
    a periodic channel between the faces of a slab, driven along the planes by a body force g, the
    flow laminar at the lattice viscosity nu (u_tau h / nu = re_lattice, h the half gap) while
    each surface element takes rho u_tau^2 of tangential force per unit length, u_tau from
    Spalding's law at the velocity y_input cells out along its normal (bilinear) with the law's
    viscosity at u_tau h / nu_law = 1000. In the steady state the walls take the drive, so u_tau^2
    = g h, the input's speed is the law's, u_in = u_tau u+(y_input u_tau / nu_law), and the
    profile is the parabola through it: u(y) = u_in + (g / nu) (h y - y^2/2 - h y_in + y_in^2/2),
    y from the nearer face. Started from it; the table compares the time-averaged profile, the
    bulk velocity and the walls' share of the drive with it."""
    slab = Slab(turn[0], turn[1], size)
    wall = Volumetric(slab, merge_below)
    h = slab.gap / 2
    u_tau, g, nu, nu_law, u_in = law_channel(h, y_input, re_lattice)
    tau = 0.5 + 3 * nu
    along = slab.along
    nx, ny = slab.nx, slab.ny
    x, y = np.meshgrid(np.arange(nx) + 0.5, np.arange(ny) + 0.5, indexing="ij")
    dist = slab.distance(x, y)
    fluid = wall.volume > 0
    yy = np.clip(np.minimum(dist, slab.gap - dist), 0, None)

    def parabola(wall_distance: np.ndarray) -> np.ndarray:
        return u_in + g / nu * (
            h * wall_distance - wall_distance**2 / 2 - h * y_input + y_input**2 / 2
        )

    # each cell's exact velocity: the parabola's mean over its fluid part (8 x 8 points)
    sub = (np.arange(8) + 0.5) / 8 - 0.5
    sx, sy = np.meshgrid(sub, sub, indexing="ij")
    d_sub = slab.distance(x[..., None, None] + sx, y[..., None, None] + sy)
    inside_gap = d_sub > 0
    exact = np.where(inside_gap, parabola(np.minimum(d_sub, slab.gap - d_sub)), 0).sum(
        axis=(2, 3)
    ) / np.maximum(inside_gap.sum(axis=(2, 3)), 1)
    f = equilibrium(np.ones((nx, ny)), exact * along[0], exact * along[1]) * fluid[None]
    force_q = 3 * W[:, None, None] * (C @ along)[:, None, None] * g
    probe = wall.centre + y_input * wall.normal
    sums = np.zeros((2, nx, ny))
    exchange = np.zeros(2)
    mass = np.zeros(2)
    t0 = time.time()
    for step in range(steps):
        rho = f.sum(axis=0)
        safe = np.where(fluid, rho, 1.0)
        jx, jy = (f * C[:, 0, None, None]).sum(axis=0), (f * C[:, 1, None, None]).sum(axis=0)
        # the fluid's velocity: the momentum and half the step's body force (the equilibrium
        # takes the momentum alone: the force enters as 3 w c.g rho after the collision)
        ux, uy = (jx + 0.5 * g * along[0] * rho) / safe, (jy + 0.5 * g * along[1] * rho) / safe
        u_t = (
            bilinear(ux, probe[:, 0], probe[:, 1]) * wall.tangent[:, 0]
            + bilinear(uy, probe[:, 0], probe[:, 1]) * wall.tangent[:, 1]
        )
        rho_in = bilinear(np.where(fluid, rho, 1.0), probe[:, 0], probe[:, 1])
        wall.stress = rho_in * spalding_u_tau(u_t, y_input, nu_law) ** 2 * wall.length
        wall.stress *= np.sign(u_t)
        window = step >= steps - average
        half = int(step >= steps - average // 2)
        if window:
            sums[0] += ux * along[0] + uy * along[1]
            sums[1] += rho
        f = f - (f - equilibrium(rho, jx / safe, jy / safe)) / tau + force_q * rho[None]
        f *= fluid[None]
        f, force = wall.stream(f)
        if window:
            exchange[half] += force @ along
            mass[half] += (rho * wall.volume).sum() * g
        if not np.isfinite(f).all():
            raise SystemExit(f"turned plane {turn}: diverged at step {step}")
    u_mean = sums[0] / average
    share = exchange / np.maximum(mass, 1e-300)
    bulk = (u_mean * wall.volume).sum() / wall.volume.sum()
    bulk_exact = u_in + g / nu * (h * h / 3 - h * y_input + y_input**2 / 2)  # mean over the gap
    profile = plane_profile(u_mean / u_tau, exact / u_tau, fluid, np.where(dist < 0, dist, yy))
    return {
        "turn": f"{turn[0]}:{turn[1]}",
        "angle_deg": round(float(np.degrees(np.arctan2(turn[0], turn[1]))), 2),
        "box": [nx, ny],
        "half_gap_cells": round(float(h), 3),
        "merge_below": merge_below,
        "tau": tau,
        "steps": steps,
        "bulk_over_u_tau": float(bulk / u_tau),
        "bulk_exact_over_u_tau": float(bulk_exact / u_tau),
        "bulk_error": float(bulk / bulk_exact - 1),
        "wall_share_of_drive_halves": [float(v) for v in share],
        "profile_u_plus_measured_exact": profile,
        "seconds": round(time.time() - t0, 1),
    }


def poiseuille(
    size: int,
    wall_offset: float,
    tau: float,
    collision: str,
    make_wall: Callable[[Slab], Any] | None = None,
) -> dict:
    """No slip: plane Poiseuille flow between the volumetric wall's faces of an aligned slab (the
    box 4 x size, the gap 0.75 size), driven by a body force, for 3 gap^2 / nu steps; the flow rate
    against g H^3 / (12 nu). wall_offset places the slab's lower face that far into its cell
    (0: on a voxel face, where the wall is halfway bounce-back; otherwise both faces cut cells)."""
    slab = Slab(0, 1, size)
    slab.origin = np.array([0.3, wall_offset])
    wall = make_wall(slab) if make_wall is not None else Volumetric(slab, slip=False)
    nx, ny, gap = slab.nx, slab.ny, slab.gap
    fluid = wall.volume > 0
    nu = (tau - 0.5) / 3
    g = 12 * nu * 0.02 / gap**2  # a mean velocity of 0.02
    collide = {"regularized": regularized, "trt": two_relaxation_time}.get(collision)
    f = equilibrium(np.ones((nx, ny)), np.zeros((nx, ny)), np.zeros((nx, ny))) * fluid[None]
    push = 3 * W[:, None, None] * C[:, 0, None, None] * g
    steps = int(3 * gap * gap / nu)
    for _ in range(steps):
        rho = f.sum(axis=0)
        safe = np.where(fluid, rho, 1.0)
        jx, jy = (f * C[:, 0, None, None]).sum(axis=0), (f * C[:, 1, None, None]).sum(axis=0)
        feq = equilibrium(rho, jx / safe, jy / safe)
        f = collide(f, feq, tau) if collide else f - (f - feq) / tau
        f = (f + push * rho[None]) * fluid[None]
        f, _ = wall.stream(f)
    rho = f.sum(axis=0)
    flow = (((f * C[:, 0, None, None]).sum(axis=0) + 0.5 * g * rho) * wall.volume).sum() / nx
    error = flow / (g * gap**3 / (12 * nu)) - 1
    return {
        "size": size,
        "wall_offset": wall_offset,
        "tau": tau,
        "collision": collision,
        "steps": steps,
        "flow_rate_error": float(error),
        "wall_shift_cells": float(-error * gap / 6),  # each wall's, from Q ~ (H - 2 d)^3
    }


SANGANI_ACRIVOS = {0.05: 15.56, 0.2: 51.53}  # F / (mu U), square arrays (1982, Table 1)


def regularized(f: np.ndarray, feq: np.ndarray, tau: float) -> np.ndarray:
    """Regularized BGK (Latt & Chopard 2006): the non-equilibrium part replaced by its projection
    on the second-order Hermite polynomials, w (Q : Pi_neq) 9/2, Q = c c - I/3, then relaxed."""
    neq = f - feq
    pxx = (neq * (C[:, 0] ** 2)[:, None, None]).sum(axis=0)
    pyy = (neq * (C[:, 1] ** 2)[:, None, None]).sum(axis=0)
    pxy = (neq * (C[:, 0] * C[:, 1])[:, None, None]).sum(axis=0)
    qxx, qyy = C[:, 0] ** 2 - 1 / 3, C[:, 1] ** 2 - 1 / 3
    qxy = C[:, 0] * C[:, 1]
    proj = (qxx[:, None, None] * pxx + qyy[:, None, None] * pyy + 2 * qxy[:, None, None] * pxy) * (
        4.5 * W
    )[:, None, None]
    return feq + (1 - 1 / tau) * proj


def two_relaxation_time(f: np.ndarray, feq: np.ndarray, tau: float) -> np.ndarray:
    """TRT (Ginzburg 2008): the even part relaxed at 1/tau, the odd part at 1/tau_minus with the
    magic parameter (tau - 1/2)(tau_minus - 1/2) = 3/16, for which halfway bounce-back puts a
    plane Poiseuille flow's wall exactly halfway at any tau."""
    tau_minus = 0.5 + (3 / 16) / (tau - 0.5)
    even, odd = 0.5 * (f + f[OPP]), 0.5 * (f - f[OPP])
    even_eq, odd_eq = 0.5 * (feq + feq[OPP]), 0.5 * (feq - feq[OPP])
    return f - (even - even_eq) / tau - (odd - odd_eq) / tau_minus


def stokes_array(
    rule: str,
    solid_fraction: float,
    box: int,
    steps: int,
    tau: float = 1.0,
    collision: str = "bgk",
    make_wall: Callable[[Cylinder], Any] | None = None,
) -> dict:
    """No slip: Stokes flow through a square array of cylinders (a periodic box of `box` cells,
    BGK, regularized BGK or TRT at relaxation time tau, driven by a body force), F / (mu U) against
    Sangani & Acrivos (1982, Int. J. Multiphase Flow 8, 343), U the mean velocity over the whole
    box. make_wall: another volumetric wall (volumetric_routing_2d.py)."""
    radius = box * np.sqrt(solid_fraction / np.pi)
    cyl = Cylinder(box, box, np.array([box / 2 + 0.3, box / 2 + 0.1]), radius, int(8 * radius))
    walls = {"staircase": Staircase, "interpolated": Interpolated, "volumetric": Volumetric}
    wall = make_wall(cyl) if make_wall is not None else walls[rule](cyl, slip=False)
    fluid = wall.volume > 0
    g = 1e-6
    f = equilibrium(np.ones((box, box)), np.zeros((box, box)), np.zeros((box, box)))
    f *= fluid[None]
    for _ in range(steps):
        rho = f.sum(axis=0)
        safe = np.where(fluid, rho, 1.0)
        ux = (f * C[:, 0, None, None]).sum(axis=0) / safe
        uy = (f * C[:, 1, None, None]).sum(axis=0) / safe
        feq = equilibrium(rho, ux, uy)
        collide = {"regularized": regularized, "trt": two_relaxation_time}.get(collision)
        f = collide(f, feq, tau) if collide else f - (f - feq) / tau
        f += 3 * W[:, None, None] * C[:, 0, None, None] * g * rho  # the body force along x
        f *= fluid[None]
        f, force = wall.stream(f)
    rho = f.sum(axis=0)
    momentum = ((f * C[:, 0, None, None]).sum(axis=0) + 0.5 * g * rho) * wall.volume
    u_mean = momentum.sum() / box**2
    drive = g * (rho * wall.volume).sum()
    # Sangani & Acrivos's F is the mean pressure gradient times the whole cell's area, which a
    # body force on the fluid alone matches as g rho box^2 = drive / (1 - solid fraction)
    rho_fluid = (rho * wall.volume).sum() / wall.volume.sum()
    nu = (tau - 0.5) / 3
    k = g * rho_fluid * box**2 / (nu * rho_fluid * u_mean)
    ref = SANGANI_ACRIVOS[solid_fraction]
    return {
        "rule": rule,
        "solid_fraction": solid_fraction,
        "radius_cells": round(float(radius), 3),
        "F_over_mu_U": float(k),
        "sangani_acrivos": ref,
        "error": float(k / ref - 1),
        "exchange_over_drive": float(force[0] / drive),
    }


def plane_profile(
    u_plus: np.ndarray, exact_plus: np.ndarray, fluid: np.ndarray, wall_distance: np.ndarray
) -> dict[str, list[float]]:
    """Mean measured and exact u+ of the fluid cells by their centre's distance from the nearer
    wall (cells; negative: a cut cell whose centre lies in the solid)."""
    profile = {}
    for lo, hi in ((-0.5, 0), (0, 0.5), (0.5, 1), (1, 1.5), (1.5, 2), (2, 3), (3, 4), (4, 6)):
        sel = fluid & (wall_distance >= lo) & (wall_distance < hi)
        if sel.any():
            profile[f"{lo}..{hi}"] = [
                round(float(u_plus[sel].mean()), 3),
                round(float(exact_plus[sel].mean()), 3),
            ]
    return profile


def report_plane(r: dict, detail: str = "") -> None:
    """Print a turned_plane result: the bulk velocity and the profile against the exact ones."""
    print(
        f"\n{r['turn']} ({r['angle_deg']} deg, box {r['box']}, h {r['half_gap_cells']} cells"
        f"{detail}): U_b/u_tau {r['bulk_over_u_tau']:.3f} against"
        f" {r['bulk_exact_over_u_tau']:.3f} ({100 * r['bulk_error']:+.2f}%), walls' share of the"
        " drive over the halves of the window "
        + ", ".join(f"{v:.4f}" for v in r["wall_share_of_drive_halves"])
        + f"; {r['seconds']} s"
    )
    print("cells from the wall | u+ measured | exact")
    for band, (got, want) in r["profile_u_plus_measured_exact"].items():
        print(f"{band:>9} | {got:7.3f} | {want:7.3f}")


def parse_turn(text: str) -> tuple[int, int] | None:
    """A:B as two whole numbers, A >= 0 and B >= 1; None if it is not one."""
    parts = text.split(":")
    if len(parts) != 2 or not all(p.isdigit() for p in parts) or int(parts[1]) < 1:
        return None
    return int(parts[0]), int(parts[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--radius", type=float, default=20.0)
    ap.add_argument("--steps", type=int, default=4000)
    ap.add_argument("--average", type=int, default=1000)
    ap.add_argument("--tau", type=float, default=0.55)
    ap.add_argument(
        "--rules",
        nargs="+",
        choices=["staircase", "interpolated", "interpolated-mass", "volumetric"],
        default=["staircase", "interpolated", "volumetric"],
    )
    ap.add_argument(
        "--merge",
        type=float,
        default=0.0,
        metavar="V",
        help="volumetric (and --plane): cut cells with less fluid than V share a state with a"
        " cell further out",
    )
    ap.add_argument(
        "--mass-radius",
        type=float,
        default=0.0,
        metavar="R",
        help="interpolated-mass: spread each cell's gain over the linked cells within R cells",
    )
    ap.add_argument(
        "--stokes",
        type=int,
        metavar="BOX",
        help="instead: no-slip Stokes arrays in a periodic box of BOX cells",
    )
    ap.add_argument("--stokes-tau", type=float, default=1.0, help="--stokes: BGK relaxation time")
    ap.add_argument(
        "--collision",
        choices=["bgk", "regularized", "trt"],
        default="bgk",
        help="--stokes and --poiseuille: the collision operator",
    )
    ap.add_argument(
        "--poiseuille",
        nargs="+",
        type=float,
        metavar="OFFSET",
        help="instead: plane Poiseuille flow between volumetric no-slip walls this far into their"
        " cells, at each --taus, with --collision",
    )
    ap.add_argument("--taus", nargs="+", type=float, default=[0.6, 1.0, 1.5])
    ap.add_argument(
        "--plane",
        nargs="+",
        metavar="A:B",
        help="instead: the volumetric wall with the law's stress on planes at atan(A/B)",
    )
    ap.add_argument("--size", type=int, default=40, help="--plane: the box is (size B, size A)")
    ap.add_argument("--y-input", type=float, default=2.5, help="--plane: input height, cells")
    ap.add_argument("--re-lattice", type=float, default=10.0, help="--plane: u_tau h / nu")
    args = ap.parse_args()
    problem = (
        "--radius must be at least 2 cells"
        if args.radius < 2
        else "--tau must exceed 0.5"
        if args.tau <= 0.5
        else "--average must be between 1 and --steps"
        if not 0 < args.average <= args.steps
        else "--stokes BOX must be at least 16 cells"
        if args.stokes is not None and args.stokes < 16
        else "--stokes takes the rules staircase, interpolated and volumetric"
        if args.stokes is not None and "interpolated-mass" in args.rules
        else "--stokes-tau must exceed 0.5"
        if args.stokes_tau <= 0.5
        else "--poiseuille offsets must lie in [0, 1) and --taus above 0.5"
        if args.poiseuille
        and (any(not 0 <= o < 1 for o in args.poiseuille) or any(t <= 0.5 for t in args.taus))
        else "--mass-radius must not be negative"
        if args.mass_radius < 0
        else "--plane takes turns A:B, whole numbers A >= 0 and B >= 1 (e.g. 0:1 1:2 1:1)"
        if args.plane and any(parse_turn(text) is None for text in args.plane)
        else "--size must be at least 8 cells"
        if args.size < 8
        else "--y-input must be at least 1.5 cells (the input's four cells then lie in the fluid)"
        if args.y_input < 1.5
        else "--re-lattice must be positive"
        if args.re_lattice <= 0
        else ""
    )
    if problem:
        print(f"volumetric_wall_2d: {problem}", file=sys.stderr)
        raise SystemExit(2)
    if args.poiseuille:
        rows = [
            poiseuille(args.size, offset, tau, args.collision)
            for offset in args.poiseuille
            for tau in args.taus
        ]
        for r in rows:
            print(
                f"offset {r['wall_offset']}, tau {r['tau']}, {r['collision']}: flow rate"
                f" {100 * r['flow_rate_error']:+.3f}% ({r['steps']} steps), each wall as if"
                f" {r['wall_shift_cells']:+.3f} cells into the fluid"
            )
        print(json.dumps(rows))
        return
    if args.plane:
        rows = []
        for text in args.plane:
            turn = parse_turn(text)
            r = turned_plane(
                turn, args.size, args.steps, args.average, args.y_input, args.re_lattice, args.merge
            )
            rows.append(r)
            report_plane(r)
        print(json.dumps(rows))
        return
    if args.stokes is not None:
        rows = [
            stokes_array(rule, phi, args.stokes, args.steps, args.stokes_tau, args.collision)
            for phi in sorted(SANGANI_ACRIVOS)
            for rule in args.rules
        ]
        for r in rows:
            print(
                f"{r['rule']:>10} fraction {r['solid_fraction']}, R {r['radius_cells']} cells:"
                f" F/(mu U) {r['F_over_mu_U']:.2f} against {r['sangani_acrivos']}"
                f" ({100 * r['error']:+.1f}%), exchange / drive {r['exchange_over_drive']:.4f}"
            )
        print(json.dumps(rows))
        return
    results = []
    for rule in args.rules:
        res = run(
            rule, args.radius, args.steps, args.average, args.tau, args.merge, args.mass_radius
        )
        results.append(res)
        print(
            f"\n{rule}: Cd {res['cd']:.3f} (halves of the window {res['cd_halves'][0]:.3f},"
            f" {res['cd_halves'][1]:.3f}; a shear-free cylinder in this row, to leading order in"
            f" 1/Re: {res['cd_shear_free_leading_order']:.4f}), {res['seconds']} s, mass change "
            f"{res['mass_change']:.2e} (the sponge holds the density)"
        )
        print("cells from surface | " + " | ".join(f"{a}-{a + 15}" for a in range(0, 90, 15)))
        for band, row in res["cp_t"].items():
            print(f"{band:>8} | " + " | ".join("  -  " if v is None else f"{v:5.2f}" for v in row))
        if res["blowing_by_15deg"]:
            print(
                "the wall's net mass into the fluid over U, per 15 degrees from the front: "
                + " ".join(f"{v:+.4f}" for v in res["blowing_by_15deg"])
            )
    print(json.dumps(results))


if __name__ == "__main__":
    main()
