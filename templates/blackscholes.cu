/*
 * blackscholes - European call and put prices by the Black-Scholes formula,
 * one option per thread (kspec's template that calls math):
 *
 *   d1 = (log(S / X) + (R + V^2 / 2) T) / (V sqrt(T)),  d2 = d1 - V sqrt(T)
 *   call = S N(d1) - X exp(-R T) N(d2)
 *   put  = X exp(-R T) (1 - N(d2)) - S (1 - N(d1))
 *
 * for i < n, with S, X, T per option and the riskless rate R and the
 * volatility V for all; N is the normal distribution's CDF by the
 * polynomial of Abramowitz and Stegun 26.2.17 (as CUDA's BlackScholes
 * sample). expf, logf and sqrtf come from libdevice (__builtin_* are LLVM's
 * math intrinsics, which kspec maps to libdevice's functions; nvcc's
 * build of this same source, tools/bench_cuda.cu, calls CUDA's own). Bound,
 * R and V fold into the arithmetic.
 */
#ifdef __NVCC__
#define BS_EXP expf
#define BS_LOG logf
#define BS_SQRT sqrtf
#else
#define BS_EXP __builtin_expf
#define BS_LOG __builtin_logf
#define BS_SQRT __builtin_sqrtf
#endif

static __device__ __forceinline__ float bs_cnd(float d) {
  const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f,
              a4 = -1.821255978f, a5 = 1.330274429f;
  const float rsqrt2pi = 0.39894228040143267793994605993438f;
  float k = 1.0f / (1.0f + 0.2316419f * (d < 0.0f ? -d : d));
  float c = rsqrt2pi * BS_EXP(-0.5f * d * d) *
            (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  return d > 0.0f ? 1.0f - c : c;
}

// clang-format off
KS_KERNEL KS_PARAM(RISKFREE, 0.02, 0, 1) KS_PARAM(VOLATILITY, 0.3, 0.01, 4)
KS_DOC("Black-Scholes call and put of n options (S, X, T); rate RISKFREE, volatility VOLATILITY")
void blackscholes(float *call, float *put, const float *S, const float *X,
                  const float *T, int n, float RISKFREE, float VOLATILITY) {
  // clang-format on
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float s = S[i], x = X[i], t = T[i];
  float sqrt_t = BS_SQRT(t);
  float d1 = (BS_LOG(s / x) + (RISKFREE + 0.5f * VOLATILITY * VOLATILITY) * t) /
             (VOLATILITY * sqrt_t);
  float d2 = d1 - VOLATILITY * sqrt_t;
  float n1 = bs_cnd(d1), n2 = bs_cnd(d2);
  float e = BS_EXP(-RISKFREE * t);
  call[i] = s * n1 - x * e * n2;
  put[i] = x * e * (1.0f - n2) - s * (1.0f - n1);
}
