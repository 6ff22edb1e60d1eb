/*
 * misc.cu - the rest of the dialect: bit functions, integer min and max,
 * block-wide votes, fences, clocks and timers, cache-hinted loads and
 * stores, and grid-wide synchronization (launched cooperatively). Layout
 * of in and out: warp.cu.
 */
#define OUT(c) out[64 + (size_t)t * 16 + (c)]

// PTX(misc_bits): popc.b32
// PTX(misc_bits): popc.b64
// PTX(misc_bits): clz.b32
// PTX(misc_bits): clz.b64
// PTX(misc_bits): brev.b32
// PTX(misc_bits): brev.b64
// PTX(misc_bits): prmt.b32
// PTX(misc_bits): mul.hi.s32
// PTX(misc_bits): mul.hi.u64
KS_KERNEL void misc_bits(const unsigned *in, unsigned long long *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n)
    return;
  unsigned u = in[4 * t], w = in[4 * t + 1], s = in[4 * t + 2];
  if ((s & 15) == 0)
    u = 0; /* the edge of clz, ffs, popc */
  if ((s & 0xf0) == 0)
    w = 0;
  unsigned long long uu = ((unsigned long long)u << 32) | w;
  OUT(0) = (unsigned long long)__popc(u) |
           (unsigned long long)__popcll(uu) << 8 |
           (unsigned long long)__clz((int)u) << 16 |
           (unsigned long long)__clzll((long long)uu) << 24 |
           (unsigned long long)__ffs((int)u) << 32 |
           (unsigned long long)__ffsll((long long)uu) << 40 |
           (unsigned long long)__ffs((int)w) << 48;
  OUT(1) = __brev(u) | (unsigned long long)__byte_perm(u, w, s & 0x7777) << 32;
  OUT(2) = __brevll(uu);
  unsigned sh = (s >> 16) % 40;
  OUT(3) = __funnelshift_l(u, w, sh) |
           (unsigned long long)__funnelshift_r(u, w, sh) << 32;
  OUT(4) = __funnelshift_lc(u, w, sh) |
           (unsigned long long)__funnelshift_rc(u, w, sh) << 32;
  OUT(5) = (unsigned)__mulhi((int)u, (int)w) |
           (unsigned long long)__umulhi(u, w) << 32;
  unsigned long long vv = ((unsigned long long)s << 32) | in[4 * t + 3];
  OUT(6) = (unsigned long long)__mul64hi((long long)uu, (long long)vv);
  OUT(7) = __umul64hi(uu, vv);
  OUT(8) = min(u, w) | (unsigned long long)(unsigned)max((int)u, (int)w) << 32;
  OUT(9) = (unsigned long long)min((long long)uu, (long long)vv);
  OUT(10) = max(uu, vv);
  OUT(11) =
      min((int)u, 5u) |
      (unsigned long long)__float_as_uint(__int_as_float((int)(w & 0x3fffffff)))
          << 32;
}

// PTX(misc_sync): bar.red.popc.u32
// PTX(misc_sync): bar.red.and.pred
// PTX(misc_sync): bar.red.or.pred
// PTX(misc_sync): membar.gl
// PTX(misc_sync): membar.cta
// PTX(misc_sync): membar.sys
// PTX(misc_sync): %clock64
// PTX(misc_sync): %globaltimer
// PTX(misc_sync): nanosleep.u32
KS_KERNEL void misc_sync(const unsigned *in, unsigned long long *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = t < n ? in[4 * t] : 0;
  int c = __syncthreads_count(v & 1);
  int a = __syncthreads_and((v & 1) || threadIdx.x != 5);
  int o = __syncthreads_or(threadIdx.x == 77 && (v & 2));
  long long t0 = clock64();
  unsigned long long g0 = __globaltimer();
  __nanosleep(1000);
  __threadfence_block();
  __threadfence();
  __threadfence_system();
  long long t1 = clock64();
  unsigned long long g1 = __globaltimer();
  if (t >= n)
    return;
  OUT(0) = (unsigned)c | (unsigned long long)(a != 0) << 16 |
           (unsigned long long)(o != 0) << 24;
  OUT(1) = (unsigned long long)(t1 > t0) | (unsigned long long)(g1 >= g0) << 1 |
           (unsigned long long)(g0 != 0) << 2;
}

// PTX(misc_ldst): ld.global.cs.v4.u32
// PTX(misc_ldst): st.global.cs.v4.u32
// PTX(misc_ldst): ld.global.cg.v4.f32
// PTX(misc_ldst): st.global.cg.v4.f32
// PTX(misc_ldst): ld.global.ca.v2.s32
// PTX(misc_ldst): st.global.wb.v2.s32
// PTX(misc_ldst): ld.global.lu.u64
// PTX(misc_ldst): st.global.wt.u64
// PTX(misc_ldst): ld.global.cv.f32
// PTX(misc_ldst): ld.global.nc.v2.f64
KS_KERNEL void misc_ldst(const unsigned *in, unsigned long long *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n)
    return;
  __stcs((uint4 *)&OUT(0), __ldcs((const uint4 *)in + t));
  __stcg((float4 *)&OUT(2), __ldcg((const float4 *)in + t));
  __stwb((int2 *)&OUT(4), __ldca((const int2 *)in + 2 * t + 1));
  __stwt(&OUT(5), __ldlu((const unsigned long long *)in + 2 * t));
  __stcs((float *)&OUT(6), __ldcv((const float *)in + 4 * t + 3));
  __stcg((double2 *)&OUT(8), __ldg((const double2 *)in + t));
  OUT(10) = __ldg(in + 4 * t + 1);
  OUT(11) = __ldg((const unsigned long long *)in + 2 * t + 1);
  float4 f = __ldg((const float4 *)in + t);
  OUT(12) = __float_as_uint(f.w);
}

// Grid-wide barriers (a cooperative launch): three rounds of "each block
// adds 1, the grid syncs, every thread reads the count", then a sum over
// the whole input read back after a last barrier.
// PTX(misc_gridsync): %envreg1
// PTX(misc_gridsync): %envreg2
KS_KERNEL void misc_gridsync(const unsigned *in, unsigned long long *out,
                             int n) {
  namespace cg = cooperative_groups;
  cg::grid_group grid = cg::this_grid();
  int t = (int)grid.thread_rank();
  for (int r = 0; r < 3; r++) {
    if (threadIdx.x == 0)
      atomicAdd((unsigned *)&out[r], 1u);
    grid.sync();
    if (t < n)
      OUT(r) = *(volatile unsigned *)&out[r];
  }
  unsigned long long s = 0;
  for (long long i = t; i < n; i += (long long)grid.size())
    s += in[4 * i];
  atomicAdd(&out[8], s);
  cg::sync(grid);
  if (t < n)
    OUT(3) = *(volatile unsigned long long *)&out[8] |
             (unsigned long long)grid.is_valid() << 63;
}
