// D3Q19 lattice-Boltzmann physics for one cell, written once for the GPU (cuda/lbm.cu) and the
// CPU (cuda/host/lbm_host.cpp). Everything here is in lattice units: dx = dt = 1, rho_0 = 1.
//
// Storage: structure of arrays, f[q * plane_stride + n] with n = x + nx * (y + ny * z) and
// plane_stride >= nx * ny * nz (padding keeps the 19 planes out of each other's cache sets).
// Populations are stored shifted by their rest weight, f_stored = f - w_q ("DDF shifting",
// Lehmann et al. 2022, Phys. Rev. E 106, 015308): float32 then resolves density deviations of
// order 1e-7 instead of losing them against the constant w_q.
//
// Scheme: fused pull stream-and-collide. The buffers hold post-collision populations; a step
// pulls f_q(x) from f_src at x - c_q (or from a boundary rule), collides and writes f_dst at x.
// Equilibrium: the incompressible form of He & Luo (1997, J. Stat. Phys. 88, 927),
// f_eq = w (rho + rho_0 (3 c.u + 9/2 (c.u)^2 - 3/2 u^2)) with rho_0 = 1 and u = j / rho_0: the
// density is only pressure, so the velocity field carries no O(Ma^2) density-coupling error.
// Collision: BGK with the Smagorinsky-Lilly subgrid model (Hou et al. 1996, J. Comput. Phys.
// 118, 329): tau_eff = (tau0 + sqrt(tau0^2 + 18 sqrt(2) Cs^2 sqrt(Pi:Pi) / rho_0)) / 2, with Pi
// the non-equilibrium momentum flux. Body force: Guo, Zheng & Shi 2002 (Phys. Rev. E 65, 046308).
#pragma once

// ---- cell flags (one byte per cell; the low nibble is the type) ------------------------------
#define FLAG_FLUID 0     // ordinary fluid cell
#define FLAG_SOLID 1     // no-slip wall, halfway bounce-back
#define FLAG_INLET 2     // velocity inlet on the x-min face (non-equilibrium extrapolation)
#define FLAG_OUTFLOW 3   // outflow on the x-max face: rho = 1, velocity and non-equilibrium extrapolated
#define FLAG_FREESLIP 4  // free-slip wall, specular reflection
#define FLAG_MOVING 5    // no-slip wall moving with the wall velocity (the rolling road)
#define FLAG_TYPE_MASK 0x0F
#define FLAG_BODY 0x10   // on a SOLID cell: links into it count in the body force
#define FLAG_BULK 0x20   // on a FLUID cell: all 18 neighbours are fluid, inlet or outflow

#define LBM_W0 (1.0f / 3.0f)
#define LBM_W1 (1.0f / 18.0f)
#define LBM_W2 (1.0f / 36.0f)

// X(q, cx, cy, cz, w): the 19 links. Opposite links are neighbours: (1,2), (3,4), ..., (17,18).
#define D3Q19_LINKS(X)                                                                       \
    X(0, 0, 0, 0, LBM_W0)                                                                    \
    X(1, 1, 0, 0, LBM_W1) X(2, -1, 0, 0, LBM_W1) X(3, 0, 1, 0, LBM_W1) X(4, 0, -1, 0, LBM_W1) \
    X(5, 0, 0, 1, LBM_W1) X(6, 0, 0, -1, LBM_W1)                                            \
    X(7, 1, 1, 0, LBM_W2) X(8, -1, -1, 0, LBM_W2) X(9, 1, -1, 0, LBM_W2)                     \
    X(10, -1, 1, 0, LBM_W2) X(11, 1, 0, 1, LBM_W2) X(12, -1, 0, -1, LBM_W2)                  \
    X(13, 1, 0, -1, LBM_W2) X(14, -1, 0, 1, LBM_W2) X(15, 0, 1, 1, LBM_W2)                   \
    X(16, 0, -1, -1, LBM_W2) X(17, 0, 1, -1, LBM_W2) X(18, 0, -1, 1, LBM_W2)

#define LBM_OPP(q) ((q) == 0 ? 0 : (((q) & 1) ? (q) + 1 : (q) - 1))

// Link index of the lattice vector (cx, cy, cz), at [(cx+1) + 3 (cy+1) + 9 (cz+1)]; -1 if none.
__constant__ int LBM_LINK_OF[27] = {
    -1, 16, -1, 12, 6, 13, -1, 17, -1,
    8, 4, 9, 2, 0, 1, 10, 3, 7,
    -1, 18, -1, 14, 5, 11, -1, 15, -1};

// Scaled term c*v with a compile-time lattice component c in {-1, 0, 1}: no multiply. The zero
// case is -0.0f because x + (-0.0f) == x exactly, so compilers drop it from sums.
#define LBM_CV(c, v) ((c) > 0 ? (v) : ((c) < 0 ? -(v) : -0.0f))

// ---- collision ---------------------------------------------------------------------------------

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

// ---- cells ---------------------------------------------------------------------------------

// Everything one step needs besides the buffers; the same on both targets.
struct LbmStep {
    int nx, ny, nz;
    long long plane_stride;      // distance between the planes of two links, >= nx*ny*nz
    const float* tau_x;          // molecular relaxation time per x column (the outflow sponge
                                 // raises it towards the outlet)
    float cs2_smag;              // Smagorinsky constant squared; 0 disables the subgrid model
    float gx, gy, gz;            // body acceleration
    bool has_force;              // gx, gy or gz non-zero
    float wall_ux, wall_uy, wall_uz;  // velocity of FLAG_MOVING walls
};

// A fluid cell whose neighbours all stream plainly. (xm, x, xp) etc. are the source coordinates
// x-1, x, x+1 with periodic wrap already applied.
__device__ __forceinline__ void lbm_update_bulk_cell(const float* __restrict__ f_src,
                                                     float* __restrict__ f_dst, const LbmStep& p, const long long n,
                                                     const int xm, const int x, const int xp,
                                                     const int ym, const int y, const int yp,
                                                     const int zm, const int z, const int zp,
                                                     const bool has_force) {
    const long long nx = p.nx, nxy = (long long)p.nx * p.ny, S = p.plane_stride;
    float f[19];
#define LBM_PULL_BULK(q, cx, cy, cz, w)                                                 \
    f[q] = f_src[q * S + ((cx) > 0 ? xm : ((cx) < 0 ? xp : x)) +                        \
                 nx * ((cy) > 0 ? ym : ((cy) < 0 ? yp : y)) +                           \
                 nxy * ((cz) > 0 ? zm : ((cz) < 0 ? zp : z))];
    D3Q19_LINKS(LBM_PULL_BULK)
#undef LBM_PULL_BULK
    lbm_collide(f, p.tau_x[x], p.cs2_smag, has_force, p.gx, p.gy, p.gz);
#define LBM_STORE(q, cx, cy, cz, w) f_dst[q * S + n] = f[q];
    D3Q19_LINKS(LBM_STORE)
#undef LBM_STORE
}

__device__ __forceinline__ int lbm_wrap(const int i, const int n) {
    return i < 0 ? i + n : (i >= n ? i - n : i);
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
                                                    const unsigned char* __restrict__ flags,
                                                    const float* __restrict__ q_links,
                                                    const LbmStep& p, const long long n,
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
        if (cx && (flags[lbm_wrap(x - cx, p.nx) + (long long)p.nx * (y + (long long)p.ny * z)] &
                   FLAG_TYPE_MASK) == FLAG_FREESLIP) {
            mx = -cx; sx = x; flipped = true;
        }
        if (cy && (flags[x + (long long)p.nx * (lbm_wrap(y - cy, p.ny) + (long long)p.ny * z)] &
                   FLAG_TYPE_MASK) == FLAG_FREESLIP) {
            my = -cy; sy = y; flipped = true;
        }
        if (cz && (flags[x + (long long)p.nx * (y + (long long)p.ny * lbm_wrap(z - cz, p.nz))] &
                   FLAG_TYPE_MASK) == FLAG_FREESLIP) {
            mz = -cz; sz = z; flipped = true;
        }
        if (flipped) {
            const long long s = lbm_wrap(sx, p.nx) +
                                (long long)p.nx * (lbm_wrap(sy, p.ny) + (long long)p.ny * lbm_wrap(sz, p.nz));
            if (lbm_streams_plainly(flags[s])) {
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
            const long long far = lbm_wrap(x + cx, p.nx) +
                                  (long long)p.nx * (lbm_wrap(y + cy, p.ny) + (long long)p.ny * lbm_wrap(z + cz, p.nz));
            // Halfway bounce-back where the set-up found no wall on the link (qw = 0: e.g. a link
            // wrapped across a periodic face) or, next to a thin gap, the far cell is not fluid.
            if (qw > 0.0f && (qw >= 0.5f || (flags[far] & FLAG_TYPE_MASK) == FLAG_FLUID)) {
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

// A fluid cell next to a wall or with special neighbours: every link checks its source cell.
__device__ __forceinline__ void lbm_update_boundary_cell(const float* __restrict__ f_src,
                                                         float* __restrict__ f_dst,
                                                         const unsigned char* __restrict__ flags,
                                                         const float* __restrict__ q_links,
                                                         const LbmStep& p, const long long n,
                                                         const int x, const int y, const int z,
                                                         float* force) {
    const long long nx = p.nx, nxy = (long long)p.nx * p.ny, S = p.plane_stride;
    float f[19];
#define LBM_PULL_GENERAL(q, cx, cy, cz, w)                                                   \
    {                                                                                        \
        const long long s = lbm_wrap(x - (cx), p.nx) + nx * lbm_wrap(y - (cy), p.ny) +       \
                            nxy * lbm_wrap(z - (cz), p.nz);                                  \
        const unsigned char sf = flags[s];                                                   \
        f[q] = lbm_streams_plainly(sf)                                                       \
                   ? f_src[q * S + s]                                                        \
                   : lbm_pull_from_wall(f_src, flags, q_links, p, n, q, cx, cy, cz, w, x, y, z, sf, \
                                        force);                                              \
    }
    D3Q19_LINKS(LBM_PULL_GENERAL)
#undef LBM_PULL_GENERAL
    lbm_collide(f, p.tau_x[x], p.cs2_smag, p.has_force, p.gx, p.gy, p.gz);
#define LBM_STORE(q, cx, cy, cz, w) f_dst[q * S + n] = f[q];
    D3Q19_LINKS(LBM_STORE)
#undef LBM_STORE
}

// Velocity inlet (x-min face) or outflow (x-max face) by non-equilibrium extrapolation from the
// inner neighbour (Guo, Zheng & Shi 2002, Chinese Phys. 11, 366): f = feq(rho_b, u_b) + f_nb -
// feq(rho_nb, u_nb). Inlet: u_b prescribed, rho_b = rho_nb. Outflow: rho_b = 1, u_b = u_nb.
__device__ __forceinline__ void lbm_update_open_cell(const float* __restrict__ f_src,
                                                     float* __restrict__ f_dst, const LbmStep& p, const long long n,
                                                     const bool is_inlet, const float u_inlet) {
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

// One cell of one time step, any type. (x, y, z) are the cell's coordinates, n its index.
// u_inlet[y + ny z]: inlet x-velocity per inlet cell. boundary_index[n]: the cell's slot k among
// the fluid cells next to the body, or -1; such a cell writes the force its links hand to the
// body in this step to cell_force[3k .. 3k+2] (the shells reduce these in a fixed order), and
// with interpolated != 0 reads its wall fractions from link_q[18k .. 18k+17].
__device__ __forceinline__ void lbm_update_cell(const float* __restrict__ f_src,
                                                float* __restrict__ f_dst,
                                                const unsigned char* __restrict__ flags,
                                                const float* __restrict__ u_inlet,
                                                const int* __restrict__ boundary_index,
                                                float* __restrict__ cell_force,
                                                const float* __restrict__ link_q,
                                                const int interpolated, const LbmStep& p,
                                                const long long n, const int x, const int y,
                                                const int z) {
    const unsigned char flag = flags[n];
    const int type = flag & FLAG_TYPE_MASK;
    if (type == FLAG_FLUID) {
        if (flag & FLAG_BULK) {
            lbm_update_bulk_cell(f_src, f_dst, p, n, lbm_wrap(x - 1, p.nx), x,
                                 lbm_wrap(x + 1, p.nx), lbm_wrap(y - 1, p.ny), y,
                                 lbm_wrap(y + 1, p.ny), lbm_wrap(z - 1, p.nz), z,
                                 lbm_wrap(z + 1, p.nz), p.has_force);
        } else {
            float force[3] = {0.0f, 0.0f, 0.0f};
            const int k = boundary_index[n];
            const float* q_links = (interpolated && k >= 0) ? link_q + 18 * (long long)k : nullptr;
            lbm_update_boundary_cell(f_src, f_dst, flags, q_links, p, n, x, y, z, force);
            if (k >= 0) {
                cell_force[3 * (long long)k] = force[0];
                cell_force[3 * (long long)k + 1] = force[1];
                cell_force[3 * (long long)k + 2] = force[2];
            }
        }
    } else if (type == FLAG_INLET) {
        lbm_update_open_cell(f_src, f_dst, p, n, true, u_inlet[y + (long long)p.ny * z]);
    } else if (type == FLAG_OUTFLOW) {
        lbm_update_open_cell(f_src, f_dst, p, n, false, 0.0f);
    }
}

// Equilibrium initialisation of one cell from moments: 4 planes of n_cells (rho, ux, uy, uz).
__device__ __forceinline__ void lbm_init_cell(float* __restrict__ f, const float* __restrict__ moments,
                                              const long long n_cells, const long long plane_stride,
                                              const long long n) {
    float feq[19];
    lbm_equilibrium(feq, moments[n], moments[n_cells + n], moments[2 * n_cells + n],
                    moments[3 * n_cells + n]);
#define LBM_STORE_INIT(q, cx, cy, cz, w) f[q * plane_stride + n] = feq[q];
    D3Q19_LINKS(LBM_STORE_INIT)
#undef LBM_STORE_INIT
}

// Density and velocity j / rho_0 of the stored (post-collision) populations of one cell, into
// moments: 4 planes of n_cells (rho, ux, uy, uz). With a body force the post-collision momentum
// is j + F, so the physical (Guo) velocity is this velocity minus g / 2.
__device__ __forceinline__ void lbm_moments_cell(const float* __restrict__ f, float* __restrict__ moments,
                                                 const long long n_cells,
                                                 const long long plane_stride, const long long n) {
    float fl[19];
#define LBM_LOAD(q, cx, cy, cz, w) fl[q] = f[q * plane_stride + n];
    D3Q19_LINKS(LBM_LOAD)
#undef LBM_LOAD
    float rho, ux, uy, uz;
    lbm_moments(fl, &rho, &ux, &uy, &uz);
    moments[n] = rho;
    moments[n_cells + n] = ux;
    moments[2 * n_cells + n] = uy;
    moments[3 * n_cells + n] = uz;
}
