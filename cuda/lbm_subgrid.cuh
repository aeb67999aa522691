// Subgrid models from the resolved velocity gradient, which vanish at walls: WALE (Nicoud &
// Ducros 1999, Flow Turbul. Combust. 62, 183) and Vreman (2004, Phys. Fluids 16, 3670).
// The Smagorinsky-Lilly model needs no neighbours: the collision takes its rate from the cell's
// own non-equilibrium stress (lbm_collision.cuh). These two need the velocity gradient g_ij =
// du_i/dx_j, which a cell's populations do not hold (their stress is its symmetric part only), so
// it comes from the neighbours' velocities by finite differences, lagged by one step. Before a
// step the shells run two passes over the grid:
//   lbm_subgrid_moments_cell: each cell's velocity from its stored post-collision populations
//     into the planes 1-3 of sgs_moments (Guo's force shifts every cell's velocity by the same
//     g/2, which drops out of the differences), and into plane 0 whether it flows: 1 for fluid,
//     inlet and outflow cells, 0 for walls;
//   lbm_subgrid_tau_cell: each cell's eddy relaxation time 3 nu_t (lattice units, filter width
//     one cell) into tau_eddy;
// and the step relaxes a fluid cell with tau_x + tau_eddy (lbm_cell_tau). Nothing is kept between
// steps: a checkpoint's populations give the same tau_eddy on resume.
//
// The gradient: central differences where both neighbours along an axis flow (the grid wraps as
// the step's pull does), one-sided where one of them is a wall, zero where both are. A wall's
// no-slip velocity is not used: with the law of the wall the first cell lies in the log layer,
// where the resolved gradient, not u / y, is the flow's.
//
// The constants: resolution.smagorinsky_cs sets both, by the published equivalences with the
// Smagorinsky model in isotropic turbulence, so switching resolution.subgrid compares the models
// at the same dissipation there: C_w^2 = 10.6 C_s^2 (Nicoud & Ducros 1999, sec. 3) and
// c = 2.5 C_s^2 (Vreman 2004, eq. 10). subgrid_c holds C_w^2 or c.
//
// The per-cell functions have no branch and no comparison of floats: the CPU shell runs a row's
// cells as one vector loop, which g++ keeps scalar where a division or a load sits under a
// condition, or a comparison of floats might trap (its default -ftrapping-math).
#pragma once

#include "lbm_boundaries.cuh"

#define LBM_SUBGRID_SMAGORINSKY 0
#define LBM_SUBGRID_WALE 1
#define LBM_SUBGRID_VREMAN 2

// The relaxation time of fluid cell n in column x: the molecular one of its column (the sponge
// raises it towards the outlet) plus the gradient model's eddy part where one runs.
__device__ __forceinline__ float lbm_cell_tau(const LbmParams& p, const int x, const long long n) {
    float tau = p.tau_x[x];
    if (p.subgrid != LBM_SUBGRID_SMAGORINSKY) tau += p.tau_eddy[n];
    return tau;
}

// 1 where a cell of these flags carries a flow velocity the gradient may use, else 0.
__device__ __forceinline__ float lbm_subgrid_flows(const unsigned char flag) {
    const int type = flag & FLAG_TYPE_MASK;
    return (float)((type == FLAG_FLUID) | (type == FLAG_INLET) | (type == FLAG_OUTFLOW));
}

// Cell n's plane entries of sgs_moments (n_cells per plane): whether it flows, and its velocity
// at its last collision from its stored populations f.
template <int kCollision>
__device__ __forceinline__ void lbm_subgrid_moments_cell(const lbm_pop* __restrict__ f, const LbmParams& p,
                                                         const long long n_cells, const long long n) {
    float fl[19];
#define LBM_LOAD_STORED(q, cx, cy, cz, w) fl[q] = lbm_pop_load(f[q * p.plane_stride + n]);
    D3Q19_LINKS(LBM_LOAD_STORED)
#undef LBM_LOAD_STORED
    float rho, ux, uy, uz;
    lbm_moments<kCollision>(fl, &rho, &ux, &uy, &uz);
    p.sgs_moments[n] = lbm_subgrid_flows(p.flags[n]);
    p.sgs_moments[n_cells + n] = ux;
    p.sgs_moments[2 * n_cells + n] = uy;
    p.sgs_moments[3 * n_cells + n] = uz;
}

// g[i][j] = du_i/dx_j along one axis j, from the cells n + d_lo and n + d_hi on either side of
// n: (1 - lo hi / 2) (hi (u_hi - u) + lo (u - u_lo)) with lo, hi whether each flows (plane 0 of
// moments), i.e. the central difference, either one-sided one, or 0.
__device__ __forceinline__ void lbm_subgrid_difference(const float* __restrict__ moments, const long long n_cells,
                                                       const long long n, const long long d_lo,
                                                       const long long d_hi, const int j, float (*g)[3]) {
    const float lo = moments[n + d_lo], hi = moments[n + d_hi];
    const float scale = 1.0f - 0.5f * lo * hi;
    LBM_UNROLL
    for (int i = 0; i < 3; ++i) {
        const float* u = moments + (long long)(i + 1) * n_cells;
        const float u0 = u[n];
        g[i][j] = scale * (hi * (u[n + d_hi] - u0) + lo * (u0 - u[n + d_lo]));
    }
}

// WALE's eddy viscosity for the gradient g (lattice units):
// nu_t = C_w^2 (Sd:Sd)^(3/2) / ((S:S)^(5/2) + (Sd:Sd)^(5/4)), S the strain rate and Sd the
// traceless symmetric part of g^2 (Nicoud & Ducros 1999, eq. 13). It vanishes in pure shear.
__device__ __forceinline__ float lbm_wale_nu(const float (*g)[3], const float cw2) {
    float g2[3][3];
    LBM_UNROLL
    for (int i = 0; i < 3; ++i) {
        LBM_UNROLL
        for (int j = 0; j < 3; ++j) g2[i][j] = g[i][0] * g[0][j] + g[i][1] * g[1][j] + g[i][2] * g[2][j];
    }
    const float third_trace = (g2[0][0] + g2[1][1] + g2[2][2]) * (1.0f / 3.0f);
    float ss = 0.0f, sdsd = 0.0f;
    LBM_UNROLL
    for (int i = 0; i < 3; ++i) {
        LBM_UNROLL
        for (int j = 0; j < 3; ++j) {
            const float s = 0.5f * (g[i][j] + g[j][i]);
            const float sd = 0.5f * (g2[i][j] + g2[j][i]) - (i == j ? third_trace : 0.0f);
            ss += s * s;
            sdsd += sd * sd;
        }
    }
    const float root_sd = sqrtf(sdsd);
    // + 1e-30: a zero denominator has a zero numerator (Sd:Sd^(5/4) is a part of it)
    const float den = ss * ss * sqrtf(ss) + sdsd * sqrtf(root_sd) + 1e-30f;
    return cw2 * sdsd * root_sd / den;
}

// Vreman's eddy viscosity for the gradient g (lattice units, filter width 1):
// nu_t = c sqrt(B / (alpha:alpha)), alpha_ij = du_j/dx_i = g[j][i], beta_ij = alpha_mi alpha_mj,
// B = b11 b22 - b12^2 + b11 b33 - b13^2 + b22 b33 - b23^2 (Vreman 2004, eqs. 5-8). It vanishes
// wherever the gradient has rank one, pure shear among them.
__device__ __forceinline__ float lbm_vreman_nu(const float (*g)[3], const float c) {
    float beta[3][3], aa = 0.0f;
    LBM_UNROLL
    for (int i = 0; i < 3; ++i) {
        LBM_UNROLL
        for (int j = 0; j < 3; ++j) {
            beta[i][j] = g[0][i] * g[0][j] + g[1][i] * g[1][j] + g[2][i] * g[2][j];
            aa += g[i][j] * g[i][j];
        }
    }
    const float b = beta[0][0] * beta[1][1] - beta[0][1] * beta[0][1] + beta[0][0] * beta[2][2] -
                    beta[0][2] * beta[0][2] + beta[1][1] * beta[2][2] - beta[1][2] * beta[1][2];
    // B >= 0 (beta is positive semi-definite; fabsf drops round-off below 0), and B = 0 where
    // alpha:alpha = 0
    return c * sqrtf(fabsf(b) / (aa + 1e-30f));
}

// The eddy relaxation time 3 nu_t of model kModel (LBM_SUBGRID_WALE or _VREMAN, constant c) of
// cell n, from the planes of moments (lbm_subgrid_moments_cell), its neighbours along x at
// n + d_xm and n + d_xp and along y and z at n + d[0], n + d[1], n + d[2], n + d[3] (the grid's
// wrap applied); 0 on walls. (Inlets and outflows get one too, which their rules do not read.)
// The array comes as an argument, not through LbmParams: read through the struct in the CPU's
// vector loop, g++ reloads the pointer after each store and keeps the loop scalar.
template <int kModel>
__device__ __forceinline__ float lbm_subgrid_eddy_tau(const float* __restrict__ moments, const long long n_cells,
                                                      const float c, const long long n, const long long d_xm,
                                                      const long long d_xp, const long long* d) {
    float g[3][3];
    lbm_subgrid_difference(moments, n_cells, n, d_xm, d_xp, 0, g);
    lbm_subgrid_difference(moments, n_cells, n, d[0], d[1], 1, g);
    lbm_subgrid_difference(moments, n_cells, n, d[2], d[3], 2, g);
    const float nu_t = kModel == LBM_SUBGRID_WALE ? lbm_wale_nu(g, c) : lbm_vreman_nu(g, c);
    return moments[n] * (3.0f * nu_t);
}

// The offsets of cell (y, z)'s neighbours along y and z (the grid's wrap applied) into d[0..3].
__device__ __forceinline__ void lbm_subgrid_row_offsets(const LbmParams& p, const int y, const int z, long long* d) {
    const long long nx = p.nx, nxy = (long long)p.nx * p.ny;
    d[0] = nx * (lbm_wrap(y - 1, p.ny) - y);
    d[1] = nx * (lbm_wrap(y + 1, p.ny) - y);
    d[2] = nxy * (lbm_wrap(z - 1, p.nz) - z);
    d[3] = nxy * (lbm_wrap(z + 1, p.nz) - z);
}

// tau_eddy[n] of cell n at (x, y, z), one cell at a time (the GPU's thread per cell, the CPU's
// rows' ends).
template <int kModel>
__device__ __forceinline__ void lbm_subgrid_tau_cell(const LbmParams& p, const long long n, const int x,
                                                     const int y, const int z) {
    long long d[4];
    lbm_subgrid_row_offsets(p, y, z, d);
    p.tau_eddy[n] = lbm_subgrid_eddy_tau<kModel>(p.sgs_moments, (long long)p.nx * p.ny * p.nz, p.subgrid_c, n,
                                                 lbm_wrap(x - 1, p.nx) - x, lbm_wrap(x + 1, p.nx) - x, d);
}
