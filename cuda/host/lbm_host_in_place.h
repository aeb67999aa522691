// In-place streaming's step on the CPU (resolution.streaming = aa; ../lbm_cell.cuh,
// lbm_update_bulk_cell_in_place). Its two parities are instantiated in translation units of their
// own, lbm_host_in_place_0.cpp and lbm_host_in_place_1.cpp, which the build compiles in parallel:
// in one unit the library took 107 s to compile on a 2-vCPU AMD EPYC (g++ 12.2), 31 s without
// them.
#pragma once

#include "lbm_host_shell.h"

namespace {

// In-place streaming's cells of the general pull (lbm_general_cell_aside, ../lbm_cell.cuh),
// pulled from f in the layout kLayout and collided into p.general_out, in batches as step() runs
// them: one by one the car's set-aside pass had made its in-place step 0.95 of the pull's
// (docs/performance.md). Called by every thread of a parallel region; the entries are split
// statically.
template <int kCollision, int kLayout>
void set_aside(const lbm_pop* f, const LbmParams& p) {
    const long long m = p.n_general, nxy = (long long)p.nx * p.ny;
    BoundaryBatch batch;
    batch.count = 0;
    OpenBatch inlets, outflows;
    inlets.count = outflows.count = 0;
#pragma omp for schedule(static)
    for (long long i = 0; i < m; ++i) {
        const long long n = p.general_cells[i];
        const int x = (int)(n % p.nx), y = (int)((n / p.nx) % p.ny), z = (int)(n / nxy);
        const int type = p.flags[n] & FLAG_TYPE_MASK;
        if (type == FLAG_FLUID) {
            pull_into_batch<kCollision, kLayout>(batch, f, p, n, x, y, z, i);
            if (batch.count == kBatch) flush_batch<kCollision>(batch, p.general_out, m, p);
        } else if (type == FLAG_INLET) {
            push_open<kLayout>(inlets, f, p, n, x, y, z, y + (long long)p.ny * z, i);
            if (inlets.count == kBatch) flush_open<kCollision, true>(inlets, p.general_out, m, p);
        } else {
            push_open<kLayout>(outflows, f, p, n, x, y, z, -1, i);
            if (outflows.count == kBatch) flush_open<kCollision, false>(outflows, p.general_out, m, p);
        }
    }
    flush_batch<kCollision>(batch, p.general_out, m, p);
    flush_open<kCollision, true>(inlets, p.general_out, m, p);
    flush_open<kCollision, false>(outflows, p.general_out, m, p);
}

// One step of in-place streaming on the single buffer f at parity kParity (../lbm_cell.cuh,
// lbm_update_bulk_cell_in_place): the walls filled where the step reads their links (free-slip
// by the copies of this parity, the others by lbm_fill_wall_cell); the cells of the general pull
// set aside (set_aside); the bulk cells in place, by rows in the blocks step() takes;
// the set-aside cells put back where the next layout keeps them.
template <int kCollision, int kParity>
void step_in_place(lbm_pop* f, const LbmParams& p) {
    constexpr int kLayout = kParity == 0 ? LBM_LAYOUT_SWAPPED : LBM_LAYOUT_PUSHED;
    constexpr int kLayoutAfter = kParity == 0 ? LBM_LAYOUT_PUSHED : LBM_LAYOUT_SWAPPED;
    const int nx = p.nx, ny = p.ny, nz = p.nz;
    const long long n_rows = (long long)ny * nz, rows_per_block = row_block(p);
#pragma omp parallel
    {
        const FlushDenormals flush;
#pragma omp for schedule(static) nowait
        for (long long i = 0; i < p.n_freeslip; ++i) lbm_fill_freeslip(f, p, i);
#pragma omp for schedule(static)
        for (long long i = 0; i < p.n_wall_fill; ++i) lbm_fill_wall_cell<kCollision, kLayout>(f, p, i);
        set_aside<kCollision, kLayout>(f, p);
#pragma omp for schedule(dynamic, rows_per_block)
        for (long long r = 0; r < n_rows; ++r) {
            const int y = (int)(r % ny), z = (int)(r / ny);
            const int ym = lbm_wrap(y - 1, ny), yp = lbm_wrap(y + 1, ny);
            const int zm = lbm_wrap(z - 1, nz), zp = lbm_wrap(z + 1, nz);
            const long long row = r * nx;
            for (int x = 0; x < nx;) {
                if (!(p.flags[row + x] & FLAG_BULK)) {
                    ++x;
                    continue;
                }
                const int end = bulk_run_end(p.flags + row, x + 1, nx);
                if (p.has_force)
                    bulk_run_in_place<kCollision, true, kParity>(f, p, row, x, end, ym, y, yp, zm, z, zp);
                else
                    bulk_run_in_place<kCollision, false, kParity>(f, p, row, x, end, ym, y, yp, zm, z, zp);
                x = end;
            }
        }
#pragma omp for schedule(static)
        for (long long i = 0; i < p.n_general; ++i) lbm_general_cell_back<kLayoutAfter>(f, p, i);
    }
}

}  // namespace

extern "C" {

// One step of in-place streaming on the single buffer f at parity 0 (lbm_host_in_place_0.cpp)
// and 1 (lbm_host_in_place_1.cpp).
void lbm_step_in_place_0(lbm_pop* f, const LbmParams* params);
void lbm_step_in_place_1(lbm_pop* f, const LbmParams* params);

}  // extern "C"
