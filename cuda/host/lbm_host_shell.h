// CPU shell: defines the few CUDA words the device code uses and loops over cells with OpenMP.
// The physics is in the headers of ../, the same source the GPU runs. This header holds the
// pieces the shell's translation units share: lbm_host.cpp (the two-buffer step and the rest of
// the library) and lbm_host_in_place_0.cpp, lbm_host_in_place_1.cpp (the in-place step of each
// parity, lbm_host_in_place.h), which the build compiles in parallel
// (solver/backends/host_build.py).
//
// Rows (fixed y, z) are split into runs of bulk cells, which stream with constant offsets and
// vectorize across x (omp simd), and single cells. A fluid cell that is not bulk (next to the body,
// or reporting for it) is pulled on its own by the general rules into a batch; the batch's
// collisions, most of the work, then run as one vectorized loop, and its cells are stored and
// report their forces. Inlet and outflow cells are batched likewise. A run reaches x = 0 and nx - 1
// where the row is periodic: its chunks there copy their wrapped links into a block first. The GPU
// runs the same pieces one cell per thread (lbm_update_cell).
#pragma once

#include <omp.h>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "cuda_compat.h"
#include "../lbm_cell.cuh"
#include "../lbm_refinement.cuh"
#include "../lbm_wall_pool.cuh"

namespace {

// Bulk cells run through the vectorized loop in chunks of kChunk cells (one cache line of each
// link's plane), each one loop of a fixed trip count: no scalar remainder (the remainder of a
// run's vector loop took as long as the rest of a 126-cell run, docs/performance.md). After a
// run's first chunk the chunks start on cache lines (the planes and the CPU backend's buffers
// are aligned to 64 B), and the last one ends at the run's end. Chunks overlap where a run's
// length is not a multiple of kChunk: those cells are computed twice and stored once, by the
// chunk that reaches them first (the pull reads f_src only). Runs shorter than a chunk take the
// plain loop.
constexpr int kChunk = 16;

// Each chunk first prefetches the lines the chunk kAhead cells on will read (its 19 source
// lines): the hardware prefetchers do not follow 38 streams a thread, and the prefetches doubled
// BGK's and raised the LES kernel's MLUPs by 1.4-1.5 at 128^3 (docs/performance.md, where 32, 64
// and 128 cells ahead and the t0 hint were compared), and, unless the step streams its stores
// (stream_chunk), the lines it will write. Forced inline: g++ 12 finds a function of prefetches
// alone free of side effects and drops its call.
constexpr int kAhead = 64;

// Locality hint of the source prefetches: 0 (non-temporal) or 3 (all cache levels). The build sets
// it per processor vendor (solver/backends/host_build.py): on the AMD EPYC non-temporal was the
// faster, on the Intel Xeon all levels (the LES box 1.2-1.3 times, the car 1.3 times faster;
// docs/performance.md).
#ifndef LBM_PREFETCH_LOCALITY
#define LBM_PREFETCH_LOCALITY 0
#endif

// Whether this step writes its bulk chunks with non-temporal stores (stream_chunk): where the
// grid asks for them (LbmParams.stream_stores) and the build has AVX-512. An AVX2 build of the same
// machine ran slower with them (the car at 64 cells 0.85-0.88 times, the BGK box at 128^3
// 0.85-0.95; docs/performance.md).
__forceinline__ bool streams(const LbmParams& p) {
#if defined(__AVX512F__)
    return p.stream_stores != 0;
#else
    return false;
#endif
}

__forceinline__ void prefetch_bulk(const lbm_pop* f_src, const lbm_pop* f_dst, const LbmParams& p,
                                   const long long row, const int x0, const int ym, const int y,
                                   const int yp, const int zm, const int z, const int zp) {
    const long long nx = p.nx, nxy = (long long)p.nx * p.ny, S = p.plane_stride;
    const int x = x0 + kAhead, xm = x - 1, xp = x + 1;
#define LBM_PREFETCH(q, cx, cy, cz, w)                                \
    __builtin_prefetch(f_src + q * S + LBM_BULK_SOURCE(cx, cy, cz), 0, LBM_PREFETCH_LOCALITY);
    D3Q19_LINKS(LBM_PREFETCH)
#undef LBM_PREFETCH
    if (!streams(p)) {
#define LBM_PREFETCH_DST(q, cx, cy, cz, w) __builtin_prefetch(f_dst + q * S + row + x, 1, 0);
        D3Q19_LINKS(LBM_PREFETCH_DST)
#undef LBM_PREFETCH_DST
    }
}

// The compiler may inline a chunk into its run (it does once the collision is short enough);
// benchmarks/collision_ops.py builds with -DLBM_CHUNK_NOINLINE to keep the chunk's vector loop
// one function to disassemble.
#ifdef LBM_CHUNK_NOINLINE
#define LBM_CHUNK_ATTR __attribute__((noinline))
#else
#define LBM_CHUNK_ATTR
#endif

// kChunk populations from storage into floats, and back (lbm_lattice.cuh's storage): a copy for
// float32; for FP16S F16C's conversion of 8 (AVX2) or 16 (AVX-512) at once, which g++ 12 does not
// make of a loop of scalar binary16 conversions (it leaves such a loop, and the collision with it,
// unvectorized); for FP16C the format's integer and float operations, as one vector loop.
__forceinline__ void load_block(float* __restrict__ out, const lbm_pop* __restrict__ src) {
#if LBM_STORAGE == LBM_STORAGE_FP32
    memcpy(out, src, kChunk * sizeof(float));
#elif LBM_STORAGE == LBM_STORAGE_FP16S && defined(__AVX512F__)
    _mm512_storeu_ps(out, _mm512_mul_ps(_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i*)src)),
                                        _mm512_set1_ps(1.0f / LBM_FP16S_SCALE)));
#elif LBM_STORAGE == LBM_STORAGE_FP16S && defined(__F16C__)
    for (int i = 0; i < kChunk; i += 8)
        _mm256_storeu_ps(out + i, _mm256_mul_ps(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)(src + i))),
                                                _mm256_set1_ps(1.0f / LBM_FP16S_SCALE)));
#else  // FP16C, or binary16 without F16C
#pragma omp simd
    for (int i = 0; i < kChunk; ++i) out[i] = lbm_pop_load(src[i]);
#endif
}

// kChunk populations of storage (a 64-B aligned local block) to dst. With `stream` (streams(p))
// and where dst starts on its own size's boundary (every chunk after a run's first), by
// non-temporal stores: the line goes to memory without first being read (the write-allocate read
// of an ordinary store is half again the bytes a bulk cell moves), and a line is written either
// so or by ordinary stores within a step, never both (bulk_run). step() fences the stores before
// the next step reads them.
__forceinline__ void stream_chunk(lbm_pop* __restrict__ dst, const lbm_pop* __restrict__ block, const bool stream) {
    constexpr int kBytes = kChunk * (int)sizeof(lbm_pop);
#if defined(__SSE2__)
    if (stream && ((unsigned long long)dst & (kBytes - 1)) == 0) {
        const char* in = (const char*)block;
        char* out = (char*)dst;
#if defined(__AVX512F__)
        if (kBytes == 64) {
            _mm512_stream_si512((__m512i*)out, _mm512_load_si512((const void*)in));
            return;
        }
#endif
#if defined(__AVX__)
        for (int i = 0; i < kBytes; i += 32)
            _mm256_stream_si256((__m256i*)(out + i), _mm256_load_si256((const __m256i*)(in + i)));
#else
        for (int i = 0; i < kBytes; i += 16)
            _mm_stream_si128((__m128i*)(out + i), _mm_load_si128((const __m128i*)(in + i)));
#endif
        return;
    }
#endif
    memcpy(dst, block, kBytes);
}

// kChunk floats into storage, in a 64-B aligned local block.
__forceinline__ void to_storage(lbm_pop* __restrict__ block, const float* __restrict__ in) {
#if LBM_STORAGE == LBM_STORAGE_FP32
    memcpy(block, in, kChunk * sizeof(float));
#elif LBM_STORAGE == LBM_STORAGE_FP16S && defined(__AVX512F__)
    _mm256_store_si256((__m256i*)block,
                       _mm512_cvtps_ph(_mm512_mul_ps(_mm512_loadu_ps(in), _mm512_set1_ps(LBM_FP16S_SCALE)),
                                       _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#elif LBM_STORAGE == LBM_STORAGE_FP16S && defined(__F16C__)
    for (int i = 0; i < kChunk; i += 8)
        _mm_store_si128((__m128i*)(block + i),
                        _mm256_cvtps_ph(_mm256_mul_ps(_mm256_loadu_ps(in + i), _mm256_set1_ps(LBM_FP16S_SCALE)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#else  // FP16C, or binary16 without F16C
#pragma omp simd
    for (int i = 0; i < kChunk; ++i) block[i] = lbm_pop_store(in[i]);
#endif
}

__forceinline__ void store_block(lbm_pop* __restrict__ dst, const float* __restrict__ in, const bool stream) {
    alignas(64) lbm_pop block[kChunk];
    to_storage(block, in);
    stream_chunk(dst, block, stream);
}

// Lanes lo <= i < hi of a block into storage, by ordinary stores (a chunk that shares its cells
// with the next one): one masked store where AVX-512 has it, two of float32 with AVX2 (the loop
// compiles to a call of memmove, 2% of the car's in-place step at 32 cells on an AVX2 machine).
__forceinline__ void store_lanes(lbm_pop* __restrict__ dst, const float* __restrict__ in, const int lo,
                                 const int hi) {
    alignas(64) lbm_pop block[kChunk];
    to_storage(block, in);
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__)
    const unsigned int lanes = ((1u << hi) - 1u) & ~((1u << lo) - 1u);
    if (sizeof(lbm_pop) == 4)
        _mm512_mask_storeu_epi32(dst, (__mmask16)lanes, _mm512_load_si512((const void*)block));
    else
        _mm256_mask_storeu_epi16(dst, (__mmask16)lanes, _mm256_load_si256((const __m256i*)block));
#elif defined(__AVX2__)
    if constexpr (sizeof(lbm_pop) == 4) {
        const __m256i below_lo = _mm256_set1_epi32(lo - 1), hi_v = _mm256_set1_epi32(hi);
        for (int i = 0; i < kChunk; i += 8) {
            const __m256i lane = _mm256_setr_epi32(i, i + 1, i + 2, i + 3, i + 4, i + 5, i + 6, i + 7);
            const __m256i mask = _mm256_and_si256(_mm256_cmpgt_epi32(lane, below_lo), _mm256_cmpgt_epi32(hi_v, lane));
            _mm256_maskstore_ps((float*)dst + i, mask, _mm256_load_ps((const float*)block + i));
        }
    } else {
        for (int i = lo; i < hi; ++i) dst[i] = block[i];
    }
#else
    for (int i = lo; i < hi; ++i) dst[i] = block[i];
#endif
}

// The relaxation times of a chunk's lanes, x0 + i of row (lbm_cell_tau), with the branch on the
// subgrid model outside the vector loops that read them: inside, reading tau_eddy under it cost
// the channel and the car at 32 cells (Smagorinsky) 0.22-0.30 of their MLUPs on an AVX2 machine.
__forceinline__ void chunk_taus(float (&tau)[kChunk], const LbmParams& p, const long long row, const int x0) {
    if (p.subgrid != LBM_SUBGRID_SMAGORINSKY) {
        for (int i = 0; i < kChunk; ++i) tau[i] = p.tau_x[x0 + i] + p.tau_eddy[row + x0 + i];
    } else {
        for (int i = 0; i < kChunk; ++i) tau[i] = p.tau_x[x0 + i];
    }
}

// Collision of lane i of a chunk's block of populations, in place, with relaxation time tau.
template <int kCollision, bool kForce>
__forceinline__ void collide_block_lane(float (&block)[19][kChunk], const LbmParams& p, const float tau,
                                        const int i) {
    float f[19];
#define LBM_FROM_BLOCK(q, cx, cy, cz, w) f[q] = block[q][i];
    D3Q19_LINKS(LBM_FROM_BLOCK)
#undef LBM_FROM_BLOCK
    lbm_collide<kCollision>(f, p, tau, kForce, nullptr);
#define LBM_TO_BLOCK(q, cx, cy, cz, w) block[q][i] = f[q];
    D3Q19_LINKS(LBM_TO_BLOCK)
#undef LBM_TO_BLOCK
}

// A chunk's collided block into storage: its lanes lo <= i < hi where the step streams its
// stores (a chunk that shares cells with the next one stores only its own, so no line takes both
// kinds of store), else all its lanes by ordinary stores.
__forceinline__ void store_chunk(const float (&block)[19][kChunk], lbm_pop* __restrict__ f_dst, const LbmParams& p,
                                 const long long row, const int x0, const int lo, const int hi) {
    const long long S = p.plane_stride;
    if ((lo == 0 && hi == kChunk) || !streams(p)) {
#define LBM_STORE_BLOCK(q, cx, cy, cz, w) store_block(f_dst + q * S + row + x0, block[q], streams(p));
        D3Q19_LINKS(LBM_STORE_BLOCK)
#undef LBM_STORE_BLOCK
    } else {
#define LBM_STORE_LANES(q, cx, cy, cz, w) store_lanes(f_dst + q * S + row + x0, block[q], lo, hi);
        D3Q19_LINKS(LBM_STORE_LANES)
#undef LBM_STORE_LANES
    }
}

// A chunk's block (its 19 links' sources, as floats) collided as one vector loop and stored.
template <int kCollision, bool kForce>
__forceinline__ void collide_and_store_block(float (&block)[19][kChunk], lbm_pop* __restrict__ f_dst,
                                             const LbmParams& p, const long long row, const int x0,
                                             const int lo, const int hi) {
    alignas(64) float tau[kChunk];
    chunk_taus(tau, p, row, x0);
#pragma omp simd
    for (int i = 0; i < kChunk; ++i) collide_block_lane<kCollision, kForce>(block, p, tau[i], i);
    store_chunk(block, f_dst, p, row, x0, lo, hi);
}

// Lane i of a float32 chunk pulled from f_src, collided, and left in block for store_chunk.
template <int kCollision, bool kForce>
__forceinline__ void pull_collide_lane(float (&block)[19][kChunk], const lbm_pop* __restrict__ f_src,
                                       const LbmParams& p, const int x0, const int i, const float tau,
                                       const int ym, const int y, const int yp, const int zm, const int z,
                                       const int zp) {
    const int x = x0 + i;
    float f[19];
    lbm_pull_collide_bulk_cell<kCollision>(f_src, p, x - 1, x, x + 1, ym, y, yp, zm, z, zp, kForce, tau, f);
#define LBM_TO_BLOCK(q, cx, cy, cz, w) block[q][i] = f[q];
    D3Q19_LINKS(LBM_TO_BLOCK)
#undef LBM_TO_BLOCK
}

// A chunk of bulk cells, its cells lo <= i < hi stored (store_chunk). With float32 storage its
// vector loop pulls each lane's populations itself and, unless the step streams its stores,
// stores them too (copying the chunk through a block cost AVX2 builds 0.80-0.87 of the sphere
// channel's and the car's MLUPs, docs/performance.md); with 16-bit storage it converts whole
// blocks first and after (load_block, store_block).
template <int kCollision, bool kForce>
LBM_CHUNK_ATTR void bulk_chunk(const lbm_pop* __restrict__ f_src, lbm_pop* __restrict__ f_dst, const LbmParams& p,
                const long long row, const int x0, const int lo, const int hi, const int ym, const int y,
                const int yp, const int zm, const int z, const int zp) {
    prefetch_bulk(f_src, f_dst, p, row, x0, ym, y, yp, zm, z, zp);
#if LBM_STORAGE == LBM_STORAGE_FP32
    alignas(64) float tau[kChunk];
    chunk_taus(tau, p, row, x0);
    if (!streams(p)) {
#pragma omp simd
        for (int i = 0; i < kChunk; ++i) {
            const int x = x0 + i;
            lbm_update_bulk_cell<kCollision>(f_src, f_dst, p, row + x, x - 1, x, x + 1, ym, y, yp, zm, z, zp, kForce,
                                             tau[i]);
        }
        return;
    }
    alignas(64) float block[19][kChunk];
#pragma omp simd
    for (int i = 0; i < kChunk; ++i)
        pull_collide_lane<kCollision, kForce>(block, f_src, p, x0, i, tau[i], ym, y, yp, zm, z, zp);
    store_chunk(block, f_dst, p, row, x0, lo, hi);
#else
    const long long nx = p.nx, nxy = (long long)p.nx * p.ny, S = p.plane_stride;
    alignas(64) float block[19][kChunk];
#define LBM_LOAD_CHUNK(q, cx, cy, cz, w) load_block(block[q], f_src + q * S + LBM_BULK_ROW(cy, cz) + x0 - (cx));
    D3Q19_LINKS(LBM_LOAD_CHUNK)
#undef LBM_LOAD_CHUNK
    collide_and_store_block<kCollision, kForce>(block, f_dst, p, row, x0, lo, hi);
#endif
}

// The kChunk values src_row[x0 - cx + i] of one link's source row as floats, the source x
// wrapped across the row's ends (at most one lane wraps: x0 = 0 or x0 + kChunk = nx; nx >= kChunk).
// The contiguous kChunk - 1 come from the row's first or last kChunk by one block conversion.
__forceinline__ void pull_wrapped_link(float* __restrict__ out, const lbm_pop* __restrict__ src_row,
                                       const int x0, const int cx, const int nx) {
    const int first = x0 - cx;  // source x of lane 0
    if (first < 0) {
        alignas(64) float row_start[kChunk];
        load_block(row_start, src_row);
        out[0] = lbm_pop_load(src_row[nx - 1]);
        memcpy(out + 1, row_start, (kChunk - 1) * sizeof(float));
    } else if (first + kChunk > nx) {
        alignas(64) float row_end[kChunk];
        load_block(row_end, src_row + nx - kChunk);
        memcpy(out, row_end + 1, (kChunk - 1) * sizeof(float));
        out[kChunk - 1] = lbm_pop_load(src_row[0]);
    } else {
        load_block(out, src_row + first);
    }
}

// The chunk at an end of a periodic row (x0 = 0 or x0 + kChunk = nx), whose links from x - 1 or
// x + 1 wrap to the row's other end: each link's 16 sources are copied into a block (a contiguous
// run and one wrapped cell), which then collides as one vector loop. (Gathering the wrapped links
// per lane in the vector loop cost BGK more than the scalar cells it replaced: docs/performance.md.)
// It prefetches as a bulk chunk does: without, the chunks 64 cells on from a periodic row's two
// ends (on a row of 128: x = 64 and the next row's x = 48) were never prefetched, and the periodic box at 128^3 ran BGK 0.88-0.92 and the LES operator
// 0.93-0.96 times as fast (docs/performance.md, "The wrapped chunks prefetch too").
template <int kCollision, bool kForce>
void wrapped_chunk(const lbm_pop* __restrict__ f_src, lbm_pop* __restrict__ f_dst, const LbmParams& p,
                   const long long row, const int x0, const int lo, const int hi, const int ym, const int y,
                   const int yp, const int zm, const int z, const int zp) {
    const long long nx = p.nx, nxy = (long long)p.nx * p.ny, S = p.plane_stride;
    prefetch_bulk(f_src, f_dst, p, row, x0, ym, y, yp, zm, z, zp);
    alignas(64) float block[19][kChunk];
#define LBM_PULL_WRAPPED(q, cx, cy, cz, w) \
    pull_wrapped_link(block[q], f_src + q * S + LBM_BULK_ROW(cy, cz), x0, cx, p.nx);
    D3Q19_LINKS(LBM_PULL_WRAPPED)
#undef LBM_PULL_WRAPPED
    collide_and_store_block<kCollision, kForce>(block, f_dst, p, row, x0, lo, hi);
}

// The chunks of the bulk run x0 <= x < x1 of one row (x1 - x0 >= kChunk), in order:
// chunk(start, lo, hi) for each, which stores its cells start + lo <= x < start + hi, from the
// previous chunk's last cell up to the next chunk's start (the last chunk may start before the
// previous one's end and then computes cells it does not store).
template <class Chunk>
__forceinline__ void for_each_chunk(const long long row, const int x0, const int x1, Chunk&& chunk) {
    for (int x = x0;;) {
        const int start = x + kChunk <= x1 ? x : x1 - kChunk;
        const bool last = start + kChunk == x1;
        const int next = last ? x1 : (int)(((row + start + kChunk) & ~(long long)(kChunk - 1)) - row);
        chunk(start, x - start, next - start);
        if (last) return;
        x = next;
    }
}

// The bulk cells x0 <= x < x1 of one row; a run that starts at x = 0 or ends at x = nx wraps.
template <int kCollision, bool kForce>
void bulk_run(const lbm_pop* __restrict__ f_src, lbm_pop* __restrict__ f_dst, const LbmParams& p,
              const long long row, const int x0, const int x1, const int ym, const int y,
              const int yp, const int zm, const int z, const int zp) {
    const int nx = p.nx;
    if (x1 - x0 >= kChunk) {
        for_each_chunk(row, x0, x1, [&](const int start, const int lo, const int hi) {
            if (start == 0 || start + kChunk == nx)
                wrapped_chunk<kCollision, kForce>(f_src, f_dst, p, row, start, lo, hi, ym, y, yp, zm, z, zp);
            else
                bulk_chunk<kCollision, kForce>(f_src, f_dst, p, row, start, lo, hi, ym, y, yp, zm, z, zp);
        });
        return;
    }
    if (x0 == 0 || x1 == nx) {  // a short periodic row: its ends' neighbours wrap
        for (int x = x0; x < x1; ++x)
            lbm_update_bulk_cell<kCollision>(f_src, f_dst, p, row + x, lbm_wrap(x - 1, nx), x, lbm_wrap(x + 1, nx),
                                             ym, y, yp, zm, z, zp, kForce, lbm_cell_tau(p, x, row + x));
        return;
    }
#pragma omp simd
    for (int x = x0; x < x1; ++x) {
        lbm_update_bulk_cell<kCollision>(f_src, f_dst, p, row + x, x - 1, x, x + 1, ym, y, yp, zm, z, zp, kForce,
                                         lbm_cell_tau(p, x, row + x));
    }
}

// ---- In-place streaming (lbm_update_bulk_cell_in_place) ---------------------------------------

// Lanes lo <= i < hi of a block into dst_row[x0 + cx + i], x0 + cx + i wrapped across the row's
// ends (at most one lane wraps, as in pull_wrapped_link).
__forceinline__ void push_link(lbm_pop* dst_row, const float* block, const int x0, const int cx, const int nx,
                               int lo, int hi) {
    if (lo < hi && x0 + cx + lo < 0) dst_row[nx - 1] = lbm_pop_store(block[lo++]);
    if (lo < hi && x0 + cx + hi - 1 >= nx) dst_row[0] = lbm_pop_store(block[--hi]);
    if (lo < hi) store_lanes(dst_row + x0 + cx, block, lo, hi);
}

// A chunk of bulk cells of the single buffer f at parity kParity, its cells lo <= i < hi stored.
// A whole float32 chunk inside its row runs as the two-buffer pull's vector loop does, each lane
// reading and writing its own slots; any other (a chunk that shares cells with the next one, whose
// shared cells' slots the other may already have written, a chunk at a periodic row's end, or
// 16-bit storage) is pulled into a block, collided, and stored by lanes. The lines it writes are
// the ones it read (pushing: plane q at x + c_q is read as link opp(q) and written as q), so no
// store streams.
template <int kCollision, bool kForce, int kParity>
LBM_CHUNK_ATTR void in_place_chunk(lbm_pop* f, const LbmParams& p, const long long row, const int x0, const int lo,
                                   const int hi, const int ym, const int y, const int yp,
                                   const int zm, const int z, const int zp) {
    const long long nx = p.nx, nxy = (long long)p.nx * p.ny, S = p.plane_stride;
    {
        const int x = x0 + kAhead, xm = x - 1, xp = x + 1;
#define LBM_PREFETCH_IN_PLACE(q, cx, cy, cz, w)                                                   \
    __builtin_prefetch(kParity == 0 ? f + LBM_OPP(q) * S + LBM_BULK_SOURCE(cx, cy, cz) : f + q * S + row + x, 1, \
                       LBM_PREFETCH_LOCALITY);
        D3Q19_LINKS(LBM_PREFETCH_IN_PLACE)
#undef LBM_PREFETCH_IN_PLACE
    }
    alignas(64) float tau[kChunk];
    chunk_taus(tau, p, row, x0);
#if LBM_STORAGE == LBM_STORAGE_FP32
    if (lo == 0 && hi == kChunk && x0 != 0 && x0 + kChunk != nx) {
#pragma omp simd
        for (int i = 0; i < kChunk; ++i) {
            const int x = x0 + i;
            lbm_update_bulk_cell_in_place<kCollision, kParity>(f, p, row + x, x - 1, x, x + 1, ym, y, yp, zm, z, zp,
                                                               kForce, tau[i]);
        }
        return;
    }
#endif
    alignas(64) float block[19][kChunk];
    if (kParity == 0) {
#define LBM_PULL_SWAPPED_LINK(q, cx, cy, cz, w) \
    pull_wrapped_link(block[q], f + LBM_OPP(q) * S + LBM_BULK_ROW(cy, cz), x0, cx, p.nx);
        D3Q19_LINKS(LBM_PULL_SWAPPED_LINK)
#undef LBM_PULL_SWAPPED_LINK
    } else {
#define LBM_LOAD_OWN(q, cx, cy, cz, w) load_block(block[q], f + q * S + row + x0);
        D3Q19_LINKS(LBM_LOAD_OWN)
#undef LBM_LOAD_OWN
    }
#pragma omp simd
    for (int i = 0; i < kChunk; ++i) collide_block_lane<kCollision, kForce>(block, p, tau[i], i);
    if (kParity == 0) {
#define LBM_PUSH_LINK(q, cx, cy, cz, w) push_link(f + q * S + LBM_BULK_ROW(-(cy), -(cz)), block[q], x0, cx, p.nx, lo, hi);
        D3Q19_LINKS(LBM_PUSH_LINK)
#undef LBM_PUSH_LINK
    } else {
#define LBM_STORE_SWAPPED_LINK(q, cx, cy, cz, w) store_lanes(f + LBM_OPP(q) * S + row + x0, block[q], lo, hi);
        D3Q19_LINKS(LBM_STORE_SWAPPED_LINK)
#undef LBM_STORE_SWAPPED_LINK
    }
}

// The bulk cells x0 <= x < x1 of one row of the single buffer f at parity kParity.
template <int kCollision, bool kForce, int kParity>
void bulk_run_in_place(lbm_pop* f, const LbmParams& p, const long long row, const int x0, const int x1,
                       const int ym, const int y, const int yp, const int zm, const int z, const int zp) {
    const int nx = p.nx;
    if (x1 - x0 >= kChunk) {
        for_each_chunk(row, x0, x1, [&](const int start, const int lo, const int hi) {
            in_place_chunk<kCollision, kForce, kParity>(f, p, row, start, lo, hi, ym, y, yp, zm, z, zp);
        });
        return;
    }
    for (int x = x0; x < x1; ++x)
        lbm_update_bulk_cell_in_place<kCollision, kParity>(f, p, row + x, lbm_wrap(x - 1, nx), x,
                                                           lbm_wrap(x + 1, nx), ym, y, yp, zm, z, zp, kForce,
                                                           lbm_cell_tau(p, x, row + x));
}

// The end of the run of bulk cells in a row's flags from x on: the first x' >= x whose cell is not
// bulk, or nx. Eight flags at a time while all eight are bulk (a byte at a time, the scan took 4%
// of the car's step at 64 cells: docs/performance.md).
__forceinline__ int bulk_run_end(const unsigned char* __restrict__ row_flags, int x, const int nx) {
    constexpr unsigned long long kAllBulk = 0x0101010101010101ULL * FLAG_BULK;
    for (; x + 8 <= nx; x += 8) {
        unsigned long long eight;
        memcpy(&eight, row_flags + x, 8);
        if ((eight & kAllBulk) != kAllBulk) break;
    }
    while (x < nx && (row_flags[x] & FLAG_BULK)) ++x;
    return x;
}

// Fluid cells that take the general pull, gathered for one vectorized collision loop.
constexpr int kBatch = 64;

struct BoundaryBatch {
    float f[19][kBatch];        // pulled, then collided populations
    float pressure[kBatch];     // the wall state the collision reports (lbm_wall_state)
    float sigma[6][kBatch];
    float force[kBatch][3];     // momentum exchange with the body
    float friction[kBatch][3];  // the wall model's shear force, where modelled
    float tau[kBatch];
    long long at[kBatch];  // where the entry is stored: its cell (the pull) or its set-aside entry
    long long slot[kBatch];
    bool modelled[kBatch];
    int count;
};

// Fluid cell n at (x, y, z), pulled from f_src in the layout kLayout (lbm_post_index), into its
// batch; `at` is where flush_batch stores it.
template <int kCollision, int kLayout = LBM_LAYOUT_PULL>
void pull_into_batch(BoundaryBatch& b, const lbm_pop* __restrict__ f_src, const LbmParams& p,
                     const long long n, const int x, const int y, const int z, const long long at) {
    const int j = b.count++;
    const long long k = p.boundary_index[n];
    const float* q_links = (p.interpolated && k >= 0) ? p.link_q + 18 * k : nullptr;
    const float* a = k >= 0 ? p.slot_area + 3 * k : nullptr;
    const float* wall = k >= 0 ? p.slot_wall + LBM_WALL_FIELDS * k : nullptr;
    float f[19];
    b.force[j][0] = b.force[j][1] = b.force[j][2] = 0.0f;
    b.modelled[j] = lbm_pull_boundary_cell<kCollision, kLayout>(f_src, q_links, a, wall, p, n, k, x, y, z, f,
                                                                b.force[j], b.friction[j]);
#define LBM_TO_BATCH(q, cx, cy, cz, w) b.f[q][j] = f[q];
    D3Q19_LINKS(LBM_TO_BATCH)
#undef LBM_TO_BATCH
    b.at[j] = at;
    b.slot[j] = k;
    b.tau[j] = lbm_cell_tau(p, x, n);
}

// The collision of lane j of a batch's populations lanes[19][kBatch] at tau, in place; wall, if
// not null, receives its wall state. (Its local arrays are declared in this inlined function,
// not in the simd loop's body: g++ 12 does not vectorize a loop whose body declares them.)
template <int kCollision, bool kForce>
__forceinline__ void collide_lane(float (*lanes)[kBatch], const LbmParams& p, const float tau, const int j,
                                  LbmWallState* wall) {
    float f[19];
#define LBM_FROM_BATCH(q, cx, cy, cz, w) f[q] = lanes[q][j];
    D3Q19_LINKS(LBM_FROM_BATCH)
#undef LBM_FROM_BATCH
    lbm_collide<kCollision>(f, p, tau, kForce, wall);
#define LBM_TO_BATCH(q, cx, cy, cz, w) lanes[q][j] = f[q];
    D3Q19_LINKS(LBM_TO_BATCH)
#undef LBM_TO_BATCH
}

// The collision of batch entry j, in place, and its wall state.
template <int kCollision, bool kForce>
__forceinline__ void collide_batch_entry(BoundaryBatch& b, const LbmParams& p, const int j) {
    LbmWallState wall;
    collide_lane<kCollision, kForce>(b.f, p, b.tau[j], j, &wall);
    b.pressure[j] = wall.pressure;
    LBM_UNROLL
    for (int i = 0; i < 6; ++i) b.sigma[i][j] = wall.sigma[i];
}

// A collided population into a batch's store: the grid's storage, or the float side array of
// in-place streaming's set-aside cells.
__forceinline__ void put_population(lbm_pop* dst, const float value) { *dst = lbm_pop_store(value); }
#if LBM_STORAGE != LBM_STORAGE_FP32
__forceinline__ void put_population(float* dst, const float value) { *dst = value; }
#endif

// The batch's collisions, then each entry stored at dst[q stride + at] (Dst: lbm_pop or float)
// and its slot's report.
template <int kCollision, bool kForce, class Dst>
void collide_batch(BoundaryBatch& b, Dst* __restrict__ dst, const long long stride, const LbmParams& p) {
    const int m = b.count;
#pragma omp simd
    for (int j = 0; j < m; ++j) collide_batch_entry<kCollision, kForce>(b, p, j);
    for (int j = 0; j < m; ++j) {
        const long long at = b.at[j];
#define LBM_STORE_BATCH(q, cx, cy, cz, w) put_population(dst + q * stride + at, b.f[q][j]);
        D3Q19_LINKS(LBM_STORE_BATCH)
#undef LBM_STORE_BATCH
        if (b.slot[j] >= 0) {
            LbmWallState wall;
            wall.pressure = b.pressure[j];
            for (int i = 0; i < 6; ++i) wall.sigma[i] = b.sigma[i][j];
            lbm_report_slot(p, b.slot[j], b.force[j], wall, b.modelled[j], b.friction[j]);
        }
    }
    b.count = 0;
}

template <int kCollision, class Dst>
void flush_batch(BoundaryBatch& b, Dst* __restrict__ dst, const long long stride, const LbmParams& p) {
    if (p.has_force)
        collide_batch<kCollision, true>(b, dst, stride, p);
    else
        collide_batch<kCollision, false>(b, dst, stride, p);
}

// Inlet or outflow cells gathered for one vectorized loop: their inner neighbours' populations,
// then their own. One cell per row end, so a row alone would give them no vector loop; their two
// equilibria (the outflow's) per cell took 7% of the car's step one by one (docs/performance.md).
struct OpenBatch {
    float f[19][kBatch];  // the inner neighbour's populations, then the cell's
    float drho[kBatch];   // an inlet's density state (p.inlet_drho)
    float u_inlet[kBatch];
    long long at[kBatch];  // where the entry is stored, as BoundaryBatch's
    long long inlet[kBatch];
    int count;
};

// Open cell n at (x, y, z) (an inlet where inlet >= 0, its index in p.inlet_drho) into its batch,
// its inner neighbour read from f_src in the layout kLayout (lbm_post_index); `at` as
// pull_into_batch's.
template <int kLayout = LBM_LAYOUT_PULL>
__forceinline__ void push_open(OpenBatch& b, const lbm_pop* __restrict__ f_src, const LbmParams& p, const long long n,
                               const int x, const int y, const int z, const long long inlet, const long long at) {
    const int j = b.count++;
    const int x_nb = inlet >= 0 ? x + 1 : x - 1;
    const long long nb = inlet >= 0 ? n + 1 : n - 1;
#define LBM_TO_OPEN(q, cx, cy, cz, w) \
    b.f[q][j] = lbm_pop_load(f_src[lbm_post_index<kLayout>(p, q, cx, cy, cz, nb, x_nb, y, z)]);
    D3Q19_LINKS(LBM_TO_OPEN)
#undef LBM_TO_OPEN
    b.at[j] = at;
    b.inlet[j] = inlet;
    if (inlet >= 0) {
        b.drho[j] = p.inlet_drho[inlet];
        b.u_inlet[j] = p.u_inlet[inlet];
    }
}

// Entry j of a batch of inlets (kInlet) or outflows, in place. (Its local arrays are declared
// here, not in the simd loop's body, as collide_batch_entry's.)
template <int kCollision, bool kInlet>
__forceinline__ void open_entry(OpenBatch& b, const LbmParams& p, const int j) {
    float f_nb[19], f[19];
#define LBM_FROM_OPEN(q, cx, cy, cz, w) f_nb[q] = b.f[q][j];
    D3Q19_LINKS(LBM_FROM_OPEN)
#undef LBM_FROM_OPEN
    if (kInlet)
        lbm_inlet_populations<kCollision>(f_nb, b.u_inlet[j], p.inlet_relax, &b.drho[j], f);
    else
        lbm_outflow_populations<kCollision>(f_nb, f);
#define LBM_BACK_TO_OPEN(q, cx, cy, cz, w) b.f[q][j] = f[q];
    D3Q19_LINKS(LBM_BACK_TO_OPEN)
#undef LBM_BACK_TO_OPEN
}

// The batch's entries, each stored at dst[q stride + at] as collide_batch's.
template <int kCollision, bool kInlet, class Dst>
void flush_open(OpenBatch& b, Dst* __restrict__ dst, const long long stride, const LbmParams& p) {
    const int m = b.count;
#pragma omp simd
    for (int j = 0; j < m; ++j) open_entry<kCollision, kInlet>(b, p, j);
    for (int j = 0; j < m; ++j) {
#define LBM_STORE_OPEN_BATCH(q, cx, cy, cz, w) put_population(dst + q * stride + b.at[j], b.f[q][j]);
        D3Q19_LINKS(LBM_STORE_OPEN_BATCH)
#undef LBM_STORE_OPEN_BATCH
        if (kInlet) p.inlet_drho[b.inlet[j]] = b.drho[j];
    }
    b.count = 0;
}

// Denormal floats flushed to zero for the step's duration, in the calling thread (the caller's
// mode comes back after). In a fluid at rest the velocities are of round-off size, and their
// products in the entropic collision's projection fall below 1e-38, where every x86
// operation on them takes a microcode assist: the entropic LES box nearly at rest ran 135-137 ns
// per cell against 15.6-16.1 flushed (benchmarks/collision_cost.py; docs/performance.md). Flushing changes values only below
// 1.2e-38; the GPU (without -ftz) computes them at full speed and rounds them as IEEE.
struct FlushDenormals {
#if defined(__SSE__)
    unsigned int saved = _mm_getcsr();
    FlushDenormals() { _mm_setcsr(saved | 0x8040); }  // FTZ (bit 15) and DAZ (bit 6)
    ~FlushDenormals() { _mm_setcsr(saved); }
#endif
};

// The rows a thread takes at a time. Rows next to the body or a wall cost several times a bulk
// row, and they cluster (the road, the body): threads take contiguous blocks of rows, 16 blocks a
// thread, as they come free. A static split left one thread waiting for a quarter of the car's
// step; blocks of a few rows broke the bulk's sequential streams (docs/performance.md).
inline long long row_block(const LbmParams& p) {
    return (long long)p.ny * p.nz / (16LL * omp_get_max_threads()) + 1;
}

}  // namespace
