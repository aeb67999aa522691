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

__device__ __forceinline__ bool lbm_streams_plainly(const unsigned char flag) {
    const int t = flag & FLAG_TYPE_MASK;
    return t == FLAG_FLUID || t == FLAG_INLET || t == FLAG_OUTFLOW;
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

// Incoming population of link (q, c) at fluid cell (x, y, z), whose source cell x - c is a wall.
// Adds the momentum the link hands to the body (gauge pressure: shifted populations) to *force.
// q_links: the cell's 18 wall fractions (links 1..18) for interpolated bounce-back on the body,
// or null for halfway bounce-back.
__device__ __forceinline__ float lbm_pull_from_wall(const float* __restrict__ f_src,
                                                    const float* __restrict__ q_links,
                                                    const LbmParams& p, const long long n,
                                                    const int q, const int cx, const int cy,
                                                    const int cz, const float w,
                                                    const int x, const int y, const int z,
                                                    const unsigned char src_flag, float* force) {
    const long long S = p.plane_stride;
    const int opp = LBM_OPP(q);
    const float f_out = f_src[opp * S + n];
    const int type = src_flag & FLAG_TYPE_MASK;
    if (type == FLAG_MOVING) {
        // Ladd (1994) moving-wall bounce-back with the reference density rho_0 = 1.
        return f_out + 6.0f * w * ((float)cx * p.wall_ux + (float)cy * p.wall_uy + (float)cz * p.wall_uz);
    }
    if (type == FLAG_FREESLIP) {
        // Specular reflection: flip the components whose axis neighbour is a free-slip wall; the
        // mirrored population left the cell x - c_tangential.
        int mx = cx, my = cy, mz = cz, sx = x - cx, sy = y - cy, sz = z - cz;
        bool flipped = false;
        if (cx && (p.flags[lbm_index(p, x - cx, y, z)] & FLAG_TYPE_MASK) == FLAG_FREESLIP) {
            mx = -cx; sx = x; flipped = true;
        }
        if (cy && (p.flags[lbm_index(p, x, y - cy, z)] & FLAG_TYPE_MASK) == FLAG_FREESLIP) {
            my = -cy; sy = y; flipped = true;
        }
        if (cz && (p.flags[lbm_index(p, x, y, z - cz)] & FLAG_TYPE_MASK) == FLAG_FREESLIP) {
            mz = -cz; sz = z; flipped = true;
        }
        if (flipped) {
            const long long s = lbm_index(p, sx, sy, sz);
            if (lbm_streams_plainly(p.flags[s])) {
                const int qm = LBM_LINK_OF[(mx + 1) + 3 * (my + 1) + 9 * (mz + 1)];
                return f_src[qm * S + s];
            }
        }
        return f_out;  // a corner with no plain mirror source: bounce back
    }
    if (src_flag & FLAG_BODY) {
        float f_in = f_out;
        if (q_links) {
            const float qw = q_links[q - 1];
            const long long far = lbm_index(p, x + cx, y + cy, z + cz);
            // Halfway bounce-back where the set-up found no wall on the link (qw = 0: e.g. a link
            // wrapped across a periodic face) or, next to a thin gap, the far cell is not fluid.
            if (qw > 0.0f && (qw >= 0.5f || (p.flags[far] & FLAG_TYPE_MASK) == FLAG_FLUID)) {
                f_in = lbm_bouzidi(qw, f_out, qw < 0.5f ? f_src[opp * S + far] : 0.0f,
                                   f_src[q * S + n]);
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

// Velocity inlet (x-min face) or outflow (x-max face) by non-equilibrium extrapolation from the
// inner neighbour (Guo, Zheng & Shi 2002, Chinese Phys. 11, 366): f = feq(rho_b, u_b) + f_nb -
// feq(rho_nb, u_nb). Inlet: u_b prescribed, rho_b = rho_nb. Outflow: rho_b = 1, u_b = u_nb.
__device__ __forceinline__ void lbm_update_open_cell(const float* __restrict__ f_src,
                                                     float* __restrict__ f_dst, const LbmParams& p,
                                                     const long long n, const bool is_inlet,
                                                     const float u_inlet) {
    const long long S = p.plane_stride;
    const long long nb = is_inlet ? n + 1 : n - 1;
    float f_nb[19], feq_nb[19], feq_b[19];
#define LBM_LOAD_NB(q, cx, cy, cz, w) f_nb[q] = f_src[q * S + nb];
    D3Q19_LINKS(LBM_LOAD_NB)
#undef LBM_LOAD_NB
    float rho_nb, ux_nb, uy_nb, uz_nb;
    lbm_moments(f_nb, &rho_nb, &ux_nb, &uy_nb, &uz_nb);
    lbm_equilibrium(feq_nb, rho_nb, ux_nb, uy_nb, uz_nb);
    const float rho_b = is_inlet ? rho_nb : 1.0f;
    const float ux_b = is_inlet ? u_inlet : ux_nb;
    const float uy_b = is_inlet ? 0.0f : uy_nb;
    const float uz_b = is_inlet ? 0.0f : uz_nb;
    lbm_equilibrium(feq_b, rho_b, ux_b, uy_b, uz_b);
#define LBM_STORE_OPEN(q, cx, cy, cz, w) f_dst[q * S + n] = feq_b[q] + (f_nb[q] - feq_nb[q]);
    D3Q19_LINKS(LBM_STORE_OPEN)
#undef LBM_STORE_OPEN
}
