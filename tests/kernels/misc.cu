// Assorted kernels: a bitonic sort and a Walsh-Hadamard transform within a
// block, a 256-bin histogram privatized in shared memory, a matrix-vector
// product with a warp per row, gathers and a scatter-add through an index
// buffer, stream compaction with warp ballots, a kernel taking one argument
// of every scalar type, and an elementwise map templated on a functor.
//
// Written for kspec's corpus (issue 31): plain CUDA, sizes as arguments.
#include <limits.h>

// ---------------------------------------------------------------------------
// Bitonic sort of each block's BLOCK keys (one per thread) in shared memory,
// carrying each key's original index along. Ties may trade places (bitonic
// networks are not stable), but the network is fixed, so the order is too.
// The last block pads with keys that sort past every real one.

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    bitonic_sort_block(unsigned *keys, unsigned *index, int n,
                       bool descending) {
  __shared__ unsigned sk[BLOCK];
  __shared__ unsigned sv[BLOCK];
  const int t = threadIdx.x;
  const int g = blockIdx.x * BLOCK + t;
  sk[t] = g < n ? keys[g] : (descending ? 0u : UINT_MAX);
  sv[t] = (unsigned)g;
  __syncthreads();

  for (int size = 2; size <= BLOCK; size <<= 1) {
    for (int stride = size >> 1; stride > 0; stride >>= 1) {
      int partner = t ^ stride;
      if (partner > t) {
        // Runs of `size` alternate direction so that they merge next.
        bool up = ((t & size) == 0) != descending;
        unsigned a = sk[t], b = sk[partner];
        if ((a > b) == up) {
          sk[t] = b;
          sk[partner] = a;
          unsigned va = sv[t];
          sv[t] = sv[partner];
          sv[partner] = va;
        }
      }
      __syncthreads();
    }
  }
  if (g < n) {
    keys[g] = sk[t];
    index[g] = sv[t];
  }
}

template __global__ void bitonic_sort_block<256>(unsigned *, unsigned *, int,
                                                 bool);
template __global__ void bitonic_sort_block<1024>(unsigned *, unsigned *, int,
                                                  bool);

// ---------------------------------------------------------------------------
// Walsh-Hadamard transform of each block's 2^LOG2N floats, in place, scaled
// by `scale` (1/sqrt(N) for the orthonormal form). log2 N butterfly stages in
// dynamic shared memory of 2^LOG2N floats; any block size.

template <int LOG2N> __global__ void wht_block(float *data, float scale) {
  extern __shared__ float wh[];
  const int N = 1 << LOG2N;
  float *d = data + (size_t)blockIdx.x * N;
  for (int i = threadIdx.x; i < N; i += blockDim.x)
    wh[i] = d[i];
  __syncthreads();
#pragma unroll
  for (int h = 1; h < N; h <<= 1) {
    for (int j = threadIdx.x; j < N / 2; j += blockDim.x) {
      int i0 = (j / h) * 2 * h + (j % h);
      int i1 = i0 + h;
      float a = wh[i0], b = wh[i1];
      wh[i0] = a + b;
      wh[i1] = a - b;
    }
    __syncthreads();
  }
  for (int i = threadIdx.x; i < N; i += blockDim.x)
    d[i] = wh[i] * scale;
}

template __global__ void wht_block<10>(float *, float);
template __global__ void wht_block<12>(float *, float);

// ---------------------------------------------------------------------------
// 256-bin histogram of bytes: each block counts into its own copy in shared
// memory, then adds its nonzero bins to the global histogram. Two readers:
// one byte per access, and four bytes per 32-bit word.

__device__ __forceinline__ void hist_clear(unsigned *local) {
  for (int i = threadIdx.x; i < 256; i += blockDim.x)
    local[i] = 0;
  __syncthreads();
}

__device__ __forceinline__ void hist_flush(const unsigned *local,
                                           unsigned *hist) {
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x)
    if (local[i])
      atomicAdd(&hist[i], local[i]);
}

extern "C" __global__ void __launch_bounds__(256)
    hist256_shared(const unsigned char *data, int n, unsigned *hist) {
  __shared__ unsigned local[256];
  hist_clear(local);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i]], 1u);
  hist_flush(local, hist);
}

// `words` 32-bit words, each holding four samples.
extern "C" __global__ void hist256_words(const unsigned *data, int words,
                                         unsigned *hist) {
  __shared__ unsigned local[256];
  hist_clear(local);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < words;
       i += blockDim.x * gridDim.x) {
    unsigned w = data[i];
    atomicAdd(&local[w & 0xffu], 1u);
    atomicAdd(&local[(w >> 8) & 0xffu], 1u);
    atomicAdd(&local[(w >> 16) & 0xffu], 1u);
    atomicAdd(&local[w >> 24], 1u);
  }
  hist_flush(local, hist);
}

// ---------------------------------------------------------------------------
// y = alpha * A x + beta * y, A row-major rows x cols; one warp per row
// strides along it, then a butterfly of shuffles sums the lanes.

template <int WARPS>
__global__ void __launch_bounds__(WARPS * 32)
    gemv_warp_row(const float *A, const float *x, float *y, int rows, int cols,
                  float alpha, float beta) {
  const int lane = threadIdx.x & 31;
  const int row = blockIdx.x * WARPS + (threadIdx.x >> 5);
  if (row >= rows)
    return; // the whole warp leaves together
  const float *a = A + (size_t)row * cols;
  float s = 0.f;
  for (int c = lane; c < cols; c += 32)
    s += a[c] * x[c];
#pragma unroll
  for (int m = 16; m > 0; m >>= 1)
    s += __shfl_xor_sync(0xffffffffu, s, m);
  if (lane == 0)
    y[row] = alpha * s + beta * y[row];
}

template __global__ void gemv_warp_row<4>(const float *, const float *, float *,
                                          int, int, float, float);
template __global__ void gemv_warp_row<8>(const float *, const float *, float *,
                                          int, int, float, float);

// ---------------------------------------------------------------------------
// Gather dst[i] = src[idx[i]] on any element and index type, grid-stride;
// scatter-add dst[idx[i]] += val[i] with integer atomics (the order of the
// additions cannot change the result).

template <typename T, typename I>
__global__ void gather(const T *src, const I *idx, T *dst, I n) {
  for (I i = blockIdx.x * (I)blockDim.x + threadIdx.x; i < n;
       i += (I)blockDim.x * gridDim.x)
    dst[i] = src[idx[i]];
}

template __global__ void gather<float, int>(const float *, const int *, float *,
                                            int);
template __global__ void gather<double, long long>(const double *,
                                                   const long long *, double *,
                                                   long long);

extern "C" __global__ void scatter_add_i32(const int *val, const int *idx,
                                           int *dst, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&dst[idx[i]], val[i]);
}

// ---------------------------------------------------------------------------
// Stream compaction within each block: the elements above `threshold` move
// to the front of the block's segment of `out`, in their order; the rest of
// the segment is filled with -1, and the block's count goes to counts[].
// Warp ballots give each element its place within its warp, a scan of the
// per-warp counts (by the first warp) the warps' offsets.

extern "C" __global__ void compact_block(const int *in, int *out, int *counts,
                                         int n, int threshold) {
  __shared__ int warp_off[33];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int nwarps = (blockDim.x + 31) >> 5;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const bool keep = i < n && in[i] > threshold;

  unsigned ballot = __ballot_sync(0xffffffffu, keep);
  int before = __popc(ballot & ((1u << lane) - 1u));
  if (lane == 0)
    warp_off[warp] = __popc(ballot);
  __syncthreads();
  if (warp == 0) {
    int c = lane < nwarps ? warp_off[lane] : 0;
    int incl = c;
    for (int d = 1; d < 32; d <<= 1) {
      int up = __shfl_up_sync(0xffffffffu, incl, d);
      if (lane >= d)
        incl += up;
    }
    if (lane < nwarps)
      warp_off[lane] = incl - c;
    if (lane == 31)
      warp_off[32] = incl;
  }
  __syncthreads();
  const int total = warp_off[32];
  int *seg = out + blockIdx.x * blockDim.x;
  if (keep)
    seg[warp_off[warp] + before] = in[i];
  if (threadIdx.x >= total && i < n)
    seg[threadIdx.x] = -1;
  if (threadIdx.x == 0)
    counts[blockIdx.x] = total;
}

// How many values fall in [lo, hi): a ballot and popcount per warp, one
// atomic per warp.
extern "C" __global__ void count_in_range(const float *x, int n, float lo,
                                          float hi, unsigned *count) {
  for (int base = blockIdx.x * blockDim.x; base < n;
       base += blockDim.x * gridDim.x) {
    int i = base + threadIdx.x;
    bool in = i < n && x[i] >= lo && x[i] < hi;
    unsigned b = __ballot_sync(0xffffffffu, in);
    if ((threadIdx.x & 31) == 0 && b)
      atomicAdd(count, (unsigned)__popc(b));
  }
}

// ---------------------------------------------------------------------------
// One argument of every scalar type a kernel can take, each of which changes
// the result, so that binding any of them to a wrong value shows.

extern "C" __global__ void scalar_mix(long long *out, int n, char c, short s,
                                      bool flag, unsigned u, unsigned char uc,
                                      unsigned short us, long long ll,
                                      unsigned long long ull, float f, double d,
                                      signed char sc) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  long long v = (long long)i * c + s;
  if (flag)
    v ^= (long long)u;
  v += uc * 3 + us;
  v = v * (ll & 15) + (long long)(ull >> 3);
  v += (long long)(f * (float)(i & 1023)) + (long long)(d * (i & 4095));
  out[i] = v - sc;
}

// ---------------------------------------------------------------------------
// An elementwise map templated on a functor passed by value.

struct AffineOp {
  float a, b;
  __device__ float operator()(float x) const { return a * x + b; }
};

struct SoftsignOp {
  __device__ float operator()(float x) const { return x / (1.f + fabsf(x)); }
};

template <typename Op>
__global__ void map(Op op, const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = op(in[i]);
}

template __global__ void map<AffineOp>(AffineOp, const float *, float *, int);
template __global__ void map<SoftsignOp>(SoftsignOp, const float *, float *,
                                         int);
