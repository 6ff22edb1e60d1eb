// Cooperative-groups kernels: Jacobi sweeps and a whole-array scan that
// synchronize the grid between phases (cooperative launch), and a count
// with warp-aggregated atomics through coalesced_threads().
//
// Written for kspec's corpus (issue 31): plain CUDA, sizes as arguments.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// ---------------------------------------------------------------------------
// `iters` Jacobi sweeps for the Poisson equation on a w x h grid: every
// interior point becomes the mean of its four neighbours less h2 * f / 4;
// boundary points are copied. The sweeps alternate between u0 and u1 with a
// grid-wide barrier between them, so one launch does them all; the result
// is in u1 after an odd number of sweeps. Any grid size gives the same
// result (grid-stride loops).

extern "C" __global__ void jacobi_coop(float *u0, float *u1, const float *f,
                                       int w, int h, float h2, int iters) {
  cg::grid_group grid = cg::this_grid();
  const int n = w * h;
  for (int it = 0; it < iters; it++) {
    const float *src = (it & 1) ? u1 : u0;
    float *dst = (it & 1) ? u0 : u1;
    for (int i = grid.thread_rank(); i < n; i += grid.size()) {
      int x = i % w, y = i / w;
      if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
        dst[i] = src[i];
      else
        dst[i] = 0.25f * (src[i - 1] + src[i + 1] + src[i - w] + src[i + w] -
                          h2 * f[i]);
    }
    grid.sync();
  }
}

// ---------------------------------------------------------------------------
// Inclusive scan of n ints in one cooperative launch. Each block owns a
// contiguous chunk: it sums the chunk, the grid synchronizes, each block
// adds up the sums of the blocks before it, then scans its chunk a
// blockDim.x tile at a time, carrying the running total. BLOCK threads,
// a multiple of 32; block_sums has gridDim.x entries.

template <int BLOCK> __device__ int block_inclusive_scan(int v, int *warp_tot) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  for (int d = 1; d < 32; d <<= 1) {
    int up = warp.shfl_up(v, d);
    if ((int)warp.thread_rank() >= d)
      v += up;
  }
  if (warp.thread_rank() == 31)
    warp_tot[warp.meta_group_rank()] = v;
  block.sync();
  int add = 0;
  for (int w = 0; w < (int)warp.meta_group_rank(); w++)
    add += warp_tot[w];
  block.sync(); // warp_tot is read before anyone writes it again
  return v + add;
}

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    scan_coop(const int *in, int *out, int *block_sums, int n) {
  __shared__ int warp_tot[BLOCK / 32];
  __shared__ int carry;
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  const int chunk = (n + gridDim.x - 1) / gridDim.x;
  const int lo = min(blockIdx.x * chunk, n), hi = min(lo + chunk, n);

  int s = 0;
  for (int i = lo + threadIdx.x; i < hi; i += BLOCK)
    s += in[i];
  s = block_inclusive_scan<BLOCK>(s, warp_tot); // the last thread has all
  if (threadIdx.x == BLOCK - 1)
    block_sums[blockIdx.x] = s;
  grid.sync();

  if (threadIdx.x == 0) {
    int c = 0;
    for (int b = 0; b < (int)blockIdx.x; b++)
      c += block_sums[b];
    carry = c;
  }
  block.sync();
  for (int base = lo; base < hi; base += BLOCK) {
    int i = base + threadIdx.x;
    int v = block_inclusive_scan<BLOCK>(i < hi ? in[i] : 0, warp_tot);
    if (i < hi)
      out[i] = carry + v;
    block.sync();
    if (threadIdx.x == BLOCK - 1)
      carry += v;
    block.sync();
  }
}

template __global__ void scan_coop<256>(const int *, int *, int *, int);

// ---------------------------------------------------------------------------
// Count the values above `threshold`, per block, with warp-aggregated
// atomics: the lanes that take the branch form a coalesced group, whose
// first lane adds the group's size and shares the old count with the rest
// (the slot a compaction would write to). Counts are exact whatever order
// the atomics land in; `slot_sum` gets the sum of the slots, which is
// 0 + 1 + ... + (count - 1) for any order.

__device__ int atomic_agg_inc(int *ctr) {
  cg::coalesced_group g = cg::coalesced_threads();
  int prev = 0;
  if (g.thread_rank() == 0)
    prev = atomicAdd(ctr, (int)g.size());
  return g.shfl(prev, 0) + (int)g.thread_rank();
}

extern "C" __global__ void count_agg_coalesced(const float *in, int n,
                                               float threshold,
                                               int *block_counts,
                                               long long *slot_sum) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] > threshold) {
    int slot = atomic_agg_inc(&block_counts[blockIdx.x]);
    atomicAdd(reinterpret_cast<unsigned long long *>(&slot_sum[blockIdx.x]),
              (unsigned long long)slot);
  }
}
