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
and a free-slip cylinder's drag vanishes as the viscosity does. The run starts from the potential
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
    python docs/experiments/volumetric_wall_2d.py --stokes BOX [--steps N] [--rules ...]

--stokes checks the three rules' no-slip forms against Sangani & Acrivos's Stokes flow through
square arrays of cylinders instead.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass

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


def cell_overlaps(poly: list[np.ndarray]) -> list[tuple[int, int, float]]:
    """(i, j, area) of a convex polygon's overlap with each unit cell [i, i+1] x [j, j+1]."""
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
            a = area(piece)
            if a > 1e-13:
                out.append((i, j, a))
    return out


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


class Volumetric:
    """The surface elements' gather and scatter, and each cell's fluid area."""

    def __init__(self, cyl: Cylinder, merge_below: float = 0.0, slip: bool = True) -> None:
        nx, ny = cyl.nx, cyl.ny
        self.slip = slip
        poly = cyl.polygon()
        solid = np.zeros((nx, ny))
        for i, j, a in cell_overlaps(poly):
            solid[i % nx, j % ny] += a
        self.volume = np.clip(1.0 - solid, 0.0, 1.0)
        self.volume[self.volume < 1e-12] = 0.0
        n_el = len(poly)
        self.normal = np.zeros((n_el, 2))
        self.tangent = np.zeros((n_el, 2))
        self.length = np.zeros(n_el)
        rows_in, rows_out = [], []
        for e in range(n_el):
            p0, p1 = poly[e], poly[(e + 1) % n_el]
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
        self.n_el = n_el
        # cut cells with less fluid than merge_below share one state with the cell whose
        # centre lies nearest one cell further out along the radius (cut-cell merging)
        group = np.arange(nx * ny).reshape(nx, ny)
        for i, j in zip(*np.nonzero((self.volume > 0) & (self.volume < merge_below)), strict=True):
            out = np.array([i + 0.5, j + 0.5]) - cyl.centre
            out /= np.linalg.norm(out)
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
        b = 2 * p_t_in / (3 * self.s2) if self.slip else np.zeros(self.n_el)
        gamma_out += 3 * W[:, None] * self.swept * b[None, :] * self.ct * self.outgoing
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
) -> dict:
    diameter = 2 * radius
    nx, ny = int(12 * diameter), int(6 * diameter)
    cyl = Cylinder(nx, ny, np.array([4 * diameter, ny / 2 + 0.3]), radius, int(8 * radius))
    walls = {
        "staircase": Staircase,
        "interpolated": Interpolated,
        "interpolated-mass": lambda c: Interpolated(c, keep_mass=True, mass_radius=mass_radius),
    }
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
    drag = 0.0
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
            drag += force[0]
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
    cd = drag / average / (0.5 * u_ref2 * diameter)
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
        "cp_t": table,
        "blowing_by_15deg": blowing,
        "seconds": round(time.time() - t0, 1),
    }


SANGANI_ACRIVOS = {0.05: 15.56, 0.2: 51.53}  # F / (mu U), square arrays (1982, Table 1)


def stokes_array(rule: str, solid_fraction: float, box: int, steps: int) -> dict:
    """No slip: Stokes flow through a square array of cylinders (a periodic box of `box` cells,
    tau 1, driven by a body force), F / (mu U) against Sangani & Acrivos (1982, Int. J.
    Multiphase Flow 8, 343), U the mean velocity over the whole box."""
    radius = box * np.sqrt(solid_fraction / np.pi)
    cyl = Cylinder(box, box, np.array([box / 2 + 0.3, box / 2 + 0.1]), radius, int(8 * radius))
    walls = {"staircase": Staircase, "interpolated": Interpolated, "volumetric": Volumetric}
    wall = walls[rule](cyl, slip=False)
    fluid = wall.volume > 0
    g, tau = 1e-6, 1.0
    f = equilibrium(np.ones((box, box)), np.zeros((box, box)), np.zeros((box, box)))
    f *= fluid[None]
    for _ in range(steps):
        rho = f.sum(axis=0)
        safe = np.where(fluid, rho, 1.0)
        ux = (f * C[:, 0, None, None]).sum(axis=0) / safe
        uy = (f * C[:, 1, None, None]).sum(axis=0) / safe
        f = f - (f - equilibrium(rho, ux, uy)) / tau
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
        help="volumetric: cut cells with less fluid than V share a state with a cell further out",
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
        else "--mass-radius must not be negative"
        if args.mass_radius < 0
        else ""
    )
    if problem:
        print(f"volumetric_wall_2d: {problem}", file=sys.stderr)
        raise SystemExit(2)
    if args.stokes is not None:
        rows = [
            stokes_array(rule, phi, args.stokes, args.steps)
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
            f"\n{rule}: Cd {res['cd']:.3f}, {res['seconds']} s, mass change "
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
