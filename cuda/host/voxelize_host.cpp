// CPU shell of the voxelizer (../voxelize.cuh): the same passes as cuda/voxelize.cu, as OpenMP
// loops over triangles and rows. Integer atomics come from cuda_compat.h. No fused
// multiply-adds here: the exact-negation argument of the edge functions needs plain products.
#pragma GCC optimize("fp-contract=off")
#include "cuda_compat.h"
#include "../voxelize.cuh"

extern "C" {

void vox_count(const double* vertices, const int* faces, const long long n_faces, const int nx,
               const int ny, const int nz, const double x0, const double y0, const double z0,
               const double dx, int* row_count) {
    const VoxelGrid g = {nx, ny, nz, x0, y0, z0, dx};
#pragma omp parallel for schedule(dynamic, 256)
    for (long long t = 0; t < n_faces; ++t)
        vox_triangle_rows(vertices, faces, t, g, row_count, nullptr, nullptr, nullptr);
}

void vox_record(const double* vertices, const int* faces, const long long n_faces, const int nx,
                const int ny, const int nz, const double x0, const double y0, const double z0,
                const double dx, const long long* row_start, int* row_fill, double* hits) {
    const VoxelGrid g = {nx, ny, nz, x0, y0, z0, dx};
#pragma omp parallel for schedule(dynamic, 256)
    for (long long t = 0; t < n_faces; ++t)
        vox_triangle_rows(vertices, faces, t, g, nullptr, row_start, row_fill, hits);
}

void vox_fill(const int nx, const int ny, const int nz, const double x0, const double y0,
              const double z0, const double dx, const long long* row_start, double* hits,
              unsigned char* inside) {
    const VoxelGrid g = {nx, ny, nz, x0, y0, z0, dx};
#pragma omp parallel for schedule(static)
    for (long long row = 0; row < (long long)ny * nz; ++row) vox_fill_row(row, g, row_start, hits, inside);
}

void vox_links(const double* vertices, const int* faces, const long long n_faces, const int nx,
               const int ny, const int nz, const double x0, const double y0, const double z0,
               const double dx, const int* slot, const unsigned char* body, int* link_q_bits) {
    const VoxelGrid g = {nx, ny, nz, x0, y0, z0, dx};
#pragma omp parallel for schedule(dynamic, 256)
    for (long long t = 0; t < n_faces; ++t) vox_triangle_links(vertices, faces, t, g, slot, body, link_q_bits);
}

}  // extern "C"
