// GPU shell: one thread per cell, compiled by CuPy (RawModule, NVRTC). The physics is in the
// headers; this file only maps threads to cells. solver/backends/cuda.py inlines the headers
// into this source before compiling, so CuPy's cache sees every change.
// lbm_step runs on a grid (ceil(nx / blockDim.x), ny, nz): x from the thread, y and z from the
// block, so no thread divides to find its cell. Its parameters arrive by value in one struct.
#include "lbm_cell.cuh"
#include "lbm_refinement.cuh"
#include "lbm_wall_pool.cuh"

extern "C" __global__ void lbm_step(const lbm_pop* __restrict__ f_src, lbm_pop* __restrict__ f_dst,
                                    const LbmParams p) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= p.nx) return;
    const int y = blockIdx.y, z = blockIdx.z;
    const long long n = x + (long long)p.nx * (y + (long long)p.ny * z);
    if (p.collision == LBM_COLLISION_ENTROPIC)
        lbm_update_cell<LBM_COLLISION_ENTROPIC>(f_src, f_dst, p, n, x, y, z);
    else
        lbm_update_cell<LBM_COLLISION_BGK>(f_src, f_dst, p, n, x, y, z);
}

// One step of in-place streaming on the single buffer f, its layout given by parity
// (lbm_update_bulk_cell_in_place); the same grid of threads as lbm_step. Only bulk cells: the
// others run before and after it (lbm_general_cells_aside, lbm_general_cells_back).
extern "C" __global__ void lbm_step_in_place(lbm_pop* __restrict__ f, const LbmParams p, const int parity) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= p.nx) return;
    const int y = blockIdx.y, z = blockIdx.z;
    const long long n = x + (long long)p.nx * (y + (long long)p.ny * z);
    if (!(p.flags[n] & FLAG_BULK)) return;
    const int xm = lbm_wrap(x - 1, p.nx), xp = lbm_wrap(x + 1, p.nx), ym = lbm_wrap(y - 1, p.ny),
              yp = lbm_wrap(y + 1, p.ny), zm = lbm_wrap(z - 1, p.nz), zp = lbm_wrap(z + 1, p.nz);
#define LBM_IN_PLACE(collision, parity) \
    lbm_update_bulk_cell_in_place<collision, parity>(f, p, n, xm, x, xp, ym, y, yp, zm, z, zp, p.has_force, \
                                                     lbm_cell_tau(p, x, n))
    if (p.collision == LBM_COLLISION_ENTROPIC) {
        if (parity == 0)
            LBM_IN_PLACE(LBM_COLLISION_ENTROPIC, 0);
        else
            LBM_IN_PLACE(LBM_COLLISION_ENTROPIC, 1);
    } else {
        if (parity == 0)
            LBM_IN_PLACE(LBM_COLLISION_BGK, 0);
        else
            LBM_IN_PLACE(LBM_COLLISION_BGK, 1);
    }
#undef LBM_IN_PLACE
}

// In-place streaming's cells of the general pull, set aside before lbm_step_in_place
// (lbm_general_cell_aside) and put back after it (lbm_general_cell_back), one thread per entry;
// parity the step's.
template <int kLayout>
__device__ __forceinline__ void lbm_general_cell_aside_any(const lbm_pop* f, const LbmParams& p, const long long i) {
    if (p.collision == LBM_COLLISION_ENTROPIC)
        lbm_general_cell_aside<LBM_COLLISION_ENTROPIC, kLayout>(f, p, i);
    else
        lbm_general_cell_aside<LBM_COLLISION_BGK, kLayout>(f, p, i);
}

extern "C" __global__ void lbm_general_cells_aside(const lbm_pop* __restrict__ f, const LbmParams p,
                                                   const int parity) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.n_general) return;
    if (parity == 0)
        lbm_general_cell_aside_any<LBM_LAYOUT_SWAPPED>(f, p, i);
    else
        lbm_general_cell_aside_any<LBM_LAYOUT_PUSHED>(f, p, i);
}

extern "C" __global__ void lbm_general_cells_back(lbm_pop* __restrict__ f, const LbmParams p, const int parity) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.n_general) return;
    if (parity == 0)
        lbm_general_cell_back<LBM_LAYOUT_PUSHED>(f, p, i);
    else
        lbm_general_cell_back<LBM_LAYOUT_SWAPPED>(f, p, i);
}

// The free-slip walls' populations of f before lbm_step reads them (lbm_fill_freeslip), one
// thread per entry.
extern "C" __global__ void lbm_fill_freeslip_cells(lbm_pop* __restrict__ f, const LbmParams p) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n_freeslip) lbm_fill_freeslip(f, p, i);
}

// The links of the fluid cells next to the tunnel's no-slip walls and the road, into those walls'
// populations of f before lbm_step reads them (lbm_fill_wall_cell), one thread per cell; layout
// the buffer's (LBM_LAYOUT_*: in place, where lbm_step_in_place reads them).
template <int kLayout>
__device__ __forceinline__ void lbm_fill_wall_cell_any(lbm_pop* f, const LbmParams& p, const long long i) {
    if (p.collision == LBM_COLLISION_ENTROPIC)
        lbm_fill_wall_cell<LBM_COLLISION_ENTROPIC, kLayout>(f, p, i);
    else
        lbm_fill_wall_cell<LBM_COLLISION_BGK, kLayout>(f, p, i);
}

extern "C" __global__ void lbm_fill_wall_cells(lbm_pop* __restrict__ f, const LbmParams p, const int layout) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.n_wall_fill) return;
    if (layout == LBM_LAYOUT_SWAPPED)
        lbm_fill_wall_cell_any<LBM_LAYOUT_SWAPPED>(f, p, i);
    else if (layout == LBM_LAYOUT_PUSHED)
        lbm_fill_wall_cell_any<LBM_LAYOUT_PUSHED>(f, p, i);
    else
        lbm_fill_wall_cell_any<LBM_LAYOUT_PULL>(f, p, i);
}

extern "C" __global__ void lbm_init(lbm_pop* __restrict__ f, const float* __restrict__ moments,
                                    const long long n_cells, const long long plane_stride,
                                    const int collision) {
    const long long n = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= n_cells) return;
    if (collision == LBM_COLLISION_ENTROPIC)
        lbm_init_cell<LBM_COLLISION_ENTROPIC>(f, moments, n_cells, plane_stride, n);
    else
        lbm_init_cell<LBM_COLLISION_BGK>(f, moments, n_cells, plane_stride, n);
}

extern "C" __global__ void lbm_fields(const lbm_pop* __restrict__ f, float* __restrict__ moments,
                                      const long long n_cells, const long long plane_stride,
                                      const int collision) {
    const long long n = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= n_cells) return;
    if (collision == LBM_COLLISION_ENTROPIC)
        lbm_moments_cell<LBM_COLLISION_ENTROPIC>(f, moments, n_cells, plane_stride, n);
    else
        lbm_moments_cell<LBM_COLLISION_BGK>(f, moments, n_cells, plane_stride, n);
}

// The gradient subgrid models' moments of the stored populations f, one thread per cell, and then
// their eddy relaxation times on the same grid of threads as lbm_step (lbm_subgrid.cuh).
extern "C" __global__ void lbm_subgrid_moments(const lbm_pop* __restrict__ f, const LbmParams p) {
    const long long n = (long long)blockIdx.x * blockDim.x + threadIdx.x, n_cells = (long long)p.nx * p.ny * p.nz;
    if (n >= n_cells) return;
    if (p.collision == LBM_COLLISION_ENTROPIC)
        lbm_subgrid_moments_cell<LBM_COLLISION_ENTROPIC>(f, p, n_cells, n);
    else
        lbm_subgrid_moments_cell<LBM_COLLISION_BGK>(f, p, n_cells, n);
}

extern "C" __global__ void lbm_subgrid_taus(const LbmParams p) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= p.nx) return;
    const int y = blockIdx.y, z = blockIdx.z;
    const long long n = x + (long long)p.nx * (y + (long long)p.ny * z);
    if (p.subgrid == LBM_SUBGRID_WALE)
        lbm_subgrid_tau_cell<LBM_SUBGRID_WALE>(p, n, x, y, z);
    else
        lbm_subgrid_tau_cell<LBM_SUBGRID_VREMAN>(p, n, x, y, z);
}

// The volumetric wall's gather (lbm_volumetric.cuh), one thread per element, before lbm_step.
extern "C" __global__ void lbm_volumetric_gather_elements(const lbm_pop* __restrict__ f, const LbmParams p) {
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= p.n_vol_elements) return;
    if (p.collision == LBM_COLLISION_ENTROPIC)
        lbm_volumetric_gather<LBM_COLLISION_ENTROPIC>(f, p, e);
    else
        lbm_volumetric_gather<LBM_COLLISION_BGK>(f, p, e);
}

// The projected wall's slopes collided and made the state (lbm_projected.cuh), one thread per
// slot, after lbm_step.
extern "C" __global__ void lbm_projected_commit_slots(const LbmParams p) {
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= p.n_vol_slots) return;
    if (p.collision == LBM_COLLISION_ENTROPIC)
        lbm_projected_commit<LBM_COLLISION_ENTROPIC>(p, s);
    else
        lbm_projected_commit<LBM_COLLISION_BGK>(p, s);
}

// The surface rule's pooling (lbm_wall_pool.cuh), one thread per slot: the residuals, then the apply.
extern "C" __global__ void lbm_pool_residual_slots(const LbmParams p) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < p.n_pool_slots) lbm_pool_residual(p, k);
}

extern "C" __global__ void lbm_pool_apply_slots(lbm_pop* __restrict__ f, const LbmParams p) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < p.n_pool_slots) lbm_pool_apply(f, p, k);
}

extern "C" __global__ void lbm_params_layout(long long* out) {
    if (blockIdx.x == 0 && threadIdx.x == 0) lbm_params_layout_into(out);
}

// The coupling of two refinement levels (lbm_refinement.cuh), one thread per entry.
extern "C" __global__ void lbm_explode(const lbm_pop* __restrict__ c_now, const lbm_pop* __restrict__ c_next,
                                       const float a, const long long c_stride, lbm_pop* __restrict__ fine,
                                       const long long f_stride, const long long* __restrict__ cells,
                                       const float* __restrict__ weights, const long long n_entries,
                                       const float tau0_c, const float tau0_f, const float cs2_smag,
                                       const int collision) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_entries) return;
    if (collision == LBM_COLLISION_ENTROPIC)
        lbm_explode_entry<LBM_COLLISION_ENTROPIC>(c_now, c_next, a, c_stride, fine, f_stride, cells, weights, i, tau0_c, tau0_f, cs2_smag);
    else
        lbm_explode_entry<LBM_COLLISION_BGK>(c_now, c_next, a, c_stride, fine, f_stride, cells, weights, i, tau0_c, tau0_f, cs2_smag);
}

extern "C" __global__ void lbm_coalesce(const lbm_pop* __restrict__ fine, const long long f_stride,
                                        lbm_pop* __restrict__ coarse, const long long c_stride,
                                        const long long* __restrict__ cells, const long long n_entries,
                                        const float tau0_f, const float tau0_c, const float cs2_smag,
                                        const int collision) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_entries) return;
    if (collision == LBM_COLLISION_ENTROPIC)
        lbm_coalesce_entry<LBM_COLLISION_ENTROPIC>(fine, f_stride, coarse, c_stride, cells, i, tau0_f, tau0_c, cs2_smag);
    else
        lbm_coalesce_entry<LBM_COLLISION_BGK>(fine, f_stride, coarse, c_stride, cells, i, tau0_f, tau0_c, cs2_smag);
}
