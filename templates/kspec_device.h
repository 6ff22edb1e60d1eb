/*
 * kspec_device.h - the kspec template dialect.
 *
 * A template is a CUDA kernel compiled by clang with no CUDA toolkit headers:
 *
 *   clang-19 -x cuda --cuda-device-only -nocudainc -nocudalib
 *            --cuda-gpu-arch=sm_90 -O3 -Xclang -disable-llvm-passes
 *            -fno-discard-value-names -include kspec_device.h -emit-llvm -c
 *
 * (kspec optimizes after binding, so clang must not). Kernels are declared
 * with KS_KERNEL so their names stay unmangled. A specialization parameter is
 * an ordinary scalar kernel argument named in a KS_PARAM marking on the
 * kernel; kspec folds it to a constant when it is bound and leaves it an
 * argument otherwise, so the generic and specialized kernels are launched
 * alike:
 *
 *   KS_KERNEL KS_PARAM(FILTER_LEN, 32, 1, 64)
 *   void conv1d(const float *x, const float *f, float *y, int n,
 *               int FILTER_LEN) { ... }
 *
 * KS_PARAM(NAME, DEFAULT, MIN, MAX): NAME is the argument's name, the range
 * is inclusive. KS_PARAM_BLOCK_X / KS_PARAM_BLOCK_XY also declare that the
 * kernel must be launched with blockDim.x (and .y) equal to the value, so
 * binding the parameter fixes the block size. KS_DOC("...") gives a line of
 * description for `kspec info`.
 */
#ifndef KSPEC_DEVICE_H
#define KSPEC_DEVICE_H

#include <__clang_cuda_builtin_vars.h>

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __restrict__ __restrict

#define KS_KERNEL extern "C" __global__

#define KS_STR_(x) #x
#define KS_STR(x) KS_STR_(x)
#define KS_PARAM(name, def, lo, hi)                                            \
  __attribute__((annotate("kspec.param " #name " " #def " " #lo " " #hi)))
#define KS_PARAM_BLOCK_X(name, def, lo, hi)                                    \
  __attribute__((                                                              \
      annotate("kspec.param " #name " " #def " " #lo " " #hi " block_x")))
#define KS_PARAM_BLOCK_XY(name, def, lo, hi)                                   \
  __attribute__((                                                              \
      annotate("kspec.param " #name " " #def " " #lo " " #hi " block_xy")))
#define KS_DOC(text) __attribute__((annotate("kspec.doc " text)))

/* Barriers, atomics and warp operations, through clang's NVPTX builtins. */
static __device__ __forceinline__ void __syncthreads_ks(void) {
  __nvvm_bar_sync(0);
}
#define __syncthreads() __syncthreads_ks()

static __device__ __forceinline__ int atomicAdd(int *p, int v) {
  return __nvvm_atom_add_gen_i(p, v);
}
static __device__ __forceinline__ unsigned atomicAdd(unsigned *p, unsigned v) {
  return (unsigned)__nvvm_atom_add_gen_i((int *)p, (int)v);
}
static __device__ __forceinline__ float atomicAdd(float *p, float v) {
  return __nvvm_atom_add_gen_f(p, v);
}
static __device__ __forceinline__ float __shfl_down_sync(unsigned mask, float v,
                                                         int delta) {
  return __nvvm_shfl_sync_down_f32(mask, v, delta, 0x1f);
}
static __device__ __forceinline__ int __shfl_down_sync(unsigned mask, int v,
                                                       int delta) {
  return __nvvm_shfl_sync_down_i32(mask, v, delta, 0x1f);
}
static __device__ __forceinline__ float __ldg(const float *p) {
  return __nvvm_ldg_f(p);
}

static __device__ __forceinline__ int ks_min(int a, int b) {
  return a < b ? a : b;
}
static __device__ __forceinline__ int ks_max(int a, int b) {
  return a > b ? a : b;
}
static __device__ __forceinline__ int ks_clamp(int v, int lo, int hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

#endif /* KSPEC_DEVICE_H */
