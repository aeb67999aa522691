// The projected volumetric wall (solver/volumetric_projected.py; docs/solver.md, "The projected
// volumetric wall"; after Hoefnagel, Casalino, Hulshoff & de Prenter 2025, arXiv:2509.05035).
// Each slot carries beside each population's mean m_q over its fluid a slope s_q (1/cell):
// f_q(r) = m_q + s_q . (r - r_x). The step streams that linear field exactly and projects it back
// on each slot's mean and slope: every contribution is a 4 x 4 map of one source's (m, s) of one
// link, row-major, row 0 the mean, rows 1-3 the slope. The slopes are collided as the means are,
// by the collision's derivative along them (lbm_projected_collide_slopes).
#pragma once

#include "lbm_boundaries.cuh"
#include "lbm_collision.cuh"
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

// The sources x - c_q of cell (x, y, z)'s links (wrapped) and their flags, as lbm_moving_wall
// reads them: the volumetric walls' pulls.
__device__ __forceinline__ void lbm_volumetric_sources(const LbmParams& p, const int x, const int y, const int z,
                                                       long long* src, unsigned char* nb) {
    const long long nx = p.nx, nxy = (long long)p.nx * p.ny;
#define LBM_VOL_SOURCE(q, cx, cy, cz, w)                                                           \
    src[q] = lbm_wrap(x - (cx), p.nx) + nx * lbm_wrap(y - (cy), p.ny) + nxy * lbm_wrap(z - (cz), p.nz); \
    nb[q] = p.flags[src[q]];
    D3Q19_LINKS(LBM_VOL_SOURCE)
#undef LBM_VOL_SOURCE
}

// mean and slope [3] += M (m, s) for a 4 x 4 map M.
__device__ __forceinline__ void lbm_projected_add(const float* __restrict__ M, const float m, const float* s,
                                                  float* mean, float* slope) {
    *mean += M[0] * m + M[1] * s[0] + M[2] * s[1] + M[3] * s[2];
    LBM_UNROLL
    for (int a = 0; a < 3; ++a) slope[a] += M[4 + 4 * a] * m + M[5 + 4 * a] * s[0] + M[6 + 4 * a] * s[1] + M[7 + 4 * a] * s[2];
}

// The slopes [57] of a cell whose means f (pre-collision) the collision at relaxation time tau
// takes, collided: the populations across the cell are f + s_a (r - r_x)_a, and each point's are
// collided, so the slopes after it are the collision's derivative along them, taken by a central
// difference of two collisions per axis (a step of 1e-3 in the most changed population; the
// operator is smooth there, and float32 rounding leaves 3e-6 of the largest slope against BGK's
// analytic derivative, tests/test_volumetric_projected.py). Whatever the collision (BGK, the
// entropic operator, the subgrid model's rate), the slopes relax as the populations do: its
// contraction at tau0 -> 1/2 holds for them too (plain BGK on the slopes grew there;
// docs/solver.md, "The projected volumetric wall"). The difference is built from the two pieces
// below, which the CPU shell also composes to collide many slots' states in one vector loop
// (lbm_host_shell.h, SlopeBatch).

// 1 / (2 h) per axis [3] for the slopes [57]: h = 1e-3 / the largest slope along the axis; 0 where
// the axis has no slope (its states are not collided and its slopes stay 0).
__device__ __forceinline__ void lbm_projected_slope_steps(const float* slope, float* per) {
    LBM_UNROLL
    for (int a = 0; a < 3; ++a) {
        float largest = 0.0f;
        for (int q = 0; q < 19; ++q) largest = fmaxf(largest, fabsf(slope[3 * q + a]));
        per[a] = largest > 0.0f ? 500.0f * largest : 0.0f;
    }
}

// State k of the six (axis k / 2, the + side for even k) into g [19]: f + (+-h) s_a; returns the
// weight +-1 / (2 h) its collided populations take in the slopes of axis k / 2.
__device__ __forceinline__ float lbm_projected_slope_state(const float* f, const float* slope, const float* per,
                                                           const int k, float* g) {
    const int a = k >> 1;
    const float step = (k & 1 ? -0.5f : 0.5f) / per[a];  // +-h, h = 1e-3 / largest
    for (int q = 0; q < 19; ++q) g[q] = f[q] + step * slope[3 * q + a];
    return k & 1 ? -per[a] : per[a];
}

template <int kCollision>
__device__ __forceinline__ void lbm_projected_collide_slopes(const LbmParams& p, const float* f, const float* slope,
                                                             const float tau, float* out) {
    float per[3];
    lbm_projected_slope_steps(slope, per);
    for (int k = 0; k < 57; ++k) out[k] = 0.0f;
    // one collision call in a rolled loop over the six states: the collision is compiled once
    LBM_NO_UNROLL
    for (int k = 0; k < 6; ++k) {
        if (per[k >> 1] == 0.0f) continue;
        float g[19];
        const float weight = lbm_projected_slope_state(f, slope, per, k, g);
        lbm_collide<kCollision>(g, p, tau, p.has_force, nullptr);
        for (int q = 0; q < 19; ++q) out[3 * q + (k >> 1)] += weight * g[q];
    }
}

// The free slip's profile (solver/volumetric_profile.py): a parcel's integral of f g, g = (the
// tangential place where and t - 1/2 when its particles meet the element), from its source's
// mean m and slope s: table (g0 [3], G1 [3 x 3]) gives g0 m + G1 s, added to in_g.
__device__ __forceinline__ void lbm_profile_parcel(const float* __restrict__ table, const float m, const float* s,
                                                   float* in_g) {
    LBM_UNROLL
    for (int j = 0; j < 3; ++j) in_g[j] += table[j] * m + table[3 + 3 * j] * s[0] + table[4 + 3 * j] * s[1] + table[5 + 3 * j] * s[2];
}

// Element e's profile b_k = gram Q_k (vol_profile) from Q_k, the integrals over its incoming
// prisms of (c_q . t_k) f_q g.
__device__ __forceinline__ void lbm_profile_store(const LbmParams& p, const int e, const float (*moment_g)[3]) {
    const float* gram = p.vol_profile_gram + 9 * e;
    LBM_UNROLL
    for (int k = 0; k < 2; ++k) {
        LBM_UNROLL
        for (int j = 0; j < 3; ++j)
            p.vol_profile[6 * e + 3 * k + j] =
                gram[3 * j] * moment_g[k][0] + gram[3 * j + 1] * moment_g[k][1] + gram[3 * j + 2] * moment_g[k][2];
    }
}

// Scatter entry i's profile terms (link q of element e): the free slip's sum_k slip[k, q] b_k . g
// over the entry's piece, into the slot's mean and slope of link q.
__device__ __forceinline__ void lbm_profile_scatter(const LbmParams& p, const int i, const int e, const int q,
                                                    float* mean, float* slope) {
    const float* law = p.vol_law + LBM_VOL_LAW_FIELDS * e;
    const float* b = p.vol_profile + 6 * e;
    const float* table = p.vol_scatter_profile + 12 * i;
    float beta[3];
    LBM_UNROLL
    for (int j = 0; j < 3; ++j) beta[j] = law[10 + q] * b[j] + law[29 + q] * b[3 + j];
    *mean += table[0] * beta[0] + table[1] * beta[1] + table[2] * beta[2];
    LBM_UNROLL
    for (int a = 0; a < 3; ++a) slope[a] += table[3 + 3 * a] * beta[0] + table[4 + 3 * a] * beta[1] + table[5 + 3 * a] * beta[2];
}

// The pull of projected slot s (cell n at x, y, z) into f, and into vol_slot_mean and vol_slope_out
// its means and slopes before the collision (the collision then takes f as any cell's, and
// lbm_projected_commit the slopes): each link's source through its keep map (a link from the domain's walls takes that wall's rule
// times the map's mean share, with no slope), the turned rows, and the elements' free-slip and
// law terms (gamma, lbm_volumetric_gather) spread by the scatter's weights and slopes, the free
// slip's with its profile.
template <int kLayout>
__device__ __forceinline__ void lbm_projected_pull(const lbm_pop* __restrict__ f_src, const LbmParams& p,
                                                   const long long n, const int s, const int x, const int y,
                                                   const int z, float* f) {
    long long src[19];
    unsigned char nb[19];
    lbm_volumetric_sources(p, x, y, z, src, nb);
    float* slope = p.vol_slope_out + 57 * s;
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
        if (p.vol_law_on) lbm_profile_scatter(p, i, link / 19, q, f + q, slope + 3 * q);
    }
    LBM_UNROLL
    for (int q = 0; q < 19; ++q) p.vol_slot_mean[19 * s + q] = f[q];
}

// Slot s after the step: the slopes its pull left (vol_slope_out) collided at the means it pulled
// (vol_slot_mean) make the state the next step's pulls and gather read (vol_slope_in).
template <int kCollision>
__device__ __forceinline__ void lbm_projected_commit(const LbmParams& p, const int s) {
    const long long n = p.vol_slot_cell[s];
    lbm_projected_collide_slopes<kCollision>(p, p.vol_slot_mean + 19 * s, p.vol_slope_out + 57 * s,
                                             lbm_cell_tau(p, (int)(n % p.nx), n), p.vol_slope_in + 57 * s);
}
