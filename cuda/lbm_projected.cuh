// The projected volumetric wall (solver/volumetric_projected.py; docs/solver.md, "The projected
// volumetric wall"; after Hoefnagel, Casalino, Hulshoff & de Prenter 2025, arXiv:2509.05035).
// Each slot carries beside each population's mean m_q over its fluid a slope s_q (1/cell):
// f_q(r) = m_q + s_q . (r - r_x). The step streams that linear field exactly and projects it back
// on each slot's mean and slope: every contribution is a 4 x 4 map of one source's (m, s) of one
// link, row-major, row 0 the mean, rows 1-3 the slope. After the collision the slopes relax
// towards the equilibrium's (lbm_projected_relax).
#pragma once

#include "lbm_boundaries.cuh"
#include "lbm_subgrid.cuh"

// The slope of link q at cell c as the last collision left it; 0 where c carries none.
__device__ __forceinline__ void lbm_projected_source_slope(const LbmParams& p, const long long c, const int q,
                                                           float* s) {
    const int slot = p.vol_index[c];
    if (slot < 0) {
        s[0] = s[1] = s[2] = 0.0f;
        return;
    }
    const float* from = p.vol_slope_in + 57 * slot + 3 * q;
    s[0] = from[0];
    s[1] = from[1];
    s[2] = from[2];
}

// mean and slope [3] += M (m, s) for a 4 x 4 map M.
__device__ __forceinline__ void lbm_projected_add(const float* __restrict__ M, const float m, const float* s,
                                                  float* mean, float* slope) {
    *mean += M[0] * m + M[1] * s[0] + M[2] * s[1] + M[3] * s[2];
    LBM_UNROLL
    for (int a = 0; a < 3; ++a) slope[a] += M[4 + 4 * a] * m + M[5 + 4 * a] * s[0] + M[6 + 4 * a] * s[1] + M[7 + 4 * a] * s[2];
}

// The pull of projected slot s (cell n at x, y, z) into f, its slopes into vol_slope_out: each
// link's source through its keep map (a link from the domain's walls takes that wall's rule
// times the map's mean share, with no slope), the turned rows, and the elements' free-slip and
// law terms (gamma, lbm_volumetric_gather) spread by the scatter's weights and slopes.
template <int kLayout>
__device__ __forceinline__ void lbm_projected_pull(const lbm_pop* __restrict__ f_src, const LbmParams& p,
                                                   const long long n, const int s, const int x, const int y,
                                                   const int z, float* f) {
    const long long nx = p.nx, nxy = (long long)p.nx * p.ny;
    long long src[19];
    unsigned char nb[19];  // the flags of the links' sources, as lbm_moving_wall reads them
#define LBM_PROJ_SOURCE(q, cx, cy, cz, w)                                                           \
    src[q] = lbm_wrap(x - (cx), p.nx) + nx * lbm_wrap(y - (cy), p.ny) + nxy * lbm_wrap(z - (cz), p.nz); \
    nb[q] = p.flags[src[q]];
    D3Q19_LINKS(LBM_PROJ_SOURCE)
#undef LBM_PROJ_SOURCE
    float slope[57];
#define LBM_PROJ_PULL(q, cx, cy, cz, w)                                                                     \
    {                                                                                                       \
        const float* keep = p.vol_keep_map + 16 * (19 * s + q);                                             \
        const int type = nb[q] & FLAG_TYPE_MASK;                                                            \
        float mean = 0.0f, from, from_slope[3] = {0.0f, 0.0f, 0.0f};                                        \
        float* out = slope + 3 * q;                                                                         \
        out[0] = out[1] = out[2] = 0.0f;                                                                    \
        if (keep[0] != 0.0f) {                                                                              \
            if (type == FLAG_SOLID) {                                                                       \
                from = lbm_pop_load(f_src[lbm_post_index<kLayout>(p, LBM_OPP(q), -(cx), -(cy), -(cz), n, x, y, z)]); \
            } else if (type == FLAG_MOVING) {                                                               \
                from = lbm_moving_wall<kLayout>(f_src, p, n, q, cx, cy, cz, nb, x, y, z);                   \
            } else {                                                                                        \
                from = lbm_pop_load(f_src[lbm_incoming_index<kLayout>(p, q, n, src[q])]);                   \
                lbm_projected_source_slope(p, src[q], q, from_slope);                                       \
            }                                                                                               \
            lbm_projected_add(keep, from, from_slope, &mean, out);                                          \
        }                                                                                                   \
        for (int i = p.vol_turn_start[19 * s + q]; i < p.vol_turn_start[19 * s + q + 1]; ++i) {             \
            const long long at = p.vol_turn_at[i];                                                          \
            lbm_projected_source_slope(p, at - LBM_OPP(q) * p.plane_stride, LBM_OPP(q), from_slope);        \
            lbm_projected_add(p.vol_turn_map + 16 * i, lbm_pop_load(f_src[at]), from_slope, &mean, out);    \
        }                                                                                                   \
        f[q] = mean;                                                                                        \
    }
    D3Q19_LINKS(LBM_PROJ_PULL)
#undef LBM_PROJ_PULL
    for (int i = p.vol_scatter_start[s]; i < p.vol_scatter_start[s + 1]; ++i) {
        const int link = p.vol_scatter[i], q = link % 19;
        const float sent = p.vol_gamma[link];
        f[q] += p.vol_scatter_weight[i] * sent;
        LBM_UNROLL
        for (int a = 0; a < 3; ++a) slope[3 * q + a] += p.vol_scatter_slope[3 * i + a] * sent;
    }
    float* slope_out = p.vol_slope_out + 57 * s;
    LBM_UNROLL
    for (int k = 0; k < 57; ++k) slope_out[k] = slope[k];
}

// Slot s after the step that wrote f: its slopes (vol_slope_out) relaxed with the cell's
// relaxation time towards the equilibrium's slope along the slopes of density and momentum,
// s_eq = (d f_eq / d rho) s_rho + (d f_eq / d j) . s_j at the cell's density and velocity (the
// second-order equilibrium's derivatives), into vol_slope_in for the next step.
__device__ __forceinline__ void lbm_projected_relax(const lbm_pop* __restrict__ f, const LbmParams& p, const int s) {
    const long long n = p.vol_slot_cell[s], S = p.plane_stride;
    const int x = (int)(n % p.nx);
    float rho = 1.0f, j[3] = {0.0f, 0.0f, 0.0f}, s_rho[3] = {0.0f, 0.0f, 0.0f};
    float s_j[3][3] = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}};  // [momentum axis][slope axis]
    const float* in = p.vol_slope_out + 57 * s;
#define LBM_PROJ_MOMENTS(q, cx, cy, cz, w)                          \
    {                                                               \
        const float fq = lbm_pop_load(f[q * S + n]);                \
        rho += fq;                                                  \
        j[0] += LBM_CV(cx, fq);                                     \
        j[1] += LBM_CV(cy, fq);                                     \
        j[2] += LBM_CV(cz, fq);                                     \
        for (int a = 0; a < 3; ++a) {                               \
            const float sq = in[3 * q + a];                         \
            s_rho[a] += sq;                                         \
            s_j[0][a] += LBM_CV(cx, sq);                            \
            s_j[1][a] += LBM_CV(cy, sq);                            \
            s_j[2][a] += LBM_CV(cz, sq);                            \
        }                                                           \
    }
    D3Q19_LINKS(LBM_PROJ_MOMENTS)
#undef LBM_PROJ_MOMENTS
    const float u[3] = {j[0] / rho, j[1] / rho, j[2] / rho};
    const float uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
    const float omega = 1.0f / lbm_cell_tau(p, x, n);
    float* out = p.vol_slope_in + 57 * s;
#define LBM_PROJ_RELAX(q, cx, cy, cz, w)                                                  \
    {                                                                                     \
        const float cu = LBM_CV(cx, u[0]) + LBM_CV(cy, u[1]) + LBM_CV(cz, u[2]);          \
        const float d_rho = (w) * (1.0f - 4.5f * cu * cu + 1.5f * uu);                    \
        const float d_j[3] = {(w) * (3.0f * (cx) * (1.0f + 3.0f * cu) - 3.0f * u[0]),     \
                              (w) * (3.0f * (cy) * (1.0f + 3.0f * cu) - 3.0f * u[1]),     \
                              (w) * (3.0f * (cz) * (1.0f + 3.0f * cu) - 3.0f * u[2])};    \
        for (int a = 0; a < 3; ++a) {                                                     \
            const float eq = d_rho * s_rho[a] + d_j[0] * s_j[0][a] + d_j[1] * s_j[1][a] + d_j[2] * s_j[2][a]; \
            const float sq = in[3 * q + a];                                               \
            out[3 * q + a] = sq - omega * (sq - eq);                                      \
        }                                                                                 \
    }
    D3Q19_LINKS(LBM_PROJ_RELAX)
#undef LBM_PROJ_RELAX
}
