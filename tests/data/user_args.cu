/*
 * user_args.cu - a user's kernels with no kspec markings, compiled keeping
 * the names of values, the source of user_args.ll (regenerate with):
 *
 *   clang-19 -x cuda --cuda-device-only -nocudainc -nocudalib \
 *            --cuda-gpu-arch=sm_90 -O1 -fno-discard-value-names \
 *            -emit-llvm -S user_args.cu -o user_args.ll
 *
 * scaled_sum: a size and a trip count a user would like to fold. kinds:
 * one argument of every scalar type kspec binds (clang passes bool,
 * unsigned char and unsigned short zeroext, signed char signext).
 */
#include <__clang_cuda_builtin_vars.h>

extern "C" __attribute__((global)) void scaled_sum(int n, int taps, float a,
                                                    const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float s = 0.0f;
  for (int k = 0; k < taps; k++)
    s += x[i + k];
  y[i] = a * s;
}

extern "C" __attribute__((global)) void
kinds(signed char c, unsigned short us, bool flag, _Float16 h,
      unsigned char uc, long long big, unsigned long long ubig, double d,
      float *out) {
  out[0] = c;
  out[1] = us;
  out[2] = flag ? 1.0f : 2.0f;
  out[3] = (float)h;
  out[4] = uc;
  out[5] = (float)big;
  out[6] = (float)ubig;
  out[7] = (float)d;
}
