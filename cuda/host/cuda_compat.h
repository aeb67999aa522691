// The few CUDA words the device code (../*.cuh) uses, defined for the host compiler, so the CPU
// shells compile the very same source the GPU runs.
#pragma once

#include <math.h>
#include <string.h>

#define __device__
#define __forceinline__ inline __attribute__((always_inline))
#define __constant__ static const
#define LBM_UNROLL _Pragma("GCC unroll 36")

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
