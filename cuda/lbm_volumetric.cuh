// The volumetric wall (Chen, Teixeira & Molvig 1998, Int. J. Mod. Phys. C 9, 1281; the tables in
// solver/volumetric_wall.py, the method in docs/solver.md, "The volumetric wall"). Every cell with
// fluid in it is a fluid cell of fluid volume V; one element per cut cell gathers, before each
// step, the particles its prisms along -c_q hold of the post-collision populations, and the cells
// near the body then pull
//     f_q(x) = keep[x, q] f_q(x - c_q) + sum over their entries (e, q) of weight * gamma[e, q],
// keep = (V(x - c_q) - I(x - c_q, q)) / V(x) and weight = v / (V(x) A_out[e, q]). Populations are
// stored shifted (f - w_q, lbm_lattice.cuh) and the pull takes them as they are: by the
// transport identity keep + sum of the weights times A_out = 1 (tests/test_volumetric_wall.py),
// so the shifts' own terms cancel, and gamma holds what the element sends less w_q A_out. No slip:
// each element sends back along the opposite link what it gathered; with the law of the wall it
// also hands back the tangential momentum less the law's force (lbm_volumetric_gather).
#pragma once

#include "lbm_projected.cuh"
#include "lbm_wall_model.cuh"

// The law's force on element e's fluid along its tangents, F_k = rho u_tau^2 A (u_t . t_k) / |u_t|,
// from the velocity u_t along the surface at its input relative to the wall's own (trilinear over
// vol_probe's cells, their last post-collision populations, less the element's wall velocity, a
// rolling wheel's, tangential) and Spalding's law at the input's distance (lbm_wall_model.cuh).
template <int kCollision>
__device__ __forceinline__ void lbm_volumetric_law_force(const lbm_pop* __restrict__ f, const LbmParams& p,
                                                         const int e, const float* law, float* force_t) {
    float rho = 0.0f, u[3] = {0.0f, 0.0f, 0.0f};
    for (int i = 0; i < 8; ++i) {
        const float weight = law[86 + i];
        if (weight == 0.0f) continue;
        const long long c = p.vol_probe[8 * e + i];
        const int cx = (int)(c % p.nx), cy = (int)((c / p.nx) % p.ny), cz = (int)(c / ((long long)p.nx * p.ny));
        float rho_c, u_c[3];
        lbm_sample_velocity<kCollision>(f, p, c, cx, cy, cz, &rho_c, u_c);
        rho += weight * rho_c;
        LBM_UNROLL
        for (int k = 0; k < 3; ++k) u[k] += weight * u_c[k];
    }
    LBM_UNROLL
    for (int k = 0; k < 3; ++k) u[k] -= law[94 + k];
    const float u_n = u[0] * law[0] + u[1] * law[1] + u[2] * law[2];
    float u_t[3];
    LBM_UNROLL
    for (int k = 0; k < 3; ++k) u_t[k] = u[k] - u_n * law[k];
    const float speed = sqrtf(u_t[0] * u_t[0] + u_t[1] * u_t[1] + u_t[2] * u_t[2]);
    force_t[0] = force_t[1] = 0.0f;
    if (!(speed > 0.0f)) return;
    const float u_plus = lbm_spalding_u_plus(p, speed * p.vol_sample / p.nu_lattice);
    const float u_tau = speed / u_plus;
    const float per_speed = rho * u_tau * u_tau * law[9] / speed;
    force_t[0] = per_speed * (u_t[0] * law[3] + u_t[1] * law[4] + u_t[2] * law[5]);
    force_t[1] = per_speed * (u_t[0] * law[6] + u_t[1] * law[7] + u_t[2] * law[8]);
}

// Pass before the step, element e: what its incoming prisms hold of each link's post-collision
// populations, in[q] = sum over its parcels of link q of v f_q (stored shifted; in + w_q A_in is
// the gather), sent back along the opposite link (no slip); with the law (vol_law_on) the
// tangential momentum it gathered is handed back (free slip) less the law's force
// (solver/volumetric_law.py). gamma holds what it sends, shifted by w_q A_out (under the
// projected wall, whose turned rows carry the no-slip part with the slopes, only what the law and
// the free slip add, the gather's parcels then linear with their slopes), and vol_force its
// momentum exchange, sum over q of c_q (gather - send), at gauge pressure (of f - w_q, as the
// other walls report it): the rest state pushes no body, closed or standing on the floor.
template <int kCollision>
__device__ __forceinline__ void lbm_volumetric_gather(const lbm_pop* __restrict__ f, const LbmParams& p,
                                                      const int e) {
    float* gamma = p.vol_gamma + 19 * e;
    const float* swept = p.vol_swept + 19 * e;
    const float* law = p.vol_law_on ? p.vol_law + LBM_VOL_LAW_FIELDS * e : nullptr;
    const bool profile = p.vol_projected && p.vol_law_on;
    float gather[19], send[19], moment_g[2][3] = {{0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}};
    gather[0] = send[0] = 0.0f;
#define LBM_VOL_GATHER(q, cx, cy, cz, w)                                                      \
    if (q > 0) {                                                                              \
        float in = 0.0f, in_g[3] = {0.0f, 0.0f, 0.0f};                                        \
        for (int i = p.vol_gather_start[19 * e + q]; i < p.vol_gather_start[19 * e + q + 1]; ++i) { \
            const long long at = p.vol_gather_at[i];                                          \
            const float m = lbm_pop_load(f[at]);                                              \
            in += p.vol_gather_volume[i] * m;                                                 \
            if (p.vol_projected) {                                                            \
                float s[3];                                                                   \
                const float* first = p.vol_gather_first + 3 * i;                              \
                lbm_projected_source_slope(p, at - q * p.plane_stride, q, s);                 \
                in += first[0] * s[0] + first[1] * s[1] + first[2] * s[2];                    \
                if (profile) lbm_profile_parcel(p.vol_gather_profile + 12 * i, m, s, in_g);   \
            }                                                                                 \
        }                                                                                     \
        gather[q] = in + (w) * swept[LBM_OPP(q)];                                             \
        if (profile) {                                                                        \
            const float ct0 = LBM_CV(cx, law[3]) + LBM_CV(cy, law[4]) + LBM_CV(cz, law[5]);   \
            const float ct1 = LBM_CV(cx, law[6]) + LBM_CV(cy, law[7]) + LBM_CV(cz, law[8]);   \
            LBM_UNROLL                                                                        \
            for (int j = 0; j < 3; ++j) {                                                     \
                moment_g[0][j] += ct0 * in_g[j];                                              \
                moment_g[1][j] += ct1 * in_g[j];                                              \
            }                                                                                 \
        }                                                                                     \
    }
    D3Q19_LINKS(LBM_VOL_GATHER)
#undef LBM_VOL_GATHER
    if (profile) lbm_profile_store(p, e, moment_g);
    LBM_UNROLL
    for (int q = 1; q < 19; ++q) send[q] = gather[LBM_OPP(q)];
    float rest_force[3] = {0.0f, 0.0f, 0.0f};  // what a fluid at rest pushes along the surface
    if (p.vol_law_on) {
        // The tangential momentum gathered, less what a fluid at rest at the gathered density
        // would bring (mass / rest of it): zero where the incoming prisms are whole, and where the
        // domain's walls cut them (a wheel on the road) a fluid at rest stays at rest. There a
        // fluid at rest also exchanges 2 density rest_t along the surface, which the domain's
        // wall takes back, not the body: the reported force leaves it out beyond the gauge's
        // (density 1), so that the friction is the law's stress.
        float momentum_t[2] = {0.0f, 0.0f}, rest_t[2] = {0.0f, 0.0f}, mass = 0.0f, rest = 0.0f, force_t[2];
#define LBM_VOL_TANGENTIAL(q, cx, cy, cz, w)                                                     \
    if (q > 0) {                                                                                 \
        const float ct0 = LBM_CV(cx, law[3]) + LBM_CV(cy, law[4]) + LBM_CV(cz, law[5]);          \
        const float ct1 = LBM_CV(cx, law[6]) + LBM_CV(cy, law[7]) + LBM_CV(cz, law[8]);          \
        const float at_rest = (w) * swept[LBM_OPP(q)];                                           \
        momentum_t[0] += gather[q] * ct0;                                                        \
        momentum_t[1] += gather[q] * ct1;                                                        \
        rest_t[0] += at_rest * ct0;                                                              \
        rest_t[1] += at_rest * ct1;                                                              \
        mass += gather[q];                                                                       \
        rest += at_rest;                                                                         \
    }
        D3Q19_LINKS(LBM_VOL_TANGENTIAL)
#undef LBM_VOL_TANGENTIAL
        const float density = rest > 0.0f ? mass / rest : 0.0f;
        momentum_t[0] -= density * rest_t[0];
        momentum_t[1] -= density * rest_t[1];
        LBM_UNROLL
        for (int i = 0; i < 3; ++i)
            rest_force[i] = 2.0f * (density - 1.0f) * (rest_t[0] * law[3 + i] + rest_t[1] * law[6 + i]);
        lbm_volumetric_law_force<kCollision>(f, p, e, law, force_t);
        for (int q = 1; q < 19; ++q)
            send[q] += law[10 + q] * momentum_t[0] + law[29 + q] * momentum_t[1] -
                       law[48 + q] * force_t[0] - law[67 + q] * force_t[1];
    }
    float force[3] = {0.0f, 0.0f, 0.0f};
    gamma[0] = 0.0f;
#define LBM_VOL_SEND(q, cx, cy, cz, w)                     \
    if (q > 0) {                                           \
        const float sent = send[q] - (w) * swept[q];       \
        gamma[q] = p.vol_projected ? send[q] - gather[LBM_OPP(q)] : sent; \
        const float exchange = gather[q] - (w) * swept[LBM_OPP(q)] - sent; \
        force[0] += LBM_CV(cx, exchange);                  \
        force[1] += LBM_CV(cy, exchange);                  \
        force[2] += LBM_CV(cz, exchange);                  \
    }
    D3Q19_LINKS(LBM_VOL_SEND)
#undef LBM_VOL_SEND
    LBM_UNROLL
    for (int i = 0; i < 3; ++i) p.vol_force[3 * e + i] = force[i] - rest_force[i];
}

// The pull of volumetric slot s (cell n at x, y, z) in the layout kLayout, into f. A link from
// the domain's walls (a fixed floor, a rolling road: no fluid there, solver/volumetric_wall.py)
// takes that wall's rule times keep; a link from the body has keep 0.
template <int kCollision, int kLayout>
__device__ __forceinline__ void lbm_volumetric_pull(const lbm_pop* __restrict__ f_src, const LbmParams& p,
                                                    const long long n, const int s, const int x, const int y,
                                                    const int z, float* f) {
    if (p.vol_projected) {
        lbm_projected_pull<kLayout>(f_src, p, n, s, x, y, z, f);
        return;
    }
    const float* keep = p.vol_keep + 19 * s;
    long long src[19];
    unsigned char nb[19];
    lbm_volumetric_sources(p, x, y, z, src, nb);
#define LBM_VOL_PULL(q, cx, cy, cz, w)                                                                  \
    {                                                                                                   \
        const int type = nb[q] & FLAG_TYPE_MASK;                                                        \
        float from = 0.0f;                                                                              \
        if (keep[q] == 0.0f) {                                                                          \
        } else if (type == FLAG_SOLID) {                                                                \
            from = lbm_pop_load(f_src[lbm_post_index<kLayout>(p, LBM_OPP(q), -(cx), -(cy), -(cz), n, x, y, z)]); \
        } else if (type == FLAG_MOVING) {                                                               \
            from = lbm_moving_wall<kLayout>(f_src, p, n, q, cx, cy, cz, nb, x, y, z);                   \
        } else {                                                                                        \
            from = lbm_pop_load(f_src[lbm_incoming_index<kLayout>(p, q, n, src[q])]);                   \
        }                                                                                               \
        f[q] = keep[q] * from;                                                                          \
    }
    D3Q19_LINKS(LBM_VOL_PULL)
#undef LBM_VOL_PULL
    for (int i = p.vol_scatter_start[s]; i < p.vol_scatter_start[s + 1]; ++i) {
        const int link = p.vol_scatter[i];
        f[link % 19] += p.vol_scatter_weight[i] * p.vol_gamma[link];
    }
}
