/*
 * test_byval.c - kernels that take structs by value, on the GPU
 * (tests/data/byval.ll, from byval.cu): taps_read reads its struct in
 * place at an index known only at run time, taps_written writes its own
 * copy, span_scale reads pointers out of its struct and taps_call hands
 * its struct by value to a function that is not inlined. Each kernel is
 * specialized generic, for a block of 256 and for maxntid 128 (launched
 * with 96 threads), and every output is checked against the CPU on fresh
 * random data, outputs poisoned (NaN) before each run, at a size that is
 * not a multiple of the block.
 *
 *   test_gpu_byval [PATH/TO/byval.ll [N]]
 *
 * (defaults: tests/data/byval.ll, N = 2^20 + 37; a small N for
 * compute-sanitizer).
 *
 * Without a driver or a device: "skipped: ...", exit 77.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu_open.h"
#include "kspec.h"

enum { NMAX = (1 << 20) + 37 };

/* The structs as byval.cu lays them out. */
struct taps {
  float w[8];
  float bias;
  int mask;
};
struct span {
  ks_devptr x, y;
  int n;
  float scale;
};

static int fail(const char *what, const ks_ctx *ctx) {
  fprintf(stderr, "test_byval: %s: %s\n", what, ctx ? ks_errmsg(ctx) : "");
  return 1;
}

static uint64_t rng;

static float uniform(void) { /* in [-1, 1) */
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((double)(rng >> 40) / (double)(1ull << 23) - 1.0);
}

/* What kernel `name` writes to y[i]. The GPU may contract a multiply and
 * an add into one fma, so the check allows a few ulps. */
static float reference(const char *name, const struct taps *t,
                       const struct span *s, const float *x, int i) {
  if (strcmp(name, "taps_read") == 0)
    return x[i] * t->w[i & t->mask] + t->bias;
  if (strcmp(name, "span_scale") == 0)
    return x[i] * s->scale;
  float w[8];
  memcpy(w, t->w, sizeof w);
  if (strcmp(name, "taps_written") == 0) {
    w[i & t->mask] += x[i];
    float sum = t->bias;
    for (int k = 0; k < 8; k++)
      sum += w[k] * (float)(k + 1);
    return sum;
  }
  w[i & 7] *= 2.0f; /* taps_call, through tap() */
  return x[i] + (w[(i + 1) & t->mask] + w[i & 7]);
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "tests/data/byval.ll";
  long nl = argc > 2 ? strtol(argv[2], NULL, 10) : NMAX;
  if (nl < 1 || nl > NMAX) {
    fprintf(stderr, "test_byval: N must be 1..%d\n", NMAX);
    return 2;
  }
  int n = (int)nl;
  ks_ctx *ctx = NULL;
  ks_device_info dev = {.size = sizeof dev};
  ks_status st;
  if (gpu_open(NULL, &ctx, &dev, &st))
    return KS_TEST_SKIP;
  if (st != KS_OK)
    return fail("device", ctx);
  ks_template *t = NULL;
  if (ks_template_load(ctx, path, &t) != KS_OK)
    return fail(path, ctx);

  float *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
  if (!x || !y)
    return fail("out of memory", NULL);
  rng = (uint64_t)time(NULL) * 2654435761u + 1;
  printf("seed %llu\n", (unsigned long long)rng);
  for (int i = 0; i < n; i++)
    x[i] = uniform();
  ks_devptr dx = 0, dy = 0;
  size_t bytes = (size_t)n * sizeof *x;
  if (ks_mem_alloc(ctx, bytes, &dx) != KS_OK ||
      ks_mem_alloc(ctx, bytes, &dy) != KS_OK ||
      ks_memcpy_htod(ctx, dx, x, bytes) != KS_OK)
    return fail("memory", ctx);

  static const char *const kernels[] = {"taps_read", "taps_written",
                                        "span_scale", "taps_call"};
  static const struct {
    const char *label;
    unsigned block, maxntid, launch;
  } variants[] = {{"generic", 0, 0, 128},
                  {"block 256", 256, 0, 256},
                  {"maxntid 128", 0, 128, 96}};
  int bad = 0;
  for (size_t ki = 0; ki < sizeof kernels / sizeof *kernels; ki++)
    for (size_t vi = 0; vi < sizeof variants / sizeof *variants; vi++) {
      const char *name = kernels[ki];
      char what[96];
      snprintf(what, sizeof what, "%s, %s", name, variants[vi].label);
      ks_spec_req req = {.kernel = name};
      req.bounds.block[0] = variants[vi].block;
      req.bounds.maxntid = variants[vi].maxntid;
      ks_kernel *k = NULL;
      if (ks_specialize(ctx, t, &req, &k) != KS_OK ||
          ks_kernel_load(k) != KS_OK)
        return fail(what, ctx);
      /* fresh taps and a fresh mask for every launch */
      struct taps tp;
      for (int j = 0; j < 8; j++)
        tp.w[j] = uniform();
      tp.bias = uniform();
      tp.mask = (int)((rng >> 33) & 7);
      struct span sp = {dx, dy, n, uniform()};
      int ni = n;
      void *targs[] = {&tp, &dx, &dy, &ni}, *sargs[] = {&sp};
      unsigned threads = variants[vi].launch;
      ks_dim3 grid = {(unsigned)((n + threads - 1) / threads), 1, 1},
              block = {threads, 1, 1};
      if (ks_memset8(ctx, dy, 0xff, bytes) != KS_OK ||
          ks_launch(k, grid, block, 0, NULL,
                    strcmp(name, "span_scale") == 0 ? sargs : targs) != KS_OK ||
          ks_synchronize(ctx) != KS_OK ||
          ks_memcpy_dtoh(ctx, y, dy, bytes) != KS_OK)
        return fail(what, ctx);
      int wrong = 0;
      for (int i = 0; i < n; i++) {
        float want = reference(name, &tp, &sp, x, i);
        if (!(fabsf(y[i] - want) <= 1e-5f * (1.0f + fabsf(want))) &&
            wrong++ < 3)
          fprintf(stderr, "test_byval: %s: y[%d] = %g, want %g\n", what, i,
                  (double)y[i], (double)want);
      }
      printf("%s (mask %d): %d of %d outputs wrong\n", what, tp.mask, wrong, n);
      bad |= wrong != 0;
    }
  ks_mem_free(ctx, dx);
  ks_mem_free(ctx, dy);
  free(x);
  free(y);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
  printf("%s\n", bad ? "FAILED" : "ok");
  return bad;
}
