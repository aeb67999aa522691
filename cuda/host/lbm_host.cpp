// The CPU shell's two-buffer step (lbm_step) and the rest of the library: initialisation, fields,
// the refinement levels' coupling, the pooling and the bandwidth probe (lbm_host_shell.h
// describes the shell; lbm_host_in_place.h the in-place step).
#include "lbm_host_in_place.h"
#include "lbm_host_shell.h"
#include "lbm_host_slopes.h"

namespace {

// One time step on the whole grid with one collision operator: the free-slip walls of f_src
// filled (lbm_fill_freeslip) and the other walls' links of the cells listed for it
// (lbm_fill_wall_cell), then every row.
template <int kCollision>
void step(lbm_pop* f_src, lbm_pop* f_dst, const LbmParams& p) {
    const int nx = p.nx, ny = p.ny, nz = p.nz;
    const unsigned char* flags = p.flags;
    const long long n_rows = (long long)ny * nz, rows_per_block = row_block(p), S = p.plane_stride;
#pragma omp parallel
    {
        const FlushDenormals flush;
#pragma omp for schedule(static) nowait
        for (long long i = 0; i < p.n_freeslip; ++i) lbm_fill_freeslip(f_src, p, i);
#pragma omp for schedule(static)
        for (long long i = 0; i < p.n_wall_fill; ++i) lbm_fill_wall_cell<kCollision>(f_src, p, i);
        BoundaryBatch batch;
        batch.count = 0;
        OpenBatch inlets, outflows;
        inlets.count = outflows.count = 0;
#pragma omp for schedule(dynamic, rows_per_block) nowait
        for (long long r = 0; r < n_rows; ++r) {
            const int y = (int)(r % ny), z = (int)(r / ny);
            const int ym = lbm_wrap(y - 1, ny), yp = lbm_wrap(y + 1, ny);
            const int zm = lbm_wrap(z - 1, nz), zp = lbm_wrap(z + 1, nz);
            const long long row = r * nx;
            int x = 0;
            while (x < nx) {
                const unsigned char flag = flags[row + x];
                if (flag & FLAG_BULK) {
                    const int end = bulk_run_end(flags + row, x + 1, nx);
                    if (p.has_force)
                        bulk_run<kCollision, true>(f_src, f_dst, p, row, x, end, ym, y, yp, zm, z, zp);
                    else
                        bulk_run<kCollision, false>(f_src, f_dst, p, row, x, end, ym, y, yp, zm, z, zp);
                    x = end;
                    continue;
                }
                const int type = flag & FLAG_TYPE_MASK;
                if (type == FLAG_FLUID) {
                    pull_into_batch<kCollision>(batch, f_src, p, row + x, x, y, z, row + x);
                    if (batch.count == kBatch) flush_batch<kCollision>(batch, f_dst, S, p);
                } else if (type == FLAG_INLET) {
                    push_open(inlets, f_src, p, row + x, x, y, z, r, row + x);
                    if (inlets.count == kBatch) flush_open<kCollision, true>(inlets, f_dst, S, p);
                } else if (type == FLAG_OUTFLOW) {
                    push_open(outflows, f_src, p, row + x, x, y, z, -1, row + x);
                    if (outflows.count == kBatch) flush_open<kCollision, false>(outflows, f_dst, S, p);
                }  // walls and ghost cells are not updated
                ++x;
            }
        }
        flush_batch<kCollision>(batch, f_dst, S, p);
        flush_open<kCollision, true>(inlets, f_dst, S, p);
        flush_open<kCollision, false>(outflows, f_dst, S, p);
#if defined(__SSE2__)
        if (streams(p)) _mm_sfence();  // the chunks' stores, before the next step reads them
#endif
    }
}

template <int kCollision>
void init(lbm_pop* f, const float* moments, const long long n_cells, const long long plane_stride) {
#pragma omp parallel for schedule(static)
    for (long long n = 0; n < n_cells; ++n) lbm_init_cell<kCollision>(f, moments, n_cells, plane_stride, n);
}

template <int kCollision>
void fields(const lbm_pop* f, float* moments, const long long n_cells, const long long plane_stride) {
#pragma omp parallel for schedule(static)
    for (long long n = 0; n < n_cells; ++n) lbm_moments_cell<kCollision>(f, moments, n_cells, plane_stride, n);
}

// Every cell's moments into p.sgs_moments, then each cell's tau_eddy from its neighbours',
// the rows' inner cells in vector loops.
template <int kCollision, int kModel>
void subgrid(const lbm_pop* f, const LbmParams& p) {
    const long long nx = p.nx, n_rows = (long long)p.ny * p.nz, n_cells = nx * n_rows;
#pragma omp parallel
    {
        const FlushDenormals flush;
#pragma omp for schedule(static)
        for (long long n = 0; n < n_cells; ++n) lbm_subgrid_moments_cell<kCollision>(f, p, n_cells, n);
#pragma omp for schedule(static)
        for (long long r = 0; r < n_rows; ++r) {
            const int y = (int)(r % p.ny), z = (int)(r / p.ny);
            long long d[4];
            lbm_subgrid_row_offsets(p, y, z, d);
            const long long row = r * nx;
            lbm_subgrid_tau_cell<kModel>(p, row, 0, y, z);
            const float* moments = p.sgs_moments;
            float* tau_eddy = p.tau_eddy;
            const float c = p.subgrid_c;
#pragma omp simd
            for (long long x = 1; x < nx - 1; ++x)
                tau_eddy[row + x] = lbm_subgrid_eddy_tau<kModel>(moments, n_cells, c, row + x, -1, 1, d);
            if (nx > 1) lbm_subgrid_tau_cell<kModel>(p, row + nx - 1, p.nx - 1, y, z);
        }
    }
}

}  // namespace

extern "C" {

// One time step on the whole grid; params as described in ../lbm_lattice.cuh.
void lbm_step(lbm_pop* f_src, lbm_pop* f_dst, const LbmParams* params) {
    if (params->collision == LBM_COLLISION_ENTROPIC)
        step<LBM_COLLISION_ENTROPIC>(f_src, f_dst, *params);
    else
        step<LBM_COLLISION_BGK>(f_src, f_dst, *params);
}

// One step of in-place streaming on the single buffer f, its layout given by parity
// (../lbm_cell.cuh, lbm_update_bulk_cell_in_place; lbm_host_in_place.h).
void lbm_step_in_place(lbm_pop* f, const LbmParams* params, const int parity) {
    if (parity == 0)
        lbm_step_in_place_0(f, params);
    else
        lbm_step_in_place_1(f, params);
}

void lbm_init(lbm_pop* f, const float* moments, const long long n_cells,
              const long long plane_stride, const int collision) {
    if (collision == LBM_COLLISION_ENTROPIC)
        init<LBM_COLLISION_ENTROPIC>(f, moments, n_cells, plane_stride);
    else
        init<LBM_COLLISION_BGK>(f, moments, n_cells, plane_stride);
}

void lbm_fields(const lbm_pop* f, float* moments, const long long n_cells,
                const long long plane_stride, const int collision) {
    if (collision == LBM_COLLISION_ENTROPIC)
        fields<LBM_COLLISION_ENTROPIC>(f, moments, n_cells, plane_stride);
    else
        fields<LBM_COLLISION_BGK>(f, moments, n_cells, plane_stride);
}

// The coupling of two refinement levels (../lbm_refinement.cuh): n_entries explosions or
// coalescences.
void lbm_explode(const lbm_pop* c_now, const lbm_pop* c_next, const float a, const long long c_stride,
                 lbm_pop* fine, const long long f_stride, const long long* cells, const float* weights,
                 const long long n_entries, const float tau0_c, const float tau0_f,
                 const float cs2_smag, const int collision) {
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n_entries; ++i) {
        if (collision == LBM_COLLISION_ENTROPIC)
            lbm_explode_entry<LBM_COLLISION_ENTROPIC>(c_now, c_next, a, c_stride, fine, f_stride, cells, weights, i, tau0_c, tau0_f, cs2_smag);
        else
            lbm_explode_entry<LBM_COLLISION_BGK>(c_now, c_next, a, c_stride, fine, f_stride, cells, weights, i, tau0_c, tau0_f, cs2_smag);
    }
}

void lbm_coalesce(const lbm_pop* fine, const long long f_stride, lbm_pop* coarse, const long long c_stride,
                  const long long* cells, const long long n_entries, const float tau0_f,
                  const float tau0_c, const float cs2_smag, const int collision) {
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n_entries; ++i) {
        if (collision == LBM_COLLISION_ENTROPIC)
            lbm_coalesce_entry<LBM_COLLISION_ENTROPIC>(fine, f_stride, coarse, c_stride, cells, i, tau0_f, tau0_c, cs2_smag);
        else
            lbm_coalesce_entry<LBM_COLLISION_BGK>(fine, f_stride, coarse, c_stride, cells, i, tau0_f, tau0_c, cs2_smag);
    }
}

// The volumetric wall's gather (../lbm_volumetric.cuh), before the step that reads f.
void lbm_volumetric_gather_elements(const lbm_pop* f, const LbmParams* params) {
    const LbmParams& p = *params;
#pragma omp parallel for schedule(static)
    for (int e = 0; e < p.n_vol_elements; ++e) {
        if (p.collision == LBM_COLLISION_ENTROPIC)
            lbm_volumetric_gather<LBM_COLLISION_ENTROPIC>(f, p, e);
        else
            lbm_volumetric_gather<LBM_COLLISION_BGK>(f, p, e);
    }
}

// The projected wall's slopes collided and made the state (../lbm_projected.cuh,
// lbm_host_slopes.h), after the step.
void lbm_projected_commit_slots(const LbmParams* params) {
    const LbmParams& p = *params;
    if (p.collision == LBM_COLLISION_ENTROPIC) {
        if (p.has_force)
            commit_slots<LBM_COLLISION_ENTROPIC, true>(p);
        else
            commit_slots<LBM_COLLISION_ENTROPIC, false>(p);
    } else if (p.has_force) {
        commit_slots<LBM_COLLISION_BGK, true>(p);
    } else {
        commit_slots<LBM_COLLISION_BGK, false>(p);
    }
}

// The surface rule's pooling over patches of wall (../lbm_wall_pool.cuh), after a step that wrote f.
void lbm_wall_pool(lbm_pop* f, const LbmParams* params) {
    const LbmParams& p = *params;
#pragma omp parallel for schedule(static)
    for (int k = 0; k < p.n_pool_slots; ++k) lbm_pool_residual(p, k);
#pragma omp parallel for schedule(static)
    for (int k = 0; k < p.n_pool_slots; ++k) lbm_pool_apply(f, p, k);
}

// The gradient subgrid models' eddy relaxation times (../lbm_subgrid.cuh) from the stored
// populations f, before the step that reads f (lbm_subgrid).
void lbm_subgrid(const lbm_pop* f, const LbmParams* params) {
    const LbmParams& p = *params;
    const bool entropic = p.collision == LBM_COLLISION_ENTROPIC;
    if (p.subgrid == LBM_SUBGRID_WALE) {
        if (entropic)
            subgrid<LBM_COLLISION_ENTROPIC, LBM_SUBGRID_WALE>(f, p);
        else
            subgrid<LBM_COLLISION_BGK, LBM_SUBGRID_WALE>(f, p);
    } else {
        if (entropic)
            subgrid<LBM_COLLISION_ENTROPIC, LBM_SUBGRID_VREMAN>(f, p);
        else
            subgrid<LBM_COLLISION_BGK, LBM_SUBGRID_VREMAN>(f, p);
    }
}

void lbm_params_layout(long long* out) { lbm_params_layout_into(out); }

// n populations (a multiple of kChunk, both arrays on 64 B) copied by the bulk chunks'
// non-temporal stores: the memory bandwidth a step that streams its stores can reach
// (benchmarks/lbm_mlups.py's roofline).
void lbm_stream_copy(lbm_pop* dst, const lbm_pop* src, const long long n) {
#pragma omp parallel
    {
#pragma omp for schedule(static)
        for (long long i = 0; i < n; i += kChunk) stream_chunk(dst + i, src + i, true);
#if defined(__SSE2__)
        _mm_sfence();
#endif
    }
}

}  // extern "C"
