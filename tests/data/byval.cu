/*
 * byval.cu - a user's kernels that take structs by value (the source of
 * byval.ll, kept in the repository; regenerate with):
 *
 *   clang-19 -x cuda --cuda-device-only -nocudainc -nocudalib \
 *            --cuda-gpu-arch=sm_90 -O3 -emit-llvm -S byval.cu -o byval.ll
 *
 * taps_read only reads its struct, at an index known only at run time:
 * it is read where the driver put it, with no copy. taps_written writes
 * its struct (each thread its own copy), so it needs a copy in local
 * memory. span_scale reads pointers out of its struct. taps_call hands
 * its struct by value to a function that is not inlined.
 */
#include <__clang_cuda_builtin_vars.h>

struct taps {
  float w[8];
  float bias;
  int mask;
};

struct span {
  const float *x;
  float *y;
  int n;
  float scale;
};

static __attribute__((device)) int index(void) {
  return blockIdx.x * blockDim.x + threadIdx.x;
}

extern "C" __attribute__((global)) void taps_read(struct taps t,
                                                   const float *x, float *y,
                                                   int n) {
  int i = index();
  if (i < n)
    y[i] = x[i] * t.w[i & t.mask] + t.bias;
}

extern "C" __attribute__((global)) void taps_written(struct taps t,
                                                      const float *x,
                                                      float *y, int n) {
  int i = index();
  if (i >= n)
    return;
  t.w[i & t.mask] += x[i];
  float s = t.bias;
  for (int k = 0; k < 8; k++)
    s += t.w[k] * (float)(k + 1);
  y[i] = s;
}

extern "C" __attribute__((global)) void span_scale(struct span s) {
  int i = index();
  if (i < s.n)
    s.y[i] = s.x[i] * s.scale;
}

__attribute__((device, noinline)) float tap(struct taps t, int i) {
  t.w[i & 7] *= 2.0f;
  return t.w[(i + 1) & t.mask] + t.w[i & 7];
}

extern "C" __attribute__((global)) void taps_call(struct taps t,
                                                   const float *x, float *y,
                                                   int n) {
  int i = index();
  if (i < n)
    y[i] = x[i] + tap(t, i);
}
