/*
 * math.cu - the dialect's math: CUDA's float and double functions, the C++
 * float overloads and the intrinsics, each a call of libdevice's __nv_*
 * function. Layout of in and out: warp.cu; each column of a thread is one
 * function of three arguments made from its input words:
 *   x in [-8, 8), y in (0, 256], z in [-1, 1)
 * (exact in float: test_dialect.c makes the same ones for libm).
 */
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

// IR(math_f1): @__nv_expf\(
// IR(math_f1): @__nv_exp2f\(
// IR(math_f1): @__nv_exp10f\(
// IR(math_f1): @__nv_expm1f\(
// IR(math_f1): @__nv_logf\(
// IR(math_f1): @__nv_log2f\(
// IR(math_f1): @__nv_log10f\(
// IR(math_f1): @__nv_log1pf\(
// IR(math_f1): @__nv_powf\(
// IR(math_f1): @__nv_sinf\(
// IR(math_f1): @__nv_cosf\(
// IR(math_f1): @__nv_tanf\(
// IR(math_f1): @__nv_tanhf\(
// IR(math_f1): @__nv_erff\(
// IR(math_f1): @__nv_sqrtf\(
// IR(math_f1): @__nv_rsqrtf\(
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

// IR(math_f2): @__nv_cbrtf\(
// IR(math_f2): @__nv_asinf\(
// IR(math_f2): @__nv_acosf\(
// IR(math_f2): @__nv_atanf\(
// IR(math_f2): @__nv_atan2f\(
// IR(math_f2): @__nv_sinhf\(
// IR(math_f2): @__nv_coshf\(
// IR(math_f2): @__nv_erfcf\(
// IR(math_f2): @__nv_hypotf\(
// IR(math_f2): @__nv_fmaf\(
// IR(math_f2): @__nv_floorf\(
// IR(math_f2): @__nv_ceilf\(
// IR(math_f2): @__nv_roundf\(
// IR(math_f2): @__nv_fminf\(
// IR(math_f2): @__nv_fmaxf\(
// IR(math_f2): @__nv_fabsf\(
// IR(math_f2): @__nv_sincosf\(
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
// IR(math_cxx): @__nv_sqrtf\(
// IR(math_cxx): @__nv_expf\(
// IR(math_cxx): @__nv_sinf\(
// IR(math_cxx): @__nv_powif\(
// IR(math_cxx): @__nv_fmaxf\(
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

// IR(math_d): @__nv_exp\(
// IR(math_d): @__nv_log\(
// IR(math_d): @__nv_pow\(
// IR(math_d): @__nv_sin\(
// IR(math_d): @__nv_cos\(
// IR(math_d): @__nv_tanh\(
// IR(math_d): @__nv_erf\(
// IR(math_d): @__nv_sqrt\(
// IR(math_d): @__nv_cbrt\(
// IR(math_d): @__nv_atan2\(
// IR(math_d): @__nv_log1p\(
// IR(math_d): @__nv_exp2\(
// IR(math_d): @__nv_asin\(
// IR(math_d): @__nv_rsqrt\(
// IR(math_d): @__nv_fma\(
// IR(math_d): @__nv_floor\(
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

// IR(math_intrin): @__nv_fast_expf\(
// IR(math_intrin): @__nv_fast_logf\(
// IR(math_intrin): @__nv_fast_sinf\(
// IR(math_intrin): @__nv_fast_cosf\(
// IR(math_intrin): @__nv_fast_powf\(
// IR(math_intrin): @__nv_fast_fdividef\(
// IR(math_intrin): @__nv_saturatef\(
// IR(math_intrin): @__nv_fmaf_rn\(
// IR(math_intrin): @__nv_fmaf_rz\(
// IR(math_intrin): @__nv_fadd_rd\(
// IR(math_intrin): @__nv_fmul_ru\(
// IR(math_intrin): @__nv_frcp_rn\(
// IR(math_intrin): @__nv_fsqrt_rn\(
// IR(math_intrin): @__nv_fdiv_rn\(
// IR(math_intrin): @__nv_float2int_rn\(
// IR(math_intrin): @__nv_dadd_rn\(
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
