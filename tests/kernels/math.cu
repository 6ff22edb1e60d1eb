// Math-heavy kernels: an option pricer, row softmax, layer norm, an n-body
// step, a templated GELU and a half-precision axpy.
//
// Written for kspec's corpus (issue 31): plain CUDA as users write it, no
// kspec markings. The option pricer exists twice: market values as arguments
// and in a __constant__ table a host sets before the launch.
#include <cuda_fp16.h>
#include <math.h>

// ---------------------------------------------------------------------------
// Black-Scholes European call and put.

// Standard normal CDF through erfc: accurate in both tails, unlike 1 - erf.
__device__ __forceinline__ float normal_cdf(float d) {
  return 0.5f * erfcf(-d * 0.70710678118654752f);
}

__device__ __forceinline__ double normal_cdf(double d) {
  return 0.5 * erfc(-d * 0.70710678118654752);
}

__device__ __forceinline__ float log_t(float v) { return logf(v); }
__device__ __forceinline__ double log_t(double v) { return log(v); }
__device__ __forceinline__ float exp_t(float v) { return expf(v); }
__device__ __forceinline__ double exp_t(double v) { return exp(v); }
__device__ __forceinline__ float sqrt_t(float v) { return sqrtf(v); }
__device__ __forceinline__ double sqrt_t(double v) { return sqrt(v); }

template <typename T>
__device__ __forceinline__ void bs_one(T s, T x, T t, T rate, T vol, T &call,
                                       T &put) {
  T sqt = sqrt_t(t);
  T vs = vol * sqt;
  T d1 = (log_t(s / x) + (rate + T(0.5) * vol * vol) * t) / vs;
  T d2 = d1 - vs;
  T disc = x * exp_t(-rate * t);
  call = s * normal_cdf(d1) - disc * normal_cdf(d2);
  put = disc * normal_cdf(-d2) - s * normal_cdf(-d1);
}

// Market values as arguments; one option per thread, grid-stride.
extern "C" __global__ void __launch_bounds__(128)
    bs_price(float *call, float *put, const float *spot, const float *strike,
             const float *years, float rate, float vol, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x) {
    float c, p;
    bs_one<float>(spot[i], strike[i], years[i], rate, vol, c, p);
    call[i] = c;
    put[i] = p;
  }
}

// Risk-free rate and volatility, set by the host with cudaMemcpyToSymbol.
__constant__ float c_market[2];

template <typename T>
__global__ void bs_price_const(T *call, T *put, const T *spot, const T *strike,
                               const T *years, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  T rate = T(c_market[0]);
  T vol = T(c_market[1]);
  bs_one<T>(spot[i], strike[i], years[i], rate, vol, call[i], put[i]);
}

template __global__ void bs_price_const<float>(float *, float *, const float *,
                                               const float *, const float *,
                                               int);
template __global__ void bs_price_const<double>(double *, double *,
                                                const double *, const double *,
                                                const double *, int);

// ---------------------------------------------------------------------------
// Block-wide reductions through warp butterflies; every thread gets the
// result. `red` holds one value per warp; the trailing barrier lets the
// caller reuse it right away.

struct MaxOp {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct SumOp {
  __device__ float operator()(float a, float b) const { return a + b; }
};

template <int BLOCK, typename Op>
__device__ float block_allreduce(float v, float *red, Op op) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int m = 16; m > 0; m >>= 1)
    v = op(v, __shfl_xor_sync(0xffffffffu, v, m));
  if (lane == 0)
    red[warp] = v;
  __syncthreads();
  v = red[0];
#pragma unroll
  for (int w = 1; w < BLOCK / 32; w++)
    v = op(v, red[w]);
  __syncthreads();
  return v;
}

// Softmax of each row; one block per row, numerically stable (max first).
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    softmax_rows(const float *in, float *out, int rows, int cols) {
  __shared__ float red[BLOCK / 32];
  int row = blockIdx.x;
  if (row >= rows)
    return;
  const float *x = in + (size_t)row * cols;
  float *y = out + (size_t)row * cols;

  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += BLOCK)
    m = fmaxf(m, x[c]);
  m = block_allreduce<BLOCK>(m, red, MaxOp());

  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += BLOCK)
    s += expf(x[c] - m);
  s = block_allreduce<BLOCK>(s, red, SumOp());

  float inv = 1.f / s;
  for (int c = threadIdx.x; c < cols; c += BLOCK)
    y[c] = expf(x[c] - m) * inv;
}

template __global__ void softmax_rows<256>(const float *, float *, int, int);
template __global__ void softmax_rows<128>(const float *, float *, int, int);

// Layer norm over each row (two passes over the row for the variance, which
// is steadier than E[x^2] - E[x]^2). Also writes each row's mean and 1/std,
// as training code keeps them for the backward pass.
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    layer_norm(const float *x, const float *gamma, const float *beta, float *y,
               float *mean_out, float *rstd_out, int rows, int cols,
               float eps) {
  __shared__ float red[BLOCK / 32];
  int row = blockIdx.x;
  if (row >= rows)
    return;
  const float *xr = x + (size_t)row * cols;
  float *yr = y + (size_t)row * cols;

  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += BLOCK)
    s += xr[c];
  float mean = block_allreduce<BLOCK>(s, red, SumOp()) / cols;

  float q = 0.f;
  for (int c = threadIdx.x; c < cols; c += BLOCK) {
    float d = xr[c] - mean;
    q += d * d;
  }
  float var = block_allreduce<BLOCK>(q, red, SumOp()) / cols;
  float rstd = rsqrtf(var + eps);

  for (int c = threadIdx.x; c < cols; c += BLOCK)
    yr[c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
  if (threadIdx.x == 0) {
    mean_out[row] = mean;
    rstd_out[row] = rstd;
  }
}

template __global__ void layer_norm<256>(const float *, const float *,
                                         const float *, float *, float *,
                                         float *, int, int, float);

// ---------------------------------------------------------------------------
// One explicit Euler step of an all-pairs gravitational n-body system.
// Bodies are float4 (x, y, z, mass); the block stages tiles of bodies in
// dynamic shared memory (blockDim.x float4s).

__constant__ float c_softening2; // softening length squared, set by the host

__device__ __forceinline__ float3 body_accel(float4 bi, float4 bj, float3 a) {
  float dx = bj.x - bi.x, dy = bj.y - bi.y, dz = bj.z - bi.z;
  float r2 = dx * dx + dy * dy + dz * dz + c_softening2;
  float inv = rsqrtf(r2);
  float f = bj.w * inv * inv * inv;
  a.x += dx * f;
  a.y += dy * f;
  a.z += dz * f;
  return a;
}

extern "C" __global__ void nbody_step(const float4 *pos, const float4 *vel,
                                      float4 *pos_out, float4 *vel_out, int n,
                                      float dt) {
  extern __shared__ float4 body_tile[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 me = i < n ? pos[i] : make_float4(0.f, 0.f, 0.f, 0.f);
  float3 acc = make_float3(0.f, 0.f, 0.f);

  for (int base = 0; base < n; base += blockDim.x) {
    int j = base + threadIdx.x;
    // A body past the end has no mass and so pulls nothing.
    body_tile[threadIdx.x] = j < n ? pos[j] : make_float4(0.f, 0.f, 0.f, 0.f);
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < blockDim.x; k++)
      acc = body_accel(me, body_tile[k], acc);
    __syncthreads();
  }
  if (i >= n)
    return;
  float4 v = vel[i];
  v.x += acc.x * dt;
  v.y += acc.y * dt;
  v.z += acc.z * dt;
  me.x += v.x * dt;
  me.y += v.y * dt;
  me.z += v.z * dt;
  vel_out[i] = v;
  pos_out[i] = me;
}

// ---------------------------------------------------------------------------
// GELU, tanh approximation, templated on the element type.

__device__ __forceinline__ float tanh_t(float v) { return tanhf(v); }
__device__ __forceinline__ double tanh_t(double v) { return tanh(v); }

template <typename T> __global__ void gelu_tanh(const T *x, T *y, size_t n) {
  const T k0 = T(0.7978845608028654); // sqrt(2 / pi)
  const T k1 = T(0.044715);
  size_t stride = (size_t)blockDim.x * gridDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    T v = x[i];
    y[i] = T(0.5) * v * (T(1) + tanh_t(k0 * (v + k1 * v * v * v)));
  }
}

template __global__ void gelu_tanh<float>(const float *, float *, size_t);
template __global__ void gelu_tanh<double>(const double *, double *, size_t);

// ---------------------------------------------------------------------------
// y = a * x + y in half precision: one element per thread, and two per
// thread through __half2 (n counts halves; an odd tail is done alone).

extern "C" __global__ void haxpy(int n, __half a, const __half *x, __half *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = __hfma(a, x[i], y[i]);
}

extern "C" __global__ void haxpy2(int n, __half a, const __half *x, __half *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int pairs = n / 2;
  if (i < pairs) {
    const __half2 *x2 = reinterpret_cast<const __half2 *>(x);
    __half2 *y2 = reinterpret_cast<__half2 *>(y);
    y2[i] = __hfma2(__half2half2(a), x2[i], y2[i]);
  } else if (i == pairs && (n & 1)) {
    y[n - 1] = __hfma(a, x[n - 1], y[n - 1]);
  }
}
