#!/usr/bin/env python3
"""An experiment, not part of the solver: where the volumetric wall's no-slip shift comes from,
which grows to half a cell as tau -> 1/2, and which forms of the wall remove it.

The volumetric wall of `volumetric_wall_2d.py` (Chen, Teixeira & Molvig 1998) holds one state per
cell for its fluid, sums each element's incoming particles of a link over its incoming prism and
sends the sum back spread evenly over the prism (each cell by its share of it). The rules:

- ``lumped``: that wall, as it is.
- ``mirrored``: each source cell's piece of the incoming prism is sent back turned over about the
  prism's mid-line, where an exact bounce-back puts its particles (t of a step from the wall ends
  1 - t from it), into the cells the turned piece overlaps (exact polygon overlaps), instead of
  lumped.
- ``linear``: mirrored, with each cell's populations taken as linear across its fluid whenever a
  piece of them is cut out or sent back, their gradient by least squares over the eight
  neighbours' fluid centroids (``linear-whole``: from whole neighbours only); ``lumped-linear``:
  the lumped wall with its gathered pieces linear.
- ``projected``: each cell's populations linear across its fluid with the slopes carried as
  state (after Hoefnagel, Casalino, Hulshoff & de Prenter 2025, arXiv:2509.05035): the linear
  field streamed exactly (the uncut rest of a cell translated, the cut pieces turned over) and
  projected back on each cell's mean and slope by its first moments; BGK relaxes the slopes
  towards the equilibrium's. ``projected-near``: the slopes kept only in the cells pieces leave
  or land in, the cut cells, and their neighbours --band cells out (elsewhere dropped each
  step). ``projected-profile``: projected, with the free slip's tangential momentum sent back
  with the linear profile it came in with over where and when it met the element (the kernels'
  form, solver/volumetric_profile.py), where the other rules spread it evenly.

Every rule keeps each link's mass and a fluid at rest exactly; on a wall along the cells' faces
all give halfway bounce-back.

    python docs/experiments/volumetric_routing_2d.py [--offsets 0.25] [--taus 0.52 0.6 1.0]
        [--size 20] [--rules lumped mirrored linear ...]
    python docs/experiments/volumetric_routing_2d.py --cylinder RADIUS [--steps 4000]
        [--average 1500] [--taus 0.51] [--rules ...]
    python docs/experiments/volumetric_routing_2d.py --stokes BOX [--diffusion-times 1]
        [--taus 0.6 1.0] [--rules ...]

Without --cylinder: plane Poiseuille flow between no-slip faces of an aligned slab, OFFSET into
their cells (`volumetric_wall_2d.poiseuille`, a gap of 0.75 SIZE cells), BGK; each line gives the
flow rate's error against g H^3 / (12 nu) and the wall shift it implies. With --cylinder: the
free-slip cylinder of `volumetric_wall_2d.run` (U 0.05, Re_D = U 2 RADIUS / nu), its Cd against
the shear-free cylinder's leading order and the total pressure Cp_t of the cells whose centres
lie within half a cell of the surface, by 15 degrees from the front. With --stokes: no slip,
Stokes flow through square arrays of cylinders (`volumetric_wall_2d.stokes_array`, solid
fractions 0.05 and 0.2) against Sangani & Acrivos. Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import volumetric_wall_2d as vw  # noqa: E402


def centroid(poly: list[np.ndarray]) -> np.ndarray:
    """The centroid of a convex polygon (a triangle fan from its first vertex)."""
    total, moment = 0.0, np.zeros(2)
    for k in range(1, len(poly) - 1):
        u, v = poly[k] - poly[0], poly[k + 1] - poly[0]
        a = 0.5 * abs(u[0] * v[1] - u[1] * v[0])
        total += a
        moment += a * (poly[0] + poly[k] + poly[k + 1]) / 3
    return moment / total if total > 0 else np.mean(poly, axis=0)


def turn(point: np.ndarray, p0: np.ndarray, n: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Where a particle at `point` moving along c (c . n < 0), t of a step from the element
    through p0 with outward normal n, ends after bouncing back: 1 - t of a step from it."""
    t = -((point - p0) @ n) / (c @ n)
    return point + (2 * t - 1) * c


class Mirrored(vw.Volumetric):
    """The volumetric wall with each gathered piece sent back turned over, not lumped; with
    `linear`, each cell's populations taken as linear across its fluid (their gradient by least
    squares over the fluid neighbours' centroids) when a piece of them is cut out or sent back."""

    def __init__(
        self,
        body: vw.Slab,
        slip: bool = False,
        linear: bool = False,
        lumped: bool = False,
        whole_neighbours: bool = False,
    ) -> None:
        super().__init__(body, slip=slip)
        nx, ny = body.nx, body.ny
        self.linear, self.lumped, self.whole_neighbours = linear, lumped, whole_neighbours
        # each cell's fluid centroid, from its centre
        self.offset = np.zeros((2, nx, ny))
        for i, j, piece in vw.cell_pieces(body.solid()):
            a = vw.area(piece)
            fluid = 1.0 - a
            if fluid > 1e-9:
                solid_offset = centroid(piece) - np.array([i + 0.5, j + 0.5])
                self.offset[:, i % nx, j % ny] = -a * solid_offset / fluid
        taken, routed = [], []  # (q, source i, j, [destination i, j,] area, offset from source)
        for e, (p0, p1) in enumerate(body.elements()):
            t = (p1 - p0) / np.linalg.norm(p1 - p0)
            n = np.array([t[1], -t[0]])
            for q in range(1, 9):
                cn = vw.C[q] @ n
                if cn > -1e-9:  # outgoing, or along the element (no prism)
                    continue
                c = vw.C[q].astype(float)

                for i, j, piece in vw.cell_pieces([p0, p1, p1 - c, p0 - c]):
                    centre = np.array([i + 0.5, j + 0.5])
                    taken.append(
                        (q, i % nx, j % ny, vw.area(piece), *(centroid(piece) - centre), e)
                    )
                    for k, m, sub in vw.cell_pieces([turn(p, p0, n, c) for p in piece]):
                        back = turn(centroid(sub), p0, n, c) - centre
                        routed.append((q, i % nx, j % ny, k % nx, m % ny, vw.area(sub), *back))
        tk, r = np.array(taken), np.array(routed)
        self.take_q, self.take_src = (
            tk[:, 0].astype(int),
            (tk[:, 1].astype(int), tk[:, 2].astype(int)),
        )
        self.take_dst = (
            (self.take_src[0] + vw.C[self.take_q, 0]) % nx,
            (self.take_src[1] + vw.C[self.take_q, 1]) % ny,
        )
        self.take_area = tk[:, 3]
        self.take_arm = tk[:, 4:6].T - self.offset[:, self.take_src[0], self.take_src[1]]
        self.take_el = tk[:, 6].astype(int)
        self.route_q = r[:, 0].astype(int)
        self.route_src = (r[:, 1].astype(int), r[:, 2].astype(int))
        self.route_dst = (r[:, 3].astype(int), r[:, 4].astype(int))
        self.route_area = r[:, 5]
        self.route_arm = r[:, 6:8].T - self.offset[:, self.route_src[0], self.route_src[1]]
        self._least_squares()

    def _least_squares(self) -> None:
        """Per cell, the 2 x 2 normal matrix's inverse of the least-squares gradient over its
        eight neighbours with fluid, each at its fluid centroid."""
        fluid = self.volume > 0
        usable = self.volume >= 1 - 1e-12 if self.whole_neighbours else fluid
        self.arms = []
        normal = np.zeros((2, 2) + fluid.shape)
        for q in range(1, 9):
            cx, cy = vw.C[q]
            nb = np.roll(usable, (-cx, -cy), axis=(0, 1))
            arm = np.stack(
                [
                    cx + np.roll(self.offset[0], (-cx, -cy), axis=(0, 1)) - self.offset[0],
                    cy + np.roll(self.offset[1], (-cx, -cy), axis=(0, 1)) - self.offset[1],
                ]
            )
            arm *= nb[None]
            self.arms.append((q, arm))
            normal += arm[:, None] * arm[None, :]
        det = normal[0, 0] * normal[1, 1] - normal[0, 1] * normal[1, 0]
        safe = np.where(np.abs(det) > 1e-12, det, 1.0)
        self.inverse = (
            np.stack([[normal[1, 1], -normal[0, 1]], [-normal[1, 0], normal[0, 0]]]) / safe
        )
        self.inverse *= (np.abs(det) > 1e-12) * fluid

    def gradient(self, f: np.ndarray) -> np.ndarray:
        """The least-squares gradient of every population, shape (9, 2, nx, ny)."""
        rhs = np.zeros((9, 2) + f.shape[1:])
        for q, arm in self.arms:
            cx, cy = vw.C[q]
            diff = np.roll(f, (-cx, -cy), axis=(1, 2)) - f
            rhs += arm[None] * diff[:, None]
        return np.einsum("abxy,qbxy->qaxy", self.inverse, rhs)

    def stream(self, f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        mass = f * self.volume
        moved = np.stack([np.roll(mass[q], shift=tuple(vw.C[q]), axis=(0, 1)) for q in range(9)])
        taken = f[self.take_q, self.take_src[0], self.take_src[1]] * self.take_area
        sent = f[self.route_q, self.route_src[0], self.route_src[1]] * self.route_area
        if self.linear:
            g = self.gradient(f)
            gt = g[self.take_q, :, self.take_src[0], self.take_src[1]]
            taken = taken + self.take_area * (gt * self.take_arm.T).sum(axis=1)
            gr = g[self.route_q, :, self.route_src[0], self.route_src[1]]
            sent = sent + self.route_area * (gr * self.route_arm.T).sum(axis=1)
        np.subtract.at(moved, (self.take_q, *self.take_dst), taken)
        if self.lumped:  # each element sends its gather back evenly over its outgoing prism
            gamma_in = np.zeros((9, self.n_el))
            np.add.at(gamma_in, (self.take_q, self.take_el), taken)
            density_out = np.divide(
                gamma_in[vw.OPP], self.swept, out=np.zeros_like(gamma_in), where=self.swept > 0
            )
            sent = density_out[self.out_q, self.out_el] * self.out_area
            np.add.at(moved, (self.out_q, *self.out_cell), sent)
            force = vw.C.T @ (gamma_in - gamma_in[vw.OPP]).sum(axis=1)
            f_new = np.divide(
                moved, self.volume[None], out=np.zeros_like(moved), where=self.volume[None] > 0
            )
            return f_new, force
        np.add.at(moved, (vw.OPP[self.route_q], *self.route_dst), sent)
        gamma_in = np.zeros((9, self.n_el))
        np.add.at(gamma_in, (self.take_q, self.take_el), taken)
        gamma_out = gamma_in[vw.OPP]  # what the routing sent back, by element and link
        if self.slip:  # the tangential terms as the lumped wall's, spread evenly
            p_t_in = (gamma_in * self.ct).sum(axis=0)
            extra = (
                self.slip_shape * (2 * p_t_in)[None, :] - self.stress_shape * self.stress[None, :]
            )
            density_out = np.divide(
                extra, self.swept, out=np.zeros_like(extra), where=self.swept > 0
            )
            np.add.at(
                moved,
                (self.out_q, *self.out_cell),
                density_out[self.out_q, self.out_el] * self.out_area,
            )
            gamma_out = gamma_out + extra
        force = vw.C.T @ (gamma_in - gamma_out).sum(axis=1)
        f_new = np.divide(
            moved, self.volume[None], out=np.zeros_like(moved), where=self.volume[None] > 0
        )
        return f_new, force


def moments(poly: list[np.ndarray], origin: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Area, first moment [2] and second moment [2, 2] of a convex polygon about origin."""
    area_sum, first, second = 0.0, np.zeros(2), np.zeros((2, 2))
    v0 = poly[0] - origin
    for k in range(1, len(poly) - 1):
        v1, v2 = poly[k] - origin, poly[k + 1] - origin
        u, v = v1 - v0, v2 - v0
        a = 0.5 * abs(u[0] * v[1] - u[1] * v[0])
        total = v0 + v1 + v2
        area_sum += a
        first += a * total / 3
        second += (
            a
            / 12
            * (np.outer(v0, v0) + np.outer(v1, v1) + np.outer(v2, v2) + np.outer(total, total))
        )
    return area_sum, first, second


class Projected(vw.Volumetric):
    """No slip with each cell's populations linear across its fluid, the slopes carried as state
    (after Hoefnagel, Casalino, Hulshoff & de Prenter 2025, arXiv:2509.05035): the linear field
    is streamed exactly (the uncut part of a cell translated, the pieces the surface cuts out
    turned over about their prism's mid-line) and projected back on each cell's mean and slope
    by its first moments; BGK relaxes the slopes towards the equilibrium's along the moments'
    slopes. Every fluid cell carries slopes; on whole cells away from the wall the means stream
    exactly as the lattice's, so there they are only carried along."""

    def __init__(
        self,
        body: vw.Slab,
        tau: float,
        slip: bool = False,
        band: int | None = None,
        profile: bool = False,
    ) -> None:
        super().__init__(body, slip=slip)
        nx, ny = body.nx, body.ny
        self.tau = tau
        self.profile = profile
        fluid = self.volume > 0
        square = [np.array(v, float) - 0.5 for v in ((0, 0), (1, 0), (1, 1), (0, 1))]
        _, _, cell_second = moments(square, np.zeros(2))
        solid_first = np.zeros((2, nx, ny))
        solid_second = np.zeros((2, 2, nx, ny))
        for i, j, piece in vw.cell_pieces(body.solid()):  # about the cell's centre, wrapped
            _, m1, m2 = moments(piece, np.array([i + 0.5, j + 0.5]))
            solid_first[:, i % nx, j % ny] += m1
            solid_second[:, :, i % nx, j % ny] += m2
        v = np.where(fluid, self.volume, 1.0)
        # the fluid's moments about the centre are the whole cell's less the solid's; offset:
        # each cell's fluid centroid from its centre
        self.offset = -solid_first / v * fluid
        self.second = (
            cell_second[:, :, None, None]
            - solid_second
            - v * self.offset[:, None] * self.offset[None, :]
        )
        self.second *= fluid[None, None]
        det = self.second[0, 0] * self.second[1, 1] - self.second[0, 1] ** 2
        ok = fluid & (det > 1e-14)
        safe = np.where(ok, det, 1.0)
        self.second_inv = (
            np.stack(
                [
                    [self.second[1, 1], -self.second[0, 1]],
                    [-self.second[1, 0], self.second[0, 0]],
                ]
            )
            / safe
            * ok
        )
        # the pieces the surface cuts out, and where they land turned over
        cut_area = np.zeros((9, nx, ny))
        cut_first = np.zeros((9, 2, nx, ny))
        cut_second = np.zeros((9, 2, 2, nx, ny))
        rows, out_rows = [], []
        for e, (p0, p1) in enumerate(body.elements()):
            t = (p1 - p0) / np.linalg.norm(p1 - p0)
            n = np.array([t[1], -t[0]])
            for q in range(1, 9):
                c = vw.C[q].astype(float)
                cn = c @ n
                # (sigma, t - 1/2) where a particle of link q at r meets the element, sigma
                # along it from its centre, t the step's fraction; affine in r: g(r0), grad g
                grad_t = -n / cn if abs(cn) > 1e-12 else np.zeros(2)
                grad_g = np.stack([t + (c @ t) * grad_t, grad_t])

                def reflect(r, cn=cn, c=c, p0=p0, p1=p1, n=n, t=t) -> np.ndarray:
                    time = -((r - p0) @ n) / cn if cn < 0 else 1 - ((r - p0) @ n) / cn
                    w = r + time * c if cn < 0 else r - (1 - time) * c
                    return np.array([(w - 0.5 * (p0 + p1)) @ t, time - 0.5])

                if cn > 1e-12:  # the outgoing prism's pieces, for the free slip's terms
                    for k, m, piece in vw.cell_pieces([p0, p1, p1 + c, p0 + c]):
                        dst = np.array([k + 0.5, m + 0.5]) + self.offset[:, k % nx, m % ny]
                        a, m1, m2 = moments(piece, dst)
                        out_rows.append(
                            (
                                e,
                                q,
                                k % nx,
                                m % ny,
                                a,
                                *m1,
                                *m2.ravel(),
                                *reflect(dst),
                                *grad_g.ravel(),
                            )
                        )
                if cn > -1e-9:
                    continue
                flip = np.eye(2) - 2 * np.outer(c, n) / cn  # the turn's linear part
                for i, j, piece in vw.cell_pieces([p0, p1, p1 - c, p0 - c]):
                    src = np.array([i + 0.5, j + 0.5]) + self.offset[:, i % nx, j % ny]
                    a, m1, m2 = moments(piece, src)
                    cut_area[q, i % nx, j % ny] += a
                    cut_first[q, :, i % nx, j % ny] += m1
                    cut_second[q, :, :, i % nx, j % ny] += m2
                    for k, m, sub in vw.cell_pieces([turn(v, p0, n, c) for v in piece]):
                        back = [turn(v, p0, n, c) for v in sub]  # the piece it came from
                        a_s, m1_s, m2_s = moments(back, src)
                        dst = np.array([k + 0.5, m + 0.5]) + self.offset[:, k % nx, m % ny]
                        shift = turn(src, p0, n, c) - dst
                        rows.append(
                            (
                                q,
                                i % nx,
                                j % ny,
                                k % nx,
                                m % ny,
                                a_s,
                                *m1_s,
                                *m2_s.ravel(),
                                *flip.ravel(),
                                *shift,
                                e,
                                *reflect(src),
                                *grad_g.ravel(),
                            )
                        )
        r = np.array(rows)
        self.r_q = r[:, 0].astype(int)
        self.r_src = (r[:, 1].astype(int), r[:, 2].astype(int))
        self.r_dst = (r[:, 3].astype(int), r[:, 4].astype(int))
        self.r_area, self.r_first = r[:, 5], r[:, 6:8]
        self.r_second, self.r_flip = r[:, 8:12].reshape(-1, 2, 2), r[:, 12:16].reshape(-1, 2, 2)
        self.r_shift = r[:, 16:18]
        self.r_el = r[:, 18].astype(int)
        self.r_g, self.r_grad_g = r[:, 19:21], r[:, 21:25].reshape(-1, 2, 2)
        o = np.array(out_rows)
        self.o_el, self.o_q = o[:, 0].astype(int), o[:, 1].astype(int)
        self.o_dst = (o[:, 2].astype(int), o[:, 3].astype(int))
        self.o_area, self.o_first = o[:, 4], o[:, 5:7]
        self.o_second = o[:, 7:11].reshape(-1, 2, 2)
        self.o_g, self.o_grad_g = o[:, 11:13], o[:, 13:17].reshape(-1, 2, 2)
        # the rest of each cell, translated along c_q into its neighbour
        self.keep_area = self.volume[None] - cut_area
        self.keep_first = -cut_first
        self.keep_second = self.second[None] - cut_second
        self.keep_shift = np.stack(
            [self.offset - np.roll(self.offset, tuple(-vw.C[q]), axis=(1, 2)) for q in range(9)]
        )
        self.keep_area *= fluid[None]
        self.slope = np.zeros((9, 2, nx, ny))
        # band: slopes only in the cut cells, the cells a piece leaves or lands in, and their
        # neighbours `band` cells out (None: every fluid cell)
        self.carries = fluid.copy()
        if band is not None:
            self.carries = (self.volume < 1) & fluid
            self.carries[self.r_src] = True
            self.carries[self.r_dst] = True
            self.carries[self.o_dst] = True
            for _ in range(band):
                near = self.carries.copy()
                for q in range(1, 9):
                    near |= np.roll(self.carries, tuple(vw.C[q]), axis=(0, 1))
                self.carries = near & fluid

    def collide_slopes(self, f: np.ndarray) -> None:
        """BGK on the slopes: towards the equilibrium's slope along the moments' slopes."""
        rho = np.where(self.volume > 0, f.sum(axis=0), 1.0)
        ux = (f * vw.C[:, 0, None, None]).sum(axis=0) / rho
        uy = (f * vw.C[:, 1, None, None]).sum(axis=0) / rho
        s_rho = self.slope.sum(axis=0)  # (2, nx, ny)
        s_jx = (self.slope * vw.C[:, 0, None, None, None]).sum(axis=0)
        s_jy = (self.slope * vw.C[:, 1, None, None, None]).sum(axis=0)
        cu = vw.C[:, 0, None, None] * ux + vw.C[:, 1, None, None] * uy
        d_rho = vw.W[:, None, None] * (1 - 4.5 * cu**2 + 1.5 * (ux**2 + uy**2))
        d_jx = vw.W[:, None, None] * (3 * vw.C[:, 0, None, None] * (1 + 3 * cu) - 3 * ux)
        d_jy = vw.W[:, None, None] * (3 * vw.C[:, 1, None, None] * (1 + 3 * cu) - 3 * uy)
        s_eq = (
            d_rho[:, None] * s_rho[None] + d_jx[:, None] * s_jx[None] + d_jy[:, None] * s_jy[None]
        )
        self.slope -= (self.slope - s_eq) / self.tau

    def stream(self, f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.collide_slopes(f)
        s = self.slope
        # the translated rest: mass and first moment about the destination's centroid
        keep_mass = self.keep_area * f + (s * self.keep_first).sum(axis=1)
        keep_moment = (
            f[:, None] * (self.keep_first + self.keep_area[:, None] * self.keep_shift)
            + np.einsum("qabxy,qbxy->qaxy", self.keep_second, s)
            + self.keep_shift * (s * self.keep_first).sum(axis=1)[:, None]
        )
        mass = np.stack([np.roll(keep_mass[q], tuple(vw.C[q]), axis=(0, 1)) for q in range(9)])
        moment = np.stack([np.roll(keep_moment[q], tuple(vw.C[q]), axis=(1, 2)) for q in range(9)])
        # the turned pieces, into the opposite link
        m_src = f[self.r_q, self.r_src[0], self.r_src[1]]
        s_src = s[self.r_q, :, self.r_src[0], self.r_src[1]]
        along = (s_src * self.r_first).sum(axis=1)
        piece_mass = self.r_area * m_src + along
        piece_moment = (
            m_src[:, None]
            * (
                np.einsum("pab,pb->pa", self.r_flip, self.r_first)
                + self.r_area[:, None] * self.r_shift
            )
            + np.einsum("pab,pbc,pc->pa", self.r_flip, self.r_second, s_src)
            + self.r_shift * along[:, None]
        )
        out_q = vw.OPP[self.r_q]
        np.add.at(mass, (out_q, *self.r_dst), piece_mass)
        for a in range(2):
            np.add.at(moment[:, a], (out_q, *self.r_dst), piece_moment[:, a])
        gamma_in = np.zeros((9, self.n_el))
        np.add.at(gamma_in, (self.r_q, self.r_el), piece_mass)
        gamma_out = gamma_in[vw.OPP]
        if self.slip:  # the free slip's and the law's terms, spread evenly over the prisms
            p_t_in = (gamma_in * self.ct).sum(axis=0)
            extra = self.slip_shape * (2 * p_t_in)[None] - self.stress_shape * self.stress[None]
            density = np.divide(extra, self.swept, out=np.zeros_like(extra), where=self.swept > 0)
            d = density[self.o_q, self.o_el]
            d_mass, d_moment = d * self.o_area, d[:, None] * self.o_first
            if self.profile:
                d_mass, d_moment = self._slip_profile(m_src, s_src, piece_mass, d_mass, d_moment)
            np.add.at(mass, (self.o_q, *self.o_dst), d_mass)
            for a in range(2):
                np.add.at(moment[:, a], (self.o_q, *self.o_dst), d_moment[:, a])
            gamma_out = gamma_out + extra
        force = vw.C.T @ (gamma_in - gamma_out).sum(axis=1)
        f_new = np.divide(
            mass, self.volume[None], out=np.zeros_like(mass), where=self.volume[None] > 0
        )
        self.slope = np.einsum("abxy,qbxy->qaxy", self.second_inv, moment) * self.carries
        return f_new, force

    def _slip_profile(
        self,
        m_src: np.ndarray,
        s_src: np.ndarray,
        piece_mass: np.ndarray,
        d_mass: np.ndarray,
        d_moment: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The free slip's term sent back with the incoming tangential momentum's linear profile
        over where and when it met the element, (sigma, t): its first moments Q there, the
        particles' c.t times g = (sigma, t - 1/2) over each piece's linear field, give each
        outgoing prism a density linear in the same (sigma, t) (Q = 0: the even spread)."""
        ct = self.ct[self.r_q, self.r_el]
        # integral of f g over each piece: g(src) (its mass) + grad g . (m M1 + M2 s)
        spread = m_src[:, None] * self.r_first + np.einsum("pab,pb->pa", self.r_second, s_src)
        fg = self.r_g * piece_mass[:, None] + np.einsum("pab,pb->pa", self.r_grad_g, spread)
        q_moment = np.zeros((self.n_el, 2))
        np.add.at(q_moment, self.r_el, 2 * ct[:, None] * fg)
        length = self.length[self.o_el]
        # density over (sigma, t): 12 Q_sigma sigma / L^3 + 12 Q_t (t - 1/2) / L, in r: / |c.n|
        share = (
            np.divide(
                self.slip_shape,
                self.swept,
                out=np.zeros_like(self.slip_shape),
                where=self.swept > 0,
            )[self.o_q, self.o_el]
            * length
        )
        coeff = share[:, None] * 12 * q_moment[self.o_el] / np.stack([length**3, length], axis=1)
        rho_dst = (coeff * self.o_g).sum(axis=1)
        grad_rho = np.einsum("pa,pab->pb", coeff, self.o_grad_g)
        d_mass = d_mass + rho_dst * self.o_area + (grad_rho * self.o_first).sum(axis=1)
        d_moment = (
            d_moment
            + rho_dst[:, None] * self.o_first
            + np.einsum("pab,pb->pa", self.o_second, grad_rho)
        )
        return d_mass, d_moment


def make_wall(rule: str, slip: bool, tau: float, band: int = 1):
    """The wall of a rule: lumped (the volumetric wall as it is), mirrored, linear (mirrored, the
    populations linear across each cell's fluid), linear-whole (linear, the gradient from whole
    neighbours only), lumped-linear (lumped, the gathered pieces linear), projected (with
    -near: its slopes in a band; -profile: the free slip sent back with its profile)."""
    options = {
        "mirrored": {},
        "linear": {"linear": True},
        "linear-whole": {"linear": True, "whole_neighbours": True},
        "lumped-linear": {"linear": True, "lumped": True},
    }
    if rule == "lumped":
        return lambda body: vw.Volumetric(body, slip=slip)
    if rule in ("projected", "projected-near", "projected-profile"):
        near = band if rule == "projected-near" else None
        profile = rule == "projected-profile"
        return lambda body: Projected(body, tau, slip=slip, band=near, profile=profile)
    return lambda body: Mirrored(body, slip=slip, **options[rule])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--offsets", type=float, nargs="+", default=[0.25])
    ap.add_argument("--taus", type=float, nargs="+", default=[0.52, 0.6, 1.0])
    ap.add_argument("--size", type=int, default=20)
    ap.add_argument(
        "--rules",
        nargs="+",
        default=["lumped", "mirrored", "linear"],
        choices=[
            "lumped",
            "mirrored",
            "linear",
            "linear-whole",
            "lumped-linear",
            "projected",
            "projected-near",
            "projected-profile",
        ],
    )
    ap.add_argument(
        "--band", type=int, default=1, help="projected-near: how many cells out the slopes reach"
    )
    ap.add_argument("--cylinder", type=float, metavar="RADIUS", help="the free-slip cylinder")
    ap.add_argument("--stokes", type=int, metavar="BOX", help="no slip: square arrays of cylinders")
    ap.add_argument(
        "--diffusion-times", type=float, default=1.0, help="--stokes: steps, in BOX^2 / nu"
    )
    ap.add_argument("--steps", type=int, default=4000, help="--cylinder: steps")
    ap.add_argument("--average", type=int, default=1500, help="--cylinder: steps averaged")
    args = ap.parse_args()
    problem = (
        "--offsets must lie in [0, 1)"
        if any(not 0 <= o < 1 for o in args.offsets)
        else "--taus must be above 0.5"
        if any(t <= 0.5 for t in args.taus)
        else "--size and --stokes must be at least 8 cells, --cylinder at least 4"
        if args.size < 8
        or (args.stokes is not None and args.stokes < 8)
        or (args.cylinder is not None and args.cylinder < 4)
        else "--band must be at least 0"
        if args.band < 0
        else None
    )
    if problem:
        print(f"volumetric_routing_2d: {problem}", file=sys.stderr)
        raise SystemExit(2)
    results = []
    for rule in args.rules:
        for tau in args.taus:
            if args.stokes:
                for fraction in sorted(vw.SANGANI_ACRIVOS):
                    steps = int(args.diffusion_times * args.stokes**2 / ((tau - 0.5) / 3))
                    r = vw.stokes_array(
                        "volumetric",
                        fraction,
                        args.stokes,
                        steps,
                        tau,
                        make_wall=make_wall(rule, slip=False, tau=tau, band=args.band),
                    )
                    r |= {"rule": rule, "tau": tau, "steps": steps}
                    print(
                        f"{rule}, tau {tau}, solid fraction {fraction}: F/(mu U) "
                        f"{r['F_over_mu_U']:.3f} against Sangani & Acrivos {r['sangani_acrivos']}"
                        f" ({r['error']:+.2%}), radius {r['radius_cells']} cells, {steps} steps",
                        flush=True,
                    )
                    results.append(r)
                continue
            if args.cylinder:
                r = vw.run(
                    "volumetric",
                    args.cylinder,
                    args.steps,
                    args.average,
                    tau,
                    make_wall=make_wall(rule, slip=True, tau=tau, band=args.band),
                )
                r["rule"] = rule
                print(
                    f"{rule}, radius {args.cylinder}, tau {tau}: Cd {r['cd']:.3f} (halves "
                    f"{r['cd_halves'][0]:.3f}, {r['cd_halves'][1]:.3f}; shear-free, leading "
                    f"order: {r['cd_shear_free_leading_order']:.4f}); Cp_t of the first half "
                    f"cell by 15 degrees from the front: {r['cp_t']['0..0.5']}",
                    flush=True,
                )
                results.append(r)
                continue
            for offset in args.offsets:
                r = vw.poiseuille(
                    args.size,
                    offset,
                    tau,
                    "bgk",
                    make_wall=make_wall(rule, slip=False, tau=tau, band=args.band),
                )
                r["rule"] = rule
                print(
                    f"{rule}, offset {offset}, tau {tau}: flow rate "
                    f"{r['flow_rate_error']:+.3%}, wall shift {r['wall_shift_cells']:+.3f} cells",
                    flush=True,
                )
                results.append(r)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
