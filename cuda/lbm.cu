// GPU shell: one thread per cell, compiled by CuPy (RawModule, NVRTC). The physics is in
// lbm_d3q19.cuh; this file only maps threads to cells. solver/backends/cuda.py inlines the
// header into this source before compiling, so CuPy's cache sees every change.
// lbm_step runs on a grid (ceil(nx / blockDim.x), ny, nz): x from the thread, y and z from the
// block, so no thread divides to find its cell.
#include "lbm_d3q19.cuh"

extern "C" __global__ void lbm_step(const float* __restrict__ f_src, float* __restrict__ f_dst,
                                    const unsigned char* __restrict__ flags,
                                    const float* __restrict__ u_inlet,
                                    const int* __restrict__ boundary_index,
                                    float* __restrict__ cell_force,
                                    const float* __restrict__ link_q, const int interpolated,
                                    const int nx, const int ny,
                                    const int nz, const long long plane_stride,
                                    const float* __restrict__ tau_x, const float cs2_smag,
                                    const float gx, const float gy, const float gz,
                                    const float wall_ux, const float wall_uy, const float wall_uz) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= nx) return;
    const int y = blockIdx.y, z = blockIdx.z;
    const long long n = x + (long long)nx * (y + (long long)ny * z);
    const LbmStep p = {nx, ny, nz, plane_stride, tau_x, cs2_smag, gx, gy, gz,
                       gx != 0.0f || gy != 0.0f || gz != 0.0f, wall_ux, wall_uy, wall_uz};
    lbm_update_cell(f_src, f_dst, flags, u_inlet, boundary_index, cell_force, link_q, interpolated,
                    p, n, x, y, z);
}

extern "C" __global__ void lbm_init(float* __restrict__ f, const float* __restrict__ moments,
                                    const long long n_cells, const long long plane_stride) {
    const long long n = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (n < n_cells) lbm_init_cell(f, moments, n_cells, plane_stride, n);
}

extern "C" __global__ void lbm_fields(const float* __restrict__ f, float* __restrict__ moments,
                                      const long long n_cells, const long long plane_stride) {
    const long long n = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (n < n_cells) lbm_moments_cell(f, moments, n_cells, plane_stride, n);
}
