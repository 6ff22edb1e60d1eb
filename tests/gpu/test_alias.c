/*
 * test_alias.c - run-time alias checks on the GPU (passes/alias.c):
 * tests/data/hist64.ll, a 64-bin histogram whose input is not __restrict__,
 * privatized under a check at its entry that the bins and the input do not
 * overlap, the original kernel running where they do. Specialized generic,
 * with a block of 256, and with the block and n bound, each against the
 * CPU (bins zeroed, everything around them poisoned and checked untouched):
 *
 *  - disjoint buffers (the privatized kernel), 2^24 + 37 bytes over 528
 *    blocks; then timed against the same request without smem_promote;
 *  - overlapping buffers, many threads (the original kernel): the input
 *    starts inside the bins, over bins 32..63, which no byte selects, so
 *    the result is the same in any order;
 *  - overlapping buffers, one thread (the generic kernel): the input runs
 *    over the bins it increments, so what a byte reads depends on the
 *    increments before it. The original kernel's answer (a sequential
 *    count on the CPU) differs from what the privatized kernel would give
 *    (the bins' bytes read as zero): only the original gets it right.
 *
 *   test_gpu_alias [PATH/TO/hist64.ll [N]]
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

enum {
  NMAX = (1 << 24) + 37,
  BINS = 64,
  GUARD = 64, /* poisoned words on either side of the bins */
  POISON = 0xa5,
  REPS = 21,
};

static int fail(const char *what, const ks_ctx *ctx) {
  fprintf(stderr, "test_alias: %s: %s\n", what, ctx ? ks_errmsg(ctx) : "");
  return 1;
}

typedef struct variant {
  const char *label;
  unsigned block; /* 0: generic */
  int bind_n;     /* n bound to the disjoint case's */
  int promote;
  ks_kernel *k;
} variant;

static int specialize(ks_ctx *ctx, ks_template *t, variant *v, int n) {
  static const char *const off[] = {"smem_promote"};
  ks_binding b = {.name = NULL, .kind = KS_VALUE_INT, .v.i = n, .arg = 2};
  ks_spec_req req = {.kernel = "hist64",
                     .bindings = &b,
                     .nbindings = v->bind_n ? 1 : 0,
                     .no_pass = v->promote ? NULL : off,
                     .nno_pass = v->promote ? 0 : 1,
                     .bounds.block = {v->block, v->block ? 1 : 0, 0}};
  if (ks_specialize(ctx, t, &req, &v->k) != KS_OK || ks_kernel_load(v->k))
    return fail(v->label, ctx);
  int checked = strstr(ks_kernel_explain(v->k), "alias check for") != NULL;
  if (checked != v->promote) {
    fprintf(stderr, "test_alias: %s: %s alias check\n%s", v->label,
            checked ? "an" : "no", ks_kernel_explain(v->k));
    return 1;
  }
  return 0;
}

/* What the original kernel computes in one thread: bytes data_off..+n of
 * mem, each incrementing the u32 at bins_off + 4 * (byte >> 2), in order;
 * with `frozen`, bytes read as they were before the first increment (the
 * privatized kernel's view). */
static void count_cpu(unsigned char *mem, size_t data_off, size_t bins_off,
                      int n, int frozen) {
  unsigned char *orig = frozen ? malloc((size_t)n) : NULL;
  if (frozen)
    memcpy(orig, mem + data_off, (size_t)n);
  for (int i = 0; i < n; i++) {
    unsigned char v = frozen ? orig[i] : mem[data_off + (size_t)i];
    uint32_t c;
    size_t at = bins_off + 4u * (v >> 2);
    memcpy(&c, mem + at, 4);
    c++;
    memcpy(mem + at, &c, 4);
  }
  free(orig);
}

/* Runs v over device memory holding `host` (bytes), data at data_off and
 * the bins at bins_off; compares the whole buffer with want. */
static int run(ks_ctx *ctx, const variant *v, const unsigned char *host,
               const unsigned char *want, size_t bytes, size_t data_off,
               size_t bins_off, int n, ks_dim3 grid, ks_dim3 block,
               const char *what) {
  ks_devptr d = 0;
  unsigned char *got = malloc(bytes);
  if (!got || ks_mem_alloc(ctx, bytes, &d) != KS_OK ||
      ks_memcpy_htod(ctx, d, host, bytes) != KS_OK)
    return fail("memory", ctx);
  ks_devptr dd = d + data_off, db = d + bins_off;
  void *args[] = {&dd, &db, &n};
  if (ks_launch(v->k, grid, block, 0, NULL, args) != KS_OK ||
      ks_synchronize(ctx) != KS_OK ||
      ks_memcpy_dtoh(ctx, got, d, bytes) != KS_OK)
    return fail(v->label, ctx);
  size_t wrong = 0, first = 0;
  for (size_t i = 0; i < bytes; i++)
    if (got[i] != want[i] && wrong++ == 0)
      first = i;
  printf("%s, %s: %zu of %zu bytes wrong%s\n", v->label, what, wrong, bytes,
         wrong ? "" : " (ok)");
  if (wrong)
    fprintf(stderr, "test_alias: first at byte %zu: %u, want %u\n", first,
            got[first], want[first]);
  ks_mem_free(ctx, d);
  free(got);
  return wrong != 0;
}

static uint32_t next(uint32_t *r) {
  *r = *r * 1664525u + 1013904223u;
  return *r >> 8;
}

/* Disjoint: the bins (with guards) in one buffer, the data after them. */
static int disjoint(ks_ctx *ctx, const variant *v, int n, uint32_t seed) {
  size_t bins_off = GUARD * 4, data_off = bins_off + BINS * 4 + GUARD * 4;
  size_t bytes = data_off + (size_t)n;
  unsigned char *host = malloc(bytes), *want = malloc(bytes);
  if (!host || !want)
    return fail("out of memory", NULL);
  memset(host, POISON, data_off);
  memset(host + bins_off, 0, BINS * 4);
  for (int i = 0; i < n; i++)
    host[data_off + (size_t)i] = (unsigned char)next(&seed);
  memcpy(want, host, bytes);
  count_cpu(want, data_off, bins_off, n, 0);
  unsigned threads = v->block ? v->block : 256;
  int bad = run(ctx, v, host, want, bytes, data_off, bins_off, n,
                (ks_dim3){528, 1, 1}, (ks_dim3){threads, 1, 1}, "disjoint");
  free(host);
  free(want);
  return bad;
}

/* Overlapping, many threads: data starts at bin 32; its first 128 bytes
 * are those bins' (zero, and never incremented), the rest below 128. */
static int overlap_many(ks_ctx *ctx, const variant *v, int n, uint32_t seed) {
  size_t bins_off = GUARD * 4, data_off = bins_off + 32 * 4;
  size_t bytes = data_off + (size_t)n;
  unsigned char *host = malloc(bytes), *want = malloc(bytes);
  if (!host || !want)
    return fail("out of memory", NULL);
  memset(host, POISON, bins_off);
  memset(host + bins_off, 0, BINS * 4);
  for (size_t i = bins_off + BINS * 4; i < bytes; i++)
    host[i] = (unsigned char)(next(&seed) & 127);
  memcpy(want, host, bytes);
  count_cpu(want, data_off, bins_off, n, 1); /* no byte read is changed */
  unsigned threads = v->block ? v->block : 256;
  int bad =
      run(ctx, v, host, want, bytes, data_off, bins_off, n, (ks_dim3){64, 1, 1},
          (ks_dim3){threads, 1, 1}, "overlapping (many threads)");
  free(host);
  free(want);
  return bad;
}

/* Overlapping, one thread: data starts 64 bytes before the bins and runs
 * through them; its first 64 bytes select bin 63, whose bytes it reads at
 * 316..319 after 64 increments. */
static int overlap_one(ks_ctx *ctx, const variant *v, uint32_t seed) {
  enum { N = 64 + BINS * 4 + 64 };
  size_t data_off = GUARD * 4, bins_off = data_off + 64;
  size_t bytes = data_off + N;
  unsigned char host[GUARD * 4 + N], want[GUARD * 4 + N], frozen[GUARD * 4 + N];
  memset(host, POISON, data_off);
  memset(host + data_off, 252, 64);
  memset(host + bins_off, 0, BINS * 4);
  for (size_t i = bins_off + BINS * 4; i < bytes; i++)
    host[i] = (unsigned char)next(&seed);
  memcpy(want, host, bytes);
  count_cpu(want, data_off, bins_off, N, 0);
  memcpy(frozen, host, bytes);
  count_cpu(frozen, data_off, bins_off, N, 1);
  if (!memcmp(want, frozen, bytes)) /* else this case would prove nothing */
    return fail("overlap_one: the privatized answer is the same", NULL);
  return run(ctx, v, host, want, bytes, data_off, bins_off, N,
             (ks_dim3){1, 1, 1}, (ks_dim3){1, 1, 1},
             "overlapping (one thread, in order)");
}

static int cmp_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

/* The median of REPS launches of v over n disjoint bytes. */
static float time_it(ks_ctx *ctx, const variant *v, ks_devptr dd, ks_devptr db,
                     int n) {
  void *args[] = {&dd, &db, &n};
  float ms[REPS];
  ks_dim3 grid = {528, 1, 1}, block = {v->block ? v->block : 256, 1, 1};
  for (int r = 0; r < REPS; r++)
    if (ks_timer_start(ctx) != KS_OK ||
        ks_launch(v->k, grid, block, 0, NULL, args) != KS_OK ||
        ks_timer_stop(ctx, &ms[r]) != KS_OK)
      return -1;
  qsort(ms, REPS, sizeof *ms, cmp_float);
  return ms[REPS / 2];
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "tests/data/hist64.ll";
  long nl = argc > 2 ? strtol(argv[2], NULL, 10) : NMAX;
  if (nl < 1 || nl > NMAX) {
    fprintf(stderr, "test_alias: N must be 1..%d\n", NMAX);
    return 2;
  }
  int n = (int)nl;
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
  variant vs[] = {{"generic", 0, 0, 1, NULL},
                  {"block 256", 256, 0, 1, NULL},
                  {"block 256, n bound", 256, 1, 1, NULL},
                  {"block 256, n bound, no smem_promote", 256, 1, 0, NULL}};
  enum { NV = sizeof vs / sizeof vs[0] };
  for (int i = 0; i < NV; i++)
    if (specialize(ctx, t, &vs[i], n))
      return 1;
  uint32_t seed = (uint32_t)time(NULL);
  printf("seed %u\n", seed);
  int bad = 0;
  for (int i = 0; i < NV; i++) {
    bad |= disjoint(ctx, &vs[i], n, seed + (uint32_t)i);
    bad |= overlap_many(ctx, &vs[i], n, seed + 7u * (uint32_t)i);
  }
  bad |= overlap_one(ctx, &vs[0], seed);

  ks_devptr dd = 0, db = 0;
  if (!bad && (ks_mem_alloc(ctx, (size_t)n, &dd) != KS_OK ||
               ks_mem_alloc(ctx, BINS * 4, &db) != KS_OK ||
               ks_memset8(ctx, dd, 0x5c, (size_t)n) != KS_OK ||
               ks_memset8(ctx, db, 0, BINS * 4) != KS_OK))
    return fail("memory", ctx);
  if (!bad) {
    float fast = time_it(ctx, &vs[2], dd, db, n);
    float plain = time_it(ctx, &vs[3], dd, db, n);
    printf("block 256, n bound: %.4f ms versioned (privatized), %.4f ms "
           "without smem_promote: %.2fx\n",
           fast, plain, plain / fast);
  }
  ks_mem_free(ctx, dd);
  ks_mem_free(ctx, db);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
  printf("%s\n", bad ? "FAILED" : "ok");
  return bad;
}
