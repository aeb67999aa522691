// The volumetric wall (Chen, Teixeira & Molvig 1998, Int. J. Mod. Phys. C 9, 1281; the tables in
// solver/volumetric_wall.py, the method in docs/solver.md, "The volumetric wall"). Every cell with
// fluid in it is a fluid cell of fluid volume V; one element per cut cell gathers, before each
// step, the particles its prisms along -c_q hold of the post-collision populations, and the cells
// near the body then pull
//     f_q(x) = keep[x, q] f_q(x - c_q) + sum over their entries (e, q) of weight * gamma[e, q],
// keep = (V(x - c_q) - I(x - c_q, q)) / V(x) and weight = v / (V(x) A_out[e, q]). Populations are
// stored shifted (f - w_q, lbm_lattice.cuh) and the pull takes them as they are: by the
// transport identity keep + sum of the weights times A_out = 1 (tests/test_volumetric_wall.py),
// so the shifts' own terms cancel, and gamma holds the shifted gather. No slip: each element sends
// back along the opposite link what it gathered.
#pragma once

#include "lbm_boundaries.cuh"

// Pass before the step, element e: gamma[19 e + opp(q)] = sum over its parcels of link q of
// v f_q (shifted), and its momentum exchange, sum over q of c_q (gamma_in - gamma_out) with the
// shifts put back (the rest state's pressure on the element, w_q A_out).
__device__ __forceinline__ void lbm_volumetric_gather(const lbm_pop* __restrict__ f, const LbmParams& p,
                                                      const int e) {
    float* gamma = p.vol_gamma + 19 * e;
    const float* swept = p.vol_swept + 19 * e;
    float force[3] = {0.0f, 0.0f, 0.0f};
    gamma[0] = 0.0f;
#define LBM_VOL_GATHER(q, cx, cy, cz, w)                                                      \
    if (q > 0) {                                                                              \
        float in = 0.0f;                                                                      \
        for (int i = p.vol_gather_start[19 * e + q]; i < p.vol_gather_start[19 * e + q + 1]; ++i) \
            in += p.vol_gather_volume[i] * lbm_pop_load(f[p.vol_gather_at[i]]);                \
        gamma[LBM_OPP(q)] = in;                                                               \
        /* in and out along c_q and -c_q: the exchange is 2 c_q (in + w_q A_in) */           \
        const float both = 2.0f * (in + (w) * swept[LBM_OPP(q)]);                             \
        force[0] += LBM_CV(cx, both);                                                         \
        force[1] += LBM_CV(cy, both);                                                         \
        force[2] += LBM_CV(cz, both);                                                         \
    }
    D3Q19_LINKS(LBM_VOL_GATHER)
#undef LBM_VOL_GATHER
    LBM_UNROLL
    for (int i = 0; i < 3; ++i) p.vol_force[3 * e + i] = force[i];
}

// The pull of volumetric slot s (cell n at x, y, z) in the layout kLayout, into f.
template <int kLayout>
__device__ __forceinline__ void lbm_volumetric_pull(const lbm_pop* __restrict__ f_src, const LbmParams& p,
                                                    const long long n, const int s, const int x, const int y,
                                                    const int z, float* f) {
    const float* keep = p.vol_keep + 19 * s;
    const long long nx = p.nx, nxy = (long long)p.nx * p.ny;
#define LBM_VOL_PULL(q, cx, cy, cz, w)                                                                  \
    {                                                                                                   \
        const long long src = lbm_wrap(x - (cx), p.nx) + nx * lbm_wrap(y - (cy), p.ny) +               \
                              nxy * lbm_wrap(z - (cz), p.nz);                                           \
        f[q] = keep[q] != 0.0f ? keep[q] * lbm_pop_load(f_src[lbm_incoming_index<kLayout>(p, q, n, src)]) \
                               : 0.0f;                                                                  \
    }
    D3Q19_LINKS(LBM_VOL_PULL)
#undef LBM_VOL_PULL
    for (int i = p.vol_scatter_start[s]; i < p.vol_scatter_start[s + 1]; ++i) {
        const int link = p.vol_scatter[i];
        f[link % 19] += p.vol_scatter_weight[i] * p.vol_gamma[link];
    }
}
