// Collision of one cell's 19 shifted populations (lbm_lattice.cuh), written once for both shells.
// Two operators, chosen per case (LbmParams.collision):
//
// LBM_COLLISION_BGK: BGK with the incompressible equilibrium of He & Luo (1997, J. Stat. Phys.
// 88, 927), f_eq = w (rho + rho_0 (3 c.u + 9/2 (c.u)^2 - 3/2 u^2)), u = j / rho_0, rho_0 = 1:
// the density is only pressure, so the velocity carries no O(Ma^2) density-coupling error. The
// laminar validation cases use it.
//
// LBM_COLLISION_ENTROPIC: the entropic equilibrium with a regularized collision in the entropic
// scalar product, for LES at tau0 -> 1/2 (docs/solver.md derives it):
//   E_q = rho w_q exp(b.c_q) / Z(b),  Z = sum_q w_q exp(b.c_q),  b such that sum c E = rho u.
// This is the minimiser of the H-function sum f ln(f / w) at given mass and momentum (Karlin,
// Ferrante & Oettinger 1999, Europhys. Lett. 47, 182; Ansumali, Karlin & Oettinger 2003,
// Europhys. Lett. 63, 798). Its tangent space is E * span{1, c}, so the map f -> E(rho(f), j(f))
// linearised about any uniform flow is an orthogonal projection in the scalar product
// <a, b> = sum a_q b_q / E_q. The collision keeps that property for the rest:
//   f* = E + (1 - omega) P_dev f_neq + (1 - omega_bulk) P_tr f_neq,
// P_dev + P_tr the orthogonal projection (same scalar product) onto E * {quadratic polynomials
// of c} less the conserved part, P_tr its trace direction: the deviatoric stress relaxes with
// omega (viscosity nu = (1/omega - 1/2) / 3), the trace with LBM_OMEGA_BULK, and every higher
// (non-hydrodynamic) part is set to equilibrium. Linearised about a uniform flow the step is
// then a contraction in that scalar product for any omega in (0, 2]: no mode grows, at any mean
// velocity, however close tau0 is to 1/2 (tests/test_collision.py computes the spectrum; BGK
// with the polynomial equilibrium grows at 8e-3 per step at u = 0.1 there). The projection's
// coefficients come from one Neumann step about u = 0 (lbm_entropic_polynomial), which damps the
// stress by up to 7.6e-4 of itself more than the exact projection at |u| = 0.1 (the largest over
// sampled directions) and keeps the contraction in every direction sampled up to |u| = 0.3.
//
// Both: the Smagorinsky-Lilly subgrid model (Hou et al. 1996, J. Comput. Phys. 118, 329),
// tau_eff = (tau0 + sqrt(tau0^2 + 18 sqrt(2) Cs^2 |Pi_neq| / rho_0)) / 2, and a body force by
// Guo, Zheng & Shi (2002, Phys. Rev. E 65, 046308), u = (j + F/2) / rho.
#pragma once

#include "lbm_lattice.cuh"

#define LBM_COLLISION_BGK 0
#define LBM_COLLISION_ENTROPIC 1

// Relaxation rate of the trace of the stress in the entropic operator: the bulk viscosity
// (2/9)(1/omega_bulk - 1/2) = 1/9 damps compression waves, and the subgrid model's rate, which
// varies from cell to cell, acts on the deviatoric stress only (docs/solver.md).
#define LBM_OMEGA_BULK 1.0f

// Raw moments of shifted populations: density deviation, momentum and sum c_a c_b f_shifted.
struct LbmMoments {
    float drho, jx, jy, jz, pxx, pyy, pzz, pxy, pxz, pyz;
};

// Summed over opposite pairs of links (q, q + 1: c and -c): a pair adds f_q + f_q+1 to the even
// moments and f_q - f_q+1 to the odd ones, and the sums are grouped in short trees (half the
// additions of a sum link by link, and a dependency chain of 5 instead of 18).
__device__ __forceinline__ LbmMoments lbm_raw_moments(const float* f) {
    float sum[19], dif[19];
    LBM_UNROLL
    for (int q = 1; q < 19; q += 2) {
        sum[q] = f[q] + f[q + 1];
        dif[q] = f[q] - f[q + 1];
    }
    // Links 1, 3, 5: +x, +y, +z; 7, 9: +x+y, +x-y; 11, 13: +x+z, +x-z; 15, 17: +y+z, +y-z.
    const float xy = sum[7] + sum[9], xz = sum[11] + sum[13], yz = sum[15] + sum[17];
    LbmMoments m;
    m.pxx = sum[1] + (xy + xz);
    m.pyy = sum[3] + (xy + yz);
    m.pzz = sum[5] + (xz + yz);
    m.drho = (f[0] + (sum[1] + sum[3] + sum[5])) + (xy + xz + yz);
    m.jx = (dif[1] + dif[7]) + (dif[9] + (dif[11] + dif[13]));
    m.jy = (dif[3] + dif[7]) + ((dif[15] + dif[17]) - dif[9]);
    m.jz = (dif[5] + dif[11]) + ((dif[15] - dif[17]) - dif[13]);
    m.pxy = sum[7] - sum[9];
    m.pxz = sum[11] - sum[13];
    m.pyz = sum[15] - sum[17];
    return m;
}

// Relaxation rate of the Smagorinsky-Lilly model for the non-equilibrium stress pi (per unit
// reference density; xx, yy, zz, xy, xz, yz).
__device__ __forceinline__ float lbm_smagorinsky_omega(const float tau0, const float cs2_smag,
                                                       const float* pi) {
    const float pi_norm = sqrtf(pi[0] * pi[0] + pi[1] * pi[1] + pi[2] * pi[2] +
                                2.0f * (pi[3] * pi[3] + pi[4] * pi[4] + pi[5] * pi[5]));
    return 2.0f / (tau0 + sqrtf(tau0 * tau0 + 25.455844f * cs2_smag * pi_norm));
}

// What a fluid cell next to the body reports for the surface forces (lattice units): its gauge
// pressure (rho - 1) / 3 and its viscous stress sigma (xx, yy, zz, xy, xz, yz) from the
// non-equilibrium stress pi_mass (mass-weighted, before collision): -(1 - omega / 2) times its
// deviatoric part, -(1 - omega_bulk / 2) times its trace part. With the subgrid model's omega
// this is the modelled (molecular + eddy) stress.
struct LbmWallState {
    float pressure;
    float sigma[6];
};

__device__ __forceinline__ void lbm_wall_state(const float drho, const float* pi_mass, const float omega,
                                               const float omega_bulk, LbmWallState* out) {
    const float third_trace = (pi_mass[0] + pi_mass[1] + pi_mass[2]) * (1.0f / 3.0f);
    const float dev = -(1.0f - 0.5f * omega), bulk = -(1.0f - 0.5f * omega_bulk);
    out->pressure = drho * (1.0f / 3.0f);
    LBM_UNROLL
    for (int i = 0; i < 3; ++i) out->sigma[i] = dev * (pi_mass[i] - third_trace) + bulk * third_trace;
    LBM_UNROLL
    for (int i = 3; i < 6; ++i) out->sigma[i] = dev * pi_mass[i];
}

// ---- BGK, incompressible equilibrium ----------------------------------------------------------

// Shifted incompressible equilibrium populations for density rho and velocity u.
__device__ __forceinline__ void lbm_equilibrium_incompressible(float* feq, const float rho,
                                                               const float ux, const float uy,
                                                               const float uz) {
    const float usq15 = 1.5f * (ux * ux + uy * uy + uz * uz);
#define LBM_FEQ(q, cx, cy, cz, w)                                                  \
    {                                                                              \
        const float cu = LBM_CV(cx, ux) + LBM_CV(cy, uy) + LBM_CV(cz, uz);         \
        feq[q] = (w) * ((rho - 1.0f) + 3.0f * cu + 4.5f * cu * cu - usq15);        \
    }
    D3Q19_LINKS(LBM_FEQ)
#undef LBM_FEQ
}

__device__ __forceinline__ void lbm_collide_bgk(float* f, const float tau0, const float cs2_smag,
                                                const bool has_force, const float gx,
                                                const float gy, const float gz, LbmWallState* wall) {
    const LbmMoments m = lbm_raw_moments(f);
    const float ux = m.jx + 0.5f * gx;  // u = (j + F/2) / rho_0 with rho_0 = 1 and F = rho_0 g
    const float uy = m.jy + 0.5f * gy;
    const float uz = m.jz + 0.5f * gz;
    // Non-equilibrium momentum flux: sum c_a c_b f - u_a u_b - rho/3 delta_ab (shifted f).
    const float third_drho = m.drho * (1.0f / 3.0f);
    const float pi[6] = {m.pxx - third_drho - ux * ux, m.pyy - third_drho - uy * uy,
                         m.pzz - third_drho - uz * uz, m.pxy - ux * uy, m.pxz - ux * uz,
                         m.pyz - uy * uz};
    const float omega = lbm_smagorinsky_omega(tau0, cs2_smag, pi);
    if (wall) lbm_wall_state(m.drho, pi, omega, omega, wall);

    const float usq15 = 1.5f * (ux * ux + uy * uy + uz * uz);
    const float guo = 1.0f - 0.5f * omega;
    const float ug = ux * gx + uy * gy + uz * gz;
#define LBM_RELAX(q, cx, cy, cz, w)                                                       \
    {                                                                                     \
        const float cu = LBM_CV(cx, ux) + LBM_CV(cy, uy) + LBM_CV(cz, uz);                \
        const float feq = (w) * (m.drho + 3.0f * cu + 4.5f * cu * cu - usq15);            \
        float fq = f[q] + omega * (feq - f[q]);                                           \
        if (has_force) {                                                                  \
            const float cg = LBM_CV(cx, gx) + LBM_CV(cy, gy) + LBM_CV(cz, gz);            \
            fq += (w) * guo * (3.0f * (cg - ug) + 9.0f * cu * cg);                         \
        }                                                                                 \
        f[q] = fq;                                                                        \
    }
    D3Q19_LINKS(LBM_RELAX)
#undef LBM_RELAX
}

// ---- entropic equilibrium ----------------------------------------------------------------------

// cosh(b) - 1 and sinh(b) by their Taylor series to b^9: no libm call, so the CPU shell
// vectorizes, and both shells compute the same numbers. Only the equilibrium's form needs
// exactness (E is defined through these values, and its moments are computed from the same
// values); the series is accurate to 3e-7 for |b| <= 1, i.e. |u| <= 0.3.
__device__ __forceinline__ void lbm_coshm1_sinh(const float b, float* coshm1, float* sinh) {
    const float b2 = b * b;
    *coshm1 = b2 * (0.5f + b2 * (1.0f / 24.0f + b2 * (1.0f / 720.0f + b2 * (1.0f / 40320.0f))));
    *sinh = b * (1.0f + b2 * (1.0f / 6.0f + b2 * (1.0f / 120.0f + b2 * (1.0f / 5040.0f + b2 * (1.0f / 362880.0f)))));
}

// The entropic equilibrium at velocity u, per unit density: a_k = cosh(b_k) - 1, s_k = sinh(b_k)
// along each axis, inv9z = 1 / (9 Z) (Z the partition sum). On D3Q19,
//   9 Z = 3 + sum_k cosh b_k + sum_{k<l} cosh b_k cosh b_l,
//   9 Z u_x = sinh b_x (1 + cosh b_y + cosh b_z), and so on.
struct LbmEntropicState {
    float a[3], s[3], inv9z;
};

__device__ __forceinline__ LbmEntropicState lbm_entropic_axes(const float* b) {
    LbmEntropicState e;
    LBM_UNROLL
    for (int k = 0; k < 3; ++k) lbm_coshm1_sinh(b[k], &e.a[k], &e.s[k]);
    e.inv9z = 1.0f / (9.0f + 3.0f * (e.a[0] + e.a[1] + e.a[2]) +
                      (e.a[0] * e.a[1] + e.a[0] * e.a[2] + e.a[1] * e.a[2]));
    return e;
}

// Inverse of the symmetric 3x3 matrix ((a00 a10 a20) (a10 a11 a21) (a20 a21 a22)) by its
// adjugate, as (xx, yy, zz, xy, xz, yz).
__device__ __forceinline__ void lbm_inverse_sym3(const float a00, const float a10, const float a11,
                                                 const float a20, const float a21, const float a22,
                                                 float* inv) {
    const float c00 = a11 * a22 - a21 * a21, c01 = a20 * a21 - a10 * a22, c02 = a10 * a21 - a20 * a11;
    const float inv_det = 1.0f / (a00 * c00 + a10 * c01 + a20 * c02);
    inv[0] = c00 * inv_det;
    inv[1] = (a00 * a22 - a20 * a20) * inv_det;
    inv[2] = (a00 * a11 - a10 * a10) * inv_det;
    inv[3] = c01 * inv_det;
    inv[4] = c02 * inv_det;
    inv[5] = (a10 * a20 - a00 * a21) * inv_det;
}

// The entropic equilibrium at velocity u without a Newton solve on b. The inverse series of u(b) on
// D3Q19 is b_x = 3 u_x + (27/20) u_x^5 + (27/4) u_x u_y^2 u_z^2 + O(u^7) (the cubic terms cancel;
// likewise for y, z), and E(b) then has the mean m with |m - u| / |u| of 4.7e-7 at |u| = 0.1 and
// 2.8e-5 at 0.2 (float64). The linear fix E' = E (1 + (c - m).delta), delta = Cov(c, c)^-1 (u - m)
// (one Newton step taken on E instead of on b), has the mass of E and the momentum rho u exactly,
// and differs from the exact equilibrium E(b*) by O(delta^2) of it: 2e-13 at |u| = 0.1, 3e-10 at
// 0.2 and 6e-8 at 0.3, below float32's round-off (docs/solver.md, "Equilibrium"). The fit keeps
// m, Cov(c, c)^-1 (xx, yy, zz, xy, xz, yz) and delta for the collision's projection.
struct LbmEntropicFit {
    LbmEntropicState e;
    float m[3], si[6], delta[3];
};

__device__ __forceinline__ LbmEntropicFit lbm_entropic_fit(const float ux, const float uy, const float uz) {
    const float x2 = ux * ux, y2 = uy * uy, z2 = uz * uz;
    const float b[3] = {ux * (3.0f + (27.0f / 20.0f) * x2 * x2 + (27.0f / 4.0f) * y2 * z2),
                        uy * (3.0f + (27.0f / 20.0f) * y2 * y2 + (27.0f / 4.0f) * x2 * z2),
                        uz * (3.0f + (27.0f / 20.0f) * z2 * z2 + (27.0f / 4.0f) * x2 * y2)};
    LbmEntropicFit fit;
    fit.e = lbm_entropic_axes(b);
    const LbmEntropicState& e = fit.e;
    const float iz = e.inv9z;
    const float cx = 1.0f + e.a[0], cy = 1.0f + e.a[1], cz = 1.0f + e.a[2];
    fit.m[0] = e.s[0] * (1.0f + cy + cz) * iz;
    fit.m[1] = e.s[1] * (1.0f + cx + cz) * iz;
    fit.m[2] = e.s[2] * (1.0f + cx + cy) * iz;
    const float* m = fit.m;
    lbm_inverse_sym3(cx * (1.0f + cy + cz) * iz - m[0] * m[0], e.s[0] * e.s[1] * iz - m[0] * m[1],
                     cy * (1.0f + cx + cz) * iz - m[1] * m[1], e.s[0] * e.s[2] * iz - m[0] * m[2],
                     e.s[1] * e.s[2] * iz - m[1] * m[2], cz * (1.0f + cx + cy) * iz - m[2] * m[2], fit.si);
    const float* si = fit.si;
    const float rx = ux - m[0], ry = uy - m[1], rz = uz - m[2];
    fit.delta[0] = si[0] * rx + si[3] * ry + si[4] * rz;
    fit.delta[1] = si[3] * rx + si[1] * ry + si[5] * rz;
    fit.delta[2] = si[4] * rx + si[5] * ry + si[2] * rz;
    return fit;
}

// Per-link factor exp(b.c_q) - 1 of the entropic state, for a compile-time link (cx, cy, cz):
// a product of at most two axis factors exp(+-b_k) = 1 + a_k +- s_k.
#define LBM_AXIS_E(c, k) ((c) > 0 ? e.a[k] + e.s[k] : ((c) < 0 ? e.a[k] - e.s[k] : 0.0f))
#define LBM_XM1(cx, cy, cz)                                                                 \
    (LBM_AXIS_E(cx, 0) + LBM_AXIS_E(cy, 1) + LBM_AXIS_E(cz, 2) +                            \
     LBM_AXIS_E(cx, 0) * LBM_AXIS_E(cy, 1) + LBM_AXIS_E(cx, 0) * LBM_AXIS_E(cz, 2) +        \
     LBM_AXIS_E(cy, 1) * LBM_AXIS_E(cz, 2))

// Z - 1 of the entropic state (9 Z = 9 + 3 sum a_k + sum_{k<l} a_k a_l).
__device__ __forceinline__ float lbm_entropic_zm1(const LbmEntropicState& e) {
    return (3.0f * (e.a[0] + e.a[1] + e.a[2]) + e.a[0] * e.a[1] + e.a[0] * e.a[2] + e.a[1] * e.a[2]) *
           (1.0f / 9.0f);
}

// Second moments of E / rho, sum c_a c_b E / rho (xx, yy, zz, xy, xz, yz), from the entropic state.
__device__ __forceinline__ void lbm_entropic_mu2(const LbmEntropicState& e, float* mu2) {
    const float iz = e.inv9z;
    const float c[3] = {1.0f + e.a[0], 1.0f + e.a[1], 1.0f + e.a[2]};  // cosh b_k
    mu2[0] = c[0] * (1.0f + c[1] + c[2]) * iz;
    mu2[1] = c[1] * (1.0f + c[0] + c[2]) * iz;
    mu2[2] = c[2] * (1.0f + c[0] + c[1]) * iz;
    mu2[3] = e.s[0] * e.s[1] * iz;
    mu2[4] = e.s[0] * e.s[2] * iz;
    mu2[5] = e.s[1] * e.s[2] * iz;
}

// Shifted entropic equilibrium populations E'_q - w_q for density rho and velocity u, with
// E_q - w_q = w_q (drho X_q + (X_q - 1) - (Z - 1)) / Z, X_q = exp(b.c_q), drho = rho - 1, and the
// momentum fix E_q (c_q - m).delta of lbm_entropic_fit.
__device__ __forceinline__ void lbm_equilibrium_entropic(float* feq, const float rho, const float ux,
                                                         const float uy, const float uz) {
    const LbmEntropicFit fit = lbm_entropic_fit(ux, uy, uz);
    const LbmEntropicState& e = fit.e;
    const float drho = rho - 1.0f, zm1 = lbm_entropic_zm1(e), inv_z = 9.0f * e.inv9z;
    const float m_delta = fit.m[0] * fit.delta[0] + fit.m[1] * fit.delta[1] + fit.m[2] * fit.delta[2];
#define LBM_FEQ_ENTROPIC(q, cx, cy, cz, w)                                                           \
    {                                                                                                \
        const float xm1 = LBM_XM1(cx, cy, cz);                                                       \
        const float fix = LBM_CV(cx, fit.delta[0]) + LBM_CV(cy, fit.delta[1]) + LBM_CV(cz, fit.delta[2]) - m_delta; \
        feq[q] = (w) * inv_z * (drho * (1.0f + xm1) + xm1 - zm1 + rho * (1.0f + xm1) * fix);          \
    }
    D3Q19_LINKS(LBM_FEQ_ENTROPIC)
#undef LBM_FEQ_ENTROPIC
}

// The entropic regularized collision (see the top of this file) in three stages, run back to back
// by lbm_collide_entropic: the cell's state, the polynomial of its post-collision non-equilibrium
// part, and the populations.
//
// Stage 1, the cell: density deviation, velocity (u = (j + F/2) / rho), entropic state, the
// non-equilibrium stress pi per unit density, sum c_a c_b (f - E + F/2) / rho, and the relaxation
// rate of the subgrid model.
struct LbmEntropicCell {
    float drho, ux, uy, uz;
    LbmEntropicFit fit;
    float pi[6];
    float omega;
};

__device__ __forceinline__ LbmEntropicCell lbm_entropic_cell(const float* f, const float tau0,
                                                             const float cs2_smag, const bool has_force,
                                                             const float gx, const float gy,
                                                             const float gz, LbmWallState* wall) {
    LbmEntropicCell cell;
    const LbmMoments mom = lbm_raw_moments(f);
    const float rho = 1.0f + mom.drho, inv_rho = 1.0f / rho;
    const float ux = mom.jx * inv_rho + 0.5f * gx, uy = mom.jy * inv_rho + 0.5f * gy,
                uz = mom.jz * inv_rho + 0.5f * gz;
    cell.fit = lbm_entropic_fit(ux, uy, uz);
    const LbmEntropicState& e = cell.fit.e;
    const float iz = e.inv9z;  // 1 / (9 Z)
    float mu2[6];
    lbm_entropic_mu2(e, mu2);
    // The diagonal uses mu_kk - 1/3 = (2 a_k + 2/3 a_k (a_l + a_m) - 1/3 a_l a_m) / (9 Z) to keep
    // float32 precision at small u (f is stored less w, whose second moment is delta / 3).
    const float* a = e.a;
    const float d_xx = (2.0f * a[0] + (2.0f / 3.0f) * a[0] * (a[1] + a[2]) - (1.0f / 3.0f) * a[1] * a[2]) * iz;
    const float d_yy = (2.0f * a[1] + (2.0f / 3.0f) * a[1] * (a[0] + a[2]) - (1.0f / 3.0f) * a[0] * a[2]) * iz;
    const float d_zz = (2.0f * a[2] + (2.0f / 3.0f) * a[2] * (a[0] + a[1]) - (1.0f / 3.0f) * a[0] * a[1]) * iz;
    float* pi = cell.pi;
    pi[0] = (mom.pxx - mom.drho * mu2[0] - d_xx) * inv_rho;
    pi[1] = (mom.pyy - mom.drho * mu2[1] - d_yy) * inv_rho;
    pi[2] = (mom.pzz - mom.drho * mu2[2] - d_zz) * inv_rho;
    pi[3] = mom.pxy * inv_rho - mu2[3];
    pi[4] = mom.pxz * inv_rho - mu2[4];
    pi[5] = mom.pyz * inv_rho - mu2[5];
    // Less the momentum fix's stress, Cov(phi, c) delta = sum_k E[c_k phi] delta_k - mu2 (m.delta),
    // with the third moments t_kkl = E[c_k c_k c_l] (on D3Q19 c_k^3 = c_k).
    {
        const float* m = cell.fit.m;
        const float* dl = cell.fit.delta;
        const float* s = e.s;
        const float c[3] = {1.0f + a[0], 1.0f + a[1], 1.0f + a[2]};
        const float txxy = c[0] * s[1] * iz, txxz = c[0] * s[2] * iz, tyyx = c[1] * s[0] * iz;
        const float tyyz = c[1] * s[2] * iz, tzzx = c[2] * s[0] * iz, tzzy = c[2] * s[1] * iz;
        const float m_delta = m[0] * dl[0] + m[1] * dl[1] + m[2] * dl[2];
        pi[0] -= m[0] * dl[0] + txxy * dl[1] + txxz * dl[2] - mu2[0] * m_delta;
        pi[1] -= tyyx * dl[0] + m[1] * dl[1] + tyyz * dl[2] - mu2[1] * m_delta;
        pi[2] -= tzzx * dl[0] + tzzy * dl[1] + m[2] * dl[2] - mu2[2] * m_delta;
        pi[3] -= txxy * dl[0] + tyyx * dl[1] - mu2[3] * m_delta;
        pi[4] -= txxz * dl[0] + tzzx * dl[2] - mu2[4] * m_delta;
        pi[5] -= tyyz * dl[1] + tzzy * dl[2] - mu2[5] * m_delta;
    }
    if (has_force) {  // + (g u + u g) / 2: the F/2 of the non-equilibrium part
        pi[0] += gx * ux;
        pi[1] += gy * uy;
        pi[2] += gz * uz;
        pi[3] += 0.5f * (gx * uy + gy * ux);
        pi[4] += 0.5f * (gx * uz + gz * ux);
        pi[5] += 0.5f * (gy * uz + gz * uy);
    }
    cell.omega = lbm_smagorinsky_omega(tau0, cs2_smag, pi);
    if (wall) {
        const float pi_mass[6] = {rho * pi[0], rho * pi[1], rho * pi[2], rho * pi[3], rho * pi[4], rho * pi[5]};
        lbm_wall_state(mom.drho, pi_mass, cell.omega, LBM_OMEGA_BULK, wall);
    }
    cell.drho = mom.drho;
    cell.ux = ux;
    cell.uy = uy;
    cell.uz = uz;
    return cell;
}

// Stage 2, the post-collision non-equilibrium part as a polynomial: P f_neq is the least-squares
// fit of f_neq by E times a quadratic polynomial of c, weighted by 1 / E. In the basis 1, c - u,
// zeta_s (the quadratic monomials phi_s = c_x c_x, ..., c_y c_z with their mean and their
// regression on c removed) the fit's normal equations decouple: the conserved parts of f_neq
// vanish, and the coefficients lambda of the zeta_s solve K lambda = pi,
//   K = Cov(phi, phi) - Cov(phi, c) Cov(c, c)^-1 Cov(c, phi),
// all moments taken over E / rho. K is even in u, K = K0 + Q(u) + O(u^4) with
// K0 = diag(2/9, 2/9, 2/9, 1/9, 1/9, 1/9) (xx, yy, zz, xy, xz, yz) and Q quadratic in u, sparse,
// with rational entries (docs/solver.md, "Computing P"). The kernel takes one Neumann step,
//   lambda = M pi,  M = K0^-1 - K0^-1 Q(u) K0^-1,
// instead of assembling and solving K: the eigenvalues of M K lie in [1 - 7.6e-4, 1] at |u| = 0.1
// and [1 - 5.0e-2, 1] at 0.3 (sampled directions), so the relaxation stays a contraction (it damps the stress by at most
// that fraction more than the exact projection), and the trace direction's norm
// <E zeta_tr, E zeta_tr> / rho = 2/3 - 4/3 |u|^2 + O(u^4) likewise. The zeta_s keep their exact
// mean and regression on c, so mass and momentum are conserved exactly. The post-collision part
// (1 - omega) P_S f_neq + (omega - omega_bulk) P_trace f_neq is E times
// p(c) = sum_s lambda_s phi_s(c) - g.c + a0.
struct LbmEntropicPolynomial {
    float lambda[6], g[3], a0;
};

__device__ __forceinline__ LbmEntropicPolynomial lbm_entropic_polynomial(const LbmEntropicCell& cell) {
    const LbmEntropicState& e = cell.fit.e;
    const float iz = e.inv9z;
    const float c[3] = {1.0f + e.a[0], 1.0f + e.a[1], 1.0f + e.a[2]};
    const float* s = e.s;
    const float* pi = cell.pi;
    const float omega = cell.omega;
    const float ux = cell.ux, uy = cell.uy, uz = cell.uz;
    // lambda = l - K0^-1 Q l with l = K0^-1 pi; each row of Q has four non-zero entries.
    const float l[6] = {4.5f * pi[0], 4.5f * pi[1], 4.5f * pi[2], 9.0f * pi[3], 9.0f * pi[4], 9.0f * pi[5]};
    const float xx = ux * ux, yy = uy * uy, zz = uz * uz;
    const float xy3 = (1.0f / 3.0f) * ux * uy, xz3 = (1.0f / 3.0f) * ux * uz, yz3 = (1.0f / 3.0f) * uy * uz;
    const float xx6 = (1.0f / 6.0f) * xx, yy6 = (1.0f / 6.0f) * yy, zz6 = (1.0f / 6.0f) * zz;
    const float ql[6] = {xx * l[0] + zz6 * l[1] + yy6 * l[2] + yz3 * l[5],   // -(Q l)
                         zz6 * l[0] + yy * l[1] + xx6 * l[2] + xz3 * l[4],
                         yy6 * l[0] + xx6 * l[1] + zz * l[2] + xy3 * l[3],
                         xy3 * l[2] + zz6 * l[3] + yz3 * l[4] + xz3 * l[5],
                         xz3 * l[1] + yz3 * l[3] + yy6 * l[4] + xy3 * l[5],
                         yz3 * l[0] + xz3 * l[3] + xy3 * l[4] + xx6 * l[5]};
    // Post-collision coefficients: the deviatoric stress space relaxes with omega, its trace
    // direction (1, 1, 1, 0, 0, 0) with omega_bulk: kappa = tr(pi) / <zeta_tr, zeta_tr>.
    const float kappa = (pi[0] + pi[1] + pi[2]) * 1.5f * (1.0f + 2.0f * (xx + yy + zz));
    const float one_minus_omega = 1.0f - omega, bulk_part = (omega - LBM_OMEGA_BULK) * kappa;
    float lambda[6];
    LBM_UNROLL
    for (int j = 0; j < 6; ++j) {
        const float k0_inv = j < 3 ? 4.5f : 9.0f;
        lambda[j] = one_minus_omega * (l[j] + k0_inv * ql[j]) + (j < 3 ? bulk_part : 0.0f);
    }
    // Moments of E / rho: mean m, second moments mu2, third t_klm (c_k c_k c_l). On D3Q19
    // c_k^3 = c_k, and no link has three non-zero components.
    const float* m = cell.fit.m;
    float mu2[6];
    lbm_entropic_mu2(e, mu2);
    const float txxy = c[0] * s[1] * iz, txxz = c[0] * s[2] * iz, tyyx = c[1] * s[0] * iz;
    const float tyyz = c[1] * s[2] * iz, tzzx = c[2] * s[0] * iz, tzzy = c[2] * s[1] * iz;
    // g = Cov(c, c)^-1 Cov(c, phi) lambda, with Cov(c, phi) lambda = sum c phi.lambda - m mu2.lambda,
    // and a0 = g.m - lambda.mu2: each phi_s less its mean and its regression on c; P_q = E_q p(c_q).
    const float mu2_lambda = lambda[0] * mu2[0] + lambda[1] * mu2[1] + lambda[2] * mu2[2] +
                             lambda[3] * mu2[3] + lambda[4] * mu2[4] + lambda[5] * mu2[5];
    const float cov_x = m[0] * lambda[0] + tyyx * lambda[1] + tzzx * lambda[2] + txxy * lambda[3] +
                        txxz * lambda[4] - m[0] * mu2_lambda;
    const float cov_y = txxy * lambda[0] + m[1] * lambda[1] + tzzy * lambda[2] + tyyx * lambda[3] +
                        tyyz * lambda[5] - m[1] * mu2_lambda;
    const float cov_z = txxz * lambda[0] + tyyz * lambda[1] + m[2] * lambda[2] + tzzx * lambda[4] +
                        tzzy * lambda[5] - m[2] * mu2_lambda;
    // The equilibrium's momentum fix E (c - m).delta joins the polynomial: g - delta, a0 - m.delta.
    const float* si = cell.fit.si;  // Cov(c, c)^-1 as (xx, yy, zz, xy, xz, yz)
    const float* dl = cell.fit.delta;
    LbmEntropicPolynomial poly;
    poly.g[0] = si[0] * cov_x + si[3] * cov_y + si[4] * cov_z - dl[0];
    poly.g[1] = si[3] * cov_x + si[1] * cov_y + si[5] * cov_z - dl[1];
    poly.g[2] = si[4] * cov_x + si[5] * cov_y + si[2] * cov_z - dl[2];
    poly.a0 = poly.g[0] * m[0] + poly.g[1] * m[1] + poly.g[2] * m[2] - mu2_lambda;
    LBM_UNROLL
    for (int j = 0; j < 6; ++j) poly.lambda[j] = lambda[j];
    return poly;
}

// Stage 3, the post-collision populations f = E - w + E p (shifted), with the force's second half.
__device__ __forceinline__ void lbm_entropic_relax(const LbmEntropicCell& cell,
                                                   const LbmEntropicPolynomial& poly_c,
                                                   const bool has_force, const float gx,
                                                   const float gy, const float gz, float* f) {
    const LbmEntropicState& e = cell.fit.e;
    const float* a = e.a;
    const float* s = e.s;
    const float* lambda = poly_c.lambda;
    const float* g3 = poly_c.g;
    const float a0 = poly_c.a0;
    const float ux = cell.ux, uy = cell.uy, uz = cell.uz;
    const float rho = 1.0f + cell.drho;
    // Per link, E_q = rho w_q X_q / Z with X_q = exp(b.c_q) a product of the axis factors
    // exp(+-b_k) = 1 + a_k +- s_k, and the polynomial p(c_q) a sum of per-axis parts h_k = lambda_kk
    // -+ g_k, the cross term c_k c_l lambda_kl and a0. The shifted result E - w + E p is then
    //   w inv_z ((drho - (Z - 1) + rho p) + (X - 1) rho (1 + p)),
    // every term small or multiplied by a small one, so float32 keeps the deviation from w. a0 is
    // folded into the per-axis part of each link's first axis. Each link's expression names only
    // its non-zero components (a product with a zero or a sum with +0 is not dropped by a compiler
    // that keeps IEEE semantics).
    const float drho = cell.drho, inv_z = 9.0f * e.inv9z;
    const float d0 = drho - lbm_entropic_zm1(e);
    const float ep[3] = {a[0] + s[0], a[1] + s[1], a[2] + s[2]};  // exp(+b_k) - 1
    const float em[3] = {a[0] - s[0], a[1] - s[1], a[2] - s[2]};  // exp(-b_k) - 1
    const float hp[3] = {lambda[0] - g3[0], lambda[1] - g3[1], lambda[2] - g3[2]};  // c_k = +1
    const float hm[3] = {lambda[0] + g3[0], lambda[1] + g3[1], lambda[2] + g3[2]};  // c_k = -1
    const float hpa[3] = {hp[0] + a0, hp[1] + a0, hp[2] + a0};
    const float hma[3] = {hm[0] + a0, hm[1] + a0, hm[2] + a0};
    const float ug = ux * gx + uy * gy + uz * gz;
#define LBM_EK(c, k) ((c) > 0 ? ep[k] : em[k])
#define LBM_HK(c, k) ((c) > 0 ? hp[k] : hm[k])
#define LBM_HKA(c, k) ((c) > 0 ? hpa[k] : hma[k])
#define LBM_PAIR_X(e1, e2) ((e1) + (e2) + (e1) * (e2))
    // X - 1 and p of a link with its two non-zero components on axes k, l (cross term lambda_kl).
#define LBM_LINK_TERMS(cx, cy, cz, xm1, poly)                                                        \
    if ((cx) && (cy)) {                                                                               \
        xm1 = LBM_PAIR_X(LBM_EK(cx, 0), LBM_EK(cy, 1));                                               \
        poly = LBM_HKA(cx, 0) + LBM_HK(cy, 1) + LBM_CV((cx) * (cy), lambda[3]);                       \
    } else if ((cx) && (cz)) {                                                                        \
        xm1 = LBM_PAIR_X(LBM_EK(cx, 0), LBM_EK(cz, 2));                                               \
        poly = LBM_HKA(cx, 0) + LBM_HK(cz, 2) + LBM_CV((cx) * (cz), lambda[4]);                       \
    } else if ((cy) && (cz)) {                                                                        \
        xm1 = LBM_PAIR_X(LBM_EK(cy, 1), LBM_EK(cz, 2));                                               \
        poly = LBM_HKA(cy, 1) + LBM_HK(cz, 2) + LBM_CV((cy) * (cz), lambda[5]);                       \
    } else if (cx) {                                                                                  \
        xm1 = LBM_EK(cx, 0);                                                                          \
        poly = LBM_HKA(cx, 0);                                                                        \
    } else if (cy) {                                                                                  \
        xm1 = LBM_EK(cy, 1);                                                                          \
        poly = LBM_HKA(cy, 1);                                                                        \
    } else if (cz) {                                                                                  \
        xm1 = LBM_EK(cz, 2);                                                                          \
        poly = LBM_HKA(cz, 2);                                                                        \
    }
#define LBM_RELAX_ENTROPIC(q, cx, cy, cz, w)                                                           \
    {                                                                                                  \
        float fq;                                                                                      \
        if ((cx) || (cy) || (cz)) {                                                                    \
            float xm1 = 0.0f, poly = 0.0f;                                                             \
            LBM_LINK_TERMS(cx, cy, cz, xm1, poly)                                                      \
            fq = ((w) * inv_z) * ((d0 + rho * poly) + xm1 * (rho + rho * poly));                       \
        } else {                                                                                       \
            fq = ((w) * inv_z) * (d0 + rho * a0);                                                      \
        }                                                                                              \
        if (has_force) {                                                                               \
            const float cu = LBM_CV(cx, ux) + LBM_CV(cy, uy) + LBM_CV(cz, uz);                         \
            const float cg = LBM_CV(cx, gx) + LBM_CV(cy, gy) + LBM_CV(cz, gz);                         \
            fq += 0.5f * rho * (w) * (3.0f * (cg - ug) + 9.0f * cu * cg);                               \
        }                                                                                              \
        f[q] = fq;                                                                                     \
    }
    D3Q19_LINKS(LBM_RELAX_ENTROPIC)
#undef LBM_RELAX_ENTROPIC
#undef LBM_LINK_TERMS
#undef LBM_PAIR_X
#undef LBM_HKA
#undef LBM_HK
#undef LBM_EK
}

// The entropic collision of the shifted populations f, in place. The force enters as F/2 before
// and after the collision (the same split as Guo's scheme in BGK form: BGK + Guo =
// E + (1 - omega) (f - E + F/2) + F/2), so f_neq carries no momentum.
__device__ __forceinline__ void lbm_collide_entropic(float* f, const float tau0, const float cs2_smag,
                                                     const bool has_force, const float gx,
                                                     const float gy, const float gz,
                                                     LbmWallState* wall) {
    const LbmEntropicCell cell = lbm_entropic_cell(f, tau0, cs2_smag, has_force, gx, gy, gz, wall);
    lbm_entropic_relax(cell, lbm_entropic_polynomial(cell), has_force, gx, gy, gz, f);
}

// ---- dispatch by operator ----------------------------------------------------------------------

template <int kCollision>
__device__ __forceinline__ void lbm_equilibrium(float* feq, const float rho, const float ux,
                                                const float uy, const float uz) {
    if (kCollision == LBM_COLLISION_ENTROPIC)
        lbm_equilibrium_entropic(feq, rho, ux, uy, uz);
    else
        lbm_equilibrium_incompressible(feq, rho, ux, uy, uz);
}

// Collide with the case's operator; a cell next to the body passes wall to receive its pressure
// and viscous stress (null elsewhere).
template <int kCollision>
__device__ __forceinline__ void lbm_collide(float* f, const LbmParams& p, const float tau0,
                                            const bool has_force, LbmWallState* wall) {
    if (kCollision == LBM_COLLISION_ENTROPIC)
        lbm_collide_entropic(f, tau0, p.cs2_smag, has_force, p.gx, p.gy, p.gz, wall);
    else
        lbm_collide_bgk(f, tau0, p.cs2_smag, has_force, p.gx, p.gy, p.gz, wall);
}

// Density and velocity of shifted populations (no body-force correction): u = j / rho_0 for the
// incompressible equilibrium, u = j / rho for the entropic one.
template <int kCollision>
__device__ __forceinline__ void lbm_moments(const float* f, float* rho, float* ux, float* uy,
                                            float* uz) {
    const LbmMoments m = lbm_raw_moments(f);
    *rho = 1.0f + m.drho;
    const float scale = kCollision == LBM_COLLISION_ENTROPIC ? 1.0f / *rho : 1.0f;
    *ux = m.jx * scale;
    *uy = m.jy * scale;
    *uz = m.jz * scale;
}
