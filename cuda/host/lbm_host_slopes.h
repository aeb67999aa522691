// CPU shell: the projected wall's slope collisions after the step (lbm_projected_commit of
// ../lbm_projected.cuh, which the GPU runs one slot per thread). Each slot's up to six perturbed
// states (lbm_projected_slope_state) become lanes of a batch, and the batch's collisions run as
// one vectorized loop, as the boundary cells' do (BoundaryBatch, lbm_host_shell.h). One at a time
// inside the pull, the six scalar collisions took about half of a slot's cost (the projected
// pipe's step, docs/performance.md).
#pragma once

#include "lbm_host_shell.h"

namespace {

struct SlopeBatch {
    float g[19][kBatch];  // a state's populations, then collided
    float tau[kBatch];
    float weight[kBatch];   // +-1 / (2 h) (lbm_projected_slope_state)
    long long out[kBatch];  // where its slopes go: 57 s + axis in vol_slope_in, step 3 per link
    int count;
};

// The batch's collisions, then each lane's weighted populations added to its slot's slopes.
template <int kCollision, bool kForce>
void flush_slopes(SlopeBatch& b, const LbmParams& p) {
    const int m = b.count;
#pragma omp simd
    for (int j = 0; j < m; ++j) collide_lane<kCollision, kForce>(b.g, p, b.tau[j], j, nullptr);
    for (int j = 0; j < m; ++j) {
        float* out = p.vol_slope_in + b.out[j];
        for (int q = 0; q < 19; ++q) out[3 * q] += b.weight[j] * b.g[q][j];
    }
    b.count = 0;
}

// Every slot's slopes collided into vol_slope_in. A slot's lanes stay in the thread that zeroes
// its slopes, so no two threads add to one slot.
template <int kCollision, bool kForce>
void commit_slots(const LbmParams& p) {
#pragma omp parallel
    {
        const FlushDenormals flush;
        SlopeBatch b;
        b.count = 0;
#pragma omp for schedule(static)
        for (int s = 0; s < p.n_vol_slots; ++s) {
            const float* mean = p.vol_slot_mean + 19 * s;
            const float* slope = p.vol_slope_out + 57 * s;
            float* out = p.vol_slope_in + 57 * s;
            for (int k = 0; k < 57; ++k) out[k] = 0.0f;
            float per[3];
            lbm_projected_slope_steps(slope, per);
            const long long n = p.vol_slot_cell[s];
            const float tau = lbm_cell_tau(p, (int)(n % p.nx), n);
            for (int k = 0; k < 6; ++k) {
                if (per[k >> 1] == 0.0f) continue;
                const int j = b.count++;
                float g[19];
                b.weight[j] = lbm_projected_slope_state(mean, slope, per, k, g);
                for (int q = 0; q < 19; ++q) b.g[q][j] = g[q];
                b.tau[j] = tau;
                b.out[j] = 57LL * s + (k >> 1);
                if (b.count == kBatch) flush_slopes<kCollision, kForce>(b, p);
            }
        }
        flush_slopes<kCollision, kForce>(b, p);
    }
}

}  // namespace
