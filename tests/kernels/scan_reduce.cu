// Scans and reductions: a Hillis-Steele block scan, a Blelloch block scan,
// warp-shuffle, atomic and cooperative-groups tile reductions, a dot product.
//
// Written for kspec's corpus (issue 31). Every reduction here combines in an
// order fixed by the launch shape (per-block partials), or combines integers,
// so a run's result does not depend on which block finishes first.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <limits.h>

namespace cg = cooperative_groups;

// ---------------------------------------------------------------------------
// Inclusive scan of each block's blockDim.x elements (a segmented scan with
// segments of one block), Hillis-Steele: log2(blockDim) steps over a double
// buffer of 2 * blockDim.x elements of dynamic shared memory.

template <typename T>
__global__ void scan_inclusive_hs(const T *in, T *out, int n) {
  // A template cannot declare `extern __shared__ T buf[]` for several T.
  extern __shared__ unsigned char scan_smem[];
  T *buf = reinterpret_cast<T *>(scan_smem);
  const int nb = blockDim.x, tid = threadIdx.x;
  const int gi = blockIdx.x * nb + tid;

  buf[tid] = gi < n ? in[gi] : T(0);
  __syncthreads();
  int cur = 0;
  for (int off = 1; off < nb; off <<= 1) {
    int nxt = 1 - cur;
    T v = buf[cur * nb + tid];
    if (tid >= off)
      v += buf[cur * nb + tid - off];
    buf[nxt * nb + tid] = v;
    __syncthreads();
    cur = nxt;
  }
  if (gi < n)
    out[gi] = buf[cur * nb + tid];
}

template __global__ void scan_inclusive_hs<int>(const int *, int *, int);
template __global__ void scan_inclusive_hs<float>(const float *, float *, int);

// ---------------------------------------------------------------------------
// Work-efficient (Blelloch) exclusive scan of 2 * BLOCK elements per block:
// an up-sweep builds partial sums in a tree, the root is cleared, a
// down-sweep pushes prefixes back. Shared indices are padded by one word
// per 32 so that the strided tree steps do not pile onto one bank.
// Also writes each block's total, for a second pass to add across blocks.

#define SCAN_PAD(i) ((i) + ((i) >> 5))

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    scan_blelloch(const unsigned *in, unsigned *out, unsigned *block_sums,
                  int n) {
  __shared__ unsigned s[SCAN_PAD(2 * BLOCK) + 1];
  const int tid = threadIdx.x;
  const int base = blockIdx.x * 2 * BLOCK;
  int ia = tid, ib = tid + BLOCK;
  s[SCAN_PAD(ia)] = base + ia < n ? in[base + ia] : 0u;
  s[SCAN_PAD(ib)] = base + ib < n ? in[base + ib] : 0u;

  int off = 1;
  for (int d = BLOCK; d > 0; d >>= 1) {
    __syncthreads();
    if (tid < d) {
      int a = off * (2 * tid + 1) - 1;
      int b = off * (2 * tid + 2) - 1;
      s[SCAN_PAD(b)] += s[SCAN_PAD(a)];
    }
    off <<= 1;
  }
  __syncthreads();
  if (tid == 0) {
    block_sums[blockIdx.x] = s[SCAN_PAD(2 * BLOCK - 1)];
    s[SCAN_PAD(2 * BLOCK - 1)] = 0u;
  }
  for (int d = 1; d <= BLOCK; d <<= 1) {
    off >>= 1;
    __syncthreads();
    if (tid < d) {
      int a = off * (2 * tid + 1) - 1;
      int b = off * (2 * tid + 2) - 1;
      unsigned t = s[SCAN_PAD(a)];
      s[SCAN_PAD(a)] = s[SCAN_PAD(b)];
      s[SCAN_PAD(b)] += t;
    }
  }
  __syncthreads();
  if (base + ia < n)
    out[base + ia] = s[SCAN_PAD(ia)];
  if (base + ib < n)
    out[base + ib] = s[SCAN_PAD(ib)];
}

template __global__ void scan_blelloch<256>(const unsigned *, unsigned *,
                                            unsigned *, int);
template __global__ void scan_blelloch<512>(const unsigned *, unsigned *,
                                            unsigned *, int);

// ---------------------------------------------------------------------------
// Sum reduction: grid-stride accumulation, then __shfl_down_sync within each
// warp, then the first warp over the warps' sums. One partial per block.

__device__ __forceinline__ float warp_sum_down(float v) {
  for (int off = 16; off > 0; off >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, off);
  return v;
}

extern "C" __global__ void reduce_shfl(const float *in, float *partial, int n) {
  __shared__ float warp_sums[32];
  float v = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    v += in[i];
  v = warp_sum_down(v);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0)
    warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int nwarps = (blockDim.x + 31) >> 5;
    v = lane < nwarps ? warp_sums[lane] : 0.f;
    v = warp_sum_down(v);
    if (lane == 0)
      partial[blockIdx.x] = v;
  }
}

// Integer sum: a shared-memory tree per block, then one atomicAdd per block
// into the total (integer addition: the order of the atomics does not matter).
template <typename T, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    reduce_atomic(const T *in, T *total, int n) {
  __shared__ T s[BLOCK];
  T v = 0;
  for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += BLOCK * gridDim.x)
    v += in[i];
  s[threadIdx.x] = v;
  __syncthreads();
#pragma unroll
  for (int half = BLOCK / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half)
      s[threadIdx.x] += s[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(total, s[0]);
}

template __global__ void reduce_atomic<int, 256>(const int *, int *, int);
template __global__ void
reduce_atomic<unsigned long long, 256>(const unsigned long long *,
                                       unsigned long long *, int);

// Maximum of signed ints: warp maxima by shuffle, then one atomicMax per warp.
extern "C" __global__ void reduce_max_atomic(const int *in, int *result,
                                             int n) {
  int m = INT_MIN;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    m = max(m, in[i]);
  for (int off = 16; off > 0; off >>= 1)
    m = max(m, __shfl_down_sync(0xffffffffu, m, off));
  if ((threadIdx.x & 31) == 0)
    atomicMax(result, m);
}

// ---------------------------------------------------------------------------
// Cooperative-groups tiles of 16 threads: each tile sums its 16 elements.
// One by hand with tile.shfl_down, one through cg::reduce.

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    tile16_sum(const float *in, float *tile_sums, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  int i = blockIdx.x * BLOCK + block.thread_rank();
  float v = i < n ? in[i] : 0.f;
  for (int off = tile.size() / 2; off > 0; off >>= 1)
    v += tile.shfl_down(v, off);
  if (tile.thread_rank() == 0 && i < n)
    tile_sums[i / 16] = v;
}

template __global__ void tile16_sum<256>(const float *, float *, int);

// Per tile: the sum through cg::reduce and the maximum (floats, which
// cg::reduce does with shuffles on every architecture).
extern "C" __global__ void tile16_reduce_cg(const float *in, float *sums,
                                            float *maxes, int n) {
  cg::thread_block block = cg::this_thread_block();
  auto tile = cg::tiled_partition<16>(block);
  int i = blockIdx.x * blockDim.x + block.thread_rank();
  float v = i < n ? in[i] : 0.f;
  float s = cg::reduce(tile, v, cg::plus<float>());
  float m = cg::reduce(tile, i < n ? v : -INFINITY, cg::greater<float>());
  if (tile.thread_rank() == 0 && i < n) {
    sums[i / 16] = s;
    maxes[i / 16] = m;
  }
}

// ---------------------------------------------------------------------------
// Dot product: grid-stride products, a classic shared-memory tree (blockDim
// a power of two, dynamic shared memory of blockDim floats), one partial per
// block.

extern "C" __global__ void dot_partial(const float *a, const float *b,
                                       float *partial, int n) {
  extern __shared__ float dot_smem[];
  float v = 0.f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    v += a[i] * b[i];
  dot_smem[threadIdx.x] = v;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half)
      dot_smem[threadIdx.x] += dot_smem[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    partial[blockIdx.x] = dot_smem[0];
}
