/*
 * globals.cu - a user's kernels with module globals, the source of
 * globals.ll (kept in the repository, regenerate with):
 *
 *   clang-19 -x cuda --cuda-device-only -nocudainc -nocudalib \
 *            --cuda-gpu-arch=sm_90 -O3 -emit-llvm -S globals.cu -o globals.ll
 *
 * A 3x3 filter whose taps are a __constant__ table, a __constant__ struct
 * of coefficients, a __device__ counter updated atomically, a __device__
 * table one kernel reads and another writes, and a __device__ array
 * written through a helper that is not inlined.
 */
#include <__clang_cuda_builtin_vars.h>

#define __constant__ __attribute__((constant))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))

struct coeffs {
  float scale;
  int shift;
  float bias[4];
};

__constant__ float taps[9] = {0.0625f, 0.125f, 0.0625f, 0.125f, 0.25f,
                              0.125f,  0.0625f, 0.125f, 0.0625f};
__constant__ coeffs co;
__device__ unsigned counter;
__device__ int lut[8] = {1, 2, 3, 4, 5, 6, 7, 8};
__device__ float scratch[32];

extern "C" __global__ void conv3x3(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1)
    return;
  float s = 0.0f;
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++)
      s += taps[(dy + 1) * 3 + dx + 1] * in[(y + dy) * w + x + dx];
  s = s * co.scale + co.bias[x & 3];
  out[y * w + x] = s;
  if (s > 0.5f)
    __atomic_fetch_add(&counter, 1u, __ATOMIC_RELAXED);
}

__device__ __attribute__((noinline)) void note(int i, float v) {
  scratch[i & 31] = v;
}

extern "C" __global__ void lookup(const int *idx, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = lut[idx[i] & 7] + lut[0] + lut[7];
    note(i, (float)out[i]);
  }
}

extern "C" __global__ void reset(int v) { lut[threadIdx.x & 7] = v; }
