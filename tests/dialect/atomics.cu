/*
 * atomics.cu - the dialect's atomics under contention, on global memory
 * (every thread of the grid on the same few words) and on shared memory
 * (every thread of a block). Layout of in and out: warp.cu. The harness
 * sets out's global slots 56 to 63 to all ones (for atomicMin and
 * atomicAnd), the others to 0.
 */
#define OUT(c) out[64 + (size_t)t * 16 + (c)]
#define U32(k) ((unsigned *)&out[k])
#define I32(k) ((int *)&out[k])

/* a counter incremented by compare-and-swap */
template <typename T> __device__ void cas_inc(T *p) {
  T old = *(volatile T *)p, seen;
  do {
    seen = old;
    old = atomicCAS(p, seen, (T)(seen + 1));
  } while (old != seen);
}
template <typename T> __device__ void cas_inc_block(T *p) {
  T old = *(volatile T *)p, seen;
  do {
    seen = old;
    old = atomicCAS_block(p, seen, (T)(seen + 1));
  } while (old != seen);
}

// (red where the old value is unused: jit/codegen/ptxedit.c)
// PTX(atomics_global): (atom|red)\.global\.add\.u32
// PTX(atomics_global): (atom|red)\.global\.add\.f32
// PTX(atomics_global): (atom|red)\.global\.add\.f64
// PTX(atomics_global): (atom|red)\.global\.add\.u64
// PTX(atomics_global): atom.global.exch.b32
// PTX(atomics_global): atom(\.global)?\.inc\.u32
// PTX(atomics_global): atom(\.global)?\.dec\.u32
// PTX(atomics_global): atom.global.cas.b32
// PTX(atomics_global): atom.global.cas.b64
// PTX(atomics_global): (atom|red)\.global\.min\.s32
// PTX(atomics_global): (atom|red)\.global\.max\.u64
// PTX(atomics_global): (atom|red)\.global\.and\.b32
// PTX(atomics_global): (atom|red)\.global\.or\.b64
// PTX(atomics_global): (atom|red)\.global\.xor\.b32
// PTX(atomics_global): atom\.sys\.add\.[su]32
// PTX(atomics_global): atom\.sys\.add\.f64
// PTX(atomics_global): atom\.sys\.cas\.b32
KS_KERNEL void atomics_global(const unsigned *in, unsigned long long *out,
                              int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n)
    return;
  unsigned v = in[4 * t], w = in[4 * t + 1];
  unsigned long long vw = ((unsigned long long)v << 32) | w;
  atomicAdd(I32(0), (int)(v & 0xff) - 128);
  atomicAdd(U32(1), v & 0xffff);
  atomicAdd(&out[2], (unsigned long long)v << 8);
  atomicAdd((float *)&out[3], (float)(v & 0xff));
  atomicAdd((double *)&out[4], (double)v);
  atomicSub(I32(5), 3);
  atomicSub(U32(6), 7u);
  OUT(0) = atomicExch(U32(7), (unsigned)t + 1);
  atomicInc(U32(8), 999u);
  atomicDec(U32(9), 999u);
  atomicMin(I32(10), (int)v);
  atomicMax(I32(11), (int)w);
  atomicMax(U32(12), v);
  atomicMax((long long *)&out[13], (long long)vw);
  atomicMax(&out[14], vw);
  atomicOr(U32(15), 1u << (t & 31));
  atomicOr(&out[16], 1ull << (t & 63));
  atomicXor(U32(17), v);
  atomicXor(I32(18), (int)w);
  atomicAdd_system(U32(19), 1u);
  atomicAdd_system((double *)&out[20], 0.5);
  atomicMax_system(U32(21), w);
  atomicMin(U32(56), v);
  atomicMin(&out[57], vw);
  atomicMin((long long *)&out[58], (long long)vw);
  atomicAnd(U32(59), ~(1u << (t % 31)));
  atomicAnd(&out[60], ~(1ull << (t % 63)));
  atomicAnd(I32(61), (int)~(1u << (t % 30)));
  if (t < 4096) {
    cas_inc(U32(22));
    cas_inc(&out[23]);
    cas_inc((unsigned short *)&out[24]);
  }
  /* 16-bit floats: few enough adds per slot that every sum is exact */
  atomicAdd((__half2 *)&out[32] + (t & 31), __floats2half2_rn(1.0f, 2.0f));
  if (t < 8192)
    atomicAdd((__nv_bfloat16 *)&out[48] + (t & 31), __float2bfloat16(1.0f));
}

// The scoped forms are NVVM intrinsics, which LLVM 19 leaves on generic
// addresses (atom.cta.add, not atom.shared.cta.add): the same instruction
// on the same memory.
// PTX(atomics_shared): atom\.shared\.add\.u32
// PTX(atomics_shared): atom(\.shared)?\.cta\.add\.s32
// PTX(atomics_shared): atom\.shared\.add\.f32
// PTX(atomics_shared): atom(\.shared)?\.cta\.add\.f64
// PTX(atomics_shared): atom\.shared\.exch\.b32
// PTX(atomics_shared): atom(\.shared)?\.cta\.inc\.u32
// PTX(atomics_shared): atom(\.shared)?\.cta\.cas\.b32
// PTX(atomics_shared): atom(\.shared)?\.cta\.max\.s32
// PTX(atomics_shared): atom\.shared\.min\.u32
// PTX(atomics_shared): atom\.shared\.or\.b32
// PTX(atomics_shared): atom\.shared\.add\.noftz\.f16
KS_KERNEL void atomics_shared(const unsigned *in, unsigned long long *out,
                              int n) {
  __shared__ int si[4];
  __shared__ unsigned su[12];
  __shared__ unsigned long long sl[2];
  __shared__ float sf;
  __shared__ double sd;
  __shared__ __half2 sh2[8];
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int b = threadIdx.x;
  if (b < 4)
    si[b] = 0;
  if (b < 12)
    su[b] = b == 9 ? 0xffffffffu : 0u;
  if (b < 2)
    sl[b] = 0;
  if (b < 8)
    sh2[b] = __floats2half2_rn(0.0f, 0.0f);
  if (b == 0) {
    sf = 0.0f;
    sd = 0.0;
  }
  __syncthreads();
  unsigned v = in[4 * t], w = in[4 * t + 1];
  atomicAdd(&si[0], (int)(v & 0xff) - 128);
  atomicAdd_block(&su[0], v & 0xffff);
  atomicAdd(&sf, (float)(v & 0xff));
  atomicAdd_block(&sd, (double)w);
  atomicAdd(&sl[0], (unsigned long long)w << 4);
  atomicSub_block(&si[1], 5);
  OUT(15) = atomicExch(&su[1], (unsigned)b + 1);
  atomicInc_block(&su[2], 99u);
  atomicDec_block(&su[3], 99u);
  atomicMax_block(&si[2], (int)v);
  atomicMin_block(&su[9], w);
  atomicOr(&su[4], 1u << (b & 31));
  atomicOr_block(&sl[1], 1ull << (b & 63));
  atomicXor_block(&su[5], v);
  atomicAdd(&sh2[b & 7], __floats2half2_rn(1.0f, 0.5f));
  cas_inc_block(&su[6]);
  atomicExch_block((float *)&su[7], 1.5f);
  __syncthreads();
  if (b == 0) {
    OUT(0) = (unsigned)si[0];
    OUT(1) = su[0];
    OUT(2) = __float_as_uint(sf);
    OUT(3) = (unsigned long long)__double_as_longlong(sd);
    OUT(4) = sl[0];
    OUT(5) = (unsigned)si[1];
    OUT(6) = su[1];
    OUT(7) = su[2] | (unsigned long long)su[3] << 32;
    OUT(8) = (unsigned)si[2] | (unsigned long long)su[9] << 32;
    OUT(9) = su[4] | (unsigned long long)su[5] << 32;
    OUT(10) = sl[1];
    OUT(11) = su[6] | (unsigned long long)su[7] << 32;
    OUT(12) = __builtin_bit_cast(unsigned, sh2[0]) |
              (unsigned long long)__builtin_bit_cast(unsigned, sh2[7]) << 32;
  }
}
