// Wall model for LES (docs/solver.md, "Wall model"): at the resolutions a car gets, the first
// fluid cell sits hundreds of wall units from the wall, where no-slip bounce-back would impose the
// shear of a one-cell laminar layer (Cf = 2 Cs^2 / H^2 with the Smagorinsky viscosity). Instead
// the wall shear stress comes from a law of the wall and is imposed through the wall's links:
//
// 1. The tangential speed relative to the wall, |u_t|, of the fluid cell walls.sample_cells - 1
//    cells out along the normal (its populations of the last step; the wall cell's own where
//    that cell is not fluid), at distance y from the wall (1/2 plus the offset for a halfway wall;
//    the mean of the wall links' fractions along the normal for the interpolated body), gives the
//    friction velocity u_tau by Spalding's law (1961, J. Appl. Mech. 28, 455), valid from the
//    viscous sublayer through the log layer:
//      y+ = u+ + exp(-kappa B) [exp(kappa u+) - 1 - kappa u+ - (kappa u+)^2 / 2 - (kappa u+)^3 / 6],
//    u+ = |u_t| / u_tau, y+ = y u_tau / nu, kappa = 0.41, B = 5.2. Reading it a few cells out
//    avoids the log-layer mismatch: LES is inaccurate in the first cells off the wall (Kawai &
//    Larsson 2012, Phys. Fluids 24, 015105; docs/solver.md has the channel measurements).
// 2. Each link that comes from the wall receives a blend of two rules: the no-slip rule (halfway
//    or interpolated bounce-back; the pair rule on the rolling road) and specular reflection
//    (the population that left the cell towards the wall with the wall-normal component
//    reversed, which hands no tangential momentum to the wall):
//      f_in = r f_no_slip + (1 - r) f_specular,
//    one r in [0, 1] per wall face of the cell, chosen so the tangential momentum that face's
//    links exchange in this step is tau_w A along -t (A the wall area the face stands for, t the
//    direction of u_t). Mass is
//    conserved link by link for plane walls, both rules are permutations of the outgoing
//    populations (isometries), so the blend adds no energy; where the no-slip rule alone would
//    exchange less than tau_w A (a laminar sublayer resolved by the grid), r = 1.
// The blend of bounce-back and specular reflection is the kinetic slip boundary of Succi (2002,
// Phys. Rev. Lett. 89, 064502); here its share is set anew each step to impose the modelled
// stress, as in the kinetic wall treatment of Chen, Teixeira & Molvig (1998, Int. J. Mod. Phys. C
// 9, 1281). On the body the tangential momentum the links exchange is
// the cell's friction force, reported beside its pressure force (lbm_cell.cuh).
#pragma once

#include "lbm_boundaries.cuh"

#define LBM_WALL_NONE 0
#define LBM_WALL_LOGLAW 1

// How the wall model treats the body (walls.body_rule): per voxel face (the groups below), or about
// the true surface (lbm_wall_body): the no-slip exchange scaled to the law's (surface), or a wall
// slipping with the cell and the law's stress set through the slip (slip).
#define LBM_WALL_BODY_FACES 0
#define LBM_WALL_BODY_SURFACE 1
#define LBM_WALL_BODY_SLIP 2

// u+ = |u_t| / u_tau from Spalding's law at Re_y = |u_t| y / nu, the root of
// u+ (u+ + g(u+)) = Re_y with g the bracketed term above times exp(-kappa B), kappa = 0.41,
// B = 5.2, read from a table (p.spalding) that solver/law_of_the_wall.py solves in float64 when
// a run starts. Re_y from 2^LBM_SPALDING_LOG2_MIN (1e-3) to 2^(LBM_SPALDING_LOG2_MIN +
// LBM_SPALDING_OCTAVES) (1.1e12) is cut into 2^LBM_SPALDING_SPLIT_BITS segments per octave, which
// the float's exponent and leading mantissa bits index; segment j holds (u+, du+/ds) at its two
// ends, s in [0, 1] along it, and a cubic Hermite in s gives u+ within 7.4e-8 of the root, about
// float32's round-off (tests/test_wall_model.py). Below the table u+ = sqrt(Re_y), the viscous
// sublayer (g is 2e-9 of u+ there); above it, the last segment's end. It replaced two Halley steps
// from a log-law start (two logarithms, two exponentials and three divisions in one dependent
// chain), which took most of the 108 ns the wall model added per wall cell of the channel on one
// thread (57 ns after; docs/performance.md).
#define LBM_SPALDING_LOG2_MIN (-10)
#define LBM_SPALDING_OCTAVES 50
#define LBM_SPALDING_SPLIT_BITS 4
__device__ __forceinline__ float lbm_spalding_u_plus(const LbmParams& p, const float re_y) {
    if (!(re_y >= (1.0f / (1 << -LBM_SPALDING_LOG2_MIN)))) return sqrtf(fmaxf(re_y, 0.0f));
    const int shift = 23 - LBM_SPALDING_SPLIT_BITS;  // mantissa bits within a segment
    const int bits = __float_as_int(re_y);
    const int first = (127 + LBM_SPALDING_LOG2_MIN) << LBM_SPALDING_SPLIT_BITS;
    const int last = (LBM_SPALDING_OCTAVES << LBM_SPALDING_SPLIT_BITS) - 1;
    const int j = (bits >> shift) - first;
    const bool inside = j <= last;
    const float s = inside ? (float)(bits & ((1 << shift) - 1)) * (1.0f / (1 << shift)) : 1.0f;
    const float* c = p.spalding + 4 * (inside ? j : last);
    const float s2 = s * s, s3 = s2 * s;
    return (2.0f * s3 - 3.0f * s2 + 1.0f) * c[0] + (s3 - 2.0f * s2 + s) * c[1] +
           (3.0f * s2 - 2.0f * s3) * c[2] + (s3 - s2) * c[3];
}

__device__ __forceinline__ bool lbm_is_wall(const unsigned char flag) {
    const int t = flag & FLAG_TYPE_MASK;
    return t == FLAG_SOLID || t == FLAG_MOVING;
}

// Density and velocity (with half the body force, Guo) of cell s, at (sx, sy, sz), from its
// populations of the last step in the buffer's layout (lbm_post_index).
template <int kCollision, int kLayout = LBM_LAYOUT_PULL>
__device__ __forceinline__ void lbm_sample_velocity(const lbm_pop* __restrict__ f_src, const LbmParams& p,
                                                    const long long s, const int sx, const int sy, const int sz,
                                                    float* rho, float* u) {
    float fs[19];
    if (kLayout == LBM_LAYOUT_PUSHED) {  // the neighbours' indices from coordinates wrapped once
        const long long S = p.plane_stride, nx = p.nx, nxy = (long long)p.nx * p.ny;
        const int x = lbm_wrap(sx, p.nx), y = lbm_wrap(sy, p.ny), z = lbm_wrap(sz, p.nz);
        const int xm = lbm_wrap(x - 1, p.nx), xp = lbm_wrap(x + 1, p.nx), ym = lbm_wrap(y - 1, p.ny),
                  yp = lbm_wrap(y + 1, p.ny), zm = lbm_wrap(z - 1, p.nz), zp = lbm_wrap(z + 1, p.nz);
#define LBM_LOAD_PUSHED(q, cx, cy, cz, w)                                                                  \
    fs[q] = lbm_pop_load(f_src[q * S + ((cx) > 0 ? xp : ((cx) < 0 ? xm : x)) +                            \
                               nx * ((cy) > 0 ? yp : ((cy) < 0 ? ym : y)) + nxy * ((cz) > 0 ? zp : ((cz) < 0 ? zm : z))]);
        D3Q19_LINKS(LBM_LOAD_PUSHED)
#undef LBM_LOAD_PUSHED
    } else {
#define LBM_LOAD_SAMPLE(q, cx, cy, cz, w) \
    fs[q] = lbm_pop_load(f_src[lbm_post_index<kLayout>(p, q, cx, cy, cz, s, sx, sy, sz)]);
        D3Q19_LINKS(LBM_LOAD_SAMPLE)
#undef LBM_LOAD_SAMPLE
    }
    lbm_moments<kCollision>(fs, rho, &u[0], &u[1], &u[2]);
    u[0] += 0.5f * p.gx;
    u[1] += 0.5f * p.gy;
    u[2] += 0.5f * p.gz;
}

// The wall model's input velocity for the cell (x, y, z): that of the fluid cell off cells away
// (along the wall normal nrm, wall_sample - 1 cells), where the law of the wall holds better
// than in the first cell (the log-layer mismatch of wall-modelled LES: Kawai & Larsson 2012,
// Phys. Fluids 24, 015105); y_offset is its extra distance from the wall along nrm. Where that
// cell is not fluid (a thin gap, a concave corner), the cell's own velocity u_own at offset 0.
template <int kCollision, int kLayout = LBM_LAYOUT_PULL>
__device__ __forceinline__ void lbm_wall_sample(const lbm_pop* __restrict__ f_src, const LbmParams& p,
                                                const int x, const int y, const int z, const int* off,
                                                const float* nrm, const float* u_own, float* u,
                                                float* y_offset) {
    const long long s = lbm_index(p, x + off[0], y + off[1], z + off[2]);
    if ((off[0] | off[1] | off[2]) && (p.flags[s] & FLAG_TYPE_MASK) == FLAG_FLUID) {
        float rho_s;
        lbm_sample_velocity<kCollision, kLayout>(f_src, p, s, x + off[0], y + off[1], z + off[2], &rho_s, u);
        *y_offset = off[0] * nrm[0] + off[1] * nrm[1] + off[2] * nrm[2];
    } else {
        u[0] = u_own[0];
        u[1] = u_own[1];
        u[2] = u_own[2];
        *y_offset = 0.0f;
    }
}

// Which of a cell's wall links a group takes.
#define LBM_GROUP_BODY 0   // links across one face of the cell from the body (FLAG_BODY)
#define LBM_GROUP_FACE 1   // links across one face of the cell from a wall that is not the body

// One group of a cell's wall links, those coming across one face of the cell (face[k] = +-1 on
// its axis: the wall lies on the -face[k] side), takes the blend of the top of the file; its
// links' specular partners reverse that component. nrm: the face's normal into the fluid; u:
// the input velocity relative to the wall, y_offset its distance beyond the wall cell's. The
// wall area the group stands for is area_weight times the area of a plane with normal nrm that
// its links cut, sum_links w_q (c_q . nrm) / sum_{q: c_q . nrm > 0} w_q (c_q . nrm) (1 for a full
// face). taken collects the links blended. Corrects force (the momentum exchange) for the group's body links;
// a LBM_GROUP_BODY group adds to shear the tangential force it hands to the body along u_t (the
// modelled tau_w A where r is free; the no-slip exchange where r = 1). kLayout: the buffer's
// (lbm_post_index).
template <int kLayout = LBM_LAYOUT_PULL>
__device__ __forceinline__ void lbm_wall_group(const lbm_pop* __restrict__ f_src,
                                               const float* __restrict__ q_links,
                                               const LbmParams& p, const long long n, const int x,
                                               const int y, const int z, const int* face,
                                               const int group, const float* nrm, const float* u,
                                               const float y_offset, const float area_weight,
                                               const float rho, const unsigned char* nb, float* f,
                                               unsigned int* taken, float* force, float* shear,
                                               bool* acted) {
    const float un = u[0] * nrm[0] + u[1] * nrm[1] + u[2] * nrm[2];
    float t[3] = {u[0] - un * nrm[0], u[1] - un * nrm[1], u[2] - un * nrm[2]};
    const float u_t = sqrtf(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
    if (!(u_t > 1e-12f)) return;
    LBM_UNROLL
    for (int k = 0; k < 3; ++k) t[k] /= u_t;

    // Per wall link: the no-slip value (already in f) and the specular one; the distance to the
    // wall along the normal and the cut area, from the links' weights.
    float f_spec[19];
    float d_bb = 0.0f, d_sp = 0.0f, y_sum = 0.0f, w_sum = 0.0f, cut = 0.0f, cut_plane = 0.0f;
    unsigned int links = 0u;
#define LBM_WALL_LINK(q, cx, cy, cz, w)                                                           \
    {                                                                                             \
        const float cn = LBM_CV(cx, nrm[0]) + LBM_CV(cy, nrm[1]) + LBM_CV(cz, nrm[2]);            \
        if (cn > 0.0f) cut_plane += (w) * cn;                                                     \
        const unsigned char sf = nb[q];                                                           \
        const bool member = ((group == LBM_GROUP_BODY) == ((sf & FLAG_BODY) != 0)) &&             \
                            (((cx) != 0 && (cx) == face[0]) || ((cy) != 0 && (cy) == face[1]) ||  \
                             ((cz) != 0 && (cz) == face[2]));                                     \
        if (q > 0 && !(*taken & (1u << q)) && member && lbm_is_wall(sf)) {                        \
            links |= 1u << q;                                                                     \
            const int mx = ((cx) != 0 && (cx) == face[0]) ? -(cx) : (cx);                         \
            const int my = ((cy) != 0 && (cy) == face[1]) ? -(cy) : (cy);                         \
            const int mz = ((cz) != 0 && (cz) == face[2]) ? -(cz) : (cz);                         \
            const bool mirrored = (mx != (cx) || my != (cy) || mz != (cz)) &&                     \
                                  lbm_is_wall(nb[LBM_LINK_OF[(1 - mx) + 3 * (1 - my) + 9 * (1 - mz)]]); \
            f_spec[q] = mirrored ? lbm_pop_load(f_src[lbm_post_index<kLayout>(                    \
                                       p, LBM_LINK_OF[(mx + 1) + 3 * (my + 1) + 9 * (mz + 1)], mx, my, mz, n, x, y, z)]) \
                                 : f[q];                                                          \
            const float f_out =                                                                   \
                lbm_pop_load(f_src[lbm_post_index<kLayout>(p, LBM_OPP(q), -(cx), -(cy), -(cz), n, x, y, z)]); \
            const float ct = LBM_CV(cx, t[0]) + LBM_CV(cy, t[1]) + LBM_CV(cz, t[2]);              \
            d_bb += ct * (f[q] + f_out);                                                          \
            d_sp += ct * (f_spec[q] + f_out);                                                     \
            if (cn > 0.0f) {                                                                      \
                const float qw = q_links && q_links[q - 1] > 0.0f ? q_links[q - 1] : 0.5f;        \
                y_sum += (w) * qw * cn;                                                           \
                w_sum += (w);                                                                     \
                cut += (w) * cn;                                                                  \
            }                                                                                     \
        }                                                                                         \
    }
    D3Q19_LINKS(LBM_WALL_LINK)
#undef LBM_WALL_LINK
    if (w_sum <= 0.0f) return;
    *taken |= links;
    const float y_wall = fmaxf(y_sum / w_sum, 0.05f) + y_offset;
    const float u_tau = u_t / lbm_spalding_u_plus(p, u_t * y_wall / p.nu_lattice);
    const float target = -rho * u_tau * u_tau * area_weight * (cut / cut_plane);  // momentum per step, along t
    // r blends the two rules' exchanges onto the target; r = 1 where no-slip exchanges less.
    const float span = d_bb - d_sp;
    const float r = span < -1e-20f ? fminf(fmaxf((target - d_sp) / span, 0.0f), 1.0f) : 1.0f;
#define LBM_WALL_BLEND(q, cx, cy, cz, w)                                                          \
    if (links & (1u << q)) {                                                                      \
        const float f_new = r * f[q] + (1.0f - r) * f_spec[q];                                    \
        if (nb[q] & FLAG_BODY) {                                                                  \
            const float dm = f_new - f[q];                                                        \
            force[0] -= LBM_CV(cx, dm);                                                           \
            force[1] -= LBM_CV(cy, dm);                                                           \
            force[2] -= LBM_CV(cz, dm);                                                           \
        }                                                                                         \
        f[q] = f_new;                                                                             \
    }
    D3Q19_LINKS(LBM_WALL_BLEND)
#undef LBM_WALL_BLEND
    if (group == LBM_GROUP_BODY) {
        *acted |= r < 1.0f;
        const float exchanged = r * d_bb + (1.0f - r) * d_sp;  // the fluid's gain along t
        LBM_UNROLL
        for (int k = 0; k < 3; ++k) shear[k] -= exchanged * t[k];
    }
}

// The body's links see a wall moving with the cell's own tangential velocity u_t: each takes the
// moving-wall term of interpolated bounce-back at u_t, 6 w_q beta_q rho c_q . u_t (Bouzidi et al.
// 2001). For a flow along the wall the links then bring what a fluid neighbour in the cell's state
// would, at any angle to the grid. Adds the momentum the term hands the fluid to g (the links'
// exchange) and its opposite to force (the body's).
__device__ __forceinline__ void lbm_body_wall_along(const unsigned int links, const float* beta, const float rho,
                                                    const float* u_own, const float* nrm, float* f, float* g,
                                                    float* force) {
    const float on = u_own[0] * nrm[0] + u_own[1] * nrm[1] + u_own[2] * nrm[2];
    const float ut[3] = {u_own[0] - on * nrm[0], u_own[1] - on * nrm[1], u_own[2] - on * nrm[2]};
#define LBM_BODY_ALONG(q, cx, cy, cz, w)                                                         \
    if (links & (1u << q)) {                                                                     \
        const float df = 6.0f * (w) * beta[q] * rho *                                            \
                         (LBM_CV(cx, ut[0]) + LBM_CV(cy, ut[1]) + LBM_CV(cz, ut[2]));            \
        f[q] += df;                                                                              \
        g[0] += LBM_CV(cx, df);                                                                  \
        g[1] += LBM_CV(cy, df);                                                                  \
        g[2] += LBM_CV(cz, df);                                                                  \
        force[0] -= LBM_CV(cx, df);                                                              \
        force[1] -= LBM_CV(cy, df);                                                              \
        force[2] -= LBM_CV(cz, df);                                                              \
    }
    D3Q19_LINKS(LBM_BODY_ALONG)
#undef LBM_BODY_ALONG
}

// The density the flow has past the wall along the surface, on the body's links (the slip rule).
// A cell of the staircase whose neighbours on one side are body gets its own density back through
// those links, where a fluid neighbour would bring the density of the flow further along the
// surface: it misses the pressure force along the surface on that side, and where the flow
// accelerates along the wall (a body's front) its first layer falls behind the flow and loses
// total pressure. Each body link's population takes -w_q c_q . grad_t rho, grad_t rho the density
// gradient along the surface (n's part removed). grad rho is the weighted least-squares fit
// M grad = sum_i w_i (rho_i - rho) c_i, M = sum_i w_i c_i c_i, over the cell's fluid neighbours i
// on the 18 links (the lattice's isotropic gradient 3 sum_i w_i rho_i c_i where all are fluid):
// on a wall each neighbour more than 0.27 cells along a direction t of the surface weighs in the
// gradient along t with the sign of its offset (docs/solver.md, "The slip rule"), and the cell's
// own density weighs 0.18 in the gradient along a 25 degree slant (a median 0.15 over planes at random
// angles), where one-sided differences from it along an axis weigh it 1 (their feedback ran the car's
// cells on its surface away).
// Differences from the two cells beyond a body neighbour, rho(x + 2e) - rho(x + e), weigh the
// nearest neighbour against its sign and ran a row of cells on the Ahmed body's slant away.
// Zero where the fluid neighbours do not span three directions. The mass comes from the rest
// population (the cell's mass and the surface's normal force unchanged); the momentum goes to
// force (the body's opposite).
template <int kCollision, int kLayout>
__device__ __forceinline__ void lbm_body_density_along(const lbm_pop* __restrict__ f_src, const LbmParams& p,
                                                       const int x, const int y, const int z, const float rho,
                                                       const float* nrm, const unsigned int links, float* f,
                                                       float* force) {
    float mm[6] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f}, b[3] = {0.0f, 0.0f, 0.0f};  // M as (xx, yy, zz, xy, xz, yz)
#define LBM_DENSITY_FIT(q, cx, cy, cz, w)                                                             \
    if (q > 0) {                                                                                     \
        const long long s_idx = lbm_index(p, x + (cx), y + (cy), z + (cz));                          \
        if ((p.flags[s_idx] & FLAG_TYPE_MASK) == FLAG_FLUID) {                                       \
            float rho_i, u_i[3];                                                                     \
            lbm_sample_velocity<kCollision, kLayout>(f_src, p, s_idx, x + (cx), y + (cy), z + (cz), &rho_i, u_i); \
            const float dr = (w) * (rho_i - rho);                                                    \
            mm[0] += (cx) ? (w) : 0.0f;                                                              \
            mm[1] += (cy) ? (w) : 0.0f;                                                              \
            mm[2] += (cz) ? (w) : 0.0f;                                                              \
            mm[3] += LBM_CV((cx) * (cy), (w));                                                       \
            mm[4] += LBM_CV((cx) * (cz), (w));                                                       \
            mm[5] += LBM_CV((cy) * (cz), (w));                                                       \
            b[0] += LBM_CV(cx, dr);                                                                  \
            b[1] += LBM_CV(cy, dr);                                                                  \
            b[2] += LBM_CV(cz, dr);                                                                  \
        }                                                                                            \
    }
    D3Q19_LINKS(LBM_DENSITY_FIT)
#undef LBM_DENSITY_FIT
    const float adj[6] = {mm[1] * mm[2] - mm[5] * mm[5], mm[0] * mm[2] - mm[4] * mm[4],
                          mm[0] * mm[1] - mm[3] * mm[3], mm[4] * mm[5] - mm[3] * mm[2],
                          mm[3] * mm[5] - mm[4] * mm[1], mm[3] * mm[4] - mm[0] * mm[5]};
    const float det = mm[0] * adj[0] + mm[3] * adj[3] + mm[4] * adj[4];
    const float scale = (mm[0] + mm[1] + mm[2]) * (1.0f / 3.0f);
    float grad[3] = {0.0f, 0.0f, 0.0f};
    if (det > 0.01f * scale * scale * scale) {
        const float inv_det = 1.0f / det;
        grad[0] = (adj[0] * b[0] + adj[3] * b[1] + adj[4] * b[2]) * inv_det;
        grad[1] = (adj[3] * b[0] + adj[1] * b[1] + adj[5] * b[2]) * inv_det;
        grad[2] = (adj[4] * b[0] + adj[5] * b[1] + adj[2] * b[2]) * inv_det;
    }
    const float g_n = grad[0] * nrm[0] + grad[1] * nrm[1] + grad[2] * nrm[2];
    const float gt[3] = {grad[0] - g_n * nrm[0], grad[1] - g_n * nrm[1], grad[2] - g_n * nrm[2]};
    float moved = 0.0f;
#define LBM_BODY_DENSITY(q, cx, cy, cz, w)                                                       \
    if (links & (1u << q)) {                                                                     \
        const float df = -(w) * (LBM_CV(cx, gt[0]) + LBM_CV(cy, gt[1]) + LBM_CV(cz, gt[2]));     \
        f[q] += df;                                                                              \
        moved += df;                                                                             \
        force[0] -= LBM_CV(cx, df);                                                              \
        force[1] -= LBM_CV(cy, df);                                                              \
        force[2] -= LBM_CV(cz, df);                                                              \
    }
    D3Q19_LINKS(LBM_BODY_DENSITY)
#undef LBM_BODY_DENSITY
    f[0] -= moved;
}

// The body's wall: one rule for all the cell's body links, whatever their directions, about the
// true surface (docs/solver.md, "Wall model on bodies"). wall: the slot's unit normal n into the
// fluid and the distance d of the cell centre from the surface (cells; solver/wall_geometry.py
// fits them to the links' wall points); wall[4] > 0 marks a cell with links into the body.
// 1. The input: the speed |u_t| tangential to n of the cell round((walls.sample_cells - 1) n)
//    away, at its distance d + offset . n from the wall, gives u_tau by Spalding's law; the
//    stress acts along t, the direction of the cell's own tangential velocity.
// 2. The links' viscous exchange g: their no-slip exchange (halfway or interpolated bounce-back)
//    less that of the cell's own equilibrium state, 2 w_q (drho + 9/2 (c_q . u)^2 - 3/2 u^2) per
//    link: its pressure and the momentum flux rho u u of the flow past the links, which the
//    cells of a staircase share out in pieces that cancel along the wall (a cell with one link
//    along n - c hands a tenth of rho u^2 across the flow, a hundred times the wall stress on
//    a car). The modelled exchange keeps g's part along n and scales its tangential part by
//    (1 - lambda), lambda set so its part along t is -tau_w A_t; lambda = 0 where the no-slip
//    rule alone hands the fluid less (a viscous sublayer the grid resolves). This is the blend
//    of the flat walls (above) for a surface at any angle: there the blend scales the tangential
//    exchange between no slip and specular reflection, which only a wall along a grid plane has.
// 3. The change d = -lambda g_tangential goes in through the moving-wall term of a slip velocity
//    u_s in the links' no-slip rule (Bouzidi et al. 2001's wall-velocity term, 6 w_q rho beta_q
//    c_q . u_s, beta_q = 1/(2 q_w) for q_w >= 1/2, else 1; the wall-function bounce-back of Han,
//    Wang & Asmuth 2021 and Asmuth et al. 2021, Phys. Fluids 33, 105111, on walls along the
//    grid), whose exchange is K u_s, K = 6 rho sum w_q beta_q c_q c_q: u_s = K^-1 d where the
//    links span three directions (det K / (tr K / 3)^3 >= 0.13 over the cells' link sets, 0 for
//    those that do not: told apart at 0.01). The mass the term adds, 6 rho sum_q w_q beta_q c_q .
//    u_s, comes from the cell's rest population, which exchanges no momentum. A cell whose links
//    span a plane or a line cannot change its tangential exchange alone through them: it takes
//    d as momentum on all its populations, 3 w_q c_q . d (no mass).
// A_t is the cell's share of the wall for stress along t: its links weighted by (c . t)^2 over
// what a plane with normal n has of them per unit area (a direction c crosses a plane at |c . n|
// links per unit area), so the shares add up along a plane to its area whatever its orientation.
// Returns the links it took; adds their momentum to force and the modelled shear force on the
// body (the tangential part of the modelled exchange) to friction.
template <int kCollision, int kLayout = LBM_LAYOUT_PULL>
__device__ __forceinline__ unsigned int lbm_wall_body(const lbm_pop* __restrict__ f_src,
                                                      const float* __restrict__ q_links,
                                                      const LbmParams& p, const long long n,
                                                      const int x, const int y, const int z,
                                                      const float* wall, const float rho,
                                                      const float* u_own, const unsigned char* nb,
                                                      float* f, float* force, float* friction) {
    if (!(wall[4] > 0.0f)) return 0u;
    const float nrm[3] = {wall[0], wall[1], wall[2]};
    const float h = (float)(p.wall_sample - 1);
    const int off[3] = {(int)floorf(h * nrm[0] + 0.5f), (int)floorf(h * nrm[1] + 0.5f),
                        (int)floorf(h * nrm[2] + 0.5f)};
    float u[3], y_offset;
    lbm_wall_sample<kCollision, kLayout>(f_src, p, x, y, z, off, nrm, u_own, u, &y_offset);
    const float un = u[0] * nrm[0] + u[1] * nrm[1] + u[2] * nrm[2];
    const float u_t = sqrtf(fmaxf(u[0] * u[0] + u[1] * u[1] + u[2] * u[2] - un * un, 0.0f));
    const float on = u_own[0] * nrm[0] + u_own[1] * nrm[1] + u_own[2] * nrm[2];
    float t[3] = {u_own[0] - on * nrm[0], u_own[1] - on * nrm[1], u_own[2] - on * nrm[2]};
    const float t_norm = sqrtf(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
    if (!(u_t > 1e-12f) || !(t_norm > 1e-12f)) return 0u;
    LBM_UNROLL
    for (int k = 0; k < 3; ++k) t[k] /= t_norm;
    const float y_in = fmaxf(wall[3], 0.05f) + y_offset;
    const float u_tau = u_t / lbm_spalding_u_plus(p, u_t * y_in / p.nu_lattice);

    // Per body link: the viscous exchange g, the share of the wall, and K (xx, yy, zz, xy, xz, yz).
    const float drho = rho - 1.0f;
    const float usq15 = 1.5f * (u_own[0] * u_own[0] + u_own[1] * u_own[1] + u_own[2] * u_own[2]);
    float g[3] = {0.0f, 0.0f, 0.0f}, cap = 0.0f, cap_plane = 0.0f;
    float km[6] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    float beta[19];
    unsigned int links = 0u;
#define LBM_BODY_LINK(q, cx, cy, cz, w)                                                              \
    if (q > 0) {                                                                                     \
        const float ct = LBM_CV(cx, t[0]) + LBM_CV(cy, t[1]) + LBM_CV(cz, t[2]);                     \
        const float cn = LBM_CV(cx, nrm[0]) + LBM_CV(cy, nrm[1]) + LBM_CV(cz, nrm[2]);               \
        if (cn > 0.0f) cap_plane += (w) * cn * ct * ct;                                              \
        const unsigned char sf = nb[q];                                                              \
        if ((sf & FLAG_BODY) && lbm_is_wall(sf)) {                                                   \
            links |= 1u << q;                                                                        \
            cap += (w) * ct * ct;                                                                    \
            const float qw = q_links ? q_links[q - 1] : 0.0f;                                        \
            const bool bouzidi = qw >= 0.5f ||                                                       \
                (qw > 0.0f && (nb[LBM_OPP(q)] & FLAG_TYPE_MASK) == FLAG_FLUID);                      \
            beta[q] = bouzidi && qw >= 0.5f ? 0.5f / qw : 1.0f;                                      \
            const float wb = 6.0f * rho * (w) * beta[q];                                             \
            km[0] += (cx) ? wb : 0.0f;                                                               \
            km[1] += (cy) ? wb : 0.0f;                                                               \
            km[2] += (cz) ? wb : 0.0f;                                                               \
            km[3] += LBM_CV((cx) * (cy), wb);                                                        \
            km[4] += LBM_CV((cx) * (cz), wb);                                                        \
            km[5] += LBM_CV((cy) * (cz), wb);                                                        \
            const float cu = LBM_CV(cx, u_own[0]) + LBM_CV(cy, u_own[1]) + LBM_CV(cz, u_own[2]);     \
            const float ex = f[q] + lbm_pop_load(f_src[lbm_post_index<kLayout>(p, LBM_OPP(q), -(cx), -(cy), -(cz), n, x, y, z)]) - \
                             2.0f * (w) * (drho + 4.5f * cu * cu - usq15);                        \
            g[0] += LBM_CV(cx, ex);                                                                  \
            g[1] += LBM_CV(cy, ex);                                                                  \
            g[2] += LBM_CV(cz, ex);                                                                  \
        }                                                                                            \
    }
    D3Q19_LINKS(LBM_BODY_LINK)
#undef LBM_BODY_LINK
    const float target = -rho * u_tau * u_tau * cap / fmaxf(cap_plane, 1e-12f);  // the fluid's gain along t
    const float g_t = g[0] * t[0] + g[1] * t[1] + g[2] * t[2];
    const float lambda = g_t < target ? 1.0f - target / g_t : (cap > 0.0f ? 0.0f : 1.0f);
    const float g_n = g[0] * nrm[0] + g[1] * nrm[1] + g[2] * nrm[2];
    float d[3];
    if (p.wall_body_rule == LBM_WALL_BODY_SLIP) {
        // The slip rule (docs/solver.md, "The slip rule"): the wall moves with the cell, then the
        // slip below sets the links' viscous exchange along t to the law's in each cell and step
        // (raising it as well as lowering it), and lbm_body_density_along gives the links the
        // density along the surface.
        lbm_body_wall_along(links, beta, rho, u_own, nrm, f, g, force);
        const float e_t = g[0] * t[0] + g[1] * t[1] + g[2] * t[2];
        LBM_UNROLL
        for (int k = 0; k < 3; ++k) d[k] = (target - e_t) * t[k];
    } else if (p.n_pool_slots == 0) {
        LBM_UNROLL
        for (int k = 0; k < 3; ++k) d[k] = -lambda * (g[k] - g_n * nrm[k]);
    } else if (lambda > 0.0f) {
        // With the pooling: the links first take a wall moving with the cell's own tangential
        // velocity u_t (the moving-wall term at u_t, its mass kept: for a tangential flow the
        // links then bring what a fluid neighbour in the cell's state would, at any angle to the
        // grid), then the change to the law's stress along t as below. The mass and tangential
        // momentum this moves through each cell's links cancel along the wall only between
        // cells in one state; the pooling hands each cell's back over its patch.
        lbm_body_wall_along(links, beta, rho, u_own, nrm, f, g, force);
        const float gc_n = g[0] * nrm[0] + g[1] * nrm[1] + g[2] * nrm[2];
        LBM_UNROLL
        for (int k = 0; k < 3; ++k) d[k] = target * t[k] - (g[k] - gc_n * nrm[k]);
    } else {
        LBM_UNROLL
        for (int k = 0; k < 3; ++k) d[k] = 0.0f;
    }
    // adj K as (xx, yy, zz, xy, xz, yz); K's rows are (k0 k3 k4), (k3 k1 k5), (k4 k5 k2).
    const float adj[6] = {km[1] * km[2] - km[5] * km[5], km[0] * km[2] - km[4] * km[4],
                          km[0] * km[1] - km[3] * km[3], km[4] * km[5] - km[3] * km[2],
                          km[3] * km[5] - km[4] * km[1], km[3] * km[4] - km[0] * km[5]};
    const float det = km[0] * adj[0] + km[3] * adj[3] + km[4] * adj[4];
    const float scale = (km[0] + km[1] + km[2]) * (1.0f / 3.0f);
    if (det > 0.01f * scale * scale * scale) {
        const float inv_det = 1.0f / det;
        const float u_s[3] = {(adj[0] * d[0] + adj[3] * d[1] + adj[4] * d[2]) * inv_det,
                              (adj[3] * d[0] + adj[1] * d[1] + adj[5] * d[2]) * inv_det,
                              (adj[4] * d[0] + adj[5] * d[1] + adj[2] * d[2]) * inv_det};
        float added = 0.0f;
#define LBM_BODY_SLIP(q, cx, cy, cz, w)                                                          \
    if (links & (1u << q)) {                                                                     \
        const float df = 6.0f * (w) * beta[q] * rho *                                            \
                         (LBM_CV(cx, u_s[0]) + LBM_CV(cy, u_s[1]) + LBM_CV(cz, u_s[2]));         \
        f[q] += df;                                                                              \
        added += df;                                                                             \
    }
        D3Q19_LINKS(LBM_BODY_SLIP)
#undef LBM_BODY_SLIP
        f[0] -= added;
    } else {
#define LBM_BODY_MOMENTUM(q, cx, cy, cz, w) \
    f[q] += 3.0f * (w) * (LBM_CV(cx, d[0]) + LBM_CV(cy, d[1]) + LBM_CV(cz, d[2]));
        D3Q19_LINKS(LBM_BODY_MOMENTUM)
#undef LBM_BODY_MOMENTUM
    }
    if (p.wall_body_rule == LBM_WALL_BODY_SLIP)
        lbm_body_density_along<kCollision, kLayout>(f_src, p, x, y, z, rho, nrm, links, f, force);
    float e[3];  // the modelled exchange, the fluid's gain; the body takes the opposite
    LBM_UNROLL
    for (int k = 0; k < 3; ++k) {
        force[k] -= d[k];
        e[k] = g[k] + d[k];
    }
    const float e_n = e[0] * nrm[0] + e[1] * nrm[1] + e[2] * nrm[2];
    LBM_UNROLL
    for (int k = 0; k < 3; ++k) friction[k] -= e[k] - e_n * nrm[k];
    return links;
}

// Apply the wall model to the fluid cell (x, y, z), whose incoming populations f were pulled with
// the no-slip rules (and whose body links added their momentum to force). Each wall face of the
// cell is a group of its own, with its own normal and wall velocity (a cell between two walls
// sees both): the floor, the tunnel's walls, the road, and the faces of the body's voxels. The
// voxel faces of a surface with unit normal n (the slot's area vector, where the cell has one)
// add up to sum_k |n_k| times its area, so each body face stands for |n_k| / sum_k |n_k| of one:
// the modelled shear force over a slanted surface is that of its true area. Links that reach the
// wall only diagonally (a convex edge) keep the no-slip rule. With walls.body_rule = surface the
// body's links take lbm_wall_body's rule instead (wall: the slot's wall geometry, null where the
// cell reports for no body) and its voxel faces are no groups. Returns true under the surface
// rule, and under the face rule where one of the cell's body face groups blended in specular
// reflection (r < 1: the law's stress acted); friction then holds the wall shear force its body
// faces or links hand to the body. Under the face rule it returns false where the cell touches
// no wall across a face, and where no slip alone exchanges less than the law asks on every body
// face (a viscous sublayer the grid resolves, as on a laminar body), so the cell reports its own
// viscous stress as a cell without the model does (lbm_report_slot).
// nb: the flags of the cells the links come from, nb[q] that of x - c_q (lbm_pull_boundary_cell
// reads them once for the pull; the groups below take their neighbours' kinds from them).
template <int kCollision, int kLayout = LBM_LAYOUT_PULL>
__device__ __forceinline__ bool lbm_wall_function(const lbm_pop* __restrict__ f_src,
                                                  const float* __restrict__ q_links,
                                                  const float* __restrict__ area,
                                                  const float* __restrict__ wall,
                                                  const LbmParams& p, const long long n, const int x,
                                                  const int y, const int z, const unsigned char* nb,
                                                  float* f, float* force, float* friction) {
    // walls.body_rule = surface: the body's links take lbm_wall_body's rule about the true surface,
    // the faces of its voxels no group of their own.
    // walls.body_rule = slip: the same, but a cell on a sharp edge (wall[5]) takes the face rule.
    const bool surface = wall && (p.wall_body_rule == LBM_WALL_BODY_SURFACE ||
                                  (p.wall_body_rule == LBM_WALL_BODY_SLIP && !(wall[5] > 0.5f)));
    // wall_lo[k] / wall_hi[k]: the face of the cell on the -k / +k side is a wall (1), moving (2)
    // or the body (3); 0 for fluid.
    int wall_lo[3], wall_hi[3];
    {
        const unsigned char lo[3] = {nb[1], nb[3], nb[5]};  // the cells at x - e_k: links +e_k's sources
        const unsigned char hi[3] = {nb[2], nb[4], nb[6]};
        LBM_UNROLL
        for (int k = 0; k < 3; ++k) {
            wall_lo[k] = !lbm_is_wall(lo[k]) ? 0 : (lo[k] & FLAG_BODY) ? (surface ? 0 : 3) : 1 + ((lo[k] & FLAG_TYPE_MASK) == FLAG_MOVING);
            wall_hi[k] = !lbm_is_wall(hi[k]) ? 0 : (hi[k] & FLAG_BODY) ? (surface ? 0 : 3) : 1 + ((hi[k] & FLAG_TYPE_MASK) == FLAG_MOVING);
        }
    }
    const bool faces = wall_lo[0] | wall_lo[1] | wall_lo[2] | wall_hi[0] | wall_hi[1] | wall_hi[2];
    const bool body = surface && wall[4] > 0.0f;
    if (!faces && !surface) return false;
    friction[0] = friction[1] = friction[2] = 0.0f;
    if (!faces && !body) return true;  // a reporting cell off the body's links: no shear of its own
    float rho, u_own[3];
    lbm_sample_velocity<kCollision, kLayout>(f_src, p, n, x, y, z, &rho, u_own);
    // The body's surface normal, for the share of each voxel face.
    const float a_l1 = area ? fabsf(area[0]) + fabsf(area[1]) + fabsf(area[2]) : 0.0f;
    unsigned int taken = body ? lbm_wall_body<kCollision, kLayout>(f_src, q_links, p, n, x, y, z, wall, rho, u_own,
                                                          nb, f, force, friction)
                              : 0u;
    bool acted = false;  // the law's stress replaced no slip on one of the body's face groups
    LBM_UNROLL
    for (int k = 0; k < 3; ++k) {
        LBM_UNROLL
        for (int side = -1; side <= 1; side += 2) {
            const int kind = side > 0 ? wall_lo[k] : wall_hi[k];
            if (kind == 0) continue;
            int face[3] = {0, 0, 0};
            face[k] = side;
            float nrm[3] = {0.0f, 0.0f, 0.0f};
            nrm[k] = (float)side;
            int off[3] = {0, 0, 0};
            off[k] = side * (p.wall_sample - 1);
            float u[3], y_offset;
            lbm_wall_sample<kCollision, kLayout>(f_src, p, x, y, z, off, nrm, u_own, u, &y_offset);
            const bool moving = kind == 2;
            const float u_rel[3] = {u[0] - (moving ? p.wall_ux : 0.0f), u[1] - (moving ? p.wall_uy : 0.0f),
                                    u[2] - (moving ? p.wall_uz : 0.0f)};
            const float weight = kind == 3 && a_l1 > 0.0f ? fabsf(area[k]) / a_l1 : 1.0f;
            lbm_wall_group<kLayout>(f_src, q_links, p, n, x, y, z, face, kind == 3 ? LBM_GROUP_BODY : LBM_GROUP_FACE,
                           nrm, u_rel, y_offset, weight, rho, nb, f, &taken, force, friction, &acted);
        }
    }
    return surface || acted;
}
