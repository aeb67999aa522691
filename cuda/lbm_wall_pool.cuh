// The surface rule's exchange pooled over patches of wall (walls.pool_cells; docs/solver.md,
// "Pooling the exchange over patches of wall"). Under the surface rule (lbm_wall_body) each cell
// next to the body imposes the law's stress on the viscous part of its links' exchange and
// leaves their equilibrium part, the pressure and momentum flux rho u u of the flow past its
// links, as interpolated bounce-back has it; with the pooling its links also take a wall moving
// with the cell's tangential velocity, which passes mass through a staircase's risers. On a
// staircase both cancel along the wall only while neighbouring cells are in one state; where
// their states differ the walls take momentum from the flow or give it
// (benchmarks/staircase_slip.py: at atan(1/2) along the steps twelve times the modelled stress)
// and mass. The pooling, run after each step, gives each cell back the weighted mean, over the
// patch of wall cells round it, of two residuals of each cell j: the tangential part of what its
// links took beyond the modelled stress, r_j = (F_j - (F_j . n_j) n_j) - T_j (F_j the slot's
// momentum exchange and T_j its modelled shear, both the body's gain, cell_force; n_j its wall
// normal), and the mass m_j its links brought (lbm_pull_boundary_cell writes it). Each slot's
// weights sum to one over the slots it is shared with (solver/wall_pool.py), so the body's
// tangential force is the modelled stress and the mass is kept, and no cell's own pieces feed
// back on it alone. The momentum goes in as 3 w_q c_q . c on the cell's post-collision
// populations (no mass), the mass out of its rest population; the slot's exchange is reduced by
// the momentum.
#pragma once

#include "lbm_lattice.cuh"

// Pass 1, slot k: its momentum residual, the tangential part of what its links took beyond the
// modelled shear (zero for a slot without links into the body, whose wall record and forces are
// zero), beside the mass residual the step wrote to pool_residual[4 k + 3].
__device__ __forceinline__ void lbm_pool_residual(const LbmParams& p, const int k) {
    const float* out = p.cell_force + 9 * k;
    const float* nrm = p.slot_wall + LBM_WALL_FIELDS * k;
    const float f_n = out[0] * nrm[0] + out[1] * nrm[1] + out[2] * nrm[2];
    LBM_UNROLL
    for (int i = 0; i < 3; ++i) p.pool_residual[4 * k + i] = out[i] - f_n * nrm[i] - out[6 + i];
}

// Pass 2, slot k: the weighted residuals of its patch, as momentum into its cell's populations f
// (the state the step wrote) and out of its exchange.
__device__ __forceinline__ void lbm_pool_apply(lbm_pop* __restrict__ f, const LbmParams& p, const int k) {
    if (p.pool_start[k] == p.pool_start[k + 1]) return;  // a slot without links into the body
    float c[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int e = p.pool_start[k]; e < p.pool_start[k + 1]; ++e) {
        const float* r = p.pool_residual + 4 * p.pool_slot[e];
        const float w = p.pool_weight[e];
        LBM_UNROLL
        for (int i = 0; i < 4; ++i) c[i] += w * r[i];
    }
    const long long n = p.slot_cell[k], S = p.plane_stride;
    f[n] = lbm_pop_store(lbm_pop_load(f[n]) - c[3]);  // the patch's mass gain out of the rest population
#define LBM_POOL_MOMENTUM(q, cx, cy, cz, w) \
    f[q * S + n] = lbm_pop_store(lbm_pop_load(f[q * S + n]) + \
                                 3.0f * (w) * (LBM_CV(cx, c[0]) + LBM_CV(cy, c[1]) + LBM_CV(cz, c[2])));
    D3Q19_LINKS(LBM_POOL_MOMENTUM)
#undef LBM_POOL_MOMENTUM
    LBM_UNROLL
    for (int i = 0; i < 3; ++i) p.cell_force[9 * k + i] -= c[i];
}
