#pragma once
// POREPLAB_HD marks code that runs both on the host and in CUDA device code.
#if defined(__CUDACC__)
#define POREPLAB_HD __host__ __device__ __forceinline__
#define POREPLAB_HD_NOINLINE __host__ __device__
#else
#define POREPLAB_HD inline
#define POREPLAB_HD_NOINLINE
#endif

#if defined(__CUDA_ARCH__)
#define POREPLAB_UNROLL _Pragma("unroll")
#elif defined(__CUDACC__)
// nvcc's host pass rejects GCC's pragma and forwards its own to g++, which ignores it.
#define POREPLAB_UNROLL
#elif defined(__clang__)
#define POREPLAB_UNROLL _Pragma("clang loop unroll(full)")
#elif defined(__GNUC__)
#define POREPLAB_UNROLL _Pragma("GCC unroll 64")
#else
#define POREPLAB_UNROLL
#endif
