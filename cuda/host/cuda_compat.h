// The few CUDA words the device code (../*.cuh) uses, defined for the host compiler, so the CPU
// shells compile the very same source the GPU runs.
#pragma once

#include <math.h>
#include <string.h>
#if defined(__F16C__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

#define __device__
#define __forceinline__ inline __attribute__((always_inline))
#define __constant__ static const
#define LBM_UNROLL _Pragma("GCC unroll 36")
#define LBM_NO_UNROLL _Pragma("GCC unroll 1")

inline int atomicAdd(int* address, const int value) {
    return __atomic_fetch_add(address, value, __ATOMIC_RELAXED);
}

inline int atomicMin(int* address, const int value) {
    int old = __atomic_load_n(address, __ATOMIC_RELAXED);
    while (value < old &&
           !__atomic_compare_exchange_n(address, &old, value, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    return old;
}

inline int __float_as_int(const float value) {
    int bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
}

inline unsigned int __float_as_uint(const float value) {
    unsigned int bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
}

inline float __uint_as_float(const unsigned int bits) {
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

// binary16 conversions of the 16-bit population storage (lbm_lattice.cuh), rounding to nearest
// even: F16C's instructions where the target has them, else the compiler's _Float16.
#if defined(__F16C__)
inline float lbm_half_bits_to_float(const unsigned short h) { return _cvtsh_ss(h); }
inline unsigned short lbm_float_to_half_bits(const float v) { return _cvtss_sh(v, _MM_FROUND_TO_NEAREST_INT); }
#else
inline float lbm_half_bits_to_float(const unsigned short h) {
    _Float16 v;
    memcpy(&v, &h, sizeof v);
    return (float)v;
}
inline unsigned short lbm_float_to_half_bits(const float v) {
    const _Float16 h = (_Float16)v;
    unsigned short bits;
    memcpy(&bits, &h, sizeof bits);
    return bits;
}
#endif
