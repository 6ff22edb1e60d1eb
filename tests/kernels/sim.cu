// Simulation-style kernels: a Monte Carlo option pricer on a counter-seeded
// xorshift generator, a radix-2 FFT within a block, a histogram whose warps
// merge equal keys with __match_any_sync, a max-reduction through an
// atomicCAS loop on floats, a clamp with optional device printf, and an
// array-of-structures to structure-of-arrays split.
//
// Written for kspec's corpus (issue 31): plain CUDA, sizes as arguments.
#include <stdio.h>

// ---------------------------------------------------------------------------
// Monte Carlo price of a European call under geometric Brownian motion.
// Every thread runs `paths` paths from its own generator (seeded from the
// global seed and its index, so that the numbers do not depend on the
// schedule); each block writes the discounted sum of its payoffs.

__device__ __forceinline__ unsigned seed_mix(unsigned v) {
  // A multiply-xorshift mix, so neighbouring threads start far apart.
  v ^= v >> 17;
  v *= 0xed5ad4bbu;
  v ^= v >> 11;
  v *= 0xac4c1b51u;
  v ^= v >> 15;
  return v ? v : 0x9e3779b9u; // xorshift must not start at 0
}

__device__ __forceinline__ unsigned xorshift32(unsigned &s) {
  s ^= s << 13;
  s ^= s >> 17;
  s ^= s << 5;
  return s;
}

// A uniform in (0, 1]: 24 random bits, never 0, so its log is finite.
__device__ __forceinline__ float uniform01(unsigned &s) {
  return ((xorshift32(s) >> 8) + 1u) * (1.0f / 16777216.0f);
}

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    mc_call(float *block_sums, int paths, unsigned seed, float s0, float strike,
            float rate, float vol, float years) {
  __shared__ float red[BLOCK];
  unsigned st =
      seed_mix(seed ^ (blockIdx.x * BLOCK + threadIdx.x) * 0x85ebca6bu);
  const float drift = (rate - 0.5f * vol * vol) * years;
  const float diff = vol * sqrtf(years);
  float sum = 0.f;
  for (int p = 0; p < paths; p++) {
    // Box-Muller: one normal from two uniforms.
    float u1 = uniform01(st), u2 = uniform01(st);
    float z = sqrtf(-2.f * logf(u1)) * cospif(2.f * u2);
    float st_price = s0 * expf(drift + diff * z);
    sum += fmaxf(st_price - strike, 0.f);
  }
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int half = BLOCK / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half)
      red[threadIdx.x] += red[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    block_sums[blockIdx.x] = red[0] * expf(-rate * years);
}

template __global__ void mc_call<128>(float *, int, unsigned, float, float,
                                      float, float, float);

// ---------------------------------------------------------------------------
// In-place complex FFT of each block's 2^LOG2N points (float2: re, im):
// bit-reversed load into dynamic shared memory, then log2 N radix-2
// decimation-in-time stages. `inverse` flips the twiddles' sign and scales
// by 1/N.

template <int LOG2N> __global__ void fft_block(float2 *data, int inverse) {
  extern __shared__ float2 fft_buf[];
  const int N = 1 << LOG2N;
  float2 *d = data + (size_t)blockIdx.x * N;
  for (int i = threadIdx.x; i < N; i += blockDim.x)
    fft_buf[__brev(i) >> (32 - LOG2N)] = d[i];
  __syncthreads();

  const float sign = inverse ? 2.f : -2.f;
  for (int len = 2; len <= N; len <<= 1) {
    const int half = len >> 1;
    for (int j = threadIdx.x; j < N / 2; j += blockDim.x) {
      int k = j % half;
      int i0 = (j / half) * len + k, i1 = i0 + half;
      float s, c;
      sincospif(sign * k / len, &s, &c);
      float2 a = fft_buf[i0], b = fft_buf[i1];
      float2 t = make_float2(b.x * c - b.y * s, b.x * s + b.y * c);
      fft_buf[i0] = make_float2(a.x + t.x, a.y + t.y);
      fft_buf[i1] = make_float2(a.x - t.x, a.y - t.y);
    }
    __syncthreads();
  }
  const float scale = inverse ? 1.f / N : 1.f;
  for (int i = threadIdx.x; i < N; i += blockDim.x)
    d[i] = make_float2(fft_buf[i].x * scale, fft_buf[i].y * scale);
}

template __global__ void fft_block<8>(float2 *, int);
template __global__ void fft_block<11>(float2 *, int);

// ---------------------------------------------------------------------------
// Histogram of keys % nbins with warp-aggregated atomics: lanes holding the
// same bin find each other with __match_any_sync and the lowest of them adds
// the group's size. The loop runs whole warps (the test is on the warp's
// first index), as __match_any_sync needs every lane of the mask; blockDim.x
// is a multiple of 32.

extern "C" __global__ void hist_match_any(const int *keys, int n,
                                          unsigned *hist, int nbins) {
  const int lane = threadIdx.x & 31;
  const int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i - lane < n;
       i += stride) {
    bool valid = i < n;
    int bin = valid ? keys[i] % nbins : -1;
    unsigned peers = __match_any_sync(0xffffffffu, bin);
    if (valid && lane == __ffs(peers) - 1)
      atomicAdd(&hist[bin], (unsigned)__popc(peers));
  }
}

// ---------------------------------------------------------------------------
// The largest |x| through an atomicCAS loop on the float's bits (there is no
// float atomicMax); the block's maximum first, one atomic per block.

__device__ float atomic_max_float(float *addr, float v) {
  int *ai = reinterpret_cast<int *>(addr);
  int old = *ai, assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= v)
      break;
    old = atomicCAS(ai, assumed, __float_as_int(v));
  } while (assumed != old);
  return __int_as_float(old);
}

extern "C" __global__ void max_abs_cas(const float *x, int n, float *result) {
  __shared__ float red[32];
  float m = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    m = fmaxf(m, fabsf(x[i]));
  for (int off = 16; off > 0; off >>= 1)
    m = fmaxf(m, __shfl_down_sync(0xffffffffu, m, off));
  if ((threadIdx.x & 31) == 0)
    red[threadIdx.x >> 5] = m;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < (int)(blockDim.x + 31) / 32; w++)
      m = fmaxf(m, red[w]);
    atomic_max_float(result, m);
  }
}

// ---------------------------------------------------------------------------
// Clamp x to [lo, hi] in place and count the values that were outside; with
// `verbose` each one is reported through device printf (debug builds of real
// code keep such lines behind a flag).

extern "C" __global__ void clamp_report(float *x, int n, float lo, float hi,
                                        int verbose, unsigned *clamped) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = x[i];
  if (v < lo || v > hi) {
    atomicAdd(clamped, 1u);
    if (verbose)
      printf("clamp_report: x[%d] = %g outside [%g, %g]\n", i, v, lo, hi);
    x[i] = fminf(fmaxf(v, lo), hi);
  }
}

// ---------------------------------------------------------------------------
// Array of structures to structure of arrays, plus each particle's kinetic
// energy.

struct Particle {
  float3 pos;
  float mass;
  float3 vel;
  int id;
};

extern "C" __global__ void aos_to_soa(const Particle *p, float *px, float *py,
                                      float *pz, float *vx, float *vy,
                                      float *vz, float *mass, int *id,
                                      float *kinetic, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  Particle q = p[i];
  px[i] = q.pos.x;
  py[i] = q.pos.y;
  pz[i] = q.pos.z;
  vx[i] = q.vel.x;
  vy[i] = q.vel.y;
  vz[i] = q.vel.z;
  mass[i] = q.mass;
  id[i] = q.id;
  kinetic[i] = 0.5f * q.mass *
               (q.vel.x * q.vel.x + q.vel.y * q.vel.y + q.vel.z * q.vel.z);
}
