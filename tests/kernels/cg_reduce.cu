// cg_reduce.cu - sums with cooperative groups.
//
// reduce_block<T, BLOCK>: each block sums a grid-stride share of in into
// partial[blockIdx.x]: a tile of 32 reduces with cg::reduce (shuffles for
// floats; for integers on sm_80 and later CUDA's header uses
// __reduce_add_sync, i.e. redux.sync), the warps' sums meet in shared
// memory and the first warp reduces those.
//
// reduce_grid_sync: one cooperative launch sums everything: each block
// reduces its share in dynamic shared memory (blockDim.x floats, a power of
// two) into partial[], the grid synchronizes, and block 0 sums partial[]
// into *out.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

template <typename T, int BLOCK>
__global__ void reduce_block(const T *in, T *partial, int n) {
  __shared__ T warp_sums[BLOCK / 32];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  T v = 0;
  for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK)
    v += in[i];
  v = cg::reduce(warp, v, cg::plus<T>());
  if (warp.thread_rank() == 0)
    warp_sums[warp.meta_group_rank()] = v;
  block.sync();
  if (warp.meta_group_rank() == 0) {
    v = warp.thread_rank() < BLOCK / 32 ? warp_sums[warp.thread_rank()] : T(0);
    v = cg::reduce(warp, v, cg::plus<T>());
    if (warp.thread_rank() == 0)
      partial[blockIdx.x] = v;
  }
}

template __global__ void reduce_block<float, 256>(const float *, float *, int);
template __global__ void reduce_block<int, 512>(const int *, int *, int);

// Tree sum of s[0..blockDim.x) into s[0]; blockDim.x a power of two.
static __device__ void block_tree(float *s, cg::thread_block &block) {
  for (unsigned o = blockDim.x / 2; o > 0; o >>= 1) {
    if (threadIdx.x < o)
      s[threadIdx.x] += s[threadIdx.x + o];
    block.sync();
  }
}

extern "C" __global__ void reduce_grid_sync(const float *in, float *partial,
                                            float *out, int n) {
  extern __shared__ float s[];
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  float v = 0.0f;
  for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n;
       i += grid.size())
    v += in[i];
  s[threadIdx.x] = v;
  block.sync();
  block_tree(s, block);
  if (threadIdx.x == 0)
    partial[blockIdx.x] = s[0];
  grid.sync();
  if (blockIdx.x != 0)
    return;
  float t = 0.0f;
  for (unsigned i = threadIdx.x; i < gridDim.x; i += blockDim.x)
    t += partial[i];
  s[threadIdx.x] = t;
  block.sync();
  block_tree(s, block);
  if (threadIdx.x == 0)
    *out = s[0];
}
