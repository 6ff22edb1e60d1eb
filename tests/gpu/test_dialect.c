/*
 * test_dialect.c - the dialect's kernels (the .cu files of tests/dialect,
 * compiled with kspec_device.h) on the GPU, every result checked against the
 * CPU: warp shuffles, votes, matches and reductions; atomics under contention
 * on global and shared memory; vector types, __half and __nv_bfloat16
 * arithmetic (bit for bit: each operation correctly rounded); bit
 * functions; block votes, clocks; cache-hinted loads and stores; grid-wide
 * barriers under a cooperative launch; math (libdevice, which kspec links)
 * within the bounds CUDA documents, else no farther from the exact value
 * than nvcc's build of the same source (dialect_math.c). Each kernel runs
 * generic and specialized for a block of 256, on fresh random input.
 *
 *   test_gpu_dialect [DIR]
 *
 * DIR holds warp.bc, atomics.bc, types.bc, misc.bc and math.bc (default: the
 * build tree's, KS_DIALECT_DIR), and math.nvcc.cubin where nvcc built it
 * (target ks_dialect_cubin; without it math is judged by the bounds alone).
 * Every kernel takes (in, out, n): in holds 4 random words a thread, out 64
 * slots of 64 bits for grid-wide results (56..63 start as all ones, the others
 * as 0), then 16 slots a thread.
 *
 * Without a driver or a device: "skipped: ...", exit 77. Under kspec's
 * mocked driver (KSPEC_LIBCUDA, the CPU test gpu_dialect.mock) every kernel
 * is specialized both ways and launched, and nothing is checked: the mock
 * runs no kernel.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dialect.h"
#include "gpu_open.h"
#include "kspec.h"

#ifndef KS_DIALECT_DIR
#define KS_DIALECT_DIR "build/tests/dialect"
#endif

static void want_slot(run *r, int k, uint64_t expect) {
  char what[32];
  snprintf(what, sizeof what, "slot %d", k);
  want(r, what, -1, r->out[k], expect);
}

/* ---- 16-bit floats --------------------------------------------------------
 * x rounded to nearest even in a format of m mantissa bits and exponents
 * emin..emax (subnormals and overflow to infinity included): __half is
 * (10, -14, 15), bfloat16 (7, -126, 127). x is exact where it is used. */
typedef struct fmt16 {
  int m, emin, emax, bias;
} fmt16;
static const fmt16 HALF = {10, -14, 15, 15}, BF16 = {7, -126, 127, 127};

static uint16_t round16(double x, fmt16 f) {
  uint16_t s = signbit(x) ? 0x8000 : 0;
  double a = fabs(x);
  int e;
  frexp(a, &e);
  int E = e - 1 < f.emin ? f.emin : e - 1;
  double q = ldexp(1.0, E - f.m);
  double r = nearbyint(a / q), v = r * q;
  if (v > ldexp(2.0 - ldexp(1.0, -f.m), f.emax))
    return s | (uint16_t)(((1u << (15 - f.m)) - 1) << f.m);
  if (v == 0)
    return s;
  frexp(v, &e);
  if (e - 1 < f.emin)
    return s | (uint16_t)r; /* subnormal */
  E = e - 1;
  uint16_t mant = (uint16_t)((ldexp(v, -E) - 1.0) * (double)(1u << f.m));
  return s | (uint16_t)((E + f.bias) << f.m) | mant;
}

static double from16(uint16_t b, fmt16 f) {
  unsigned emask = (1u << (15 - f.m)) - 1, e = (b >> f.m) & emask;
  double mant = b & ((1u << f.m) - 1), v;
  if (e == 0)
    v = ldexp(mant, 1 - f.bias - f.m);
  else if (e == emask)
    v = mant ? NAN : INFINITY;
  else
    v = ldexp(1.0 + ldexp(mant, -f.m), (int)e - f.bias);
  return b & 0x8000 ? -v : v;
}

/* ---- warp.cu ------------------------------------------------------------ */

static void check_warp_shfl(run *r) {
  for (int t = 0; t < r->n; t++) {
    int l = t & 31, w0 = t - l;
#define V(j) r->in[4 * (w0 + (j))]
#define W(j) r->in[4 * (w0 + (j)) + 1]
    want_col(r, 0, t, V((l * 7) & 31));
    want_col(r, 1, t, V(l >= 3 ? l - 3 : l));
    want_col(r, 2, t, V(l + 5 < 32 ? l + 5 : l));
    want_col(r, 3, t, V(l ^ 9));
    want_col(r, 4, t, V((l & ~7) + 2));
    want_col(r, 5, t, V((l & 15) >= 1 ? l - 1 : l));
    want_col(r, 6, t, fbits((float)(int32_t)V(l ^ 1) * 0.5f));
    int d = l < 31 ? l + 1 : l;
    want_col(r, 7, t, (uint64_t)V(d) << 32 | W(d));
    d = l >= 1 ? l - 1 : l;
    want_col(r, 8, t, dbits((double)(int32_t)V(d) * 0.25));
    want_col(r, 9, t, (uint64_t)W(31 - l) << 32 | V(31 - l));
    d = l ^ 2;
    want_col(r, 10, t, (V(d) & 0x7bff) | (W(d) & 0x7bff) << 16);
    want_col(r, 11, t, W(l ^ 5) & 0x7bff);
    d = l + 2 < 32 ? l + 2 : l;
    want_col(r, 12, t, (V(d) >> 16) & 0x7f7f);
    d = l >= 4 ? l - 4 : l;
    want_col(r, 13, t, ((V(d) >> 16) & 0x7f7f) | (W(d) & 0x7f7f) << 16);
    want_col(r, 14, t, V(l ^ 16));
#undef V
#undef W
  }
}

/* The lanes of t's warp whose f(word) equals t's. */
static uint32_t lanes_equal(run *r, int t, uint32_t (*f)(uint32_t)) {
  int w0 = t & ~31;
  uint32_t m = 0, mine = f(r->in[4 * t]);
  for (int j = 0; j < 32; j++)
    if (f(r->in[4 * (w0 + j)]) == mine)
      m |= 1u << j;
  return m;
}
static uint32_t mod5(uint32_t v) { return v % 5; }
static uint32_t mod3(uint32_t v) { return v % 3; }
static uint32_t mod4(uint32_t v) { return v % 4; }
static uint32_t self(uint32_t v) { return v; }

static void check_warp_vote(run *r) {
  for (int t = 0; t < r->n; t++) {
    int w0 = t & ~31;
    uint32_t ballot = 0, any = 0, all = 1;
    for (int j = 0; j < 32; j++) {
      uint32_t v = r->in[4 * (w0 + j)];
      ballot |= (v & 1) << j;
      any |= v % 61 == 0;
      all &= v % 61 != 0;
    }
    want_col(r, 0, t, ballot);
    want_col(r, 1, t, any);
    want_col(r, 2, t, all);
    want_col(r, 3, t, 0xffffffffu);
    want_col(r, 4, t, lanes_equal(r, t, mod5));
    want_col(r, 5, t, 0xffffffffu | 1ull << 32);
    int same = lanes_equal(r, t, self) == 0xffffffffu;
    want_col(r, 6, t, same ? 0xffffffffu | 1ull << 32 : 0);
    want_col(r, 7, t, lanes_equal(r, t, mod3));
    want_col(r, 8, t, lanes_equal(r, t, mod4));
    want_col(r, 9, t, 1);
  }
}

static void check_warp_reduce(run *r) {
  for (int t = 0; t < r->n; t++) {
    int l = t & 31, w0 = t - l;
    uint32_t add = 0, addi = 0, mn = ~0u, mx = 0, an = ~0u, orr = 0, xr = 0;
    int32_t mni = INT32_MAX, mxi = INT32_MIN;
    uint32_t odd = 0;
    for (int j = 0; j < 32; j++) {
      const uint32_t *p = &r->in[4 * (w0 + j)];
      uint32_t v = p[0] & 0xffff, w = p[1], x = p[2];
      add += v;
      addi += w;
      mn = w < mn ? w : mn;
      mx = w > mx ? w : mx;
      mni = (int32_t)w < mni ? (int32_t)w : mni;
      mxi = (int32_t)w > mxi ? (int32_t)w : mxi;
      an &= w | x;
      orr |= w & x;
      xr ^= w;
      if (j & 1)
        odd += v;
    }
    uint64_t c[12] = {add, addi, mn, mx, (uint32_t)mni, (uint32_t)mxi, an, orr,
                      xr,  0,    0,  0};
    if (l & 1) {
      c[9] = odd;
      c[10] = 0xffffffffu;
      c[11] = 16;
    }
    for (int k = 0; k < 12; k++)
      want_col(r, k, t, c[k]);
  }
}

/* ---- atomics.cu ------------------------------------------------------- */

/* Are the values olds[0..n) (each thread's old value of an exchange) and
 * last (the word's final value) a permutation of 0, first..first+n-1? */
static int is_permutation(const uint64_t *olds, size_t stride, int n,
                          uint64_t last, uint64_t first) {
  char *seen = calloc((size_t)n + 1, 1);
  int ok = seen != NULL;
  for (int i = 0; i <= n && ok; i++) {
    uint64_t v = i < n ? olds[(size_t)i * stride] : last;
    uint64_t k = v == 0 ? 0 : v - first + 1;
    ok = (v == 0 || (v >= first && v < first + (uint64_t)n)) && !seen[k];
    if (ok)
      seen[k] = 1;
  }
  free(seen);
  return ok;
}

static uint32_t dec_n(int n, uint32_t limit) { /* atomicDec n times from 0 */
  uint32_t c = 0;
  for (int i = 0; i < n; i++)
    c = c == 0 || c > limit ? limit : c - 1;
  return c;
}

static void check_atomics_global(run *r) {
  int n = r->n;
  int32_t s0 = 0, mn = 0, mx = 0, xi = 0;
  uint32_t s1 = 0, mxu = 0, xu = 0, mxw = 0, mnu = ~0u;
  uint64_t s2 = 0, mxull = 0, mnull = ~0ull;
  int64_t mxll = 0, mnll = -1;
  float s3 = 0;
  double s4 = 0;
  for (int t = 0; t < n; t++) {
    uint32_t v = r->in[4 * t], w = r->in[4 * t + 1];
    uint64_t vw = (uint64_t)v << 32 | w;
    s0 += (int32_t)(v & 0xff) - 128;
    s1 += v & 0xffff;
    s2 += (uint64_t)v << 8;
    s3 += (float)(v & 0xff);
    s4 += (double)v;
    mn = (int32_t)v < mn ? (int32_t)v : mn;
    mx = (int32_t)w > mx ? (int32_t)w : mx;
    mxu = v > mxu ? v : mxu;
    mxll = (int64_t)vw > mxll ? (int64_t)vw : mxll;
    mxull = vw > mxull ? vw : mxull;
    xu ^= v;
    xi ^= (int32_t)w;
    mxw = w > mxw ? w : mxw;
    mnu = v < mnu ? v : mnu;
    mnull = vw < mnull ? vw : mnull;
    mnll = (int64_t)vw < mnll ? (int64_t)vw : mnll;
  }
  want_slot(r, 0, (uint32_t)s0);
  want_slot(r, 1, s1);
  want_slot(r, 2, s2);
  want_slot(r, 3, fbits(s3));
  want_slot(r, 4, dbits(s4));
  want_slot(r, 5, (uint32_t)(-3 * n));
  want_slot(r, 6, 0u - 7u * (uint32_t)n);
  if (!is_permutation(&OUT(r, 0, 0), COLS, n, r->out[7], 1))
    want(r, "exchanges: olds and the last not 0, 1..n", -1, 1, 0);
  want_slot(r, 8, (uint32_t)n % 1000);
  want_slot(r, 9, dec_n(n, 999));
  want_slot(r, 10, (uint32_t)mn);
  want_slot(r, 11, (uint32_t)mx);
  want_slot(r, 12, mxu);
  want_slot(r, 13, (uint64_t)mxll);
  want_slot(r, 14, mxull);
  want_slot(r, 15, 0xffffffffu);
  want_slot(r, 16, ~0ull);
  want_slot(r, 17, xu);
  want_slot(r, 18, (uint32_t)xi);
  want_slot(r, 19, (uint32_t)n);
  want_slot(r, 20, dbits(0.5 * n));
  want_slot(r, 21, mxw);
  want_slot(r, 22, 4096);
  want_slot(r, 23, 4096);
  want_slot(r, 24, 4096);
  for (int k = 32; k < 48; k++) /* {2048, 4096} in each __half2 */
    want_slot(r, k, 0x6c0068006c006800ull);
  for (int k = 48; k < 56; k++) /* 256 in each bfloat16 */
    want_slot(r, k, 0x4380438043804380ull);
  want_slot(r, 56, 0xffffffff00000000ull | mnu);
  want_slot(r, 57, mnull);
  want_slot(r, 58, (uint64_t)mnll);
  want_slot(r, 59, 0xffffffff80000000ull);
  want_slot(r, 60, 0x8000000000000000ull);
  want_slot(r, 61, 0xffffffffc0000000ull);
  for (int t = 0; t < n; t++)
    for (int c = 1; c < COLS; c++)
      want_col(r, c, t, 0);
}

static void check_atomics_shared(run *r) {
  for (int b0 = 0; b0 < r->n; b0 += BLOCK) {
    int32_t s0 = 0, mx = 0;
    uint32_t s1 = 0, x = 0, mn = ~0u;
    float s2 = 0;
    double s3 = 0;
    uint64_t s4 = 0;
    for (int t = b0; t < b0 + BLOCK; t++) {
      uint32_t v = r->in[4 * t], w = r->in[4 * t + 1];
      s0 += (int32_t)(v & 0xff) - 128;
      s1 += v & 0xffff;
      s2 += (float)(v & 0xff);
      s3 += (double)w;
      s4 += (uint64_t)w << 4;
      mx = (int32_t)v > mx ? (int32_t)v : mx;
      mn = w < mn ? w : mn;
      x ^= v;
    }
    uint64_t c[13] = {(uint32_t)s0,
                      s1,
                      fbits(s2),
                      dbits(s3),
                      s4,
                      (uint32_t)(-5 * BLOCK),
                      0, /* the exchange: below */
                      (BLOCK % 100) | (uint64_t)dec_n(BLOCK, 99) << 32,
                      (uint32_t)mx | (uint64_t)mn << 32,
                      0xffffffffu | (uint64_t)x << 32,
                      ~0ull,
                      BLOCK | (uint64_t)fbits(1.5f) << 32,
                      0x4c0050004c005000ull};
    for (int k = 0; k < 13; k++)
      if (k != 6)
        want_col(r, k, b0, c[k]);
    if (!is_permutation(&OUT(r, b0, 15), COLS, BLOCK, OUT(r, b0, 6), 1))
      want(r, "block exchanges: olds and the last not 0, 1..256", b0, 1, 0);
  }
}

/* ---- types.cu ----------------------------------------------------------- */

static void check_types_vec(run *r) {
  for (int t = 0; t < r->n; t++) {
    const uint32_t *u = &r->in[4 * t];
    float g[4] = {(float)(u[0] & 0xffff) * 2.0f, (float)(u[1] & 0xffff) + 1.0f,
                  (float)(u[2] & 0xffff) - 3.0f, (float)(u[3] & 0xffff) * 0.5f};
    want_col(r, 0, t, fbits(g[0]) | (uint64_t)fbits(g[1]) << 32);
    want_col(r, 1, t, fbits(g[2]) | (uint64_t)fbits(g[3]) << 32);
    int32_t x = (int32_t)u[0], y = (int32_t)u[1];
    want_col(r, 2, t, (uint64_t)((int64_t)x * y));
    want_col(r, 3, t, (uint64_t)((int64_t)x - y));
    int8_t c[4] = {(int8_t)u[0], (int8_t)(u[0] >> 8), (int8_t)(u[0] >> 16),
                   (int8_t)(u[0] >> 24)};
    uint16_t s0 = (uint16_t)(int16_t)(c[0] + c[1]);
    uint16_t s1 = (uint16_t)(int16_t)(c[2] * c[3]);
    want_col(r, 4, t,
             s0 | (uint64_t)s1 << 16 | (uint64_t)(uint8_t)c[0] << 32 |
                 (uint64_t)(uint8_t)c[3] << 40);
    want_col(r, 5, t, dbits((double)u[2] * 0.5 + (double)(int32_t)u[3]));
    want_col(r, 6, t,
             (uint64_t)(t % BLOCK) | (uint64_t)BLOCK << 16 | 1ull << 32 |
                 1ull << 48);
    want_col(r, 8, t, u[0]);
    want_col(r, 9, t, u[1]);
  }
}

/* ops16 and pairs16 of types.cu, in format f, into c[0..10) */
static void ref16(const uint32_t *in, int t, fmt16 f, uint64_t *c) {
  uint32_t v = in[4 * t], w = in[4 * t + 1], x = in[4 * t + 2],
           z = in[4 * t + 3];
#define R(e) ((uint64_t)round16((e), f))
#define F(b) from16((uint16_t)(b), f)
  uint16_t a = round16((float)((int32_t)(v & 0xffff) - 32768) / 256.0f, f);
  uint16_t b = round16((float)((v >> 16) & 0x3fff) / 64.0f + 0.25f, f);
  uint16_t cc = round16((float)((int32_t)(w & 0xffff) - 32768) / 2048.0f, f);
  double A = F(a), B = F(b), C = F(cc);
  c[0] = R(A + B) | R(A - B) << 16 | R(A * B) << 32 | R(A / B) << 48;
  c[1] = R(fma(A, B, C)) | (uint64_t)(A >= C ? a : cc) << 16 |
         (uint64_t)(A <= C ? a : cc) << 32 | (uint64_t)(a ^ 0x8000) << 48;
  float fl = (float)(int32_t)x / 65536.0f;
  c[2] = R(fl) | (uint64_t)fbits((float)A) << 32;
  c[3] = (uint32_t)(int32_t)trunc(F(round16(A * B, f))) |
         R((double)((int32_t)(w % 60000u) - 30000)) << 32 |
         (uint64_t)(a & 0x7fff) << 48;
  c[4] = (uint64_t)(A < C) | 1u << 1 | (uint64_t)(B >= C) << 2 |
         (uint64_t)(A < C) << 3 | (uint64_t)(A != C) << 5;
  /* pairs16: x from v, y from z */
  uint16_t a2 = round16((float)((int32_t)(z & 0xffff) - 32768) / 256.0f, f);
  uint16_t b2 = round16((float)((z >> 16) & 0x3fff) / 64.0f + 0.25f, f);
  double A2 = F(a2), B2 = F(b2);
#define P(e1, e2) ((e1) | (e2) << 16)
  c[5] = P(R(A + B), R(A2 + B2)) | P(R(A - B), R(A2 - B2)) << 32;
  c[6] = P(R(A * B), R(A2 * B2)) | P(R(A / B), R(A2 / B2)) << 32;
  c[7] = P(R(fma(A, B, A)), R(fma(A2, B2, A2))) |
         P((uint64_t)(A >= B ? a : b), (uint64_t)(A2 >= B2 ? a2 : b2)) << 32;
  c[8] = P((uint64_t)(A <= B ? a : b), (uint64_t)(A2 <= B2 ? a2 : b2)) |
         P((uint64_t)(a ^ 0x8000), (uint64_t)(a2 ^ 0x8000)) << 32;
  c[9] = P((uint64_t)a2, (uint64_t)a) | (uint64_t)b << 32 | (uint64_t)b2 << 48;
#undef P
#undef R
#undef F
}

static void check_types16(run *r, fmt16 f, uint32_t pmask) {
  for (int t = 0; t < r->n; t++) {
    uint64_t c[10];
    ref16(r->in, t, f, c);
    for (int k = 0; k < 10; k++)
      want_col(r, k, t, c[k]);
    float p0 = 0;
    uint32_t pw = r->in[4 * t + 2] & pmask;
    memcpy(&p0, &pw, 4);
    uint16_t px = round16(p0, f), py = round16(-1.0f / 3.0f, f);
    uint16_t qx = round16(0.1f, f), qy = round16(-7.0, f);
    want_col(r, 10, t,
             (px | (uint64_t)py << 16) | (qx | (uint64_t)qy << 16) << 32);
    want_col(r, 11, t,
             fbits((float)from16(px, f)) | (uint64_t)fbits((float)from16(py, f))
                                               << 32);
    if (f.m != HALF.m)
      continue;
    uint16_t h = r->in[4 * t + 1] & 0x7bff;
    double H = from16(h, f);
    want_col(r, 12, t,
             round16(H + H, f) | (uint64_t)round16(H * 0.5, f) << 16 |
                 (uint64_t)(h ^ 0x8000) << 32 | (uint64_t)(H < 1.0) << 48);
  }
}
static void check_types_half(run *r) { check_types16(r, HALF, 0x477fffff); }
static void check_types_bf16(run *r) { check_types16(r, BF16, 0xff7fffff); }

/* ---- misc.cu ------------------------------------------------------------ */

static int clz32(uint32_t x) { return x ? __builtin_clz(x) : 32; }
static int clz64(uint64_t x) { return x ? __builtin_clzll(x) : 64; }
static uint32_t brev32(uint32_t x) {
  uint32_t y = 0;
  for (int i = 0; i < 32; i++)
    y |= ((x >> i) & 1) << (31 - i);
  return y;
}
static uint64_t brev64(uint64_t x) {
  return (uint64_t)brev32((uint32_t)x) << 32 | brev32((uint32_t)(x >> 32));
}
static uint32_t byte_perm(uint32_t x, uint32_t y, uint32_t s) {
  uint64_t b = (uint64_t)y << 32 | x;
  uint32_t r = 0;
  for (int i = 0; i < 4; i++)
    r |= (uint32_t)((b >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
  return r;
}

static void check_misc_bits(run *r) {
  for (int t = 0; t < r->n; t++) {
    uint32_t u = r->in[4 * t], w = r->in[4 * t + 1], s = r->in[4 * t + 2];
    if ((s & 15) == 0)
      u = 0;
    if ((s & 0xf0) == 0)
      w = 0;
    uint64_t uu = (uint64_t)u << 32 | w;
    want_col(r, 0, t,
             (uint64_t)__builtin_popcount(u) |
                 (uint64_t)__builtin_popcountll(uu) << 8 |
                 (uint64_t)clz32(u) << 16 | (uint64_t)clz64(uu) << 24 |
                 (uint64_t)__builtin_ffs((int)u) << 32 |
                 (uint64_t)__builtin_ffsll((long long)uu) << 40 |
                 (uint64_t)__builtin_ffs((int)w) << 48);
    want_col(r, 1, t, brev32(u) | (uint64_t)byte_perm(u, w, s & 0x7777) << 32);
    want_col(r, 2, t, brev64(uu));
    unsigned sh = (s >> 16) % 40, wrap = sh & 31, clamp = sh < 32 ? sh : 32;
    uint64_t hl = (uint64_t)w << 32 | u;
    want_col(r, 3, t,
             (uint32_t)((hl << wrap) >> 32) | (uint64_t)(uint32_t)(hl >> wrap)
                                                  << 32);
    want_col(r, 4, t,
             (uint32_t)((hl << clamp) >> 32) |
                 (uint64_t)(uint32_t)(clamp == 32 ? w : hl >> clamp) << 32);
    want_col(r, 5, t,
             (uint32_t)(((int64_t)(int32_t)u * (int32_t)w) >> 32) |
                 (((uint64_t)u * w) >> 32) << 32);
    uint64_t vv = (uint64_t)s << 32 | r->in[4 * t + 3];
    want_col(r, 6, t,
             (uint64_t)(int64_t)(((__int128)(int64_t)uu * (int64_t)vv) >> 64));
    want_col(r, 7, t, (uint64_t)(((unsigned __int128)uu * vv) >> 64));
    int32_t mx = (int32_t)u > (int32_t)w ? (int32_t)u : (int32_t)w;
    want_col(r, 8, t, (u < w ? u : w) | (uint64_t)(uint32_t)mx << 32);
    want_col(r, 9, t,
             (uint64_t)((int64_t)uu < (int64_t)vv ? (int64_t)uu : (int64_t)vv));
    want_col(r, 10, t, uu > vv ? uu : vv);
    want_col(r, 11, t, (u < 5u ? u : 5u) | (uint64_t)(w & 0x3fffffff) << 32);
  }
}

static void check_misc_sync(run *r) {
  for (int t = 0; t < r->n; t++) {
    int b0 = t - t % BLOCK, count = 0;
    for (int j = 0; j < BLOCK; j++)
      count += r->in[4 * (b0 + j)] & 1;
    int all = r->in[4 * (b0 + 5)] & 1, any = (r->in[4 * (b0 + 77)] & 2) != 0;
    want_col(r, 0, t,
             (uint64_t)count | (uint64_t)all << 16 | (uint64_t)any << 24);
    want_col(r, 1, t, 7);
  }
}

static void check_misc_ldst(run *r) {
  for (int t = 0; t < r->n; t++) {
    const uint32_t *u = &r->in[4 * t];
    uint64_t lo = u[0] | (uint64_t)u[1] << 32, hi = u[2] | (uint64_t)u[3] << 32;
    uint64_t c[13] = {lo, hi, lo, hi, hi, lo, u[3], 0, lo, hi, u[1], hi, u[3]};
    for (int k = 0; k < 13; k++)
      want_col(r, k, t, c[k]);
  }
}

static void check_misc_gridsync(run *r) {
  uint64_t blocks = (uint64_t)r->n / BLOCK, sum = 0;
  for (int t = 0; t < r->n; t++)
    sum += r->in[4 * t];
  for (int k = 0; k < 3; k++)
    want_slot(r, k, blocks);
  want_slot(r, 8, sum);
  for (int t = 0; t < r->n; t++) {
    for (int k = 0; k < 3; k++)
      want_col(r, k, t, blocks);
    want_col(r, 3, t, sum | 1ull << 63);
  }
}

/* ---- the harness ----------------------------------------------------------
 */

typedef struct kcase {
  const char *file, *kernel;
  void (*check)(run *);
  int coop; /* a cooperative launch of the largest co-resident grid (<= 64) */
} kcase;

static const kcase cases[] = {
    {"warp", "warp_shfl", check_warp_shfl, 0},
    {"warp", "warp_vote", check_warp_vote, 0},
    {"warp", "warp_reduce", check_warp_reduce, 0},
    {"atomics", "atomics_global", check_atomics_global, 0},
    {"atomics", "atomics_shared", check_atomics_shared, 0},
    {"types", "types_vec", check_types_vec, 0},
    {"types", "types_half", check_types_half, 0},
    {"types", "types_bf16", check_types_bf16, 0},
    {"misc", "misc_bits", check_misc_bits, 0},
    {"misc", "misc_sync", check_misc_sync, 0},
    {"misc", "misc_ldst", check_misc_ldst, 0},
    {"misc", "misc_gridsync", check_misc_gridsync, 1},
    {"math", "math_f1", check_math_f1, 0},
    {"math", "math_f2", check_math_f2, 0},
    {"math", "math_cxx", check_math_cxx, 0},
    {"math", "math_d", check_math_d, 0},
    {"math", "math_intrin", check_math_intrin, 0},
};

static uint64_t rng;
static uint32_t random32(void) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng >> 32);
}

typedef struct gpu {
  ks_ctx *ctx;
  ks_devptr din, dout;
  uint32_t *in;
  uint64_t *out, *ref; /* ref: nvcc's outputs */
  nvref *nv;           /* nvcc's build of math.cu, or NULL */
  int mock; /* kspec's mocked driver: kernels launch but run nothing */
} gpu;

/* out on the device as a kernel finds it: 56..63 all ones, the rest 0; host
 * is the buffer to copy from. */
static int reset_out(gpu *g, uint64_t *host) {
  size_t outn = GLOBALS + (size_t)NTHREADS * COLS;
  memset(host, 0, outn * sizeof *host);
  memset(host + 56, 0xff, 8 * sizeof *host);
  return ks_memcpy_htod(g->ctx, g->dout, host, outn * 8) != KS_OK;
}

/* nvcc's build of c's kernel on the same input into g->ref; 0, or 1 with
 * a message. out starts as all ones (NaNs): a result nvcc's kernel did not
 * write is no nearer than any. */
static int run_nvcc(gpu *g, const kcase *c, int n) {
  char err[512];
  size_t outn = GLOBALS + (size_t)NTHREADS * COLS;
  memset(g->ref, 0xff, outn * sizeof *g->ref);
  if (ks_memcpy_htod(g->ctx, g->dout, g->ref, outn * 8) != KS_OK)
    return fprintf(stderr, "memcpy: %s\n", ks_errmsg(g->ctx)), 1;
  if (nvref_run(g->nv, c->kernel, g->din, g->dout, n, err, sizeof err))
    return fprintf(stderr, "%s: nvcc's build: %s\n", c->kernel, err), 1;
  if (ks_memcpy_dtoh(g->ctx, g->ref, g->dout, outn * 8) != KS_OK)
    return fprintf(stderr, "memcpy: %s\n", ks_errmsg(g->ctx)), 1;
  return 0;
}

/* One run of k: fresh input, out reset, launch, read back, check (math:
 * nvcc's build too, on the same input). Under the mock, the launch is all
 * there is to see. */
static int run_one(gpu *g, ks_kernel *k, const kcase *c, const char *label) {
  int blocks = NTHREADS / BLOCK;
  if (c->coop) {
    unsigned most = 0;
    if (ks_kernel_max_coresident_grid(k, BLOCK, 0, &most) != KS_OK ||
        most == 0) {
      fprintf(stderr, "%s (%s): co-resident grid: %s\n", c->kernel, label,
              ks_errmsg(g->ctx));
      return 1;
    }
    blocks = most < 64 ? (int)most : 64;
  }
  int n = blocks * BLOCK;
  for (size_t i = 0; i < (size_t)NTHREADS * 4; i++)
    g->in[i] = random32();
  size_t outn = GLOBALS + (size_t)NTHREADS * COLS;
  if (ks_memcpy_htod(g->ctx, g->din, g->in, (size_t)NTHREADS * 16) != KS_OK ||
      reset_out(g, g->out))
    return fprintf(stderr, "memcpy: %s\n", ks_errmsg(g->ctx)), 1;
  void *args[] = {&g->din, &g->dout, &n};
  ks_launch_attrs a = {.cooperative = c->coop};
  if (ks_launch_ex(k, (ks_dim3){(unsigned)blocks, 1, 1}, (ks_dim3){BLOCK, 1, 1},
                   &a, args) != KS_OK ||
      ks_memcpy_dtoh(g->ctx, g->out, g->dout, outn * 8) != KS_OK) {
    fprintf(stderr, "%s (%s): launch: %s\n", c->kernel, label,
            ks_errmsg(g->ctx));
    return 1;
  }
  const char *how = c->coop ? " (cooperative)" : "";
  if (g->mock) {
    printf("%-6s %-15s %-9s %d threads%s: launched (mock: not run)\n", c->file,
           c->kernel, label, n, how);
    return 0;
  }
  int math = strcmp(c->file, "math") == 0;
  if (math && g->nv && run_nvcc(g, c, n))
    return 1;
  run r = {.in = g->in, .out = g->out, .n = n, .k = c->kernel};
  r.ref = math && g->nv ? g->ref : NULL;
  c->check(&r);
  printf("%-6s %-15s %-9s %d threads%s: %s\n", c->file, c->kernel, label, n,
         how, r.bad ? "FAIL" : "ok");
  if (math)
    math_report(&r);
  return r.bad != 0;
}

/* nvcc's build of math.cu from dir, or NULL with a line saying why. */
static nvref *open_nvcc(const char *dir) {
  char path[4096], err[4200];
  snprintf(path, sizeof path, "%s/math.nvcc.cubin", dir);
  nvref *v = nvref_open(path, err, sizeof err);
  if (v)
    printf("math: judged by CUDA's documented bounds, else by nvcc's build "
           "(%s)\n",
           path);
  else
    printf("math: judged by CUDA's documented bounds alone: no nvcc build "
           "(%s)\n",
           err);
  return v;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : KS_DIALECT_DIR;
  gpu g = {0};
  ks_device_info dev = {.size = sizeof dev};
  ks_status st;
  if (gpu_open(NULL, &g.ctx, &dev, &st))
    return KS_TEST_SKIP;
  if (st != KS_OK)
    return fprintf(stderr, "device: %s\n", ks_errmsg(g.ctx)), 1;
  size_t outn = GLOBALS + (size_t)NTHREADS * COLS;
  g.in = malloc((size_t)NTHREADS * 16);
  g.out = malloc(outn * 8);
  g.ref = malloc(outn * 8);
  if (!g.in || !g.out || !g.ref ||
      ks_mem_alloc(g.ctx, (size_t)NTHREADS * 16, &g.din) ||
      ks_mem_alloc(g.ctx, outn * 8, &g.dout))
    return fprintf(stderr, "memory: %s\n", ks_errmsg(g.ctx)), 1;
  g.mock = strstr(dev.name, "(kspec mock)") != NULL;
  if (g.mock)
    printf("%s: every kernel specialized and launched, no result checked\n",
           dev.name);
  else
    g.nv = open_nvcc(dir);
  rng = (uint64_t)time(NULL) * 2654435761u + 1;
  printf("seed %llu\n", (unsigned long long)rng);
  int bad = 0;
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const kcase *c = &cases[i];
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.bc", dir, c->file);
    ks_template *t = NULL;
    if (ks_template_load(g.ctx, path, &t) != KS_OK) {
      fprintf(stderr, "%s: %s\n", path, ks_errmsg(g.ctx));
      bad++;
      continue;
    }
    for (int v = 0; v < 2; v++) {
      ks_spec_req req = {.kernel = c->kernel};
      if (v)
        req.bounds.block[0] = BLOCK;
      ks_kernel *k = NULL;
      if (ks_specialize(g.ctx, t, &req, &k) != KS_OK) {
        fprintf(stderr, "%s: specialize: %s\n", c->kernel, ks_errmsg(g.ctx));
        bad++;
        continue;
      }
      bad += run_one(&g, k, c, v ? "block 256" : "generic");
    }
    ks_template_destroy(t);
  }
  printf("%s\n", bad ? "FAILED" : "PASSED");
  nvref_close(g.nv);
  ks_mem_free(g.ctx, g.din);
  ks_mem_free(g.ctx, g.dout);
  ks_ctx_destroy(g.ctx);
  free(g.in);
  free(g.out);
  free(g.ref);
  return bad ? 1 : 0;
}
