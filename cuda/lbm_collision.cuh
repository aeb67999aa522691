// Collision of one cell's 19 shifted populations (lbm_lattice.cuh), written once for both shells.
//
// Equilibrium: the incompressible form of He & Luo (1997, J. Stat. Phys. 88, 927),
// f_eq = w (rho + rho_0 (3 c.u + 9/2 (c.u)^2 - 3/2 u^2)) with rho_0 = 1 and u = j / rho_0: the
// density is only pressure, so the velocity field carries no O(Ma^2) density-coupling error.
// Collision: BGK with the Smagorinsky-Lilly subgrid model (Hou et al. 1996, J. Comput. Phys.
// 118, 329): tau_eff = (tau0 + sqrt(tau0^2 + 18 sqrt(2) Cs^2 sqrt(Pi:Pi) / rho_0)) / 2, with Pi
// the non-equilibrium momentum flux. Body force: Guo, Zheng & Shi 2002 (Phys. Rev. E 65, 046308).
#pragma once

#include "lbm_lattice.cuh"

// Collide the 19 shifted populations f of one cell in place. tau0: molecular relaxation time;
// cs2_smag: Smagorinsky constant squared (0 = plain BGK); (gx, gy, gz): body acceleration,
// applied only when has_force (a separate switch so the CPU shell can compile it out).
__device__ __forceinline__ void lbm_collide(float* f, const float tau0, const float cs2_smag,
                                            const bool has_force, const float gx,
                                            const float gy, const float gz) {
    float drho = 0.0f, jx = 0.0f, jy = 0.0f, jz = 0.0f;
    float pxx = 0.0f, pyy = 0.0f, pzz = 0.0f, pxy = 0.0f, pxz = 0.0f, pyz = 0.0f;
#define LBM_MOMENTS(q, cx, cy, cz, w)          \
    {                                          \
        const float fq = f[q];                 \
        drho += fq;                            \
        if (cx) jx += LBM_CV(cx, fq);          \
        if (cy) jy += LBM_CV(cy, fq);          \
        if (cz) jz += LBM_CV(cz, fq);          \
        if (cx) pxx += fq;                     \
        if (cy) pyy += fq;                     \
        if (cz) pzz += fq;                     \
        if ((cx) && (cy)) pxy += LBM_CV((cx) * (cy), fq); \
        if ((cx) && (cz)) pxz += LBM_CV((cx) * (cz), fq); \
        if ((cy) && (cz)) pyz += LBM_CV((cy) * (cz), fq); \
    }
    D3Q19_LINKS(LBM_MOMENTS)
#undef LBM_MOMENTS
    const float ux = jx + 0.5f * gx;  // u = (j + F/2) / rho_0 with rho_0 = 1 and F = rho_0 g
    const float uy = jy + 0.5f * gy;
    const float uz = jz + 0.5f * gz;

    // Non-equilibrium momentum flux: sum c_a c_b f - u_a u_b - rho/3 delta_ab (shifted f).
    const float third_drho = drho * (1.0f / 3.0f);
    const float qxx = pxx - third_drho - ux * ux;
    const float qyy = pyy - third_drho - uy * uy;
    const float qzz = pzz - third_drho - uz * uz;
    const float qxy = pxy - ux * uy;
    const float qxz = pxz - ux * uz;
    const float qyz = pyz - uy * uz;
    const float pi_norm = sqrtf(qxx * qxx + qyy * qyy + qzz * qzz +
                                2.0f * (qxy * qxy + qxz * qxz + qyz * qyz));
    const float tau = 0.5f * (tau0 + sqrtf(tau0 * tau0 + 25.455844f * cs2_smag * pi_norm));
    const float omega = 1.0f / tau;

    const float usq15 = 1.5f * (ux * ux + uy * uy + uz * uz);
    const float guo = 1.0f - 0.5f * omega;
    const float ug = ux * gx + uy * gy + uz * gz;
#define LBM_RELAX(q, cx, cy, cz, w)                                                       \
    {                                                                                     \
        const float cu = LBM_CV(cx, ux) + LBM_CV(cy, uy) + LBM_CV(cz, uz);                \
        const float feq = (w) * (drho + 3.0f * cu + 4.5f * cu * cu - usq15);              \
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

// Shifted incompressible equilibrium populations for density rho and velocity u.
__device__ __forceinline__ void lbm_equilibrium(float* feq, const float rho, const float ux,
                                                const float uy, const float uz) {
    const float usq15 = 1.5f * (ux * ux + uy * uy + uz * uz);
#define LBM_FEQ(q, cx, cy, cz, w)                                                  \
    {                                                                              \
        const float cu = LBM_CV(cx, ux) + LBM_CV(cy, uy) + LBM_CV(cz, uz);         \
        feq[q] = (w) * ((rho - 1.0f) + 3.0f * cu + 4.5f * cu * cu - usq15);        \
    }
    D3Q19_LINKS(LBM_FEQ)
#undef LBM_FEQ
}

// Density and velocity u = j / rho_0 of shifted populations (no body-force correction).
__device__ __forceinline__ void lbm_moments(const float* f, float* rho, float* ux, float* uy,
                                            float* uz) {
    float drho = 0.0f, jx = 0.0f, jy = 0.0f, jz = 0.0f;
#define LBM_SUM(q, cx, cy, cz, w)          \
    {                                      \
        drho += f[q];                      \
        if (cx) jx += LBM_CV(cx, f[q]);    \
        if (cy) jy += LBM_CV(cy, f[q]);    \
        if (cz) jz += LBM_CV(cz, f[q]);    \
    }
    D3Q19_LINKS(LBM_SUM)
#undef LBM_SUM
    *rho = 1.0f + drho;
    *ux = jx;
    *uy = jy;
    *uz = jz;
}
