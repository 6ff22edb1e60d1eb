/*
 * user_tmpl.cu - a user's C++ kernel templates, instantiated on a type and
 * a size, compiled as clang does by default (no value names): the source of
 * user_tmpl.ll (regenerate with):
 *
 *   clang-19 -x cuda --cuda-device-only -nocudainc -nocudalib \
 *            --cuda-gpu-arch=sm_90 -O1 -emit-llvm -S user_tmpl.cu \
 *            -o user_tmpl.ll
 *
 * sizes: a plain C++ kernel whose unsigned int and unsigned long long
 * arguments look like any i32 and i64 in the IR; only its symbol
 * (_Z5sizesjyxiPf) says which are unsigned.
 */
#include <__clang_cuda_builtin_vars.h>

template <typename T, int N>
__attribute__((global)) void scale(T *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  T v = x[i];
  for (int k = 0; k < N; k++)
    v = v * (T)3 + (T)k;
  x[i] = v;
}

template <int B>
__attribute__((global)) void blockscale(const float *x, float *out,
                                      unsigned n) {
  unsigned i = blockIdx.x * B + threadIdx.x;
  if (i < n)
    out[i] = x[i] * B;
}

template __attribute__((global)) void scale<float, 4>(float *, int);
template __attribute__((global)) void scale<int, 4>(int *, int);
template __attribute__((global)) void blockscale<256>(const float *, float *,
                                                    unsigned);

__attribute__((global)) void sizes(const unsigned count,
                                   unsigned long long total, long long offset,
                                   int k, float *out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count)
    return;
  out[i] = (float)(total / (i + 1ull)) + (float)(offset + k);
}
