/*
 * types.cu - the dialect's types: vector types with make_* (their layout
 * checked at compile time against CUDA's), dim3 and uint3, and __half,
 * __half2, __nv_bfloat16, __nv_bfloat162 with conversions and arithmetic.
 * Layout of in and out: warp.cu.
 */
#define OUT(c) out[64 + (size_t)t * 16 + (c)]

#define KS_LAYOUT(T, size, align)                                              \
  static_assert(sizeof(T) == size && alignof(T) == align, #T)
KS_LAYOUT(char1, 1, 1);
KS_LAYOUT(char2, 2, 2);
KS_LAYOUT(char3, 3, 1);
KS_LAYOUT(char4, 4, 4);
KS_LAYOUT(uchar4, 4, 4);
KS_LAYOUT(short2, 4, 4);
KS_LAYOUT(short3, 6, 2);
KS_LAYOUT(short4, 8, 8);
KS_LAYOUT(ushort4, 8, 8);
KS_LAYOUT(int1, 4, 4);
KS_LAYOUT(int2, 8, 8);
KS_LAYOUT(int3, 12, 4);
KS_LAYOUT(int4, 16, 16);
KS_LAYOUT(uint2, 8, 8);
KS_LAYOUT(uint4, 16, 16);
KS_LAYOUT(long2, 16, 16);
KS_LAYOUT(longlong2, 16, 16);
KS_LAYOUT(ulonglong4, 32, 16);
KS_LAYOUT(float2, 8, 8);
KS_LAYOUT(float3, 12, 4);
KS_LAYOUT(float4, 16, 16);
KS_LAYOUT(double2, 16, 16);
KS_LAYOUT(double4, 32, 16);
KS_LAYOUT(dim3, 12, 4);
KS_LAYOUT(__half, 2, 2);
KS_LAYOUT(__half2, 4, 4);
KS_LAYOUT(__nv_bfloat16, 2, 2);
KS_LAYOUT(__nv_bfloat162, 4, 4);

// PTX(types_vec): ld.global.v4.u32
KS_KERNEL void types_vec(const unsigned *in, unsigned long long *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n)
    return;
  uint4 u = ((const uint4 *)in)[t];
  float4 f = make_float4((float)(u.x & 0xffff), (float)(u.y & 0xffff),
                         (float)(u.z & 0xffff), (float)(u.w & 0xffff));
  float4 g = make_float4(f.x * 2.0f, f.y + 1.0f, f.z - 3.0f, f.w * 0.5f);
  OUT(0) = __float_as_uint(g.x) | (unsigned long long)__float_as_uint(g.y)
                                      << 32;
  OUT(1) = __float_as_uint(g.z) | (unsigned long long)__float_as_uint(g.w)
                                      << 32;
  int2 i2 = make_int2((int)u.x, (int)u.y);
  longlong2 l2 = make_longlong2((long long)i2.x * i2.y, (long long)i2.x - i2.y);
  OUT(2) = (unsigned long long)l2.x;
  OUT(3) = (unsigned long long)l2.y;
  char4 c4 = make_char4((signed char)u.x, (signed char)(u.x >> 8),
                        (signed char)(u.x >> 16), (signed char)(u.x >> 24));
  short2 s2 = make_short2((short)(c4.x + c4.y), (short)(c4.z * c4.w));
  uchar2 uc = make_uchar2((unsigned char)c4.x, (unsigned char)c4.w);
  OUT(4) = (unsigned short)s2.x |
           (unsigned long long)(unsigned short)s2.y << 16 |
           (unsigned long long)uc.x << 32 | (unsigned long long)uc.y << 40;
  double2 d2 = make_double2((double)u.z * 0.5, (double)(int)u.w);
  OUT(5) = (unsigned long long)__double_as_longlong(d2.x + d2.y);
  uint3 ti = threadIdx;
  dim3 bd = blockDim;
  dim3 gd(gridDim.x, 1);
  OUT(6) = ti.x | (unsigned long long)bd.x << 16 |
           (unsigned long long)bd.y << 32 | (unsigned long long)gd.y << 48;
  ulonglong2 q = make_ulonglong2(u.x, u.y);
  ((ulonglong2 *)&OUT(8))[0] = q;
}

/* The bits of x (16: a __half or __nv_bfloat16; 32: a pair), x passed by
 * value: clang 19 compiles __builtin_bit_cast of a vector element (b.y of a
 * __half2) as a load of element 0 (llvm-project issue 95673). */
template <typename U, typename T> __device__ unsigned long long bits(T x) {
  return __builtin_bit_cast(U, x);
}
#define H(x) bits<unsigned short>(x)
#define H2(x) bits<unsigned>(x)

__device__ int int_rz(__half h) { return __half2int_rz(h); }
__device__ int int_rz(__nv_bfloat16 h) { return __bfloat162int_rz(h); }

/* a in [-128, 128), b in [0.25, 256.25), c in [-16, 16): finite, b > 0 */
template <typename T>
__device__ void ops16(const unsigned *in, int t, unsigned long long *o) {
  unsigned v = in[4 * t], w = in[4 * t + 1], x = in[4 * t + 2];
  T a = (T)(((int)(v & 0xffff) - 32768) / 256.0f);
  T b = (T)((float)((v >> 16) & 0x3fff) / 64.0f + 0.25f);
  T c = (T)(((int)(w & 0xffff) - 32768) / 2048.0f);
  o[0] = H(__hadd(a, b)) | H(__hsub(a, b)) << 16 | H(__hmul(a, b)) << 32 |
         H(__hdiv(a, b)) << 48;
  o[1] = H(__hfma(a, b, c)) | H(__hmax(a, c)) << 16 | H(__hmin(a, c)) << 32 |
         H(__hneg(a)) << 48;
  float f = (float)(int)x / 65536.0f; /* within half's range */
  o[2] = H((T)f) | (unsigned long long)__float_as_uint((float)a) << 32;
  o[3] = (unsigned)int_rz(a * b) | H((T)((int)(w % 60000u) - 30000)) << 32 |
         H(__habs(a)) << 48;
  o[4] = (unsigned)__hlt(a, c) | (unsigned)__heq(a, a) << 1 |
         (unsigned)__hge(b, c) << 2 | (unsigned)(a < c) << 3 |
         (unsigned)__hisnan(a) << 4 | (unsigned)__hne(a, c) << 5;
}

/* the pairs: x from one set of inputs, y from the next */
template <typename T, typename V>
__device__ void pairs16(const unsigned *in, int t, unsigned long long *o) {
  unsigned v = in[4 * t], w = in[4 * t + 3];
  V a = {(T)(((int)(v & 0xffff) - 32768) / 256.0f),
         (T)(((int)(w & 0xffff) - 32768) / 256.0f)};
  V b = {(T)((float)((v >> 16) & 0x3fff) / 64.0f + 0.25f),
         (T)((float)((w >> 16) & 0x3fff) / 64.0f + 0.25f)};
  o[0] = H2(__hadd2(a, b)) | H2(__hsub2(a, b)) << 32;
  o[1] = H2(__hmul2(a, b)) | H2(__h2div(a, b)) << 32;
  o[2] = H2(__hfma2(a, b, a)) | H2(__hmax2(a, b)) << 32;
  o[3] = H2(__hmin2(a, b)) | H2(__hneg2(a)) << 32;
  o[4] = H2(__lowhigh2highlow(a)) | H(b.x) << 32 | H(b.y) << 48;
}

// PTX(types_half): cvt.rn.f16.f32
// PTX(types_half): add.rn.f16x2
// PTX(types_half): fma.rn.f16x2
KS_KERNEL void types_half(const unsigned *in, unsigned long long *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n)
    return;
  ops16<__half>(in, t, &OUT(0));
  pairs16<__half, __half2>(in, t, &OUT(5));
  __half2 p = __floats2half2_rn(__uint_as_float(in[4 * t + 2] & 0x477fffff),
                                -1.0f / 3.0f);
  OUT(10) = H2(p) | H2(make_half2(__float2half(0.1f), __int2half_rn(-7))) << 32;
  float2 q = __half22float2(p);
  OUT(11) = __float_as_uint(q.x) | (unsigned long long)__float_as_uint(q.y)
                                       << 32;
  __half h = __ushort_as_half(in[4 * t + 1] & 0x7bff);
  OUT(12) = H(h + h) | H(h * (__half)0.5f) << 16 | H(-h) << 32 |
            (unsigned long long)(h < (__half)1.0f) << 48;
}

// PTX(types_bf16): cvt.rn.bf16.f32
KS_KERNEL void types_bf16(const unsigned *in, unsigned long long *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n)
    return;
  ops16<__nv_bfloat16>(in, t, &OUT(0));
  pairs16<__nv_bfloat16, __nv_bfloat162>(in, t, &OUT(5));
  __nv_bfloat162 p = __floats2bfloat162_rn(
      __uint_as_float(in[4 * t + 2] & 0xff7fffffu), -1.0f / 3.0f);
  OUT(10) =
      H2(p) | H2(make_bfloat162(__float2bfloat16(0.1f), __int2bfloat16_rn(-7)))
                  << 32;
  float2 q = __bfloat1622float2(p);
  OUT(11) = __float_as_uint(q.x) | (unsigned long long)__float_as_uint(q.y)
                                       << 32;
}
