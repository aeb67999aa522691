// Boundary rules for one link or one open-boundary cell (lbm_lattice.cuh), written once for both
// shells: halfway and interpolated bounce-back, the moving wall, free slip, inlet and outflow.
#pragma once

#include "lbm_collision.cuh"

__device__ __forceinline__ int lbm_wrap(const int i, const int n) {
    return i < 0 ? i + n : (i >= n ? i - n : i);
}

__device__ __forceinline__ long long lbm_index(const LbmParams& p, const int x, const int y,
                                               const int z) {
    return lbm_wrap(x, p.nx) + (long long)p.nx * (lbm_wrap(y, p.ny) + (long long)p.ny * lbm_wrap(z, p.nz));
}

// The layouts a buffer's populations may have (solver/streaming.py): the two-buffer pull's, where
// post(q, y), the population that left cell y along c_q in the last step, is in plane q at y, and
// in-place streaming's two parities (lbm_update_bulk_cell_in_place in lbm_cell.cuh).
#define LBM_LAYOUT_PULL 0
#define LBM_LAYOUT_SWAPPED 1  // in place, parity 0: post(q, y) in plane opp(q) at y
#define LBM_LAYOUT_PUSHED 2   // in place, parity 1: post(q, y) in plane q at y + c_q

// Index in f of post(q, y) for the cell y at index n and coordinates (x, y, z) (wrapped or not),
// c_q = (cx, cy, cz).
template <int kLayout>
__device__ __forceinline__ long long lbm_post_index(const LbmParams& p, const int q, const int cx, const int cy,
                                                    const int cz, const long long n, const int x, const int y,
                                                    const int z) {
    const long long S = p.plane_stride;
    if (kLayout == LBM_LAYOUT_PULL) return q * S + n;
    if (kLayout == LBM_LAYOUT_SWAPPED) return LBM_OPP(q) * S + n;
    return q * S + lbm_index(p, x + cx, y + cy, z + cz);
}

// Index in f where the next step takes link q of the cell at n from, src the index of its source
// cell n - c_q: plane q at src for the pull; in place, the slot the step reads (plane opp(q) at
// src when the step pushes, plane q at n when it is local).
template <int kLayout>
__device__ __forceinline__ long long lbm_incoming_index(const LbmParams& p, const int q, const long long n,
                                                        const long long src) {
    const long long S = p.plane_stride;
    if (kLayout == LBM_LAYOUT_PULL) return q * S + src;
    if (kLayout == LBM_LAYOUT_SWAPPED) return LBM_OPP(q) * S + src;
    return q * S + n;
}

// The link along grid axis k (0, 1, 2) with sign c (+-1): links 1 .. 6 are +x, -x, +y, -y, +z, -z.
// Its source x - c e_k is the cell's neighbour on the -c side of axis k.
__device__ __forceinline__ int lbm_axis_link(const int k, const int c) { return 1 + 2 * k + (c < 0); }

__device__ __forceinline__ bool lbm_streams_plainly(const unsigned char flag) {
    const int t = flag & FLAG_TYPE_MASK;
    return t == FLAG_FLUID || t == FLAG_INLET || t == FLAG_OUTFLOW || t == FLAG_GHOST;
}

// Whether a cell's populations are pulled as they stand: those that stream plainly, and the
// free-slip walls, filled before the step (lbm_fill_freeslip).
__device__ __forceinline__ bool lbm_pulls_plainly(const unsigned char flag) {
    return lbm_streams_plainly(flag) || (flag & FLAG_TYPE_MASK) == FLAG_FREESLIP;
}

// Bouzidi, Firdaouss & Lallemand (2001, Phys. Fluids 13, 3452) linear interpolated bounce-back
// for a resting wall at fraction qw in (0, 1] of the link from the fluid cell x towards the wall
// (along -c). f_out = f*_opp(x), the population leaving x towards the wall; f_far = f*_opp(x + c),
// the one leaving the next cell away from the wall; f_same = f*_q(x). All post-collision.
//   qw <  1/2: f_q(x) = 2 qw f_out + (1 - 2 qw) f_far
//   qw >= 1/2: f_q(x) = f_out / (2 qw) + (2 qw - 1) / (2 qw) f_same
__device__ __forceinline__ float lbm_bouzidi(const float qw, const float f_out, const float f_far,
                                             const float f_same) {
    if (qw < 0.5f) return 2.0f * qw * f_out + (1.0f - 2.0f * qw) * f_far;
    const float inv = 0.5f / qw;
    return inv * f_out + (1.0f - inv) * f_same;
}

// Incoming population of link (q, c) at fluid cell (x, y, z) from a wall moving tangentially
// with u_w (the rolling road). The rule pairs q with its mirror link (q with the wall-normal
// component reversed): f_in(q) = (1 - s) f_out(opp q) - s f_out(mirror q), with
// s = (E_opp - E_mirror) / (E_opp + E_mirror), E the operator's equilibrium at (1, u_w), which
// the set-up computes once with this source's own equilibrium (p.wall_feq).
// A uniform flow at u_w is a fixed point (at any density for the entropic equilibrium), mass is
// conserved link pair by link pair, and the map is an isometry of the entropic scalar product
// about that flow: the wall adds no energy to perturbations. Ladd's rule f_out + 6 w c.u_w,
// which the first-order expansion of this one corrects, feeds the lattice at tau0 -> 1/2
// (docs/solver.md). Links with c.u_w = 0 and a mirror equal to opp reduce to bounce-back.
// nb: the flags of the cell's link sources, nb[q] that of x - c_q. (x, y, z): the cell's
// coordinates; kLayout the buffer's (lbm_post_index).
template <int kLayout = LBM_LAYOUT_PULL>
__device__ __forceinline__ float lbm_moving_wall(const lbm_pop* __restrict__ f_src, const LbmParams& p,
                                                 const long long n, const int q, const int cx,
                                                 const int cy, const int cz,
                                                 const unsigned char* nb, const int x, const int y,
                                                 const int z) {
    const int opp = LBM_OPP(q);
    const float f_out = lbm_pop_load(f_src[lbm_post_index<kLayout>(p, opp, -cx, -cy, -cz, n, x, y, z)]);
    // The wall's normal: the axis along which the neighbour of x towards the source is the wall.
    int mx = cx, my = cy, mz = cz;
    if (cz && (nb[lbm_axis_link(2, cz)] & FLAG_TYPE_MASK) == FLAG_MOVING) {
        mz = -cz;
    } else if (cy && (nb[lbm_axis_link(1, cy)] & FLAG_TYPE_MASK) == FLAG_MOVING) {
        my = -cy;
    } else {
        return f_out;  // no tangential partner (a link along the normal, or an edge): bounce back
    }
    const int mir = LBM_LINK_OF[(mx + 1) + 3 * (my + 1) + 9 * (mz + 1)];
    const float w = q <= 6 ? LBM_W1 : LBM_W2;  // opp and mirror have q's weight
    const float e_opp = p.wall_feq[opp] + w, e_mir = p.wall_feq[mir] + w;
    const float s = (e_opp - e_mir) / (e_opp + e_mir);
    const float f_mir = lbm_pop_load(f_src[lbm_post_index<kLayout>(p, mir, mx, my, mz, n, x, y, z)]);
    return (1.0f - s) * f_out - s * f_mir - 2.0f * s * w;  // shifted populations
}

// Incoming population of link (q, c) at fluid cell (x, y, z), whose source cell x - c is a
// no-slip or moving wall or the body (a free-slip wall is filled before the step and pulled
// plainly: lbm_fill_freeslip). Adds the momentum the link hands to the body (gauge pressure:
// shifted populations) to *force.
// q_links: the cell's 18 wall fractions (links 1..18) for interpolated bounce-back on the body,
// or null for halfway bounce-back.
// nb: the flags of the cell's link sources, nb[q] that of x - c_q (nb[q] is the wall's).
// kLayout: the buffer's (lbm_post_index).
template <int kCollision, int kLayout = LBM_LAYOUT_PULL>
__device__ __forceinline__ float lbm_pull_from_wall(const lbm_pop* __restrict__ f_src,
                                                    const float* __restrict__ q_links,
                                                    const LbmParams& p, const long long n,
                                                    const int q, const int cx, const int cy,
                                                    const int cz, const float w,
                                                    const int x, const int y, const int z,
                                                    const unsigned char* nb, float* force) {
    const int opp = LBM_OPP(q);
    const float f_out = lbm_pop_load(f_src[lbm_post_index<kLayout>(p, opp, -cx, -cy, -cz, n, x, y, z)]);
    const unsigned char src_flag = nb[q];
    const int type = src_flag & FLAG_TYPE_MASK;
    if (type == FLAG_MOVING) return lbm_moving_wall<kLayout>(f_src, p, n, q, cx, cy, cz, nb, x, y, z);
    if (src_flag & FLAG_BODY) {
        float f_in = f_out;
        if (q_links) {
            const float qw = q_links[q - 1];
            // Halfway bounce-back where the set-up found no wall on the link (qw = 0: e.g. a link
            // wrapped across a periodic face) or, next to a thin gap, the far cell x + c (the
            // source of the opposite link) is not fluid.
            if (qw > 0.0f && (qw >= 0.5f || (nb[opp] & FLAG_TYPE_MASK) == FLAG_FLUID)) {
                const float f_far =
                    qw < 0.5f ? lbm_pop_load(f_src[lbm_post_index<kLayout>(p, opp, -cx, -cy, -cz,
                                                                           lbm_index(p, x + cx, y + cy, z + cz),
                                                                           x + cx, y + cy, z + cz)])
                              : 0.0f;
                f_in = lbm_bouzidi(qw, f_out, f_far,
                                   lbm_pop_load(f_src[lbm_post_index<kLayout>(p, q, cx, cy, cz, n, x, y, z)]));
            }
        }
        const float m = f_out + f_in;  // momentum along -c handed to the body per step
        force[0] -= (float)cx * m;
        force[1] -= (float)cy * m;
        force[2] -= (float)cz * m;
        return f_in;
    }
    return f_out;  // plain halfway bounce-back
}

// Free-slip walls (FLAG_FREESLIP) are filled before each step and then stream plainly: link q of
// a free-slip cell w gets the population that the fluid cell x = w + c_q takes from it, the
// specular reflection, which the set-up finds once (solver/wall_fill.py, freeslip_fill): entry i
// copies population freeslip_src[i] (q' S + cell) to freeslip_dst[i]. Filling the wall cells,
// not pulling from them cell by cell, leaves the fluid cells next to a plane free-slip wall bulk
// cells (mark_bulk there): on the car at 64 cells 63% of the fluid cells next to a wall are next
// to the tunnel's free-slip walls (docs/performance.md). The sources are cells that stream
// plainly, never a filled wall, so the entries may be copied in any order.
__device__ __forceinline__ void lbm_fill_freeslip(lbm_pop* __restrict__ f, const LbmParams& p,
                                                  const long long i) {
    f[p.freeslip_dst[i]] = f[p.freeslip_src[i]];
}

// Velocity inlet (x-min face) and outflow (x-max face), set from the inner neighbour nb.
// Inlet: the equilibrium f = feq(rho_b, u_in) of the inlet velocity and a density rho_b that
// follows the neighbour's slowly: rho_b <- rho_b + inlet_relax (rho_nb - rho_b), with rho_b the
// inlet cell's own density of the last step and inlet_relax = c_s / nx (one acoustic crossing of
// the tunnel). rho_b - 1 is the cell's state in p.inlet_drho, float32 whatever the populations'
// storage: a step's change, inlet_relax (about 1e-3) times a density difference, is below
// binary16's resolution of the cell's populations, and read back from them the density stayed
// where it started (Schaefer-Turek 2D-1 with 16-bit storage: the inflow 4% slow, Cd -5.5%). The
// mean pressure the tunnel settles to passes, so the inflow is u_in; sound and the flow's
// disturbances, faster than that, meet a fixed incoming state and leave instead of
// reflecting; and nothing of the neighbour's non-equilibrium part is copied back in. Copying it
// (non-equilibrium extrapolation, Guo, Zheng & Shi 2002) closes a feedback loop that grows at
// tau0 -> 1/2, and a density copied at once reflects sound (docs/solver.md).
// Outflow: non-equilibrium extrapolation (Guo, Zheng & Shi 2002, Chinese Phys. 11, 366),
// f = feq(1, u_nb) + f_nb - feq(rho_nb, u_nb): zero-gradient velocity at the reference pressure;
// the sponge before it damps what would feed back.
//
// The inlet cell's populations from its inner neighbour's f_nb (x + 1), its inlet velocity and
// its density state drho_b (p.inlet_drho, updated here), into f.
template <int kCollision>
__device__ __forceinline__ void lbm_inlet_populations(const float* f_nb, const float u_inlet, const float relax,
                                                      float* drho_b, float* f) {
    float drho_nb = 0.0f;
#define LBM_INLET_DENSITY(q, cx, cy, cz, w) drho_nb += f_nb[q];
    D3Q19_LINKS(LBM_INLET_DENSITY)
#undef LBM_INLET_DENSITY
    *drho_b += relax * (drho_nb - *drho_b);
    lbm_equilibrium<kCollision>(f, 1.0f + *drho_b, u_inlet, 0.0f, 0.0f);
}

// The outflow cell's populations from its inner neighbour's f_nb (x - 1), into f.
template <int kCollision>
__device__ __forceinline__ void lbm_outflow_populations(const float* f_nb, float* f) {
    float rho_nb, ux_nb, uy_nb, uz_nb, feq_nb[19];
    lbm_moments<kCollision>(f_nb, &rho_nb, &ux_nb, &uy_nb, &uz_nb);
    lbm_equilibrium<kCollision>(feq_nb, rho_nb, ux_nb, uy_nb, uz_nb);
    lbm_equilibrium<kCollision>(f, 1.0f, ux_nb, uy_nb, uz_nb);
#define LBM_OUTFLOW(q, cx, cy, cz, w) f[q] += f_nb[q] - feq_nb[q];
    D3Q19_LINKS(LBM_OUTFLOW)
#undef LBM_OUTFLOW
}

// One open cell n at (x, y, z) of a step: an inlet (its index inlet >= 0 in p.u_inlet and
// p.inlet_drho) or an outflow (inlet = -1), its populations into f from its inner neighbour's in
// f_src (in the layout kLayout, lbm_post_index). The CPU shell batches the two functions above
// instead, so that they run as vector loops.
template <int kCollision, int kLayout = LBM_LAYOUT_PULL>
__device__ __forceinline__ void lbm_open_cell(const lbm_pop* __restrict__ f_src, const LbmParams& p,
                                              const long long n, const int x, const int y, const int z,
                                              const long long inlet, float* f) {
    const int x_nb = inlet >= 0 ? x + 1 : x - 1;
    const long long nb = inlet >= 0 ? n + 1 : n - 1;
    float f_nb[19];
#define LBM_LOAD_NB(q, cx, cy, cz, w) \
    f_nb[q] = lbm_pop_load(f_src[lbm_post_index<kLayout>(p, q, cx, cy, cz, nb, x_nb, y, z)]);
    D3Q19_LINKS(LBM_LOAD_NB)
#undef LBM_LOAD_NB
    if (inlet >= 0) {
        float drho_b = p.inlet_drho[inlet];
        lbm_inlet_populations<kCollision>(f_nb, p.u_inlet[inlet], p.inlet_relax, &drho_b, f);
        p.inlet_drho[inlet] = drho_b;
    } else {
        lbm_outflow_populations<kCollision>(f_nb, f);
    }
}

// The same, stored into f_dst at n (the two-buffer pull).
template <int kCollision>
__device__ __forceinline__ void lbm_update_open_cell(const lbm_pop* __restrict__ f_src,
                                                     lbm_pop* __restrict__ f_dst, const LbmParams& p,
                                                     const long long n, const int x, const int y, const int z,
                                                     const long long inlet) {
    const long long S = p.plane_stride;
    float f[19];
    lbm_open_cell<kCollision>(f_src, p, n, x, y, z, inlet, f);
#define LBM_STORE_OPEN(q, cx, cy, cz, w) f_dst[q * S + n] = lbm_pop_store(f[q]);
    D3Q19_LINKS(LBM_STORE_OPEN)
#undef LBM_STORE_OPEN
}
