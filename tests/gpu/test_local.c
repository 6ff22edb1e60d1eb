/*
 * test_local.c - private arrays out of local memory on the GPU
 * (smem_promote): tests/data/modes.ll, a user's kernel whose 16 counters
 * are indexed by data, specialized for blocks of 256 and of 32 x 4
 * threads and for at most 256 threads (maxntid, launched as 64 x 4), with
 * smem_promote (the counters in shared memory) and without it (in local
 * memory). Every output of every variant is checked against
 * the CPU on fresh random data, outputs poisoned before each run, at a
 * size that is not a multiple of the block; then both variants are timed
 * side by side (median of REPS launches) and the ratio printed.
 *
 *   test_gpu_local [PATH/TO/modes.ll [N]]
 *
 * (defaults: tests/data/modes.ll, N = 2^20 + 37 threads; a small N for
 * compute-sanitizer).
 *
 * Without a driver or a device: "skipped: ...", exit 77.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu_open.h"
#include "kspec.h"

enum { NMAX = (1 << 20) + 37, SAMPLES = 64, REPS = 21 };

static int fail(const char *what, const ks_ctx *ctx) {
  fprintf(stderr, "test_local: %s: %s\n", what, ctx ? ks_errmsg(ctx) : "");
  return 1;
}

/* want[i]: the most frequent low nibble of x[k * n + i], k < samples, the
 * smallest on a tie. */
static void modes_cpu(const unsigned char *x, int n, int samples, int *want) {
  int(*count)[16] = calloc((size_t)n, sizeof *count);
  if (!count)
    abort();
  for (int k = 0; k < samples; k++) /* row by row: x in order */
    for (int i = 0; i < n; i++)
      count[i][x[(long)k * n + i] & 15]++;
  for (int i = 0; i < n; i++) {
    int best = 0;
    for (int b = 1; b < 16; b++)
      if (count[i][b] > count[i][best])
        best = b;
    want[i] = best;
  }
  free(count);
}

static int cmp_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

typedef struct variant {
  const char *label;
  unsigned block[2]; /* the launch's */
  unsigned maxntid;  /* non-zero: specialized for this bound, not block */
  int promote;       /* smem_promote on */
  ks_kernel *k;
  float ms;
} variant;

/* Specializes v and checks what smem_promote did: the counters moved into
 * shared memory (and out of local memory) exactly when it is on. */
static int specialize(ks_ctx *ctx, ks_template *t, variant *v) {
  static const char *const off[] = {"smem_promote"};
  ks_spec_req req = {.no_pass = v->promote ? NULL : off,
                     .nno_pass = v->promote ? 0 : 1};
  if (v->maxntid) {
    req.bounds.maxntid = v->maxntid;
  } else {
    req.bounds.block[0] = v->block[0];
    req.bounds.block[1] = v->block[1];
  }
  ks_kernel_info info = {.size = sizeof info};
  if (ks_specialize(ctx, t, &req, &v->k) != KS_OK ||
      ks_kernel_load(v->k) != KS_OK || ks_kernel_info_get(v->k, &info) != KS_OK)
    return fail(v->label, ctx);
  int moved = strstr(ks_kernel_explain(v->k), "moved") != NULL;
  printf("%s: %d registers, %d B shared, %d B local\n", v->label, info.regs,
         info.static_smem, info.local_bytes);
  if (moved != v->promote || (info.local_bytes > 0) == v->promote ||
      (info.static_smem > 0) != v->promote) {
    fprintf(stderr, "test_local: %s: counters %s shared memory\n%s", v->label,
            moved ? "moved to" : "not in", ks_kernel_explain(v->k));
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "tests/data/modes.ll";
  long nl = argc > 2 ? strtol(argv[2], NULL, 10) : NMAX;
  if (nl < 1 || nl > NMAX) {
    fprintf(stderr, "test_local: N must be 1..%d\n", NMAX);
    return 2;
  }
  const int N = (int)nl;
  ks_ctx *ctx = NULL;
  ks_device_info dev = {.size = sizeof dev};
  ks_status s;
  if (gpu_open(NULL, &ctx, &dev, &s))
    return KS_TEST_SKIP;
  if (s != KS_OK)
    return fail("device", ctx);
  ks_template *t = NULL;
  if (ks_template_load(ctx, path, &t) != KS_OK)
    return fail(path, ctx);
  variant vs[] = {
      {"block 256, smem_promote", {256, 1}, 0, 1, NULL, 0},
      {"block 256, local memory", {256, 1}, 0, 0, NULL, 0},
      {"block 32x4, smem_promote", {32, 4}, 0, 1, NULL, 0},
      {"block 32x4, local memory", {32, 4}, 0, 0, NULL, 0},
      {"maxntid 256 (block 64x4), smem_promote", {64, 4}, 256, 1, NULL, 0},
      {"maxntid 256 (block 64x4), local memory", {64, 4}, 256, 0, NULL, 0}};
  enum { NV = sizeof vs / sizeof vs[0] };
  for (int i = 0; i < NV; i++)
    if (specialize(ctx, t, &vs[i]))
      return 1;

  size_t nx = (size_t)N * SAMPLES;
  unsigned char *x = malloc(nx);
  int *out = malloc((size_t)N * sizeof *out),
      *want = malloc((size_t)N * sizeof *want);
  uint64_t r = (uint64_t)time(NULL) * 2654435761u + 1;
  printf("seed %llu\n", (unsigned long long)r);
  for (size_t i = 0; i < nx; i++) {
    r = r * 6364136223846793005ull + 1442695040888963407ull;
    /* skewed, so that modes differ between threads and ties are rare */
    unsigned v = (unsigned)(r >> 33);
    x[i] = (unsigned char)((v & 0xf0) | ((v % 7) * ((v >> 8) % 3)));
  }
  if (!x || !out || !want)
    return fail("out of memory", NULL);
  modes_cpu(x, N, SAMPLES, want);
  ks_devptr dx = 0, dout = 0;
  if (ks_mem_alloc(ctx, nx, &dx) != KS_OK ||
      ks_mem_alloc(ctx, (size_t)N * sizeof *out, &dout) != KS_OK ||
      ks_memcpy_htod(ctx, dx, x, nx) != KS_OK)
    return fail("memory", ctx);
  int n = N, samples = SAMPLES, bad = 0;
  void *args[] = {&dx, &dout, &n, &samples};
  for (int i = 0; i < NV && !bad; i++) {
    variant *v = &vs[i];
    unsigned threads = v->block[0] * v->block[1];
    ks_dim3 grid = {(N + threads - 1) / threads, 1, 1},
            block = {v->block[0], v->block[1], 1};
    if (ks_memset8(ctx, dout, 0xa5, (size_t)N * sizeof *out) != KS_OK ||
        ks_launch(v->k, grid, block, 0, NULL, args) != KS_OK ||
        ks_synchronize(ctx) != KS_OK ||
        ks_memcpy_dtoh(ctx, out, dout, (size_t)N * sizeof *out) != KS_OK)
      return fail(v->label, ctx);
    int wrong = 0;
    for (int j = 0; j < N; j++)
      if (out[j] != want[j] && wrong++ < 3)
        fprintf(stderr, "test_local: %s: out[%d] = %d, want %d\n", v->label, j,
                out[j], want[j]);
    printf("%s: %d of %d outputs wrong\n", v->label, wrong, N);
    bad = wrong != 0;
    float ms[REPS];
    for (int rep = 0; rep < REPS && !bad; rep++)
      if (ks_timer_start(ctx) != KS_OK ||
          ks_launch(v->k, grid, block, 0, NULL, args) != KS_OK ||
          ks_timer_stop(ctx, &ms[rep]) != KS_OK)
        return fail(v->label, ctx);
    qsort(ms, REPS, sizeof *ms, cmp_float);
    v->ms = ms[REPS / 2];
  }
  for (int i = 0; i + 1 < NV && !bad; i += 2)
    printf("%s: %.4f ms, local memory %.4f ms: %.2fx (%.1f GB/s of input "
           "with shared memory)\n",
           vs[i].label, vs[i].ms, vs[i + 1].ms, vs[i + 1].ms / vs[i].ms,
           (double)nx / (vs[i].ms * 1e6));
  ks_mem_free(ctx, dx);
  ks_mem_free(ctx, dout);
  free(x);
  free(out);
  free(want);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
  printf("%s\n", bad ? "FAILED" : "ok");
  return bad;
}
