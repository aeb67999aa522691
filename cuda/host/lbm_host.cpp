// CPU shell: defines the few CUDA words the device code uses and loops over cells with OpenMP.
// The physics is in the headers of ../, the same source the GPU runs.
//
// Rows (fixed y, z) are split into runs of bulk cells, which stream with constant offsets and
// vectorize across x (omp simd), and single cells, which take the general path.
#include "cuda_compat.h"
#include "../lbm_cell.cuh"

namespace {

template <int kCollision, bool kForce>
void bulk_run(const float* __restrict__ f_src, float* __restrict__ f_dst, const LbmParams& p,
              const long long row, const int x0, const int x1, const int ym, const int y,
              const int yp, const int zm, const int z, const int zp) {
#pragma omp simd
    for (int x = x0; x < x1; ++x) {
        lbm_update_bulk_cell<kCollision>(f_src, f_dst, p, row + x, x - 1, x, x + 1, ym, y, yp, zm, z, zp, kForce);
    }
}

// One time step on the whole grid with one collision operator.
template <int kCollision>
void step(const float* f_src, float* f_dst, const LbmParams& p) {
    const int nx = p.nx, ny = p.ny, nz = p.nz;
    const unsigned char* flags = p.flags;
    const long long n_rows = (long long)ny * nz;
#pragma omp parallel for schedule(static)
    for (long long r = 0; r < n_rows; ++r) {
        const int y = (int)(r % ny), z = (int)(r / ny);
        const int ym = lbm_wrap(y - 1, ny), yp = lbm_wrap(y + 1, ny);
        const int zm = lbm_wrap(z - 1, nz), zp = lbm_wrap(z + 1, nz);
        const long long row = r * nx;
        int x = 0;
        while (x < nx) {
            if (x > 0 && x < nx - 1 && (flags[row + x] & FLAG_BULK)) {
                int end = x + 1;
                while (end < nx - 1 && (flags[row + end] & FLAG_BULK)) ++end;
                if (p.has_force)
                    bulk_run<kCollision, true>(f_src, f_dst, p, row, x, end, ym, y, yp, zm, z, zp);
                else
                    bulk_run<kCollision, false>(f_src, f_dst, p, row, x, end, ym, y, yp, zm, z, zp);
                x = end;
            } else {
                lbm_update_cell<kCollision>(f_src, f_dst, p, row + x, x, y, z);
                ++x;
            }
        }
    }
}

template <int kCollision>
void init(float* f, const float* moments, const long long n_cells, const long long plane_stride) {
#pragma omp parallel for schedule(static)
    for (long long n = 0; n < n_cells; ++n) lbm_init_cell<kCollision>(f, moments, n_cells, plane_stride, n);
}

template <int kCollision>
void fields(const float* f, float* moments, const long long n_cells, const long long plane_stride) {
#pragma omp parallel for schedule(static)
    for (long long n = 0; n < n_cells; ++n) lbm_moments_cell<kCollision>(f, moments, n_cells, plane_stride, n);
}

}  // namespace

extern "C" {

// One time step on the whole grid; params as described in ../lbm_lattice.cuh.
void lbm_step(const float* f_src, float* f_dst, const LbmParams* params) {
    if (params->collision == LBM_COLLISION_ENTROPIC)
        step<LBM_COLLISION_ENTROPIC>(f_src, f_dst, *params);
    else
        step<LBM_COLLISION_BGK>(f_src, f_dst, *params);
}

void lbm_init(float* f, const float* moments, const long long n_cells,
              const long long plane_stride, const int collision) {
    if (collision == LBM_COLLISION_ENTROPIC)
        init<LBM_COLLISION_ENTROPIC>(f, moments, n_cells, plane_stride);
    else
        init<LBM_COLLISION_BGK>(f, moments, n_cells, plane_stride);
}

void lbm_fields(const float* f, float* moments, const long long n_cells,
                const long long plane_stride, const int collision) {
    if (collision == LBM_COLLISION_ENTROPIC)
        fields<LBM_COLLISION_ENTROPIC>(f, moments, n_cells, plane_stride);
    else
        fields<LBM_COLLISION_BGK>(f, moments, n_cells, plane_stride);
}

void lbm_params_layout(long long* out) { lbm_params_layout_into(out); }

}  // extern "C"
