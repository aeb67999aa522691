"""The law of the wall on the volumetric wall's elements (cuda/lbm_volumetric.cuh): per element
its unit normal and tangents, where it reads the flow, and two shapes over its outgoing links,
the three-dimensional model's (`docs/experiments/volumetric_wall_3d.py`):

- free slip: gamma_out += sum_k slip[k, q] P_k, P_k = sum_q (c_q . t_k) gamma_in[q] the
  tangential momentum the element gathers, slip[k] = w_q A_out[q] (c_q . t_l) (M^-1)_lk 2 with
  M_kl = sum_q w_q A_out[q] (c_q . t_k)(c_q . t_l): bounce-back returns -P, this adds 2P, so the
  element hands the tangential momentum it gathered back to the flow and takes the normal;
- the law's force F along the tangent plane: gamma_out -= sum_k stress[k, q] F_k, stress[k] =
  w_q A_out[q] (k-th column of the inverse Gram matrix of (1, c.t_1, c.t_2, c.n)) . (1, c.t_1,
  c.t_2, c.n): unit momentum along t_k, no mass, no normal momentum.

The input: the point `sample` cells out along the normal from the element's centroid, trilinear
over the centres of the fluid cells round it (those without fluid left out, the weights
renormalized; none: the element's own cell), less the element's own velocity (a rolling
wheel's, solver/rolling.py; the free slip is the same in the wall's frame, so only the law's
input sees it). Lengths in cells, velocities in lattice units.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.lattice import C, W
from solver.volumetric_wall import VolumetricWall

#: Floats per element in the kernels' vol_law (cuda/lbm_lattice.cuh, LBM_VOL_LAW_FIELDS).
LAW_FIELDS = 97


@dataclass(frozen=True)
class VolumetricLaw:
    """Per element: normal [E, 3] (unit, out of the body), tangent [E, 2, 3], area [E] [cells^2],
    slip and stress [E, 2, Q], probe_cell [E, 8] (flat), probe_weight [E, 8] and wall_velocity
    [E, 3] (lattice units, along the surface; zero at rest)."""

    normal: np.ndarray
    tangent: np.ndarray
    area: np.ndarray
    slip: np.ndarray
    stress: np.ndarray
    probe_cell: np.ndarray
    probe_weight: np.ndarray
    wall_velocity: np.ndarray


def element_tangents(normal: np.ndarray) -> np.ndarray:
    """Two unit tangents [E, 2, 3] per unit normal, t_2 = n x t_1."""
    helper = np.where(np.abs(normal[:, :1]) < 0.9, [[1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0]])
    t1 = np.cross(normal, helper)
    t1 /= np.linalg.norm(t1, axis=1, keepdims=True)
    return np.stack([t1, np.cross(normal, t1)], axis=1)


def _probe(
    wall: VolumetricWall, point: np.ndarray, periodic: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The 8 cells round each point [E, 3] (cell units) and their trilinear weights, those
    without fluid dropped."""
    nz, ny, nx = wall.volume.shape
    size = np.array([nx, ny, nz])
    corner = np.floor(point - 0.5).astype(np.int64)
    frac = point - 0.5 - corner
    cells, weights = [], []
    for offset in np.ndindex(2, 2, 2):
        xyz = corner + offset
        weight = np.prod(np.where(np.array(offset) == 1, frac, 1.0 - frac), axis=1)
        xyz = np.where(periodic, xyz % size, np.clip(xyz, 0, size - 1))
        flat = xyz[:, 0] + nx * (xyz[:, 1] + ny * xyz[:, 2])
        cells.append(flat)
        weights.append(np.where(wall.volume.ravel()[flat] > 0, weight, 0.0))
    cell, weight = np.stack(cells, 1), np.stack(weights, 1)
    total = weight.sum(axis=1, keepdims=True)
    alone = total[:, 0] <= 0
    weight = np.divide(weight, total, out=np.zeros_like(weight), where=total > 0)
    cell[alone, 0], weight[alone, 0] = wall.element_cell[alone], 1.0
    return cell, weight


def volumetric_law(
    wall: VolumetricWall,
    sample: float,
    periodic: np.ndarray,
    wall_velocity: np.ndarray | None = None,
) -> VolumetricLaw:
    """The law's tables of wall's elements, reading the flow `sample` cells out; wall_velocity
    [E, 3] the elements' own (lattice units; None: at rest), its normal part dropped."""
    area = np.linalg.norm(wall.area_vector, axis=1)
    normal = wall.area_vector / np.maximum(area, 1e-300)[:, None]
    tangent = element_tangents(normal)
    ct = np.einsum("qd,ekd->ekq", C.astype(float), tangent)  # c_q . t_k
    cn = normal @ C.T.astype(float)
    weight = W[None, :] * wall.swept_out  # w_q A_out[q], outgoing links only
    m = np.einsum("ekq,elq,eq->ekl", ct, ct, weight)
    m_inv = np.linalg.pinv(m)
    slip = 2.0 * np.einsum("elq,elk->ekq", ct * weight[:, None, :], m_inv)
    basis = np.concatenate([np.ones_like(cn)[:, None], ct, cn[:, None]], axis=1)  # [E, 4, Q]
    gram_inv = np.linalg.pinv(np.einsum("eaq,ebq,eq->eab", basis, basis, weight))
    stress = np.einsum("eak,eaq->ekq", gram_inv[:, :, 1:3], basis) * weight[:, None, :]
    point = wall.centroid + sample * normal
    probe_cell, probe_weight = _probe(wall, point, np.asarray(periodic, bool))
    moving = np.zeros_like(normal) if wall_velocity is None else np.asarray(wall_velocity, float)
    moving = moving - np.einsum("ei,ei->e", moving, normal)[:, None] * normal
    return VolumetricLaw(normal, tangent, area, slip, stress, probe_cell, probe_weight, moving)


def law_values(law: VolumetricLaw, sample: float) -> dict[str, np.ndarray | float | int]:
    """The LbmParams fields of the elements' law (cuda/lbm_volumetric.cuh), host arrays."""
    packed = np.concatenate(
        [
            law.normal,
            law.tangent.reshape(-1, 6),
            law.area[:, None],
            law.slip.reshape(-1, 38),
            law.stress.reshape(-1, 38),
            law.probe_weight,
            law.wall_velocity,
        ],
        axis=1,
    )
    assert packed.shape[1] == LAW_FIELDS
    return {
        "vol_law": packed.astype(np.float32).ravel(),
        "vol_probe": law.probe_cell.astype(np.int64).ravel(),
        "vol_sample": float(sample),
        "vol_law_on": 1,
    }
