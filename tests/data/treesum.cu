/*
 * treesum.cu - a user's shared-memory tree reductions, for the shfl pass's
 * GPU test (the source of treesum.ll, kept in the repository; regenerate
 * with):
 *
 *   clang-19 -x cuda --cuda-device-only -nocudainc -nocudalib \
 *            --cuda-gpu-arch=sm_90 -O3 -emit-llvm -S treesum.cu -o treesum.ll
 *
 * Each block sums its blockDim.x elements of x (0 past n) into
 * partial[blockIdx.x]; blockDim.x a power of two. tree_*: the loop with a
 * barrier per step; tail_*: barriers down to 64 threads, then the classic
 * warp-unrolled tail through a volatile pointer. With the block fixed the
 * loops unroll and the shfl pass turns the steps within the first warp
 * into shuffles.
 */
#include <__clang_cuda_builtin_vars.h>

#define KS_GLOBAL extern "C" __attribute__((global))
#define KS_SHARED __attribute__((shared))
#define SYNC() __syncthreads()

template <typename T> __attribute__((device)) void load(const T *x, T *sh, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  sh[threadIdx.x] = i < n ? x[i] : T(0);
  SYNC();
}

template <typename T>
__attribute__((device)) void tree(const T *x, T *partial, int n, T *sh) {
  load(x, sh, n);
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s)
      sh[threadIdx.x] += sh[threadIdx.x + s];
    SYNC();
  }
  if (threadIdx.x == 0)
    partial[blockIdx.x] = sh[0];
}

template <typename T>
__attribute__((device)) void tail(const T *x, T *partial, int n, T *sh) {
  load(x, sh, n);
  unsigned tid = threadIdx.x;
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s)
      sh[tid] += sh[tid + s];
    SYNC();
  }
  if (tid < 32) {
    volatile T *v = sh;
    if (blockDim.x >= 64)
      v[tid] += v[tid + 32];
    v[tid] += v[tid + 16];
    v[tid] += v[tid + 8];
    v[tid] += v[tid + 4];
    v[tid] += v[tid + 2];
    v[tid] += v[tid + 1];
  }
  if (tid == 0)
    partial[blockIdx.x] = sh[0];
}

KS_GLOBAL void tree_f32(const float *x, float *partial, int n) {
  KS_SHARED static float sh[1024];
  tree(x, partial, n, sh);
}
KS_GLOBAL void tree_i32(const int *x, int *partial, int n) {
  KS_SHARED static int sh[1024];
  tree(x, partial, n, sh);
}
KS_GLOBAL void tail_f32(const float *x, float *partial, int n) {
  KS_SHARED static float sh[1024];
  tail(x, partial, n, sh);
}
KS_GLOBAL void tail_i32(const int *x, int *partial, int n) {
  KS_SHARED static int sh[1024];
  tail(x, partial, n, sh);
}
