// GPU shell of the voxelizer (voxelize.cuh): one thread per triangle for the passes over
// triangles, one per row for the fill. solver/backends/cuda.py pastes the headers in. The grid
// comes as scalars (centre of cell 0 and cell size in metres) and becomes a VoxelGrid here.
#include "voxelize.cuh"

#define VOX_GRID_ARGS                                                                     \
    const int nx, const int ny, const int nz, const double x0, const double y0, const double z0, \
        const double dx

extern "C" __global__ void vox_count(const double* __restrict__ vertices,
                                     const int* __restrict__ faces, const long long n_faces,
                                     VOX_GRID_ARGS, int* row_count) {
    const VoxelGrid g = {nx, ny, nz, x0, y0, z0, dx};
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n_faces) vox_triangle_rows(vertices, faces, t, g, row_count, nullptr, nullptr, nullptr);
}

extern "C" __global__ void vox_record(const double* __restrict__ vertices,
                                      const int* __restrict__ faces, const long long n_faces,
                                      VOX_GRID_ARGS, const long long* __restrict__ row_start,
                                      int* row_fill, double* hits) {
    const VoxelGrid g = {nx, ny, nz, x0, y0, z0, dx};
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n_faces) vox_triangle_rows(vertices, faces, t, g, nullptr, row_start, row_fill, hits);
}

extern "C" __global__ void vox_fill(VOX_GRID_ARGS, const long long* __restrict__ row_start,
                                    double* hits, unsigned char* __restrict__ inside) {
    const VoxelGrid g = {nx, ny, nz, x0, y0, z0, dx};
    const long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (row < (long long)ny * nz) vox_fill_row(row, g, row_start, hits, inside);
}

extern "C" __global__ void vox_links(const double* __restrict__ vertices,
                                     const int* __restrict__ faces, const long long n_faces,
                                     VOX_GRID_ARGS, const int* __restrict__ slot,
                                     const unsigned char* __restrict__ body, int* link_q_bits) {
    const VoxelGrid g = {nx, ny, nz, x0, y0, z0, dx};
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n_faces) vox_triangle_links(vertices, faces, t, g, slot, body, link_q_bits);
}
