/*
 * warp.cu - the dialect's warp functions (tests/dialect/README.md says how
 * these kernels are checked): shuffles of every type, votes, matches and
 * reductions, over full warps.
 *
 * Every kernel of tests/dialect takes (in, out, n): in holds 4 random words
 * a thread, out 64 slots of 64 bits for grid-wide results, then 16 a
 * thread (OUT(c)).
 */
#define FULL 0xffffffffu
#define OUT(c) out[64 + (size_t)t * 16 + (c)]

// PTX(warp_shfl): shfl.sync.idx.b32
// PTX(warp_shfl): shfl.sync.up.b32
// PTX(warp_shfl): shfl.sync.down.b32
// PTX(warp_shfl): shfl.sync.bfly.b32
KS_KERNEL void warp_shfl(const unsigned *in, unsigned long long *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  unsigned v = in[4 * t], w = in[4 * t + 1];
  OUT(0) = (unsigned)__shfl_sync(FULL, (int)v, (lane * 7) & 31);
  OUT(1) = __shfl_up_sync(FULL, v, 3);
  OUT(2) = __shfl_down_sync(FULL, v, 5);
  OUT(3) = __shfl_xor_sync(FULL, v, 9);
  OUT(4) = __shfl_sync(FULL, v, 2, 8);
  OUT(5) = __shfl_up_sync(FULL, v, 1, 16);
  float f = (float)(int)v * 0.5f;
  OUT(6) = __float_as_uint(__shfl_xor_sync(FULL, f, 1));
  long long ll = (long long)(((unsigned long long)v << 32) | w);
  OUT(7) = (unsigned long long)__shfl_down_sync(FULL, ll, 1);
  double d = (double)(int)v * 0.25;
  OUT(8) = (unsigned long long)__double_as_longlong(__shfl_up_sync(FULL, d, 1));
  unsigned long long u64 = ((unsigned long long)w << 32) | v;
  OUT(9) = __shfl_sync(FULL, u64, 31 - lane);
  __half2 h2 = __halves2half2(__ushort_as_half(v & 0x7bff),
                              __ushort_as_half(w & 0x7bff));
  OUT(10) = __builtin_bit_cast(unsigned, __shfl_xor_sync(FULL, h2, 2));
  __half h = __ushort_as_half(w & 0x7bff);
  OUT(11) = __half_as_ushort(__shfl_sync(FULL, h, lane ^ 5));
  __nv_bfloat16 b = __ushort_as_bfloat16((v >> 16) & 0x7f7f);
  OUT(12) = __bfloat16_as_ushort(__shfl_down_sync(FULL, b, 2));
  __nv_bfloat162 b2 = __halves2bfloat162(b, __ushort_as_bfloat16(w & 0x7f7f));
  OUT(13) = __builtin_bit_cast(unsigned, __shfl_up_sync(FULL, b2, 4));
  OUT(14) = (unsigned)__shfl_xor_sync(FULL, (long)(int)v, 16);
}

// PTX(warp_vote): vote.sync.ballot.b32
// PTX(warp_vote): vote.sync.any.pred
// PTX(warp_vote): vote.sync.all.pred
// PTX(warp_vote): activemask.b32
// PTX(warp_vote): match.any.sync.b32
// PTX(warp_vote): match.all.sync.b32
// PTX(warp_vote): match.any.sync.b64
// PTX(warp_vote): bar.warp.sync
KS_KERNEL void warp_vote(const unsigned *in, unsigned long long *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = in[4 * t];
  OUT(0) = __ballot_sync(FULL, v & 1);
  OUT(1) = (unsigned)__any_sync(FULL, v % 61 == 0);
  OUT(2) = (unsigned)__all_sync(FULL, v % 61 != 0);
  OUT(3) = __activemask();
  OUT(4) = __match_any_sync(FULL, v % 5);
  int p1 = 0, p2 = 0;
  unsigned m1 = __match_all_sync(FULL, blockIdx.x, &p1);
  unsigned m2 = __match_all_sync(FULL, (int)v, &p2);
  OUT(5) = m1 | (unsigned long long)p1 << 32;
  OUT(6) = m2 | (unsigned long long)p2 << 32;
  OUT(7) = __match_any_sync(FULL, (unsigned long long)(v % 3) << 40);
  OUT(8) = __match_any_sync(FULL, (float)(v % 4));
  __syncwarp();
  OUT(9) = (unsigned)__any_sync(__activemask(), 1);
}

// The reductions, over all lanes and over the odd lanes: the reduction of
// an all-lanes value (~0u) over the odd lanes' mask is the case kspec's
// toolchain guard must leave alone (passes/redux_guard.c).
// PTX(warp_reduce): redux.sync.add.s32
// PTX(warp_reduce): redux.sync.min.u32
// PTX(warp_reduce): redux.sync.max.u32
// PTX(warp_reduce): redux.sync.min.s32
// PTX(warp_reduce): redux.sync.max.s32
// PTX(warp_reduce): redux.sync.and.b32
// PTX(warp_reduce): redux.sync.or.b32
// PTX(warp_reduce): redux.sync.xor.b32
KS_KERNEL void warp_reduce(const unsigned *in, unsigned long long *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  unsigned v = in[4 * t] & 0xffff, w = in[4 * t + 1], x = in[4 * t + 2];
  OUT(0) = __reduce_add_sync(FULL, v);
  OUT(1) = (unsigned)__reduce_add_sync(FULL, (int)w);
  OUT(2) = __reduce_min_sync(FULL, w);
  OUT(3) = __reduce_max_sync(FULL, w);
  OUT(4) = (unsigned)__reduce_min_sync(FULL, (int)w);
  OUT(5) = (unsigned)__reduce_max_sync(FULL, (int)w);
  OUT(6) = __reduce_and_sync(FULL, w | x);
  OUT(7) = __reduce_or_sync(FULL, w & x);
  OUT(8) = __reduce_xor_sync(FULL, w);
  unsigned odd = __ballot_sync(FULL, lane & 1);
  if (lane & 1) {
    OUT(9) = __reduce_add_sync(odd, v);
    OUT(10) = __reduce_and_sync(odd, 0xffffffffu);
    OUT(11) = __reduce_add_sync(odd, 1u);
    OUT(12) = __reduce_or_sync(odd, __activemask());
  }
}
