/*
 * lat_math.cu - softplus times a tanh gate: three libdevice functions
 * (expf, log1pf, tanhf). With lat_plain.cu, the same kernel with the calls
 * replaced by arithmetic, it is kspec-latency's pair for what linking math
 * from libdevice costs a specialization (BENCHMARKS.md, "The device
 * library"): kspec-latency .../lat_math.bc .../lat_plain.bc. Its calls are
 * out of line (passes/math_outline.c): the functions' PTX compiled once,
 * spliced into the kernel's and inlined there (jit/codegen/ptxinline.c).
 */

// EXPLAIN(lat_math): linked: .*\b__nv_expf[,;]
// EXPLAIN(lat_math): linked: .*\b__nv_log1pf[,;]
// EXPLAIN(lat_math): linked: .*\b__nv_tanhf[,;]
// EXPLAIN(lat_math): called out of line: .*\b__nv_tanhf\b
// PTX(lat_math): // __nv_expf inlined$
// PTX(lat_math): // __nv_log1pf inlined$
// PTX(lat_math): // __nv_tanhf inlined$
KS_KERNEL void lat_math(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = log1pf(expf(v)) * tanhf(v);
  }
}
