/*
 * math.cu - the dialect's math: CUDA's float and double functions, the C++
 * float overloads and the intrinsics, each a call of libdevice's __nv_*
 * function, which kspec links from libdevice (`kspec explain` names them).
 * Layout of in and out: warp.cu; each column of a thread is one
 * function of three arguments made from its input words:
 *   x in [-8, 8), y in (0, 256], z in [-1, 1)
 * (exact in float: test_dialect.c makes the same ones for libm).
 * nvcc compiles it too, with CUDA's own headers (tests/dialect/CMakeLists.txt,
 * math.nvcc.cubin): the judge of kspec's results beyond CUDA's bounds.
 */
#ifndef KS_KERNEL /* nvcc, CUDA's headers: test_gpu_dialect's judge */
#define KS_KERNEL extern "C" __global__
#endif
#define OUT(c) out[64 + (size_t)t * 16 + (c)]
#define F(c, e) OUT(c) = __float_as_uint(e)
#define D(c, e) OUT(c) = (unsigned long long)__double_as_longlong(e)

#define ARGS                                                                   \
  int t = blockIdx.x * blockDim.x + threadIdx.x;                               \
  if (t >= n)                                                                  \
    return;                                                                    \
  unsigned v = in[4 * t], w = in[4 * t + 1];                                   \
  float x = (float)((int)(v & 0xffff) - 32768) / 4096.0f;                      \
  float y = (float)((v >> 16) + 1) / 256.0f;                                   \
  float z = (float)((int)(w & 0xffff) - 32768) / 32768.0f;                     \
  (void)x, (void)y, (void)z

// EXPLAIN(math_f1): linked: .*\b__nv_expf[,;]
// EXPLAIN(math_f1): linked: .*\b__nv_exp2f[,;]
// EXPLAIN(math_f1): linked: .*\b__nv_exp10f[,;]
// EXPLAIN(math_f1): linked: .*\b__nv_expm1f[,;]
// EXPLAIN(math_f1): linked: .*\b__nv_logf[,;]
// EXPLAIN(math_f1): linked: .*\b__nv_log2f[,;]
// EXPLAIN(math_f1): linked: .*\b__nv_log10f[,;]
// EXPLAIN(math_f1): linked: .*\b__nv_log1pf[,;]
// EXPLAIN(math_f1): linked: .*\b__nv_powf[,;]
// EXPLAIN(math_f1): linked: .*\b__nv_sinf[,;]
// EXPLAIN(math_f1): linked: .*\b__nv_cosf[,;]
// EXPLAIN(math_f1): linked: .*\b__nv_tanf[,;]
// EXPLAIN(math_f1): linked: .*\b__nv_tanhf[,;]
// EXPLAIN(math_f1): linked: .*\b__nv_erff[,;]
// EXPLAIN(math_f1): linked: .*\b__nv_sqrtf[,;]
// EXPLAIN(math_f1): linked: .*\b__nv_rsqrtf[,;]
KS_KERNEL void math_f1(const unsigned *in, unsigned long long *out, int n) {
  ARGS;
  F(0, expf(x));
  F(1, exp2f(x));
  F(2, exp10f(x));
  F(3, expm1f(x));
  F(4, logf(y));
  F(5, log2f(y));
  F(6, log10f(y));
  F(7, log1pf(y));
  F(8, powf(y, z * 4.0f));
  F(9, sinf(x));
  F(10, cosf(x));
  F(11, tanf(x));
  F(12, tanhf(x));
  F(13, erff(x));
  F(14, sqrtf(y));
  F(15, rsqrtf(y));
}

// EXPLAIN(math_f2): linked: .*\b__nv_cbrtf[,;]
// EXPLAIN(math_f2): linked: .*\b__nv_asinf[,;]
// EXPLAIN(math_f2): linked: .*\b__nv_acosf[,;]
// EXPLAIN(math_f2): linked: .*\b__nv_atanf[,;]
// EXPLAIN(math_f2): linked: .*\b__nv_atan2f[,;]
// EXPLAIN(math_f2): linked: .*\b__nv_sinhf[,;]
// EXPLAIN(math_f2): linked: .*\b__nv_coshf[,;]
// EXPLAIN(math_f2): linked: .*\b__nv_erfcf[,;]
// EXPLAIN(math_f2): linked: .*\b__nv_hypotf[,;]
// EXPLAIN(math_f2): linked: .*\b__nv_fmaf[,;]
// EXPLAIN(math_f2): linked: .*\b__nv_floorf[,;]
// EXPLAIN(math_f2): linked: .*\b__nv_ceilf[,;]
// EXPLAIN(math_f2): linked: .*\b__nv_roundf[,;]
// EXPLAIN(math_f2): linked: .*\b__nv_fminf[,;]
// EXPLAIN(math_f2): linked: .*\b__nv_fmaxf[,;]
// EXPLAIN(math_f2): linked: .*\b__nv_fabsf[,;]
// EXPLAIN(math_f2): linked: .*\b__nv_sincosf[,;]
KS_KERNEL void math_f2(const unsigned *in, unsigned long long *out, int n) {
  ARGS;
  F(0, cbrtf(x));
  F(1, asinf(z));
  F(2, acosf(z));
  F(3, atanf(x));
  F(4, atan2f(x, z));
  F(5, sinhf(x));
  F(6, coshf(x));
  F(7, erfcf(x));
  F(8, hypotf(x, y));
  F(9, fmaf(x, y, z));
  F(10, floorf(x * 3.0f));
  F(11, ceilf(x * 3.0f));
  F(12, roundf(x * 3.0f));
  F(13, fminf(x, z) + fmaxf(x, z));
  F(14, fabsf(x));
  float s, c;
  sincosf(x, &s, &c);
  F(15, s + c);
}

// C++: sqrt(float) is sqrtf, min and max of floats fminf and fmaxf, of
// ints one instruction, pow(float, int) powif.
// EXPLAIN(math_cxx): linked: .*\b__nv_sqrtf[,;]
// EXPLAIN(math_cxx): linked: .*\b__nv_expf[,;]
// EXPLAIN(math_cxx): linked: .*\b__nv_sinf[,;]
// EXPLAIN(math_cxx): linked: .*\b__nv_powif[,;]
// EXPLAIN(math_cxx): linked: .*\b__nv_fmaxf[,;]
// IR(math_cxx): @llvm.smin.i32\(
KS_KERNEL void math_cxx(const unsigned *in, unsigned long long *out, int n) {
  ARGS;
  F(0, sqrt(y));
  F(1, exp(x));
  F(2, sin(x));
  F(3, pow(y, 3));
  F(4, max(x, z));
  F(5, fabs(x) + abs(z));
  OUT(6) = (unsigned)min((int)v, (int)w);
}

// EXPLAIN(math_d): linked: .*\b__nv_exp[,;]
// EXPLAIN(math_d): linked: .*\b__nv_log[,;]
// EXPLAIN(math_d): linked: .*\b__nv_pow[,;]
// EXPLAIN(math_d): linked: .*\b__nv_sin[,;]
// EXPLAIN(math_d): linked: .*\b__nv_cos[,;]
// EXPLAIN(math_d): linked: .*\b__nv_tanh[,;]
// EXPLAIN(math_d): linked: .*\b__nv_erf[,;]
// EXPLAIN(math_d): linked: .*\b__nv_sqrt[,;]
// EXPLAIN(math_d): linked: .*\b__nv_cbrt[,;]
// EXPLAIN(math_d): linked: .*\b__nv_atan2[,;]
// EXPLAIN(math_d): linked: .*\b__nv_log1p[,;]
// EXPLAIN(math_d): linked: .*\b__nv_exp2[,;]
// EXPLAIN(math_d): linked: .*\b__nv_asin[,;]
// EXPLAIN(math_d): linked: .*\b__nv_rsqrt[,;]
// EXPLAIN(math_d): linked: .*\b__nv_fma[,;]
// EXPLAIN(math_d): linked: .*\b__nv_floor[,;]
KS_KERNEL void math_d(const unsigned *in, unsigned long long *out, int n) {
  ARGS;
  double a = (double)x + (double)w / 4294967296.0, b = (double)y, c = (double)z;
  D(0, exp(a));
  D(1, log(b));
  D(2, pow(b, c * 4.0));
  D(3, sin(a));
  D(4, cos(a));
  D(5, tanh(a));
  D(6, erf(a));
  D(7, sqrt(b));
  D(8, cbrt(a));
  D(9, atan2(a, c));
  D(10, log1p(b));
  D(11, exp2(a));
  D(12, asin(c));
  D(13, rsqrt(b));
  D(14, fma(a, b, c));
  D(15, floor(a * 3.0));
}

// EXPLAIN(math_intrin): linked: .*\b__nv_fast_expf[,;]
// EXPLAIN(math_intrin): linked: .*\b__nv_fast_logf[,;]
// EXPLAIN(math_intrin): linked: .*\b__nv_fast_sinf[,;]
// EXPLAIN(math_intrin): linked: .*\b__nv_fast_cosf[,;]
// EXPLAIN(math_intrin): linked: .*\b__nv_fast_powf[,;]
// EXPLAIN(math_intrin): linked: .*\b__nv_fast_fdividef[,;]
// EXPLAIN(math_intrin): linked: .*\b__nv_saturatef[,;]
// EXPLAIN(math_intrin): linked: .*\b__nv_fmaf_rn[,;]
// EXPLAIN(math_intrin): linked: .*\b__nv_fmaf_rz[,;]
// EXPLAIN(math_intrin): linked: .*\b__nv_fadd_rd[,;]
// EXPLAIN(math_intrin): linked: .*\b__nv_fmul_ru[,;]
// EXPLAIN(math_intrin): linked: .*\b__nv_frcp_rn[,;]
// EXPLAIN(math_intrin): linked: .*\b__nv_fsqrt_rn[,;]
// EXPLAIN(math_intrin): linked: .*\b__nv_fdiv_rn[,;]
// EXPLAIN(math_intrin): linked: .*\b__nv_float2int_rn[,;]
// EXPLAIN(math_intrin): linked: .*\b__nv_dadd_rn[,;]
// PTX(math_intrin): ex2\.approx
// PTX(math_intrin): lg2\.approx
// PTX(math_intrin): sin\.approx\.f32
// PTX(math_intrin): fma\.rz\.f32
// PTX(math_intrin): add\.rm\.f32
// PTX(math_intrin): mul\.rp\.f32
// PTX(math_intrin): rcp\.rn\.f32
// PTX(math_intrin): sqrt\.rn\.f32
// PTX(math_intrin): div\.rn\.f32
// PTX(math_intrin): cvt\.rni\.s32\.f32
KS_KERNEL void math_intrin(const unsigned *in, unsigned long long *out, int n) {
  ARGS;
  F(0, __expf(x));
  F(1, __logf(y));
  F(2, __sinf(x));
  F(3, __cosf(x));
  F(4, __powf(y, z));
  F(5, __fdividef(x, y));
  F(6, __saturatef(z * 2.0f));
  F(7, __fmaf_rn(x, y, z));
  F(8, __fmaf_rz(x, y, z));
  F(9, __fadd_rd(x, z));
  F(10, __fmul_ru(x, z));
  F(11, __frcp_rn(y));
  F(12, __fsqrt_rn(y));
  F(13, __fdiv_rn(x, y));
  OUT(14) = (unsigned)__float2int_rn(x * 1000.0f);
  D(15, __dadd_rn((double)x, (double)z * 1e-9));
}
