// Coupling of two refinement levels, written once for the GPU (cuda/lbm.cu) and the CPU
// (cuda/host/lbm_host.cpp); docs/solver.md, "Grid refinement", derives it.
//
// Cell-centred levels, refinement factor 2: each coarse cell of a refined box holds 2 x 2 x 2
// fine cells. Acoustic scaling (the lattice speed is the same on both levels), so the fine level
// takes two steps per coarse step and, for the same physical viscosity, tau_f - 1/2 =
// 2 (tau_c - 1/2). Both levels store post-collision populations (lbm_cell.cuh), and the coupling
// moves post-collision states between them in the volumetric manner of Rohde et al. (2006, Int.
// J. Numer. Meth. Fluids 51, 439) and Schornbaum & Ruede (2016, SIAM J. Sci. Comput. 38, C96):
// - explosion: a fine ghost cell (FLAG_GHOST, the ring round the fine block's active cells) takes
//   the coarse state at its centre (linear in space), in time linearly between two coarse states
//   for the fine level's second step;
// - coalescence: a coarse ghost cell (the outer layer of coarse cells inside the box) takes the
//   mean of its eight fine cells.
// Each transfer keeps the state's density and momentum (so its equilibrium) and rescales its
// non-equilibrium part: after a collision f* - f_eq = (1 - 1/tau) f_neq, and by the Chapman-Enskog
// expansion f_neq = -tau dt (d_t + c . grad) f_eq, so f* - f_eq is proportional to (tau - 1) dt.
// The same velocity gradient on both levels gives
//   (f* - f_eq)_fine = (tau_f - 1) / (2 (tau_c - 1)) (f* - f_eq)_coarse
// (Dupuis & Chopard 2003, Phys. Rev. E 67, 066707, for post-collision states). The entropic
// operator's post-collision non-equilibrium part is its relaxed deviatoric stress alone (its trace
// relaxes at omega_bulk = 1 and its higher moments to equilibrium), so the one factor rescales the
// whole of it; BGK's relaxes at one rate, so the factor holds for all its moments too. With the
// Smagorinsky model the tau are each state's own (lbm_state_tau, lbm_coupling_state_populations).
#pragma once

#include "lbm_collision.cuh"

// The relaxation time of a post-collision state under the Smagorinsky model (lbm_collision.cuh):
// tau = (tau0 + sqrt(tau0^2 + A P)) / 2, A = 18 sqrt(2) Cs^2, at the pre-collision stress norm P,
// i.e. P = 4 tau (tau - tau0) / A; the state keeps P* = (1/tau - 1) P of it, so
// (1 - tau)(tau - tau0) = A P* / 4 and tau = ((1 + tau0) - sqrt((1 - tau0)^2 - A P*)) / 2, the
// root nearer tau0. P* reaches its largest value (1 - tau0)^2 / A at tau = (1 + tau0) / 2; a state
// past it (an eddy viscosity above that of tau = (1 + tau0) / 2) reads as that tau. The entropic
// operator's state keeps the deviatoric stress only, the model took the trace too: near-
// incompressible flows have almost none. pi_star: the state's non-equilibrium stress per unit
// reference density (xx, yy, zz, xy, xz, yz).
__device__ __forceinline__ float lbm_state_tau(const float tau0, const float cs2_smag,
                                               const float* pi_star) {
    if (!(cs2_smag > 0.0f) || !(tau0 < 1.0f)) return tau0;
    const float norm = sqrtf(pi_star[0] * pi_star[0] + pi_star[1] * pi_star[1] + pi_star[2] * pi_star[2] +
                             2.0f * (pi_star[3] * pi_star[3] + pi_star[4] * pi_star[4] + pi_star[5] * pi_star[5]));
    const float disc = (1.0f - tau0) * (1.0f - tau0) - 25.455844f * cs2_smag * norm;
    return 0.5f * ((1.0f + tau0) - sqrtf(fmaxf(disc, 0.0f)));
}

// A post-collision state split into the parts the coupling combines linearly: its density, its
// momentum (rho u for the entropic operator, u for BGK's incompressible equilibrium, whose rho_0
// is 1) and its non-equilibrium populations f - f_eq(rho, u). Combining states by these parts
// rather than by their populations keeps the equilibrium exact wherever the velocity is linear in
// space: the populations' equilibrium is quadratic in u, and its interpolation error (a quarter
// coarse cell's offset, squared, times the shear) adds mass to the links that cross the interface
// on both of its sides (a plane Couette flow across a refined box gained 3.6e-4 of its mass per
// 1,000 coarse steps that way; docs/solver.md).
struct LbmCouplingState {
    float rho, j[3], neq[19];
};

__device__ __forceinline__ void lbm_coupling_state_clear(LbmCouplingState* s) {
    s->rho = 0.0f;
    s->j[0] = s->j[1] = s->j[2] = 0.0f;
    LBM_UNROLL
    for (int q = 0; q < 19; ++q) s->neq[q] = 0.0f;
}

// s += weight * (the parts of cell n of the population planes), shifted populations.
template <int kCollision>
__device__ __forceinline__ void lbm_coupling_state_add(LbmCouplingState* s,
                                                       const lbm_pop* __restrict__ planes,
                                                       const long long stride, const long long n,
                                                       const float weight) {
    float f[19], feq[19], rho, ux, uy, uz;
    LBM_UNROLL
    for (int q = 0; q < 19; ++q) f[q] = lbm_pop_load(planes[q * stride + n]);
    lbm_moments<kCollision>(f, &rho, &ux, &uy, &uz);
    lbm_equilibrium<kCollision>(feq, rho, ux, uy, uz);
    const float m = kCollision == LBM_COLLISION_ENTROPIC ? weight * rho : weight;
    s->rho += weight * rho;
    s->j[0] += m * ux;
    s->j[1] += m * uy;
    s->j[2] += m * uz;
    LBM_UNROLL
    for (int q = 0; q < 19; ++q) s->neq[q] += weight * (f[q] - feq[q]);
}

// The populations of a combined state moved to another level: its equilibrium, plus its
// non-equilibrium part times r (tau_dst - 1) / (tau_src - 1), r = dt_dst / dt_src (1/2 into the
// finer level, 2 into the coarser). tau_src is the state's own relaxation time (lbm_state_tau,
// at the source level's molecular tau0_src), and the subgrid model's part of it, proportional to
// the strain in lattice units, scales by r too: tau_dst = tau0_dst + r (tau_src - tau0_src).
// Without the subgrid model both are the levels' molecular times.
template <int kCollision>
__device__ __forceinline__ void lbm_coupling_state_populations(const LbmCouplingState* s,
                                                               const float tau0_src,
                                                               const float tau0_dst, const float r,
                                                               const float cs2_smag, float* f) {
    const float per = kCollision == LBM_COLLISION_ENTROPIC ? 1.0f / s->rho : 1.0f;
    float feq[19];
    lbm_equilibrium<kCollision>(feq, s->rho, s->j[0] * per, s->j[1] * per, s->j[2] * per);
    float pi[6] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
#define LBM_NEQ_STRESS(q, cx, cy, cz, w)         \
    {                                            \
        const float d = s->neq[q];               \
        pi[0] += LBM_CV((cx) * (cx), d);         \
        pi[1] += LBM_CV((cy) * (cy), d);         \
        pi[2] += LBM_CV((cz) * (cz), d);         \
        pi[3] += LBM_CV((cx) * (cy), d);         \
        pi[4] += LBM_CV((cx) * (cz), d);         \
        pi[5] += LBM_CV((cy) * (cz), d);         \
    }
    D3Q19_LINKS(LBM_NEQ_STRESS)
#undef LBM_NEQ_STRESS
    LBM_UNROLL
    for (int k = 0; k < 6; ++k) pi[k] *= per;
    const float tau_src = lbm_state_tau(tau0_src, cs2_smag, pi);
    const float tau_dst = tau0_dst + r * (tau_src - tau0_src);
    const float scale = r * (tau_dst - 1.0f) / (tau_src - 1.0f);
    LBM_UNROLL
    for (int q = 0; q < 19; ++q) f[q] = feq[q] + scale * s->neq[q];
}

// Explosion of entry i, cells[8 i .. 8 i + 7]: the coarse cell the fine ghost cell lies in, the
// fine ghost cell, then per axis the coarse cells towards and away from the fine cell's centre,
// which lies a quarter of a coarse cell off the coarse centre on every axis; weights[3 i + k] the
// weight of axis k's difference (1/8 for a central difference, 1/4 for a one-sided one next to a
// wall, whose cells hold no current state). The state (LbmCouplingState) is the coarse one at the
// fine centre to first order in space, c_now + a (c_next - c_now) at the cell plus the weighted
// differences of c_now, with c_next = c_now for a = 0; then rescaled (r = 1/2). Taken cell by
// cell, without the gradient term (as Rohde et al. 2006 do), the fine ghost cell's equilibrium
// is a quarter cell's velocity difference off, an error as large as the non-equilibrium part:
// the Taylor-Green vortex across a refined box decayed 6-7% too fast at 32 and at 64 cells per
// wavelength alike (docs/solver.md).
template <int kCollision>
__device__ __forceinline__ void lbm_explode_entry(const lbm_pop* __restrict__ c_now,
                                                  const lbm_pop* __restrict__ c_next, const float a,
                                                  const long long c_stride, lbm_pop* __restrict__ fine,
                                                  const long long f_stride,
                                                  const long long* __restrict__ cells,
                                                  const float* __restrict__ weights,
                                                  const long long i, const float tau0_c,
                                                  const float tau0_f, const float cs2_smag) {
    const long long* e = cells + 8 * i;
    const float* wk = weights + 3 * i;
    LbmCouplingState s;
    lbm_coupling_state_clear(&s);
    lbm_coupling_state_add<kCollision>(&s, c_now, c_stride, e[0], 1.0f - a);
    if (a != 0.0f) lbm_coupling_state_add<kCollision>(&s, c_next, c_stride, e[0], a);
    for (int k = 0; k < 3; ++k) {
        if (wk[k] == 0.0f) continue;
        lbm_coupling_state_add<kCollision>(&s, c_now, c_stride, e[2 + 2 * k], wk[k]);
        lbm_coupling_state_add<kCollision>(&s, c_now, c_stride, e[3 + 2 * k], -wk[k]);
    }
    float f[19];
    lbm_coupling_state_populations<kCollision>(&s, tau0_c, tau0_f, 0.5f, cs2_smag, f);
    LBM_UNROLL
    for (int q = 0; q < 19; ++q) fine[q * f_stride + e[1]] = lbm_pop_store(f[q]);
}

// Coalescence of entry i: cells[9 i] the coarse ghost cell, cells[9 i + 1 .. 9 i + 8] its eight
// fine cells. The state (LbmCouplingState) is their mean, so the coarse cell holds their mass
// and momentum exactly; then rescaled (r = 2).
template <int kCollision>
__device__ __forceinline__ void lbm_coalesce_entry(const lbm_pop* __restrict__ fine,
                                                   const long long f_stride,
                                                   lbm_pop* __restrict__ coarse,
                                                   const long long c_stride,
                                                   const long long* __restrict__ cells,
                                                   const long long i, const float tau0_f,
                                                   const float tau0_c, const float cs2_smag) {
    const long long* e = cells + 9 * i;
    LbmCouplingState s;
    lbm_coupling_state_clear(&s);
    for (int k = 1; k <= 8; ++k) lbm_coupling_state_add<kCollision>(&s, fine, f_stride, e[k], 0.125f);
    float f[19];
    lbm_coupling_state_populations<kCollision>(&s, tau0_f, tau0_c, 2.0f, cs2_smag, f);
    LBM_UNROLL
    for (int q = 0; q < 19; ++q) coarse[q * c_stride + e[0]] = lbm_pop_store(f[q]);
}
