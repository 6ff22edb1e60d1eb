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
 *
 * Beyond the markings, the dialect is the device side of CUDA that kernels
 * use, in one header that needs no toolkit:
 *  - math: CUDA's float and double math API (expf, sinf, powf, erff, ...,
 *    their double forms, C++ float overloads such as sqrt(float)) and the
 *    intrinsics (__expf, __fdividef, __saturatef, __fmaf_rn, ...), from
 *    clang's own wrappers (__clang_cuda_math.h, __clang_cuda_device_
 *    functions.h): they call libdevice's __nv_* functions, which kspec links;
 *  - types: char1..4 to double1..4 with make_*, dim3, uint3; __half,
 *    __half2, __nv_bfloat16, __nv_bfloat162 (clang's _Float16 and __bf16)
 *    with CUDA's conversions and arithmetic;
 *  - warp: __shfl*_sync for every type, votes, __activemask, __syncwarp,
 *    __match_any/all_sync, __reduce_*_sync;
 *  - atomics: atomicAdd .. atomicXor on global and shared memory, with the
 *    _block and _system scopes;
 *  - the rest: fences, __syncthreads_count/_and/_or, clock64,
 *    __globaltimer, bit functions (__popc, __clz, __ffs, __brev,
 *    __byte_perm, __funnelshift_*), cache-hinted loads and stores (__ldg,
 *    __ldcs, __ldcg, __stcs, __stcg, ...), __nanosleep and grid-wide sync
 *    for cooperative launches (cooperative_groups::this_grid().sync()).
 * Bit functions, atomics and shuffles are LLVM instructions or NVVM
 * intrinsics, not libdevice calls: a kernel that uses no math needs no
 * libdevice.
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
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))

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

#define KS_DEV static __device__ __forceinline__

typedef __SIZE_TYPE__ size_t;

/* ---- vector types ---------------------------------------------------------
 * As CUDA 12's vector_types.h lays them out (the same sizes and alignments,
 * so buffers of them are shared with host code), with their make_*
 * functions. */
#define KS_VEC(T, name, a1, a2, a4)                                            \
  struct __align__(a1) name##1 { T x; };                                       \
  struct __align__(a2) name##2 { T x, y; };                                    \
  struct name##3 { T x, y, z; };                                               \
  struct __align__(a4) name##4 { T x, y, z, w; };                              \
  KS_DEV name##1 make_##name##1(T x) { return {x}; }                           \
  KS_DEV name##2 make_##name##2(T x, T y) { return {x, y}; }                   \
  KS_DEV name##3 make_##name##3(T x, T y, T z) { return {x, y, z}; }           \
  KS_DEV name##4 make_##name##4(T x, T y, T z, T w) { return {x, y, z, w}; }
KS_VEC(signed char, char, 1, 2, 4)
KS_VEC(unsigned char, uchar, 1, 2, 4)
KS_VEC(short, short, 2, 4, 8)
KS_VEC(unsigned short, ushort, 2, 4, 8)
KS_VEC(int, int, 4, 8, 16)
KS_VEC(unsigned int, uint, 4, 8, 16)
KS_VEC(long, long, 8, 16, 16)
KS_VEC(unsigned long, ulong, 8, 16, 16)
KS_VEC(long long, longlong, 8, 16, 16)
KS_VEC(unsigned long long, ulonglong, 8, 16, 16)
KS_VEC(float, float, 4, 8, 16)
KS_VEC(double, double, 8, 16, 16)
#undef KS_VEC

struct dim3 {
  unsigned int x, y, z;
  __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1,
                            unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __device__ constexpr operator uint3() const { return {x, y, z}; }
};

/* threadIdx and the others convert to dim3 and uint3, as in CUDA (clang
 * declares the conversions and leaves their bodies to the headers). */
#define KS_BUILTIN_CONV(T)                                                     \
  __device__ inline T::operator dim3() const { return dim3(x, y, z); }         \
  __device__ inline T::operator uint3() const { return {x, y, z}; }
KS_BUILTIN_CONV(__cuda_builtin_threadIdx_t)
KS_BUILTIN_CONV(__cuda_builtin_blockIdx_t)
KS_BUILTIN_CONV(__cuda_builtin_blockDim_t)
KS_BUILTIN_CONV(__cuda_builtin_gridDim_t)
#undef KS_BUILTIN_CONV

/* ---- clang's CUDA wrappers ------------------------------------------------
 * clang ships the device side of CUDA's math and intrinsics API as headers
 * of its own. They test CUDA_VERSION, which only a toolkit defines: 9000
 * selects the libdevice forms of the SIMD-in-a-word functions (__vadd2 ...)
 * over inline asm. The functions renamed here are defined below without
 * libdevice, as LLVM instructions and NVVM intrinsics: the bit functions,
 * the bit casts and min and max of integers, which no math flag changes.
 * */
/* What clang's math wrapper takes from <limits.h> and <math.h>, for its
 * parsing only: a kernel's own includes of those define them again. */
#pragma push_macro("INT_MAX")
#pragma push_macro("INT_MIN")
#pragma push_macro("HUGE_VAL")
#pragma push_macro("HUGE_VALF")
#undef INT_MAX
#undef INT_MIN
#undef HUGE_VAL
#undef HUGE_VALF
#define INT_MAX __INT_MAX__
#define INT_MIN (-__INT_MAX__ - 1)
#define HUGE_VAL __builtin_huge_val()
#define HUGE_VALF __builtin_huge_valf()
#pragma push_macro("CUDA_VERSION")
#undef CUDA_VERSION
#define CUDA_VERSION 9000
#define __popc __ks_clang_popc
#define __popcll __ks_clang_popcll
#define __clz __ks_clang_clz
#define __clzll __ks_clang_clzll
#define __ffs __ks_clang_ffs
#define __ffsll __ks_clang_ffsll
#define __brev __ks_clang_brev
#define __brevll __ks_clang_brevll
#define __byte_perm __ks_clang_byte_perm
#define __mulhi __ks_clang_mulhi
#define __umulhi __ks_clang_umulhi
#define __mul64hi __ks_clang_mul64hi
#define __umul64hi __ks_clang_umul64hi
#define __float_as_int __ks_clang_float_as_int
#define __int_as_float __ks_clang_int_as_float
#define __float_as_uint __ks_clang_float_as_uint
#define __uint_as_float __ks_clang_uint_as_float
#define __double_as_longlong __ks_clang_double_as_longlong
#define __longlong_as_double __ks_clang_longlong_as_double
#define min __ks_clang_min
#define max __ks_clang_max
/* libdevice's declarations first, then what calls them */
/* clang-format off */
#include <__clang_cuda_libdevice_declares.h>
#include <__clang_cuda_device_functions.h>
#include <__clang_cuda_math.h>
/* clang-format on */
#undef __popc
#undef __popcll
#undef __clz
#undef __clzll
#undef __ffs
#undef __ffsll
#undef __brev
#undef __brevll
#undef __byte_perm
#undef __mulhi
#undef __umulhi
#undef __mul64hi
#undef __umul64hi
#undef __float_as_int
#undef __int_as_float
#undef __float_as_uint
#undef __uint_as_float
#undef __double_as_longlong
#undef __longlong_as_double
#undef min
#undef max
#pragma pop_macro("INT_MAX")
#pragma pop_macro("INT_MIN")
#pragma pop_macro("HUGE_VAL")
#pragma pop_macro("HUGE_VALF")

/* The intrinsics header: shuffles, votes, __syncwarp, __activemask and
 * __ldg (scalars and vectors). Seen as sm_60 by it: its sm_70 part includes
 * a toolkit header, and its sm_80 __reduce_*_sync pass the mask and the
 * value to the builtin in the wrong order before clang 21
 * (llvm/llvm-project#131415); both are defined below instead, as are the
 * funnel shifts, which it writes in inline asm. 9020: the *_sync forms,
 * and __activemask as activemask. */
#undef CUDA_VERSION
#define CUDA_VERSION 9020
#pragma push_macro("__CUDA_ARCH__")
#undef __CUDA_ARCH__
#define __CUDA_ARCH__ 600
#define __funnelshift_l __ks_clang_funnelshift_l
#define __funnelshift_lc __ks_clang_funnelshift_lc
#define __funnelshift_r __ks_clang_funnelshift_r
#define __funnelshift_rc __ks_clang_funnelshift_rc
#include <__clang_cuda_intrinsics.h>
#undef __funnelshift_l
#undef __funnelshift_lc
#undef __funnelshift_r
#undef __funnelshift_rc
#pragma pop_macro("__CUDA_ARCH__")
#pragma pop_macro("CUDA_VERSION")

/* ---- barriers and fences --------------------------------------------------
 * __syncthreads_count/_and/_or and __threadfence(_block, _system) come from
 * clang's device functions. */
KS_DEV void __syncthreads_ks(void) { __nvvm_bar_sync(0); }
#define __syncthreads() __syncthreads_ks()

/* ---- bit functions and bit casts -------------------------------------- */
KS_DEV int __popc(unsigned int x) { return __builtin_popcount(x); }
KS_DEV int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
KS_DEV int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
KS_DEV int __clzll(long long x) {
  return x ? __builtin_clzll((unsigned long long)x) : 64;
}
KS_DEV int __ffs(int x) { return __builtin_ffs(x); }
KS_DEV int __ffsll(long long x) { return __builtin_ffsll(x); }
KS_DEV unsigned int __brev(unsigned int x) { return __builtin_bitreverse32(x); }
KS_DEV unsigned long long __brevll(unsigned long long x) {
  return __builtin_bitreverse64(x);
}
KS_DEV unsigned int __byte_perm(unsigned int x, unsigned int y,
                                unsigned int s) {
  return __nvvm_prmt(x, y, s);
}
KS_DEV int __mulhi(int x, int y) { return __nvvm_mulhi_i(x, y); }
KS_DEV unsigned int __umulhi(unsigned int x, unsigned int y) {
  return __nvvm_mulhi_ui(x, y);
}
KS_DEV long long __mul64hi(long long x, long long y) {
  return __nvvm_mulhi_ll(x, y);
}
KS_DEV unsigned long long __umul64hi(unsigned long long x,
                                     unsigned long long y) {
  return __nvvm_mulhi_ull(x, y);
}
/* The funnel shifts: hi:lo shifted by s mod 32 (wrap) or by min(s, 32)
 * (clamp), as LLVM's llvm.fshl/fshr, called through declarations (clang 19
 * has no builtin for them). */
extern "C" __device__ unsigned int
__ks_fshl(unsigned int, unsigned int, unsigned int) __asm__("llvm.fshl.i32");
extern "C" __device__ unsigned int
__ks_fshr(unsigned int, unsigned int, unsigned int) __asm__("llvm.fshr.i32");
KS_DEV unsigned int __funnelshift_l(unsigned int lo, unsigned int hi,
                                    unsigned int s) {
  return __ks_fshl(hi, lo, s);
}
KS_DEV unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi,
                                     unsigned int s) {
  return s >= 32 ? lo : __ks_fshl(hi, lo, s);
}
KS_DEV unsigned int __funnelshift_r(unsigned int lo, unsigned int hi,
                                    unsigned int s) {
  return __ks_fshr(hi, lo, s);
}
KS_DEV unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi,
                                     unsigned int s) {
  return s >= 32 ? hi : __ks_fshr(hi, lo, s);
}
KS_DEV int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
KS_DEV float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
KS_DEV unsigned int __float_as_uint(float x) {
  return __builtin_bit_cast(unsigned int, x);
}
KS_DEV float __uint_as_float(unsigned int x) {
  return __builtin_bit_cast(float, x);
}
KS_DEV long long __double_as_longlong(double x) {
  return __builtin_bit_cast(long long, x);
}
KS_DEV double __longlong_as_double(long long x) {
  return __builtin_bit_cast(double, x);
}

/* ---- time ------------------------------------------------------------ */
/* clock() and clock64() come from clang's device functions. */
KS_DEV unsigned long long __globaltimer(void) {
  return __nvvm_read_ptx_sreg_globaltimer();
}
KS_DEV void __nanosleep(unsigned int ns) { __nvvm_nanosleep(ns); } /* sm_70 */

/* ---- math: C++ overloads ----------------------------------------------
 * CUDA's math_functions.hpp gives C++ code float forms of the double
 * functions (sqrt(float) is sqrtf, not a double square root) and min/max
 * for every integer and floating type; clang's math wrapper has min and
 * max for int only (through libdevice). */
#define KS_F1(fn)                                                              \
  KS_DEV float fn(float x) { return fn##f(x); }
#define KS_F2(fn)                                                              \
  KS_DEV float fn(float x, float y) { return fn##f(x, y); }
/* clang-format off */
KS_F1(acos) KS_F1(acosh) KS_F1(asin) KS_F1(asinh) KS_F1(atan) KS_F1(atanh)
KS_F1(cbrt) KS_F1(ceil) KS_F1(cos) KS_F1(cosh) KS_F1(cospi) KS_F1(erf)
KS_F1(erfc) KS_F1(erfcinv) KS_F1(erfcx) KS_F1(erfinv) KS_F1(exp) KS_F1(exp10)
KS_F1(exp2) KS_F1(expm1) KS_F1(fabs) KS_F1(floor) KS_F1(lgamma) KS_F1(log)
KS_F1(log10) KS_F1(log1p) KS_F1(log2) KS_F1(logb) KS_F1(nearbyint)
KS_F1(normcdf) KS_F1(normcdfinv) KS_F1(rcbrt) KS_F1(rint) KS_F1(round)
KS_F1(rsqrt) KS_F1(sin) KS_F1(sinh) KS_F1(sinpi) KS_F1(sqrt) KS_F1(tan)
KS_F1(tanh) KS_F1(tgamma) KS_F1(trunc)
KS_F2(atan2) KS_F2(copysign) KS_F2(fdim) KS_F2(fmax) KS_F2(fmin) KS_F2(fmod)
KS_F2(hypot) KS_F2(nextafter) KS_F2(pow) KS_F2(remainder)
/* clang-format on */
#undef KS_F1
#undef KS_F2
                                                KS_DEV float abs(float x) {
  return fabsf(x);
}
KS_DEV double abs(double x) { return fabs(x); }
KS_DEV long long abs(long long x) { return llabs(x); }
KS_DEV long abs(long x) { return labs(x); }
KS_DEV float fma(float x, float y, float z) { return fmaf(x, y, z); }
KS_DEV float pow(float x, int n) { return powif(x, n); }
KS_DEV double pow(double x, int n) { return powi(x, n); }
KS_DEV float ldexp(float x, int e) { return ldexpf(x, e); }
KS_DEV float scalbn(float x, int e) { return scalbnf(x, e); }
KS_DEV float frexp(float x, int *e) { return frexpf(x, e); }
KS_DEV float modf(float x, float *i) { return modff(x, i); }
KS_DEV int ilogb(float x) { return ilogbf(x); }
KS_DEV void sincos(float x, float *s, float *c) { sincosf(x, s, c); }
KS_DEV void sincospi(float x, float *s, float *c) { sincospif(x, s, c); }
#define KS_CLASSIFY(T)                                                         \
  KS_DEV bool isnan(T x) { return __builtin_isnan(x); }                        \
  KS_DEV bool isinf(T x) { return __builtin_isinf(x); }                        \
  KS_DEV bool isfinite(T x) { return __builtin_isfinite(x); }                  \
  KS_DEV bool signbit(T x) { return __builtin_signbit(x); }
KS_CLASSIFY(float)
KS_CLASSIFY(double)
#undef KS_CLASSIFY

/* min and max: integers through LLVM's smin/umin (one instruction),
 * floats as fminf/fmin (NaN-ignoring, as CUDA's). Mixed signedness goes
 * unsigned, mixed precision double, as CUDA's overloads do. */
#define KS_MINMAX(T, U)                                                        \
  KS_DEV T min(T a, U b) { return (T)a < (T)b ? (T)a : (T)b; }                 \
  KS_DEV T max(T a, U b) { return (T)a > (T)b ? (T)a : (T)b; }
KS_MINMAX(int, int)
KS_MINMAX(unsigned int, unsigned int)
KS_MINMAX(long, long)
KS_MINMAX(unsigned long, unsigned long)
KS_MINMAX(long long, long long)
KS_MINMAX(unsigned long long, unsigned long long)
#undef KS_MINMAX
#define KS_MINMAX_MIXED(R, A, B)                                               \
  KS_DEV R min(A a, B b) { return min((R)a, (R)b); }                           \
  KS_DEV R max(A a, B b) { return max((R)a, (R)b); }
KS_MINMAX_MIXED(unsigned int, int, unsigned int)
KS_MINMAX_MIXED(unsigned int, unsigned int, int)
KS_MINMAX_MIXED(unsigned long, long, unsigned long)
KS_MINMAX_MIXED(unsigned long, unsigned long, long)
KS_MINMAX_MIXED(unsigned long long, long long, unsigned long long)
KS_MINMAX_MIXED(unsigned long long, unsigned long long, long long)
#undef KS_MINMAX_MIXED
KS_DEV float min(float a, float b) { return fminf(a, b); }
KS_DEV float max(float a, float b) { return fmaxf(a, b); }
KS_DEV double min(double a, double b) { return fmin(a, b); }
KS_DEV double max(double a, double b) { return fmax(a, b); }
KS_DEV double min(float a, double b) { return fmin((double)a, b); }
KS_DEV double max(float a, double b) { return fmax((double)a, b); }
KS_DEV double min(double a, float b) { return fmin(a, (double)b); }
KS_DEV double max(double a, float b) { return fmax(a, (double)b); }

/* ---- half precision and bfloat16 ----------------------------------------
 * __half is clang's _Float16 and __nv_bfloat16 its __bf16: the same 16
 * bits as CUDA's classes, but native types, so a kernel argument of these
 * types is a plain scalar (kspec can bind it) and arithmetic on them is
 * the GPU's (add.f16, fma.rn.f16x2). __half2 and __nv_bfloat162 are vectors
 * of two, with .x and .y as in CUDA. Operators on __nv_bfloat16 follow
 * clang's rules (computed in float, rounded once at the end of an
 * expression); __hadd, __hmul, ... round each operation, as CUDA's do. */
typedef _Float16 __half;
typedef __bf16 __nv_bfloat16;
typedef _Float16 __half2 __attribute__((ext_vector_type(2)));
typedef __bf16 __nv_bfloat162 __attribute__((ext_vector_type(2)));
typedef __half half;
typedef __half2 half2;
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

/* Conversions (round to nearest even unless named otherwise). */
KS_DEV __half __float2half(float f) { return (__half)f; }
KS_DEV __half __float2half_rn(float f) { return (__half)f; }
KS_DEV __half __double2half(double d) { return (__half)d; }
KS_DEV float __half2float(__half h) { return (float)h; }
KS_DEV __half __int2half_rn(int i) { return (__half)i; }
KS_DEV __half __uint2half_rn(unsigned int i) { return (__half)i; }
KS_DEV __half __short2half_rn(short i) { return (__half)i; }
KS_DEV int __half2int_rz(__half h) { return (int)h; }
KS_DEV int __half2int_rn(__half h) { return (int)__builtin_rintf((float)h); }
KS_DEV unsigned int __half2uint_rz(__half h) { return (unsigned int)h; }
KS_DEV short __half2short_rz(__half h) { return (short)h; }
KS_DEV short __half_as_short(__half h) { return __builtin_bit_cast(short, h); }
KS_DEV unsigned short __half_as_ushort(__half h) {
  return __builtin_bit_cast(unsigned short, h);
}
KS_DEV __half __short_as_half(short i) { return __builtin_bit_cast(__half, i); }
KS_DEV __half __ushort_as_half(unsigned short i) {
  return __builtin_bit_cast(__half, i);
}
KS_DEV __half2 make_half2(__half x, __half y) { return (__half2){x, y}; }
KS_DEV __half2 __halves2half2(__half x, __half y) { return (__half2){x, y}; }
KS_DEV __half2 __half2half2(__half x) { return (__half2){x, x}; }
KS_DEV __half2 __float2half2_rn(float f) {
  return (__half2){(__half)f, (__half)f};
}
KS_DEV __half2 __floats2half2_rn(float a, float b) {
  return (__half2){(__half)a, (__half)b};
}
KS_DEV __half2 __float22half2_rn(float2 f) {
  return (__half2){(__half)f.x, (__half)f.y};
}
KS_DEV float2 __half22float2(__half2 h) {
  return make_float2((float)h.x, (float)h.y);
}
KS_DEV float __low2float(__half2 h) { return (float)h.x; }
KS_DEV float __high2float(__half2 h) { return (float)h.y; }

KS_DEV __nv_bfloat16 __float2bfloat16(float f) { return (__nv_bfloat16)f; }
KS_DEV __nv_bfloat16 __float2bfloat16_rn(float f) { return (__nv_bfloat16)f; }
KS_DEV __nv_bfloat16 __double2bfloat16(double d) { return (__nv_bfloat16)d; }
KS_DEV float __bfloat162float(__nv_bfloat16 b) { return (float)b; }
KS_DEV __nv_bfloat16 __int2bfloat16_rn(int i) { return (__nv_bfloat16)i; }
KS_DEV int __bfloat162int_rz(__nv_bfloat16 b) { return (int)(float)b; }
KS_DEV short __bfloat16_as_short(__nv_bfloat16 b) {
  return __builtin_bit_cast(short, b);
}
KS_DEV unsigned short __bfloat16_as_ushort(__nv_bfloat16 b) {
  return __builtin_bit_cast(unsigned short, b);
}
KS_DEV __nv_bfloat16 __short_as_bfloat16(short i) {
  return __builtin_bit_cast(__nv_bfloat16, i);
}
KS_DEV __nv_bfloat16 __ushort_as_bfloat16(unsigned short i) {
  return __builtin_bit_cast(__nv_bfloat16, i);
}
KS_DEV __nv_bfloat162 make_bfloat162(__nv_bfloat16 x, __nv_bfloat16 y) {
  return (__nv_bfloat162){x, y};
}
KS_DEV __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 x, __nv_bfloat16 y) {
  return (__nv_bfloat162){x, y};
}
KS_DEV __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 x) {
  return (__nv_bfloat162){x, x};
}
KS_DEV __nv_bfloat162 __float2bfloat162_rn(float f) {
  return (__nv_bfloat162){(__nv_bfloat16)f, (__nv_bfloat16)f};
}
KS_DEV __nv_bfloat162 __floats2bfloat162_rn(float a, float b) {
  return (__nv_bfloat162){(__nv_bfloat16)a, (__nv_bfloat16)b};
}
KS_DEV __nv_bfloat162 __float22bfloat162_rn(float2 f) {
  return (__nv_bfloat162){(__nv_bfloat16)f.x, (__nv_bfloat16)f.y};
}
KS_DEV float2 __bfloat1622float2(__nv_bfloat162 b) {
  return make_float2((float)b.x, (float)b.y);
}
KS_DEV float __low2float(__nv_bfloat162 b) { return (float)b.x; }
KS_DEV float __high2float(__nv_bfloat162 b) { return (float)b.y; }

/* Arithmetic, each operation rounded to the type, as the GPU's own
 * (add.rn.f16x2, fma.rn.bf16, ...) or in float and rounded where it has
 * none (exact: float holds the result of +, -, * and / of two 16-bit
 * values to more than twice their precision). Never contracted with its
 * neighbours: __hadd(__hmul(a, b), c) rounds twice, as CUDA's does. */
#define KS_NOCONTRACT _Pragma("clang fp contract(off)")
#define KS_H16_ARITH(T, V, B)                                                  \
  KS_DEV T __hadd(T a, T b) { KS_NOCONTRACT return a + b; }                    \
  KS_DEV T __hsub(T a, T b) { KS_NOCONTRACT return a - b; }                    \
  KS_DEV T __hmul(T a, T b) { KS_NOCONTRACT return a * b; }                    \
  KS_DEV T __hdiv(T a, T b) { KS_NOCONTRACT return a / b; }                    \
  KS_DEV T __hfma(T a, T b, T c) {                                             \
    return __builtin_elementwise_fma(a, b, c);                                 \
  }                                                                            \
  KS_DEV T __hneg(T a) { return -a; }                                          \
  KS_DEV T __habs(T a) {                                                       \
    return __builtin_bit_cast(                                                 \
        T, (unsigned short)(__builtin_bit_cast(unsigned short, a) & 0x7fff));  \
  }                                                                            \
  KS_DEV T __hmax(T a, T b) { return __builtin_elementwise_max(a, b); }        \
  KS_DEV T __hmin(T a, T b) { return __builtin_elementwise_min(a, b); }        \
  KS_DEV bool __heq(T a, T b) { return a == b; }                               \
  KS_DEV bool __hne(T a, T b) { return a < b || a > b; }                       \
  KS_DEV bool __hlt(T a, T b) { return a < b; }                                \
  KS_DEV bool __hle(T a, T b) { return a <= b; }                               \
  KS_DEV bool __hgt(T a, T b) { return a > b; }                                \
  KS_DEV bool __hge(T a, T b) { return a >= b; }                               \
  KS_DEV bool __hisnan(T a) { return a != a; }                                 \
  KS_DEV int __hisinf(T a) {                                                   \
    return __builtin_isinf((float)a) ? ((float)a < 0 ? -1 : 1) : 0;            \
  }                                                                            \
  KS_DEV V __hadd2(V a, V b) { KS_NOCONTRACT return a + b; }                   \
  KS_DEV V __hsub2(V a, V b) { KS_NOCONTRACT return a - b; }                   \
  KS_DEV V __hmul2(V a, V b) { KS_NOCONTRACT return a * b; }                   \
  KS_DEV V __h2div(V a, V b) { KS_NOCONTRACT return a / b; }                   \
  KS_DEV V __hfma2(V a, V b, V c) {                                            \
    return __builtin_elementwise_fma(a, b, c);                                 \
  }                                                                            \
  KS_DEV V __hneg2(V a) { return -a; }                                         \
  KS_DEV V __habs2(V a) {                                                      \
    return __builtin_bit_cast(V, __builtin_bit_cast(unsigned int, a) &         \
                                     0x7fff7fffu);                             \
  }                                                                            \
  KS_DEV V __hmax2(V a, V b) { return __builtin_elementwise_max(a, b); }       \
  KS_DEV V __hmin2(V a, V b) { return __builtin_elementwise_min(a, b); }       \
  KS_DEV bool __hbeq2(V a, V b) { return __heq(a.x, b.x) && __heq(a.y, b.y); } \
  KS_DEV bool __hbne2(V a, V b) { return __hne(a.x, b.x) && __hne(a.y, b.y); } \
  KS_DEV bool __hblt2(V a, V b) { return __hlt(a.x, b.x) && __hlt(a.y, b.y); } \
  KS_DEV bool __hbgt2(V a, V b) { return __hgt(a.x, b.x) && __hgt(a.y, b.y); } \
  KS_DEV V __lowhigh2highlow(V h) { return (V){h.y, h.x}; }                    \
  KS_DEV T hsqrt(T a) { return (T)sqrtf((float)a); }                           \
  KS_DEV T hrsqrt(T a) { return (T)rsqrtf((float)a); }                         \
  KS_DEV T hrcp(T a) { KS_NOCONTRACT return (T)1.0f / a; }                     \
  KS_DEV T hexp(T a) { return (T)expf((float)a); }                             \
  KS_DEV T hexp2(T a) { return (T)exp2f((float)a); }                           \
  KS_DEV T hexp10(T a) { return (T)exp10f((float)a); }                         \
  KS_DEV T hlog(T a) { return (T)logf((float)a); }                             \
  KS_DEV T hlog2(T a) { return (T)log2f((float)a); }                           \
  KS_DEV T hlog10(T a) { return (T)log10f((float)a); }                         \
  KS_DEV T hsin(T a) { return (T)sinf((float)a); }                             \
  KS_DEV T hcos(T a) { return (T)cosf((float)a); }                             \
  KS_DEV T htanh(T a) { return (T)tanhf((float)a); }                           \
  KS_DEV T hfloor(T a) { return (T)__builtin_floorf((float)a); }               \
  KS_DEV T hceil(T a) { return (T)__builtin_ceilf((float)a); }                 \
  KS_DEV T htrunc(T a) { return (T)__builtin_truncf((float)a); }               \
  KS_DEV T hrint(T a) { return (T)__builtin_rintf((float)a); }                 \
  KS_DEV V h2sqrt(V a) { return (V){hsqrt(a.x), hsqrt(a.y)}; }                 \
  KS_DEV V h2exp(V a) { return (V){hexp(a.x), hexp(a.y)}; }                    \
  KS_DEV V h2log(V a) { return (V){hlog(a.x), hlog(a.y)}; }                    \
  KS_DEV V h2rcp(V a) { return (V){hrcp(a.x), hrcp(a.y)}; }                    \
  KS_DEV T __low2##B(V h) { return h.x; }                                      \
  KS_DEV T __high2##B(V h) { return h.y; }                                     \
  KS_DEV V __lows2##B##2(V a, V b) { return (V){a.x, b.x}; }                   \
  KS_DEV V __highs2##B##2(V a, V b) { return (V){a.y, b.y}; }
KS_H16_ARITH(__half, __half2, half)
KS_H16_ARITH(__nv_bfloat16, __nv_bfloat162, bfloat16)
#undef KS_H16_ARITH
#undef KS_NOCONTRACT

/* ---- warp functions -----------------------------------------------------
 * __shfl*_sync for int, unsigned, long long, double, ... , __ballot_sync,
 * __any_sync, __all_sync, __uni_sync, __activemask and __syncwarp come
 * from clang's intrinsics header; here the 16-bit and pair types, shuffled
 * as the 32 bits that hold them. */
#define KS_SHFL16(name, T, D)                                                  \
  KS_DEV T name(unsigned int m, T v, D d, int w = 32) {                        \
    unsigned short b = __builtin_bit_cast(unsigned short, v);                  \
    return __builtin_bit_cast(T, (unsigned short)name(m, (int)b, d, w));       \
  }
#define KS_SHFL32(name, T, D)                                                  \
  KS_DEV T name(unsigned int m, T v, D d, int w = 32) {                        \
    return __builtin_bit_cast(T, name(m, __builtin_bit_cast(int, v), d, w));   \
  }
#define KS_SHFL(name, D)                                                       \
  KS_SHFL16(name, __half, D)                                                   \
  KS_SHFL16(name, __nv_bfloat16, D)                                            \
  KS_SHFL32(name, __half2, D) KS_SHFL32(name, __nv_bfloat162, D)
KS_SHFL(__shfl_sync, int)
KS_SHFL(__shfl_up_sync, unsigned int)
KS_SHFL(__shfl_down_sync, unsigned int)
KS_SHFL(__shfl_xor_sync, int)
#undef KS_SHFL
#undef KS_SHFL16
#undef KS_SHFL32

/* __match_any_sync: the lanes of m whose value equals this lane's;
 * __match_all_sync: m if all lanes of m hold the same value (*pred 1),
 * else 0 (*pred 0). sm_70 and later. */
#define KS_MATCH(T, U, any, all)                                               \
  KS_DEV unsigned int __match_any_sync(unsigned int m, T v) {                  \
    return any(m, __builtin_bit_cast(U, v));                                   \
  }                                                                            \
  KS_DEV unsigned int __match_all_sync(unsigned int m, T v, int *pred) {       \
    return all(m, __builtin_bit_cast(U, v), pred);                             \
  }
KS_MATCH(unsigned int, unsigned int, __nvvm_match_any_sync_i32,
         __nvvm_match_all_sync_i32p)
KS_MATCH(int, unsigned int, __nvvm_match_any_sync_i32,
         __nvvm_match_all_sync_i32p)
KS_MATCH(float, unsigned int, __nvvm_match_any_sync_i32,
         __nvvm_match_all_sync_i32p)
KS_MATCH(unsigned long long, unsigned long long, __nvvm_match_any_sync_i64,
         __nvvm_match_all_sync_i64p)
KS_MATCH(long long, unsigned long long, __nvvm_match_any_sync_i64,
         __nvvm_match_all_sync_i64p)
KS_MATCH(unsigned long, unsigned long long, __nvvm_match_any_sync_i64,
         __nvvm_match_all_sync_i64p)
KS_MATCH(long, unsigned long long, __nvvm_match_any_sync_i64,
         __nvvm_match_all_sync_i64p)
KS_MATCH(double, unsigned long long, __nvvm_match_any_sync_i64,
         __nvvm_match_all_sync_i64p)
#undef KS_MATCH

/* __reduce_<op>_sync(mask, value), sm_80 and later: redux.sync, whose
 * intrinsic takes the value first. The call is made through a declaration
 * of the intrinsic rather than clang's builtin, under [[clang::nomerge]]:
 * the call then carries `nomerge`, which tells kspec's toolchain guard
 * (passes/redux_guard.c) that this call's operands are in order, where a
 * builtin call from CUDA's headers under clang < 21 has them swapped. */
#define KS_REDUX(op, T, iname)                                                 \
  extern "C" __device__ T __ks_redux_##iname(T, unsigned int) __asm__(         \
      "llvm.nvvm.redux.sync." #iname);                                         \
  KS_DEV T __reduce_##op##_sync(unsigned int m, T v) {                         \
    T r;                                                                       \
    [[clang::nomerge]] r = __ks_redux_##iname(v, m);                           \
    return r;                                                                  \
  }
KS_REDUX(add, unsigned int, add)
KS_REDUX(min, unsigned int, umin)
KS_REDUX(max, unsigned int, umax)
KS_REDUX(min, int, min)
KS_REDUX(max, int, max)
KS_REDUX(and, unsigned int, and)
KS_REDUX(or, unsigned int, or)
KS_REDUX(xor, unsigned int, xor)
#undef KS_REDUX
KS_DEV int __reduce_add_sync(unsigned int m, int v) {
  return (int)__reduce_add_sync(m, (unsigned int)v);
}

/* ---- atomics --------------------------------------------------------------
 * On generic pointers, so on global and shared memory alike (kspec's lower
 * stage gives each the address space it can prove). Each returns the old
 * value. The plain forms are device-wide, _block the thread block's,
 * _system the whole system's (host and peer GPUs). */
#define KS_ATOM3(fn, T, impl, cast)                                            \
  KS_DEV T fn(T *p, T v) { return (T)__nvvm_atom_##impl((cast *)p, (cast)v); } \
  KS_DEV T fn##_block(T *p, T v) {                                             \
    return (T)__nvvm_atom_cta_##impl((cast *)p, (cast)v);                      \
  }                                                                            \
  KS_DEV T fn##_system(T *p, T v) {                                            \
    return (T)__nvvm_atom_sys_##impl((cast *)p, (cast)v);                      \
  }
/* int, unsigned int, unsigned long long: CUDA's set for most operations */
#define KS_ATOM_INTS(fn, op)                                                   \
  KS_ATOM3(fn, int, op##_gen_i, int)                                           \
  KS_ATOM3(fn, unsigned int, op##_gen_i, int)                                  \
  KS_ATOM3(fn, unsigned long long, op##_gen_ll, long long)
KS_DEV int atomicAdd(int *p, int v) { return __nvvm_atom_add_gen_i(p, v); }
KS_DEV unsigned int atomicAdd(unsigned int *p, unsigned int v) {
  return (unsigned int)__nvvm_atom_add_gen_i((int *)p, (int)v);
}
KS_DEV float atomicAdd(float *p, float v) {
  return __nvvm_atom_add_gen_f(p, v);
}
KS_ATOM3(atomicAdd, unsigned long long, add_gen_ll, long long)
KS_ATOM3(atomicAdd, double, add_gen_d, double)
#define KS_ATOM_SCOPED(fn, T, impl, cast)                                      \
  KS_DEV T fn##_block(T *p, T v) {                                             \
    return (T)__nvvm_atom_cta_##impl((cast *)p, (cast)v);                      \
  }                                                                            \
  KS_DEV T fn##_system(T *p, T v) {                                            \
    return (T)__nvvm_atom_sys_##impl((cast *)p, (cast)v);                      \
  }
KS_ATOM_SCOPED(atomicAdd, int, add_gen_i, int)
KS_ATOM_SCOPED(atomicAdd, unsigned int, add_gen_i, int)
KS_ATOM_SCOPED(atomicAdd, float, add_gen_f, float)
#undef KS_ATOM_SCOPED
KS_ATOM_INTS(atomicExch, xchg)
KS_DEV float atomicExch(float *p, float v) {
  return __int_as_float(__nvvm_atom_xchg_gen_i((int *)p, __float_as_int(v)));
}
KS_DEV float atomicExch_block(float *p, float v) {
  return __int_as_float(
      __nvvm_atom_cta_xchg_gen_i((int *)p, __float_as_int(v)));
}
KS_DEV float atomicExch_system(float *p, float v) {
  return __int_as_float(
      __nvvm_atom_sys_xchg_gen_i((int *)p, __float_as_int(v)));
}
KS_ATOM3(atomicMin, int, min_gen_i, int)
KS_ATOM3(atomicMin, long long, min_gen_ll, long long)
KS_ATOM3(atomicMax, int, max_gen_i, int)
KS_ATOM3(atomicMax, long long, max_gen_ll, long long)
/* Unsigned min and max: clang 19 compiles the scoped builtins of unsigned
 * types to the signed instruction (atom.cta.min.s32), so _block uses the
 * device-wide unsigned one (a wider scope than asked, still atomic) and
 * _system a compare-and-swap loop at system scope. */
#define KS_UMINMAX(fn, T, impl, cmp)                                           \
  KS_DEV T fn(T *p, T v) { return __nvvm_atom_##impl(p, v); }                  \
  KS_DEV T fn##_block(T *p, T v) { return __nvvm_atom_##impl(p, v); }          \
  KS_DEV T fn##_system(T *p, T v) {                                            \
    T old = *(volatile T *)p;                                                  \
    while (v cmp old) {                                                        \
      T seen = old;                                                            \
      old = atomicCAS_system(p, seen, v);                                      \
      if (old == seen)                                                         \
        break;                                                                 \
    }                                                                          \
    return old;                                                                \
  }
/* atomicInc: old >= v ? 0 : old + 1; atomicDec: old == 0 || old > v ? v :
 * old - 1 */
KS_ATOM3(atomicInc, unsigned int, inc_gen_ui, unsigned int)
KS_ATOM3(atomicDec, unsigned int, dec_gen_ui, unsigned int)
KS_ATOM_INTS(atomicAnd, and)
KS_ATOM_INTS(atomicOr, or)
KS_ATOM_INTS(atomicXor, xor)
#undef KS_ATOM_INTS
#undef KS_ATOM3
KS_DEV int atomicSub(int *p, int v) { return atomicAdd(p, -v); }
KS_DEV int atomicSub_block(int *p, int v) { return atomicAdd_block(p, -v); }
KS_DEV int atomicSub_system(int *p, int v) { return atomicAdd_system(p, -v); }
KS_DEV unsigned int atomicSub(unsigned int *p, unsigned int v) {
  return atomicAdd(p, 0u - v);
}
KS_DEV unsigned int atomicSub_block(unsigned int *p, unsigned int v) {
  return atomicAdd_block(p, 0u - v);
}
KS_DEV unsigned int atomicSub_system(unsigned int *p, unsigned int v) {
  return atomicAdd_system(p, 0u - v);
}
#define KS_CAS(T, impl, cast)                                                  \
  KS_DEV T atomicCAS(T *p, T cmp, T v) {                                       \
    return (T)__nvvm_atom_cas_##impl((cast *)p, (cast)cmp, (cast)v);           \
  }                                                                            \
  KS_DEV T atomicCAS_block(T *p, T cmp, T v) {                                 \
    return (T)__nvvm_atom_cta_cas_##impl((cast *)p, (cast)cmp, (cast)v);       \
  }                                                                            \
  KS_DEV T atomicCAS_system(T *p, T cmp, T v) {                                \
    return (T)__nvvm_atom_sys_cas_##impl((cast *)p, (cast)cmp, (cast)v);       \
  }
KS_CAS(int, gen_i, int)
KS_CAS(unsigned int, gen_i, int)
KS_CAS(unsigned long long, gen_ll, long long)
#undef KS_CAS
KS_UMINMAX(atomicMin, unsigned int, min_gen_ui, <)
KS_UMINMAX(atomicMax, unsigned int, max_gen_ui, >)
KS_UMINMAX(atomicMin, unsigned long long, min_gen_ull, <)
KS_UMINMAX(atomicMax, unsigned long long, max_gen_ull, >)
#undef KS_UMINMAX
/* 16-bit compare-and-swap (sm_70 and later natively) */
KS_DEV unsigned short atomicCAS(unsigned short *p, unsigned short cmp,
                                unsigned short v) {
  __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_RELAXED,
                              __ATOMIC_RELAXED);
  return cmp;
}
/* 16-bit floating adds: one atom.add.noftz per element (sm_70 for __half,
 * sm_90 for bfloat16; a compare-and-swap loop before). As CUDA documents
 * for __half2, each element is atomic, not the pair. */
KS_DEV __half atomicAdd(__half *p, __half v) {
  return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}
KS_DEV __nv_bfloat16 atomicAdd(__nv_bfloat16 *p, __nv_bfloat16 v) {
  return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}
KS_DEV __half2 atomicAdd(__half2 *p, __half2 v) {
  __half *h = (__half *)p;
  return (__half2){atomicAdd(h, v.x), atomicAdd(h + 1, v.y)};
}
KS_DEV __nv_bfloat162 atomicAdd(__nv_bfloat162 *p, __nv_bfloat162 v) {
  __nv_bfloat16 *h = (__nv_bfloat16 *)p;
  return (__nv_bfloat162){atomicAdd(h, v.x), atomicAdd(h + 1, v.y)};
}

/* ---- cache-hinted loads and stores ------------------------------------
 * __ldg (the read-only path) comes from clang's intrinsics header. The
 * others are PTX cache operators, as CUDA writes them (inline asm; kspec
 * then emits the PTX in a child process, as for any inline asm): __ldcg
 * caches in L2 only, __ldca at all levels, __ldcs streams (evict first),
 * __ldlu is a last use, __ldcv does not cache (volatile); __stwb writes
 * back, __stcg caches in L2 only, __stcs streams, __stwt writes through. */
#define KS_LD1(op, T, pt, c)                                                   \
  KS_DEV T __ld##op(const T *p) {                                              \
    T r;                                                                       \
    __asm__("ld.global." #op "." pt " %0, [%1];" : "=" c(r) : "l"(p));         \
    return r;                                                                  \
  }
#define KS_LD2(op, V, pt, c)                                                   \
  KS_DEV V __ld##op(const V *p) {                                              \
    V r;                                                                       \
    __asm__("ld.global." #op ".v2." pt " {%0, %1}, [%2];"                      \
            : "=" c(r.x), "=" c(r.y)                                           \
            : "l"(p));                                                         \
    return r;                                                                  \
  }
#define KS_LD4(op, V, pt, c)                                                   \
  KS_DEV V __ld##op(const V *p) {                                              \
    V r;                                                                       \
    __asm__("ld.global." #op ".v4." pt " {%0, %1, %2, %3}, [%4];"              \
            : "=" c(r.x), "=" c(r.y), "=" c(r.z), "=" c(r.w)                   \
            : "l"(p));                                                         \
    return r;                                                                  \
  }
#define KS_ST1(op, T, pt, c)                                                   \
  KS_DEV void __st##op(T *p, T v) {                                            \
    __asm__ __volatile__("st.global." #op "." pt " [%0], %1;" ::"l"(p), c(v)   \
                         : "memory");                                          \
  }
#define KS_ST2(op, V, pt, c)                                                   \
  KS_DEV void __st##op(V *p, V v) {                                            \
    __asm__ __volatile__(                                                      \
        "st.global." #op ".v2." pt " [%0], {%1, %2};" ::"l"(p), c(v.x), c(v.y) \
        : "memory");                                                           \
  }
#define KS_ST4(op, V, pt, c)                                                   \
  KS_DEV void __st##op(V *p, V v) {                                            \
    __asm__ __volatile__("st.global." #op ".v4." pt                            \
                         " [%0], {%1, %2, %3, %4};" ::"l"(p),                  \
                         c(v.x), c(v.y), c(v.z), c(v.w)                        \
                         : "memory");                                          \
  }
#define KS_LDST_TYPES(X, op, one, two, four)                                   \
  one(op, int, "s32", "r") one(op, unsigned int, "u32", "r")                   \
      one(op, long long, "s64", "l") one(op, unsigned long long, "u64", "l")   \
          one(op, float, "f32", "f") one(op, double, "f64", "d")               \
              two(op, int2, "s32", "r") two(op, uint2, "u32", "r")             \
                  two(op, float2, "f32", "f") two(op, double2, "f64", "d")     \
                      two(op, longlong2, "s64", "l")                           \
                          two(op, ulonglong2, "u64", "l")                      \
                              four(op, int4, "s32", "r")                       \
                                  four(op, uint4, "u32", "r")                  \
                                      four(op, float4, "f32", "f")
#define KS_LD(op) KS_LDST_TYPES(, op, KS_LD1, KS_LD2, KS_LD4)
#define KS_ST(op) KS_LDST_TYPES(, op, KS_ST1, KS_ST2, KS_ST4)
KS_LD(cg)
KS_LD(ca)
KS_LD(cs)
KS_LD(lu)
KS_LD(cv)
KS_ST(wb)
KS_ST(cg)
KS_ST(cs)
KS_ST(wt)
#undef KS_LD
#undef KS_ST
#undef KS_LDST_TYPES
#undef KS_LD1
#undef KS_LD2
#undef KS_LD4
#undef KS_ST1
#undef KS_ST2
#undef KS_ST4

/* ---- grid-wide synchronization ----------------------------------------
 * For kernels launched cooperatively (ks_launch does so for a kernel that
 * calls this; a grid small enough to be resident at once, else the launch
 * is refused): the CUDA driver hands such a
 * launch a workspace whose address is in %envreg1 (high word) and %envreg2
 * (low word); its second word is the grid's barrier. Each block's first
 * thread adds 1 to it, block 0's thread adds 0x80000000 - (blocks - 1)
 * instead, so that the top bit flips when the last block arrives, and
 * waits for the flip. Fences before and after order the grid's memory
 * accesses around the barrier (LLVM 19 has no release/acquire atomics for
 * NVPTX). kspec sees %envreg in the template and in the PTX and launches
 * such a kernel only cooperatively, where the workspace exists. */
extern "C" __device__ unsigned int
__ks_envreg1(void) __asm__("llvm.nvvm.read.ptx.sreg.envreg1");
extern "C" __device__ unsigned int
__ks_envreg2(void) __asm__("llvm.nvvm.read.ptx.sreg.envreg2");
KS_DEV void ks_grid_sync(void) {
  __syncthreads();
  if (threadIdx.x + threadIdx.y + threadIdx.z == 0) {
    unsigned long long ws =
        ((unsigned long long)__ks_envreg1() << 32) | __ks_envreg2();
    volatile unsigned int *bar = (volatile unsigned int *)(ws + 4);
    unsigned int blocks = gridDim.x * gridDim.y * gridDim.z;
    unsigned int add = blockIdx.x + blockIdx.y + blockIdx.z == 0
                           ? 0x80000000u - (blocks - 1)
                           : 1u;
    __threadfence();
    unsigned int old = atomicAdd((unsigned int *)bar, add);
    while (((old ^ *bar) & 0x80000000u) == 0)
      ;
    __threadfence();
  }
  __syncthreads();
}

/* The part of cooperative groups that grid-wide kernels use:
 * cg::this_grid().sync(), its size and ranks, and the thread block. */
namespace cooperative_groups {
struct thread_block {
  __device__ void sync() const { __syncthreads(); }
  __device__ unsigned int thread_rank() const {
    return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  }
  __device__ unsigned int size() const {
    return blockDim.x * blockDim.y * blockDim.z;
  }
  __device__ unsigned int num_threads() const { return size(); }
  __device__ dim3 group_index() const { return blockIdx; }
  __device__ dim3 thread_index() const { return threadIdx; }
  __device__ dim3 group_dim() const { return blockDim; }
};
struct grid_group {
  __device__ void sync() const { ks_grid_sync(); }
  __device__ bool is_valid() const {
    return (((unsigned long long)__ks_envreg1() << 32) | __ks_envreg2()) != 0;
  }
  __device__ unsigned long long block_rank() const {
    return (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  }
  __device__ unsigned long long num_blocks() const {
    return (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
  }
  __device__ unsigned long long thread_rank() const {
    return block_rank() * (blockDim.x * blockDim.y * blockDim.z) +
           thread_block().thread_rank();
  }
  __device__ unsigned long long size() const {
    return num_blocks() * (blockDim.x * blockDim.y * blockDim.z);
  }
  __device__ unsigned long long num_threads() const { return size(); }
  __device__ dim3 dim_blocks() const { return gridDim; }
  __device__ dim3 block_index() const { return blockIdx; }
};
KS_DEV grid_group this_grid() { return grid_group(); }
KS_DEV thread_block this_thread_block() { return thread_block(); }
KS_DEV void sync(const grid_group &g) { g.sync(); }
KS_DEV void sync(const thread_block &b) { b.sync(); }
} // namespace cooperative_groups

/* ---- kspec's own helpers ------------------------------------------------ */
KS_DEV int ks_min(int a, int b) { return a < b ? a : b; }
KS_DEV int ks_max(int a, int b) { return a > b ? a : b; }
KS_DEV int ks_clamp(int v, int lo, int hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

/* ---- sampling: software textures, hardware with --tex ------------------
 * ks_sample1d/2d/3d read a read-only array as a texture does (seed 000
 * §9.3): img is w (x h (x d)) elements, rows pitch elements apart (a 3-D
 * slice pitch * h), coordinates unnormalized as CUDA's (texel i covers
 * [i, i + 1), its centre at i + 0.5), with a filter and a boundary mode:
 *   KS_NEAREST   the texel at floor(x)
 *   KS_LINEAR    (1 - a) * T[i] + a * T[i + 1], i = floor(x - 0.5),
 *                a = x - 0.5 - i, along each axis (bilinear, trilinear)
 *   | KS_NORMALIZED  8- and 16-bit integer elements read as v / 255
 *                (65535; signed: v / 127 (32767), at least -1) instead of
 *                their value
 *   KS_CLAMP     an index outside [0, n) reads the nearest edge texel
 *   KS_WRAP      index mod n
 *   KS_MIRROR    reflected, the edge texel repeated (..., 1, 0, 0, 1, ...,
 *                n - 1, n - 1, n - 2, ...)
 *   KS_BORDER    an index outside reads 0
 * Elements: float, __half, unsigned char, signed char, unsigned short,
 * short; the result is a float. Sizes below 2^30 and coordinates within
 * +-1e9; a size of 0 reads 0.
 * Compiled as they are, they are software: the index arithmetic, the
 * boundary rule and the interpolation in code. Each is one call of a
 * function __ks_tex<D>d_<type> (kept out of line until the tex stage, which
 * runs after bind: passes/tex.c), so that `kspec --tex ARG` can turn every
 * sampling of argument ARG into a hardware texture fetch (tex.2d with
 * unnormalized coordinates), whose linear filtering weighs with 8-bit
 * fractions: within D / 256 of the texels' range of the software result
 * (README, "Textures"). Without --tex the stage inlines them. */
enum { KS_NEAREST = 0, KS_LINEAR = 1, KS_NORMALIZED = 2 };
enum { KS_CLAMP = 0, KS_WRAP = 1, KS_MIRROR = 2, KS_BORDER = 3 };

KS_DEV float ks_tex_value(float v, bool) { return v; }
KS_DEV float ks_tex_value(__half v, bool) { return (float)v; }
KS_DEV float ks_tex_value(unsigned char v, bool n) {
  return n ? (float)v * (1.0f / 255.0f) : (float)v;
}
KS_DEV float ks_tex_value(unsigned short v, bool n) {
  return n ? (float)v * (1.0f / 65535.0f) : (float)v;
}
KS_DEV float ks_tex_value(signed char v, bool n) {
  return n ? __builtin_fmaxf((float)v * (1.0f / 127.0f), -1.0f) : (float)v;
}
KS_DEV float ks_tex_value(short v, bool n) {
  return n ? __builtin_fmaxf((float)v * (1.0f / 32767.0f), -1.0f) : (float)v;
}

/* Index i of an axis of n texels under the boundary mode (border: the
 * clamped index, a safe address whose value is then replaced by 0). */
KS_DEV int ks_tex_index(int i, int n, int mode) {
  if (mode == KS_WRAP) {
    int r = i % n;
    return r < 0 ? r + n : r;
  }
  if (mode == KS_MIRROR) {
    int p = 2 * n, r = i % p;
    r = r < 0 ? r + p : r;
    return r < n ? r : p - 1 - r;
  }
  return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

/* One axis of a sampling: the texels' indices, the weight of the second,
 * and whether each is inside (border mode only; else always). */
struct ks_tex_axis {
  int i0, i1;
  float a;
  bool in0, in1;
};
KS_DEV ks_tex_axis ks_tex_axis_of(float x, int n, int linear, int mode) {
  float xb = linear ? x - 0.5f : x;
  float f = __builtin_floorf(__builtin_fminf(__builtin_fmaxf(xb, -1e9f), 1e9f));
  int i = (int)f;
  ks_tex_axis r;
  r.a = linear ? xb - f : 0.0f;
  r.in0 = mode != KS_BORDER || (i >= 0 && i < n);
  r.in1 = mode != KS_BORDER || (i + 1 >= 0 && i + 1 < n);
  r.i0 = ks_tex_index(i, n, mode);
  r.i1 = ks_tex_index(i + 1, n, mode);
  return r;
}

/* A texel's value, 0 outside (border); the address is always inside. */
template <class T>
KS_DEV float ks_tex_fetch(const T *img, long long at, bool in, bool norm) {
  float v = ks_tex_value(img[at], norm);
  return in ? v : 0.0f;
}
KS_DEV float ks_tex_lerp(float t0, float t1, float a) {
  return (1.0f - a) * t0 + a * t1;
}

template <class T>
KS_DEV float ks_tex1d_sw(const T *img, int w, float x, int filter, int mode) {
  if (w <= 0)
    return 0.0f;
  int lin = filter & KS_LINEAR;
  bool norm = (filter & KS_NORMALIZED) != 0;
  ks_tex_axis ax = ks_tex_axis_of(x, w, lin, mode);
  float t0 = ks_tex_fetch(img, ax.i0, ax.in0, norm);
  if (!lin)
    return t0;
  return ks_tex_lerp(t0, ks_tex_fetch(img, ax.i1, ax.in1, norm), ax.a);
}

template <class T>
KS_DEV float ks_tex2d_sw(const T *img, int w, int h, int pitch, float x,
                         float y, int filter, int mode) {
  if (w <= 0 || h <= 0)
    return 0.0f;
  int lin = filter & KS_LINEAR;
  bool norm = (filter & KS_NORMALIZED) != 0;
  ks_tex_axis ax = ks_tex_axis_of(x, w, lin, mode);
  ks_tex_axis ay = ks_tex_axis_of(y, h, lin, mode);
  long long r0 = (long long)ay.i0 * pitch;
  float t00 = ks_tex_fetch(img, r0 + ax.i0, ax.in0 && ay.in0, norm);
  if (!lin)
    return t00;
  long long r1 = (long long)ay.i1 * pitch;
  float t10 = ks_tex_fetch(img, r0 + ax.i1, ax.in1 && ay.in0, norm);
  float t01 = ks_tex_fetch(img, r1 + ax.i0, ax.in0 && ay.in1, norm);
  float t11 = ks_tex_fetch(img, r1 + ax.i1, ax.in1 && ay.in1, norm);
  return ks_tex_lerp(ks_tex_lerp(t00, t10, ax.a), ks_tex_lerp(t01, t11, ax.a),
                     ay.a);
}

template <class T>
KS_DEV float ks_tex3d_sw(const T *img, int w, int h, int d, int pitch, float x,
                         float y, float z, int filter, int mode) {
  if (w <= 0 || h <= 0 || d <= 0)
    return 0.0f;
  int lin = filter & KS_LINEAR;
  bool norm = (filter & KS_NORMALIZED) != 0;
  ks_tex_axis ax = ks_tex_axis_of(x, w, lin, mode);
  ks_tex_axis ay = ks_tex_axis_of(y, h, lin, mode);
  ks_tex_axis az = ks_tex_axis_of(z, d, lin, mode);
  long long slice = (long long)pitch * h;
  long long p00 = az.i0 * slice + (long long)ay.i0 * pitch;
  bool i00 = ay.in0 && az.in0;
  float t000 = ks_tex_fetch(img, p00 + ax.i0, ax.in0 && i00, norm);
  if (!lin)
    return t000;
  long long p10 = az.i0 * slice + (long long)ay.i1 * pitch;
  long long p01 = az.i1 * slice + (long long)ay.i0 * pitch;
  long long p11 = az.i1 * slice + (long long)ay.i1 * pitch;
  bool i10 = ay.in1 && az.in0, i01 = ay.in0 && az.in1, i11 = ay.in1 && az.in1;
  float t100 = ks_tex_fetch(img, p00 + ax.i1, ax.in1 && i00, norm);
  float t010 = ks_tex_fetch(img, p10 + ax.i0, ax.in0 && i10, norm);
  float t110 = ks_tex_fetch(img, p10 + ax.i1, ax.in1 && i10, norm);
  float t001 = ks_tex_fetch(img, p01 + ax.i0, ax.in0 && i01, norm);
  float t101 = ks_tex_fetch(img, p01 + ax.i1, ax.in1 && i01, norm);
  float t011 = ks_tex_fetch(img, p11 + ax.i0, ax.in0 && i11, norm);
  float t111 = ks_tex_fetch(img, p11 + ax.i1, ax.in1 && i11, norm);
  float z0 = ks_tex_lerp(ks_tex_lerp(t000, t100, ax.a),
                         ks_tex_lerp(t010, t110, ax.a), ay.a);
  float z1 = ks_tex_lerp(ks_tex_lerp(t001, t101, ax.a),
                         ks_tex_lerp(t011, t111, ax.a), ay.a);
  return ks_tex_lerp(z0, z1, az.a);
}

/* The out-of-line functions the tex stage finds by name, one per
 * dimension and element type, and the overloads kernels call. */
#define KS_TEX_ATTR __device__ __inline__ __attribute__((noinline))
#define KS_TEX(T, sfx)                                                         \
  extern "C" {                                                                 \
  KS_TEX_ATTR float __ks_tex1d_##sfx(const T *img, int w, float x, int f,      \
                                     int m) {                                  \
    return ks_tex1d_sw(img, w, x, f, m);                                       \
  }                                                                            \
  KS_TEX_ATTR float __ks_tex2d_##sfx(const T *img, int w, int h, int pitch,    \
                                     float x, float y, int f, int m) {         \
    return ks_tex2d_sw(img, w, h, pitch, x, y, f, m);                          \
  }                                                                            \
  KS_TEX_ATTR float __ks_tex3d_##sfx(const T *img, int w, int h, int d,        \
                                     int pitch, float x, float y, float z,     \
                                     int f, int m) {                           \
    return ks_tex3d_sw(img, w, h, d, pitch, x, y, z, f, m);                    \
  }                                                                            \
  }                                                                            \
  KS_DEV float ks_sample1d(const T *img, int w, float x, int filter,           \
                           int mode) {                                         \
    return __ks_tex1d_##sfx(img, w, x, filter, mode);                          \
  }                                                                            \
  KS_DEV float ks_sample2d(const T *img, int w, int h, int pitch, float x,     \
                           float y, int filter, int mode) {                    \
    return __ks_tex2d_##sfx(img, w, h, pitch, x, y, filter, mode);             \
  }                                                                            \
  KS_DEV float ks_sample3d(const T *img, int w, int h, int d, int pitch,       \
                           float x, float y, float z, int filter, int mode) {  \
    return __ks_tex3d_##sfx(img, w, h, d, pitch, x, y, z, filter, mode);       \
  }
KS_TEX(float, f32)
KS_TEX(__half, f16)
KS_TEX(unsigned char, u8)
KS_TEX(signed char, s8)
KS_TEX(unsigned short, u16)
KS_TEX(short, s16)
#undef KS_TEX
#undef KS_TEX_ATTR

#undef KS_DEV

#endif /* KSPEC_DEVICE_H */
