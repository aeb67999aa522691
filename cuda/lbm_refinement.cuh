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
// whole of it; BGK's relaxes at one rate, so the factor holds for all its moments too.
#pragma once

#include "lbm_collision.cuh"

// f <- f_eq(f) + scale (f - f_eq(f)): the state's density and momentum kept, its non-equilibrium
// part rescaled (shifted populations, the operator's equilibrium).
template <int kCollision>
__device__ __forceinline__ void lbm_rescale_nonequilibrium(float* f, const float scale) {
    float rho, ux, uy, uz, feq[19];
    lbm_moments<kCollision>(f, &rho, &ux, &uy, &uz);
    lbm_equilibrium<kCollision>(feq, rho, ux, uy, uz);
    LBM_UNROLL
    for (int q = 0; q < 19; ++q) f[q] = feq[q] + scale * (f[q] - feq[q]);
}

// Explosion of entry i, cells[8 i .. 8 i + 7]: the coarse cell the fine ghost cell lies in, the
// fine ghost cell, then per axis the coarse neighbours towards and away from the fine cell's centre,
// which lies a quarter of a coarse cell off the coarse centre on every axis. The state is the
// coarse one at the fine centre to first order in space, c_now + a (c_next - c_now) at the cell
// plus 1/8 of each axis's central difference of c_now (a quarter cell times the gradient), with
// c_next = c_now for a = 0; then rescaled by scale = (tau_f - 1) / (2 (tau_c - 1)). Taken
// cell by cell, without the gradient term (as Rohde et al. 2006 do), the fine ghost cell's
// equilibrium is a quarter cell's velocity difference off, an error as large as the
// non-equilibrium part: the Taylor-Green vortex across a refined box decayed 6-7% too fast at 32
// and at 64 cells per wavelength alike (docs/solver.md).
template <int kCollision>
__device__ __forceinline__ void lbm_explode_entry(const float* __restrict__ c_now,
                                                  const float* __restrict__ c_next, const float a,
                                                  const long long c_stride, float* __restrict__ fine,
                                                  const long long f_stride,
                                                  const long long* __restrict__ cells,
                                                  const long long i, const float scale) {
    const long long* e = cells + 8 * i;
    float f[19];
    LBM_UNROLL
    for (int q = 0; q < 19; ++q) {
        const float* now = c_now + q * c_stride;
        const float at = now[e[0]];
        const float gradient = ((now[e[2]] - now[e[3]]) + (now[e[4]] - now[e[5]])) + (now[e[6]] - now[e[7]]);
        f[q] = at + a * (c_next[q * c_stride + e[0]] - at) + 0.125f * gradient;
    }
    lbm_rescale_nonequilibrium<kCollision>(f, scale);
    LBM_UNROLL
    for (int q = 0; q < 19; ++q) fine[q * f_stride + e[1]] = f[q];
}

// Coalescence of entry i: cells[9 i] the coarse ghost cell, cells[9 i + 1 .. 9 i + 8] its eight
// fine cells. The state is their mean, rescaled by scale = 2 (tau_c - 1) / (tau_f - 1).
template <int kCollision>
__device__ __forceinline__ void lbm_coalesce_entry(const float* __restrict__ fine,
                                                   const long long f_stride,
                                                   float* __restrict__ coarse,
                                                   const long long c_stride,
                                                   const long long* __restrict__ cells,
                                                   const long long i, const float scale) {
    const long long* e = cells + 9 * i;
    float f[19];
    LBM_UNROLL
    for (int q = 0; q < 19; ++q) {
        const float* plane = fine + q * f_stride;
        f[q] = 0.125f * (((plane[e[1]] + plane[e[2]]) + (plane[e[3]] + plane[e[4]])) +
                         ((plane[e[5]] + plane[e[6]]) + (plane[e[7]] + plane[e[8]])));
    }
    lbm_rescale_nonequilibrium<kCollision>(f, scale);
    LBM_UNROLL
    for (int q = 0; q < 19; ++q) coarse[q * c_stride + e[0]] = f[q];
}
