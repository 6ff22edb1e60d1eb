/*
 * user_names.cu - C++ kernels whose demangled names are long (a template
 * argument nested 30 deep, over 1024 characters) or begin with an anonymous
 * namespace, for kernel selection by name: the source of user_names.ll
 * (regenerate with):
 *
 *   clang-19 -x cuda --cuda-device-only -nocudainc -nocudalib \
 *            --cuda-gpu-arch=sm_90 -O1 -emit-llvm -S user_names.cu \
 *            -o user_names.ll
 */
#include <__clang_cuda_builtin_vars.h>

template <typename T> struct a_rather_long_wrapper_name_for_names {};

template <typename T, int D> struct deep {
  typedef a_rather_long_wrapper_name_for_names<typename deep<T, D - 1>::type>
      type;
};
template <typename T> struct deep<T, 0> {
  typedef T type;
};

template <typename Tag, int N>
__attribute__((global)) void longk(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = x[i] * N;
}

template __attribute__((global)) void longk<deep<int, 30>::type, 1>(float *,
                                                                   int);

namespace {
template <typename T> __attribute__((global)) void shift(T *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = x[i] + (T)1;
}

template __attribute__((global)) void shift<float>(float *, int);
} // namespace
