#!/usr/bin/env python3
"""An experiment, not part of the solver: the projected volumetric wall of
`volumetric_routing_2d.py` in three dimensions, on the no-slip check of `volumetric_wall_3d.py`.

Each fluid cell's populations are linear across its fluid, f_q(r) = m_q + s_q . (r - r_x), the
slopes s_q carried as state (after Hoefnagel, Casalino, Hulshoff & de Prenter 2025,
arXiv:2509.05035). A step streams that field exactly and projects it back on each cell's mean
and slope by its first moments:

- the part of a cell's fluid that no surface element intercepts along c_q is translated by c_q
  into the neighbour (its moments: the cell's less the intercepted pieces');
- each piece of an element's incoming prism (the triangle swept along -c_q, cut by the cells) is
  turned over about the prism's mid-plane, where an exact bounce-back puts its particles (t of a
  step from the wall ends 1 - t from it), into the opposite link of the cells it then overlaps
  (exact polyhedral overlaps; the pieces' volumes, first and second moments from tetrahedra);
- BGK relaxes the slopes towards the equilibrium's along the moments' slopes.

Mass and a fluid at rest are kept exactly; on whole cells the means stream as the lattice's.

    python docs/experiments/volumetric_routing_3d.py [--box 16] [--fraction 0.064]
        [--taus 0.6 1.0] [--steps-per-diffusion 3] [--rules lumped projected]

Stokes flow through a simple cubic array of spheres (`volumetric_wall_3d.stokes_array`), K
against Zick & Homsy (1982), for each rule and tau; the steps are 3 box^2 / nu by default.
Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import volumetric_wall_3d as vw3  # noqa: E402

C = vw3.C.astype(float)


def moments(poly: vw3.Polyhedron, origin: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Volume, first moment [3] and second moment [3, 3] about origin of a convex polyhedron
    (tetrahedra from the mean of its vertices to each face's fan)."""
    if len(poly) < 4:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    apex = np.concatenate(poly).mean(axis=0) - origin
    vol, first, second = 0.0, np.zeros(3), np.zeros((3, 3))
    for face in poly:
        f = face - origin
        for k in range(1, len(f) - 1):
            v = (apex, f[0], f[k], f[k + 1])
            t = abs(np.linalg.det(np.array([v[1] - v[0], v[2] - v[0], v[3] - v[0]]))) / 6
            if t < 1e-16:
                continue
            total = v[0] + v[1] + v[2] + v[3]
            vol += t
            first += t * total / 4
            second += t / 20 * (sum(np.outer(x, x) for x in v) + np.outer(total, total))
    return vol, first, second


def prism(tri: np.ndarray, sweep: np.ndarray) -> vw3.Polyhedron:
    """The triangle swept by `sweep`: two triangles and three quadrilaterals."""
    a, b, c = tri
    a2, b2, c2 = a + sweep, b + sweep, c + sweep
    return [
        np.array([a, b, c]),
        np.array([a2, c2, b2]),
        np.array([a, a2, b2, b]),
        np.array([b, b2, c2, c]),
        np.array([c, c2, a2, a]),
    ]


class Projected:
    """No slip; every fluid cell carries slopes (19, 3) beside its means."""

    def __init__(self, body: vw3.SphereBody, tau: float) -> None:
        shape = body.shape
        self.shape, self.tau = shape, tau
        lumped = vw3.VolumetricWall(body, merge_below=0.0, slip=False)
        self.volume, self.n_el = lumped.volume, lumped.n_el
        fluid = self.volume > 0
        self.fluid = fluid
        cube = vw3.hexahedron(
            [np.array([a, b, d], float) - 0.5 for a in (0, 1) for b in (0, 1) for d in (0, 1)]
        )
        _, _, cube_second = moments(cube, np.zeros(3))
        solid_first = np.zeros((3, *shape))
        solid_second = np.zeros((3, 3, *shape))
        for at in zip(*np.nonzero(fluid & (self.volume < 1)), strict=True):
            centre = np.array(at) + 0.5
            piece = [face + centre for face in cube]  # the cell, clipped by the planes that cut it
            reach = np.abs(body.planes).sum(axis=1) / 2
            cutting = np.abs(body.planes @ centre - body.offsets) <= reach + 1e-12
            for normal, offset in zip(body.planes[cutting], body.offsets[cutting], strict=True):
                piece = vw3.clip(piece, normal, offset)
            _, m1, m2 = moments(piece, centre)
            solid_first[(slice(None), *at)] = m1
            solid_second[(slice(None), slice(None), *at)] = m2
        v = np.where(fluid, self.volume, 1.0)
        self.offset = -solid_first / v * fluid  # each cell's fluid centroid from its centre
        self.second = (
            cube_second.reshape(3, 3, 1, 1, 1)
            - solid_second
            - v * self.offset[:, None] * self.offset[None, :]
        ) * fluid
        second_t = np.moveaxis(self.second, (0, 1), (-2, -1))
        ok = fluid & (np.linalg.det(np.where(fluid[..., None, None], second_t, np.eye(3))) > 1e-12)
        inv = np.linalg.inv(np.where(ok[..., None, None], second_t, np.eye(3)))
        self.second_inv = np.moveaxis(inv, (-2, -1), (0, 1)) * ok
        cut_area = np.zeros((19, *shape))
        cut_first = np.zeros((19, 3, *shape))
        cut_second = np.zeros((19, 3, 3, *shape))
        rows = []
        tris = body.triangles
        for tri in tris:
            n = np.cross(tri[1] - tri[0], tri[2] - tri[0])
            n /= np.linalg.norm(n)
            for q in range(1, 19):
                c = C[q]
                cn = c @ n
                if cn > -1e-9:
                    continue
                flip = np.eye(3) - 2 * np.outer(c, n) / cn

                def turn(x: np.ndarray, p0: np.ndarray = tri[0], c=c, n=n, cn=cn) -> np.ndarray:
                    return x + (2 * (-((x - p0) @ n) / cn) - 1) * c

                for i, j, k, piece in vw3.cell_pieces(prism(tri, -c)):
                    at = (i % shape[0], j % shape[1], k % shape[2])
                    src = np.array([i, j, k]) + 0.5 + self.offset[(slice(None), *at)]
                    a, m1, m2 = moments(piece, src)
                    cut_area[(q, *at)] += a
                    cut_first[(q, slice(None), *at)] += m1
                    cut_second[(q, slice(None), slice(None), *at)] += m2
                    turned = [np.array([turn(x) for x in face]) for face in piece]
                    for ii, jj, kk, sub in vw3.cell_pieces(turned):
                        to = (ii % shape[0], jj % shape[1], kk % shape[2])
                        back = [np.array([turn(x) for x in face]) for face in sub]
                        a_s, m1_s, m2_s = moments(back, src)
                        dst = np.array([ii, jj, kk]) + 0.5 + self.offset[(slice(None), *to)]
                        rows.append(
                            (
                                q,
                                *at,
                                *to,
                                a_s,
                                *m1_s,
                                *m2_s.ravel(),
                                *flip.ravel(),
                                *(turn(src) - dst),
                            )
                        )
        r = np.array(rows)
        self.r_q = r[:, 0].astype(int)
        self.r_src = tuple(r[:, 1 + d].astype(int) for d in range(3))
        self.r_dst = tuple(r[:, 4 + d].astype(int) for d in range(3))
        self.r_area, self.r_first = r[:, 7], r[:, 8:11]
        self.r_second, self.r_flip = r[:, 11:20].reshape(-1, 3, 3), r[:, 20:29].reshape(-1, 3, 3)
        self.r_shift = r[:, 29:32]
        self.keep_area = (self.volume[None] - cut_area) * fluid[None]
        self.keep_first = -cut_first
        self.keep_second = self.second[None] - cut_second
        self.keep_shift = np.stack(
            [
                self.offset - np.roll(self.offset, tuple(-vw3.C[q]), axis=(1, 2, 3))
                for q in range(19)
            ]
        )
        self.slope = np.zeros((19, 3, *shape))

    def collide_slopes(self, f: np.ndarray) -> None:
        rho = np.where(self.fluid, f.sum(axis=0), 1.0)
        u = np.tensordot(C.T, f, axes=(1, 0)) / rho
        s_rho = self.slope.sum(axis=0)
        s_j = np.tensordot(C.T, self.slope, axes=(1, 0))  # (3 j, 3 space, ...)
        cu = np.tensordot(C, u, axes=(1, 0))
        w = vw3.W.reshape(19, 1, 1, 1)
        d_rho = w * (1 - 4.5 * cu**2 + 1.5 * (u * u).sum(axis=0))
        s_eq = d_rho[:, None] * s_rho[None]
        for a in range(3):
            d_j = w * (3 * C[:, a, None, None, None] * (1 + 3 * cu) - 3 * u[a])
            s_eq += d_j[:, None] * s_j[a][None]
        self.slope -= (self.slope - s_eq) / self.tau

    def stream(self, f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.collide_slopes(f)
        s = self.slope
        along = (s * self.keep_first).sum(axis=1)
        keep_mass = self.keep_area * f + along
        keep_moment = (
            f[:, None] * (self.keep_first + self.keep_area[:, None] * self.keep_shift)
            + np.einsum("qab...,qb...->qa...", self.keep_second, s)
            + self.keep_shift * along[:, None]
        )
        axes = (1, 2, 3)
        mass = np.stack([np.roll(keep_mass[q], tuple(vw3.C[q]), axis=(0, 1, 2)) for q in range(19)])
        moment = np.stack([np.roll(keep_moment[q], tuple(vw3.C[q]), axis=axes) for q in range(19)])
        m_src = f[(self.r_q, *self.r_src)]
        s_src = np.stack([s[(self.r_q, d, *self.r_src)] for d in range(3)], axis=1)
        along_r = (s_src * self.r_first).sum(axis=1)
        piece_mass = self.r_area * m_src + along_r
        piece_moment = (
            m_src[:, None]
            * (
                np.einsum("pab,pb->pa", self.r_flip, self.r_first)
                + self.r_area[:, None] * self.r_shift
            )
            + np.einsum("pab,pbc,pc->pa", self.r_flip, self.r_second, s_src)
            + self.r_shift * along_r[:, None]
        )
        out_q = vw3.OPP[self.r_q]
        np.add.at(mass, (out_q, *self.r_dst), piece_mass)
        for a in range(3):
            np.add.at(moment[:, a], (out_q, *self.r_dst), piece_moment[:, a])
        gathered = np.bincount(self.r_q, weights=piece_mass, minlength=19)
        force = 2 * C.T @ gathered
        f_new = np.divide(mass, self.volume[None], out=np.zeros_like(mass), where=self.fluid[None])
        self.slope = np.einsum("ab...,qb...->qa...", self.second_inv, moment)
        return f_new, force


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--box", type=int, default=16)
    ap.add_argument("--fraction", type=float, default=0.064, choices=sorted(vw3.ZICK_HOMSY))
    ap.add_argument("--taus", type=float, nargs="+", default=[0.6, 1.0])
    ap.add_argument("--steps-per-diffusion", type=float, default=3.0)
    ap.add_argument("--rules", nargs="+", default=["lumped", "projected"])
    args = ap.parse_args()
    if args.box < 8 or any(t <= 0.5 for t in args.taus) or args.steps_per_diffusion <= 0:
        print(
            "volumetric_routing_3d: --box must be at least 8, --taus above 0.5 and"
            " --steps-per-diffusion positive",
            file=sys.stderr,
        )
        raise SystemExit(2)
    results = []
    for rule in args.rules:
        for tau in args.taus:
            steps = int(args.steps_per_diffusion * args.box**2 / ((tau - 0.5) / 3))

            def make(body: vw3.SphereBody, tau: float = tau, rule: str = rule):
                if rule == "projected":
                    return Projected(body, tau)
                return vw3.VolumetricWall(body, merge_below=0.0, slip=False)

            t0 = time.time()
            r = vw3.stokes_array(args.fraction, args.box, steps, tau, make) | {"rule": rule}
            r["steps"] = steps
            print(
                f"{rule}, tau {tau}: K {r['K']:.4f} against Zick & Homsy {r['zick_homsy']}"
                f" ({r['error']:+.2%}), radius {r['radius_cells']} cells, {steps} steps,"
                f" {time.time() - t0:.0f} s",
                flush=True,
            )
            results.append(r)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
