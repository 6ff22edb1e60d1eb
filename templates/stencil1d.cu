/*
 * stencil1d - high-order 1-D stencil on the locally detrended signal (a
 * high-pass filter), OUTS = 4 consecutive outputs per thread:
 *
 *   y[i] = sum_{k < T} c[k] * (x[i + k] - m_i),  m_i = sum_{k < T} x[i + k] / T
 *
 * with T = 2*RADIUS + 1 taps, for i < n; thread t computes i = 4t .. 4t+3,
 * one output after the other. x holds n + 2*RADIUS floats, c T. An output's
 * weighted sum can only start once its mean is known, so, fully unrolled,
 * the thread's window of 2*RADIUS + 4 inputs is live at once: the register
 * pressure grows with RADIUS (kspec's register-heavy template).
 */
static __device__ __forceinline__ float detrended(const float *c,
                                                  const float *x, int ntaps) {
  float m = 0.0f;
  for (int k = 0; k < ntaps; k++)
    m += x[k];
  m /= (float)ntaps;
  float a = 0.0f;
  for (int k = 0; k < ntaps; k++)
    a += c[k] * (x[k] - m);
  return a;
}

// clang-format off
KS_KERNEL KS_PARAM(RADIUS, 16, 1, 64)
KS_DOC("1-D stencil of radius RADIUS, 4 outputs per thread; x has n+2*RADIUS floats")
void stencil1d(const float *x, const float *c, float *y, int n, int RADIUS) {
  // clang-format on
  int o = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
  if (o >= n)
    return;
  int ntaps = 2 * RADIUS + 1;
  if (o + 3 < n) {
    float a0 = detrended(c, x + o, ntaps);
    float a1 = detrended(c, x + o + 1, ntaps);
    float a2 = detrended(c, x + o + 2, ntaps);
    float a3 = detrended(c, x + o + 3, ntaps);
    y[o] = a0;
    y[o + 1] = a1;
    y[o + 2] = a2;
    y[o + 3] = a3;
    return;
  }
  /* The last, partial group: x ends at n + 2 * RADIUS. */
  for (int j = 0; o + j < n; j++)
    y[o + j] = detrended(c, x + o + j, ntaps);
}
