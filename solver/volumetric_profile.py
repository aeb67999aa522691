"""The free slip's profile on the projected volumetric wall (docs/solver.md, "The free slip's
profile"): the tangential momentum an element hands back (solver/volumetric_law.py, slip) sent
with the linear profile the incoming momentum had over where and when it met the element.

A particle of link q at r that meets surfel s (unit normal n, through p) does so t of a step
later, t(r) = -(r - p) . n / (c_q . n), at w(r) = r + t c_q; an exact bounce-back lands it at
w - (1 - t) c_q, so the turned pieces (solver/volumetric_turn.py) keep (w, t) and their volume.
g(r) = (T (w - x), t - 1/2), T the element's two tangents (`element_tangents`), is affine in r on
each piece. The element gathers P_k (its tangential momentum along t_k, as the even
spread does) and Q_k = sum over q of (c_q . t_k) times the integral of f_q g over its incoming
prism; the linear density over (w, t) with those moments is P_k / A + b_k . g, b_k = G^-1 Q_k,
G the integral of g g^T over the element and the step. The free slip then sends, along each
outgoing link q', sum_k slip[k, q'] (P_k / A + b_k . g) / |c_q' . n| per unit volume of its prism,
where the even spread sends the first term alone. g is measured from the centroid of each
(element, link) prism, so the profile adds no mass or momentum to any link, and a flow uniform
along the surface (Q = 0) is sent back as before.

Tables (the kernels' vol_gather_profile, vol_scatter_profile, vol_profile_gram):
- gather [P, 12] per parcel (element, q, source): the integral of g over it (3) and of
  g (r - r_src)^T (3 x 3), r_src its source's fluid centroid, so a mean m and slope s give
  m g0 + G1 s;
- scatter [., 12] per scatter entry (element, q', slot): the integral of g over its piece (3)
  and the inverse of the slot's fluid second moment times the integral of (r - r_x) g^T
  (3 x 3), both over the entry's outgoing prism volume and, the first, the slot's fluid volume;
- gram [E, 3, 3]: (sum of the parcels' volumes) times the pseudo-inverse of the sum of their
  integrals of g g^T. The kernels' b_k = gram Q_k is A G^-1 Q_k, the element's area A cancelling
  against the scatter's terms, which are per unit volume of the outgoing prism.
Lengths in cells.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.lattice import C
from solver.surfels import Surfels
from solver.volumetric_turn import TurnedPieces


@dataclass(frozen=True)
class SlipProfile:
    """gather [P, 12], scatter [n, 12] and gram [E, 3, 3], as the module says."""

    gather: np.ndarray
    scatter: np.ndarray
    gram: np.ndarray


@dataclass(frozen=True)
class PieceIntegrals:
    """Per turned piece, with g centred on its (element, link) prism: the integral of g [3],
    of g (r - r_src)^T [3, 3] over the source piece, of (r' - r_dst) g^T [3, 3] over the
    turned one, of g g^T [3, 3]."""

    g: np.ndarray
    g_first: np.ndarray
    turned_first: np.ndarray
    gg: np.ndarray


def piece_integrals(
    t: TurnedPieces,
    p: np.ndarray,
    q_map: np.ndarray,
    surfels: Surfels,
    element: np.ndarray,
    tangent: np.ndarray,
    r_src: np.ndarray,
) -> PieceIntegrals:
    """The integrals of each piece of t (its turned moments p, q_map: the builder's, strays
    kept in their source), element [n] each piece's element, tangent [E, 2, 3] the elements'
    tangents, r_src [n, 3] the pieces' sources' fluid centroids (unwrapped)."""
    c = C[t.q].astype(float)
    unit = surfels.area_vector[t.surfel] / surfels.area[t.surfel, None]
    cn = np.einsum("nd,nd->n", c, unit)
    grad_t = -unit / cn[:, None]
    time = np.einsum("nd,nd->n", r_src - surfels.centroid[t.surfel], grad_t)
    tan = tangent[element]  # [n, 2, 3]
    jacobian = np.eye(3)[None] + c[:, :, None] * grad_t[:, None, :]  # dw / dr
    grad = np.concatenate([np.einsum("nkd,nde->nke", tan, jacobian), grad_t[:, None]], axis=1)
    at_src = np.concatenate(
        [np.einsum("nkd,nd->nk", tan, r_src + time[:, None] * c), (time - 0.5)[:, None]], axis=1
    )
    grad_first = np.einsum("nab,nb->na", grad, t.first)
    # centred on each (element, link) prism: g less the prism's mean of it
    _, where = np.unique(element * len(C) + t.q, return_inverse=True)
    where = where.ravel()
    total = np.zeros((where.max() + 1 if len(where) else 0, 3))
    volume = np.zeros(len(total))
    np.add.at(total, where, at_src * t.volume[:, None] + grad_first)
    np.add.at(volume, where, t.volume)
    at_src = at_src - (total / volume[:, None])[where]
    return PieceIntegrals(
        g=at_src * t.volume[:, None] + grad_first,
        g_first=at_src[:, :, None] * t.first[:, None, :]
        + np.einsum("nab,nbc->nac", grad, t.second),
        turned_first=p[:, :, None] * at_src[:, None, :] + np.einsum("nab,ncb->nac", q_map, grad),
        gg=(
            at_src[:, :, None] * at_src[:, None, :] * t.volume[:, None, None]
            + at_src[:, :, None] * grad_first[:, None, :]
            + grad_first[:, :, None] * at_src[:, None, :]
            + np.einsum("nab,nbc,ndc->nad", grad, t.second, grad)
        ),
    )


def profile_gram(
    integrals: PieceIntegrals, volume: np.ndarray, element: np.ndarray, n_el: int
) -> np.ndarray:
    """gram [E, 3, 3]: each element's parcels' volume times the pseudo-inverse of their g g^T."""
    gg = np.zeros((n_el, 3, 3))
    np.add.at(gg, element, integrals.gg)
    total = np.bincount(element, weights=volume, minlength=n_el)
    return total[:, None, None] * np.linalg.pinv(gg, rcond=1e-9, hermitian=True)
