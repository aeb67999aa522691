"""The subgrid models a case may run (``resolution.subgrid``) and their constants.

``smagorinsky``: the Smagorinsky-Lilly model, its rate from each cell's own non-equilibrium
stress (``cuda/lbm_collision.cuh``). ``wale`` and ``vreman``: eddy viscosities from the resolved
velocity gradient, which vanish in pure shear and so at walls (Nicoud & Ducros 1999, Flow Turbul.
Combust. 62, 183; Vreman 2004, Phys. Fluids 16, 3670), computed from the neighbours' velocities of
the last step (``cuda/lbm_subgrid.cuh``). ``resolution.smagorinsky_cs`` sets every model's
strength, through the published equivalences with Smagorinsky's model in isotropic turbulence,
so switching the model compares the three at the same dissipation there.
"""

from __future__ import annotations

from solver.lattice import CUDA_DIR, read_defines

#: Models by their case-key name, valued as LBM_SUBGRID_* in the kernels.
SUBGRID_MODELS: dict[str, int] = read_defines(CUDA_DIR / "lbm_subgrid.cuh", "LBM_SUBGRID_")

#: WALE's C_w^2 per C_s^2 (Nicoud & Ducros 1999, sec. 3: C_w^2 = 10.6 C_s^2).
WALE_CW2_PER_CS2 = 10.6
#: Vreman's c per C_s^2 (Vreman 2004, eq. 10: c = 2.5 C_s^2).
VREMAN_C_PER_CS2 = 2.5

#: Bytes per cell the gradient models add: the moments of the last step (16) and tau_eddy (4).
GRADIENT_MODEL_BYTES_PER_CELL = 20


def uses_gradient(subgrid: str, smagorinsky_cs: float) -> bool:
    """Whether a case runs a gradient model (WALE or Vreman with a non-zero strength)."""
    return subgrid != "smagorinsky" and smagorinsky_cs > 0


def model_constant(subgrid: str, smagorinsky_cs: float) -> float:
    """The kernels' subgrid_c: WALE's C_w^2 or Vreman's c for a Smagorinsky-equivalent C_s;
    0 for the Smagorinsky model, whose constant travels as cs2_smag."""
    factor = {"smagorinsky": 0.0, "wale": WALE_CW2_PER_CS2, "vreman": VREMAN_C_PER_CS2}[subgrid]
    return factor * smagorinsky_cs**2
