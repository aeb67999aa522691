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

#define LBM_KAPPA 0.41f
#define LBM_LOG_B 5.2f

// u+ = |u_t| / u_tau from Spalding's law at Re_y = |u_t| y / nu: the root of
// F(u+) = u+ (u+ + g(u+)) - Re_y, g the bracketed term times exp(-kappa B). F is convex and
// increasing for u+ > 0, so Newton's method from any positive start converges. The start is the
// smaller of the viscous sublayer's sqrt(Re_y) and the log law's u+ = ln(Re_y / u+) / kappa + B
// after one fixed-point step from u+ = ln(Re_y) / kappa + B; from it four Newton steps reach
// 3e-13 of the root for Re_y in 1e-3 .. 1e8 (float64; seven steps from the log law's first guess
// reached 4e-7), below float32's round-off.
__device__ __forceinline__ float lbm_spalding_u_plus(const float re_y) {
    const float e_kb = expf(-LBM_KAPPA * LBM_LOG_B);
    const float ln_re = logf(fmaxf(re_y, 1.0f));
    const float up_log = (ln_re - logf(ln_re * (1.0f / LBM_KAPPA) + LBM_LOG_B)) * (1.0f / LBM_KAPPA) + LBM_LOG_B;
    float up = fminf(sqrtf(re_y), up_log);
    LBM_UNROLL
    for (int it = 0; it < 4; ++it) {
        const float ku = fminf(LBM_KAPPA * up, 30.0f);
        const float ex = expf(ku);
        const float poly2 = 1.0f + ku + 0.5f * ku * ku;
        const float g = e_kb * (ex - poly2 - ku * ku * ku * (1.0f / 6.0f));
        const float dg = e_kb * LBM_KAPPA * (ex - poly2);
        up -= (up * (up + g) - re_y) / (2.0f * up + g + up * dg);
    }
    return up;
}

__device__ __forceinline__ bool lbm_is_wall(const unsigned char flag) {
    const int t = flag & FLAG_TYPE_MASK;
    return t == FLAG_SOLID || t == FLAG_MOVING;
}

// Density and velocity (with half the body force, Guo) of cell s from its populations of the
// last step.
template <int kCollision>
__device__ __forceinline__ void lbm_sample_velocity(const float* __restrict__ f_src, const LbmParams& p,
                                                    const long long s, float* rho, float* u) {
    const long long S = p.plane_stride;
    float fs[19];
#define LBM_LOAD_SAMPLE(q, cx, cy, cz, w) fs[q] = f_src[q * S + s];
    D3Q19_LINKS(LBM_LOAD_SAMPLE)
#undef LBM_LOAD_SAMPLE
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
template <int kCollision>
__device__ __forceinline__ void lbm_wall_sample(const float* __restrict__ f_src, const LbmParams& p,
                                                const int x, const int y, const int z, const int* off,
                                                const float* nrm, const float* u_own, float* u,
                                                float* y_offset) {
    const long long s = lbm_index(p, x + off[0], y + off[1], z + off[2]);
    if ((off[0] | off[1] | off[2]) && (p.flags[s] & FLAG_TYPE_MASK) == FLAG_FLUID) {
        float rho_s;
        lbm_sample_velocity<kCollision>(f_src, p, s, &rho_s, u);
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
// modelled tau_w A where r is free; the no-slip exchange where r = 1).
__device__ __forceinline__ void lbm_wall_group(const float* __restrict__ f_src,
                                               const float* __restrict__ q_links,
                                               const LbmParams& p, const long long n, const int x,
                                               const int y, const int z, const int* face,
                                               const int group, const float* nrm, const float* u,
                                               const float y_offset, const float area_weight,
                                               const float rho, float* f,
                                               unsigned int* taken, float* force, float* shear) {
    const long long S = p.plane_stride;
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
        const unsigned char sf = p.flags[lbm_index(p, x - (cx), y - (cy), z - (cz))];             \
        const bool member = ((group == LBM_GROUP_BODY) == ((sf & FLAG_BODY) != 0)) &&             \
                            (((cx) != 0 && (cx) == face[0]) || ((cy) != 0 && (cy) == face[1]) ||  \
                             ((cz) != 0 && (cz) == face[2]));                                     \
        if (q > 0 && !(*taken & (1u << q)) && member && lbm_is_wall(sf)) {                        \
            links |= 1u << q;                                                                     \
            const int mx = ((cx) != 0 && (cx) == face[0]) ? -(cx) : (cx);                         \
            const int my = ((cy) != 0 && (cy) == face[1]) ? -(cy) : (cy);                         \
            const int mz = ((cz) != 0 && (cz) == face[2]) ? -(cz) : (cz);                         \
            const bool mirrored = (mx != (cx) || my != (cy) || mz != (cz)) &&                     \
                                  lbm_is_wall(p.flags[lbm_index(p, x + mx, y + my, z + mz)]);     \
            f_spec[q] = mirrored ? f_src[LBM_LINK_OF[(mx + 1) + 3 * (my + 1) + 9 * (mz + 1)] * S + n] \
                                 : f[q];                                                          \
            const float f_out = f_src[LBM_OPP(q) * S + n];                                        \
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
    const float u_tau = u_t / lbm_spalding_u_plus(u_t * y_wall / p.nu_lattice);
    const float target = -rho * u_tau * u_tau * area_weight * (cut / cut_plane);  // momentum per step, along t
    // r blends the two rules' exchanges onto the target; r = 1 where no-slip exchanges less.
    const float span = d_bb - d_sp;
    const float r = span < -1e-20f ? fminf(fmaxf((target - d_sp) / span, 0.0f), 1.0f) : 1.0f;
#define LBM_WALL_BLEND(q, cx, cy, cz, w)                                                          \
    if (links & (1u << q)) {                                                                      \
        const float f_new = r * f[q] + (1.0f - r) * f_spec[q];                                    \
        if (p.flags[lbm_index(p, x - (cx), y - (cy), z - (cz))] & FLAG_BODY) {                   \
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
        const float exchanged = r * d_bb + (1.0f - r) * d_sp;  // the fluid's gain along t
        LBM_UNROLL
        for (int k = 0; k < 3; ++k) shear[k] -= exchanged * t[k];
    }
}

// Apply the wall model to the fluid cell (x, y, z), whose incoming populations f were pulled with
// the no-slip rules (and whose body links added their momentum to force). Each wall face of the
// cell is a group of its own, with its own normal and wall velocity (a cell between two walls
// sees both): the floor, the tunnel's walls, the road, and the faces of the body's voxels. The
// voxel faces of a surface with unit normal n (the slot's area vector, where the cell has one)
// add up to sum_k |n_k| times its area, so each body face stands for |n_k| / sum_k |n_k| of one:
// the modelled shear force over a slanted surface is that of its true area. Links that reach the
// wall only diagonally (a convex edge) keep the no-slip rule. Returns false where the cell
// touches no no-slip or moving wall across a face; else writes to friction the wall shear force
// its body faces hand to the body.
template <int kCollision>
__device__ __forceinline__ bool lbm_wall_function(const float* __restrict__ f_src,
                                                  const float* __restrict__ q_links,
                                                  const float* __restrict__ area,
                                                  const LbmParams& p, const long long n, const int x,
                                                  const int y, const int z, float* f, float* force,
                                                  float* friction) {
    // wall_lo[k] / wall_hi[k]: the face of the cell on the -k / +k side is a wall (1), moving (2)
    // or the body (3); 0 for fluid.
    int wall_lo[3], wall_hi[3];
    {
        const unsigned char lo[3] = {p.flags[lbm_index(p, x - 1, y, z)], p.flags[lbm_index(p, x, y - 1, z)],
                                     p.flags[lbm_index(p, x, y, z - 1)]};
        const unsigned char hi[3] = {p.flags[lbm_index(p, x + 1, y, z)], p.flags[lbm_index(p, x, y + 1, z)],
                                     p.flags[lbm_index(p, x, y, z + 1)]};
        LBM_UNROLL
        for (int k = 0; k < 3; ++k) {
            wall_lo[k] = !lbm_is_wall(lo[k]) ? 0 : (lo[k] & FLAG_BODY) ? 3 : 1 + ((lo[k] & FLAG_TYPE_MASK) == FLAG_MOVING);
            wall_hi[k] = !lbm_is_wall(hi[k]) ? 0 : (hi[k] & FLAG_BODY) ? 3 : 1 + ((hi[k] & FLAG_TYPE_MASK) == FLAG_MOVING);
        }
    }
    if (!(wall_lo[0] | wall_lo[1] | wall_lo[2] | wall_hi[0] | wall_hi[1] | wall_hi[2])) return false;
    float rho, u_own[3];
    lbm_sample_velocity<kCollision>(f_src, p, n, &rho, u_own);
    // The body's surface normal, for the share of each voxel face.
    const float a_l1 = area ? fabsf(area[0]) + fabsf(area[1]) + fabsf(area[2]) : 0.0f;
    unsigned int taken = 0u;
    friction[0] = friction[1] = friction[2] = 0.0f;
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
            lbm_wall_sample<kCollision>(f_src, p, x, y, z, off, nrm, u_own, u, &y_offset);
            const bool moving = kind == 2;
            const float u_rel[3] = {u[0] - (moving ? p.wall_ux : 0.0f), u[1] - (moving ? p.wall_uy : 0.0f),
                                    u[2] - (moving ? p.wall_uz : 0.0f)};
            const float weight = kind == 3 && a_l1 > 0.0f ? fabsf(area[k]) / a_l1 : 1.0f;
            lbm_wall_group(f_src, q_links, p, n, x, y, z, face, kind == 3 ? LBM_GROUP_BODY : LBM_GROUP_FACE,
                           nrm, u_rel, y_offset, weight, rho, f, &taken, force, friction);
        }
    }
    return true;
}
