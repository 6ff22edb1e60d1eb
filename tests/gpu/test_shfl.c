/*
 * test_shfl.c - warp-shuffle reductions on the GPU (the shfl pass):
 * tests/data/treesum.ll's tree reductions (the loop with a barrier per
 * step, and the warp-unrolled volatile tail; float and int) and the
 * built-in reduce_sum, specialized for every block of 32 to 1024 threads
 * (powers of two; reduce_sum also 48, 96 and 1000), each with the pass and
 * without it. Every block's sum is checked against the CPU, which adds in
 * the order the source's tree does: floats bit for bit, on data whose
 * magnitudes span 2^-12 .. 2^12 so that another order shows. Outputs are
 * poisoned before every run. The pass must have fired for every request
 * with it on (its explanation), and not otherwise. Then reduce_sum at
 * blocks of 256 and 1024 is timed with and without the pass (median of
 * REPS launches over 2^26 floats).
 *
 *   test_gpu_shfl [PATH/TO/treesum.ll [N]]
 *
 * (defaults: tests/data/treesum.ll, N = 97 * 1024: ceil(N / 1024) blocks
 * a launch, reduce_sum at most 8; a small N for compute-sanitizer, which
 * also leaves the timing out, and the racy tail's unshuffled form). Without a
 * driver or a device: "skipped: ...", exit 77.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu_open.h"
#include "kspec.h"

enum { MAXB = 1024, REPS = 21 };

static int fail(const char *what, const ks_ctx *ctx) {
  fprintf(stderr, "test_shfl: %s: %s\n", what, ctx ? ks_errmsg(ctx) : "");
  return 1;
}

static uint64_t rng;

static uint32_t next(void) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng >> 32);
}

/* Floats of either sign whose magnitudes span 2^-12 .. 2^12; ints small
 * enough that no block's sum overflows. */
static void fill(void *x, size_t n, int is_float) {
  for (size_t i = 0; i < n; i++) {
    uint32_t r = next();
    if (is_float) {
      float m = (float)(r & 0xffffff) / 16777216.0f + 0.5f;
      int e = (int)((r >> 24) % 25) - 12;
      float v = m;
      for (; e > 0; e--)
        v *= 2.0f;
      for (; e < 0; e++)
        v *= 0.5f;
      ((float *)x)[i] = (r & 1) ? -v : v;
    } else {
      ((int32_t *)x)[i] = (int32_t)(r % 2000001u) - 1000000;
    }
  }
}

/* The CPU's sum of one block of b elements v[0..b), in the tree's order:
 * for s from half (the least power of two >= b) / 2 down to 1, element t
 * += element t + s where t < s and t + s < b (reduce_sum's tree; for a
 * power of two the classic one, and the warp-unrolled tail's lane 0). */
static void tree_cpu(void *v, unsigned b, int is_float) {
  unsigned half = 1;
  while (half < b)
    half <<= 1;
  for (unsigned s = half / 2; s > 0; s >>= 1)
    for (unsigned t = 0; t < s && t + s < b; t++) {
      if (is_float)
        ((float *)v)[t] += ((float *)v)[t + s];
      else /* wraps as the GPU's adds; none overflows with fill's data */
        ((uint32_t *)v)[t] += ((uint32_t *)v)[t + s];
    }
}

typedef struct kcase {
  const char *kernel; /* treesum.ll's; NULL: the built-in reduce_sum */
  int is_float;
  /* The source's warp-synchronous tail (volatile, no __syncwarp) is a
   * race under independent thread scheduling, which racecheck reports:
   * with N given (the sanitizers' runs) only its shuffled form runs, in
   * which the pass has removed those shared-memory steps. */
  int racy_source;
} kcase;

/* Specializes c for blocks of b threads, the pass on or off, and checks
 * that it fired exactly when on. */
static int specialize(ks_ctx *ctx, ks_template *t, const kcase *c, unsigned b,
                      int on, ks_kernel **k) {
  static const char *const off[] = {"shfl"};
  ks_binding bind = {.name = "BLOCK", .kind = KS_VALUE_INT, .v.i = b};
  ks_spec_req req = {
      .kernel = c->kernel, .no_pass = on ? NULL : off, .nno_pass = on ? 0 : 1};
  if (c->kernel) {
    req.bounds.block[0] = b;
  } else {
    req.bindings = &bind;
    req.nbindings = 1;
  }
  char what[96];
  snprintf(what, sizeof what, "%s, block %u, shfl %s",
           c->kernel ? c->kernel : "reduce_sum", b, on ? "on" : "off");
  if (ks_specialize(ctx, t, &req, k) != KS_OK || ks_kernel_load(*k) != KS_OK)
    return fail(what, ctx);
  const char *ex = ks_kernel_explain(*k);
  int fired = strstr(ex, "shfl: ") && strstr(ex, "in the first warp by");
  if (fired != on) {
    fprintf(stderr, "test_shfl: %s: the pass %s\n%s", what,
            fired ? "fired" : "did not fire", ex);
    return 1;
  }
  return 0;
}

/* Runs k over nb blocks of b threads of x (n elements) and compares each
 * block's sum with the CPU's. */
static int check(ks_ctx *ctx, ks_kernel *k, const kcase *c, unsigned b,
                 unsigned nb, const void *x, int n, ks_devptr dx,
                 ks_devptr dout, const char *label) {
  size_t es = 4;
  unsigned char *got = malloc((size_t)nb * es), *want = malloc(MAXB * es);
  if (!got || !want)
    return fail("out of memory", NULL);
  int bad = 0;
  if (c->kernel) {
    memset(got, 0xff, (size_t)nb * es); /* poison: NaN, or -1 */
    if (ks_memcpy_htod(ctx, dout, got, (size_t)nb * es) != KS_OK)
      return fail("poison", ctx);
    void *args[] = {&dx, &dout, &n};
    if (ks_launch(k, (ks_dim3){nb, 1, 1}, (ks_dim3){b, 1, 1}, 0, NULL, args) !=
            KS_OK ||
        ks_memcpy_dtoh(ctx, got, dout, (size_t)nb * es) != KS_OK)
      return fail(label, ctx);
  } else { /* reduce_sum adds into *out: one block a launch, from 0 */
    for (unsigned blk = 0; blk < nb && !bad; blk++) {
      float zero = 0.0f;
      int m = n - (int)(blk * b) < (int)b ? n - (int)(blk * b) : (int)b;
      ks_devptr xb = dx + (ks_devptr)blk * b * es;
      void *args[] = {&xb, &dout, &m, &b};
      if (ks_memcpy_htod(ctx, dout, &zero, es) != KS_OK ||
          ks_launch(k, (ks_dim3){1, 1, 1}, (ks_dim3){b, 1, 1}, 0, NULL, args) !=
              KS_OK ||
          ks_memcpy_dtoh(ctx, got + blk * es, dout, es) != KS_OK)
        return fail(label, ctx);
    }
  }
  for (unsigned blk = 0; blk < nb && !bad; blk++) {
    memset(want, 0, MAXB * es);
    size_t first = (size_t)blk * b;
    size_t have = first < (size_t)n ? (size_t)n - first : 0;
    memcpy(want, (const unsigned char *)x + first * es,
           (have < b ? have : b) * es);
    tree_cpu(want, b, c->is_float);
    if (memcmp(want, got + blk * es, es) != 0) {
      float gf, wf;
      int32_t gi, wi;
      memcpy(&gf, got + blk * es, 4);
      memcpy(&wf, want, 4);
      memcpy(&gi, got + blk * es, 4);
      memcpy(&wi, want, 4);
      fprintf(stderr, "test_shfl: %s: block %u: got %a (%d), want %a (%d)\n",
              label, blk, gf, gi, wf, wi);
      bad = 1;
    }
  }
  free(got);
  free(want);
  return bad;
}

static int cmp_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

/* The median time of REPS launches of reduce_sum over n floats. */
static int time_sum(ks_ctx *ctx, ks_kernel *k, unsigned b, int n, ks_devptr dx,
                    ks_devptr dout, float *ms) {
  float t[REPS];
  unsigned grid = (unsigned)((n + b - 1) / b);
  void *args[] = {&dx, &dout, &n, &b};
  for (int r = 0; r < REPS + 1; r++) {
    if (ks_timer_start(ctx) != KS_OK ||
        ks_launch(k, (ks_dim3){grid, 1, 1}, (ks_dim3){b, 1, 1}, 0, NULL,
                  args) != KS_OK ||
        ks_timer_stop(ctx, r ? &t[r - 1] : ms) != KS_OK)
      return fail("timing", ctx);
  }
  qsort(t, REPS, sizeof *t, cmp_float);
  *ms = t[REPS / 2];
  return 0;
}

static int timing(ks_ctx *ctx, ks_template *rs) {
  const int n = 1 << 26;
  ks_devptr dx = 0, dout = 0;
  if (ks_mem_alloc(ctx, (size_t)n * 4, &dx) != KS_OK ||
      ks_mem_alloc(ctx, 4, &dout) != KS_OK ||
      ks_memset8(ctx, dx, 0, (size_t)n * 4) != KS_OK)
    return fail("timing memory", ctx);
  static const kcase sum = {NULL, 1, 0};
  for (unsigned b = 256; b <= 1024; b *= 4) {
    ks_kernel *on = NULL, *off = NULL;
    float ms_on = 0, ms_off = 0;
    if (specialize(ctx, rs, &sum, b, 1, &on) ||
        specialize(ctx, rs, &sum, b, 0, &off) ||
        time_sum(ctx, off, b, n, dx, dout, &ms_off) ||
        time_sum(ctx, on, b, n, dx, dout, &ms_on))
      return 1;
    printf("reduce_sum BLOCK=%u, 2^26 floats: %.4f ms with shfl, %.4f ms "
           "without (%.3fx)\n",
           b, ms_on, ms_off, ms_off / ms_on);
  }
  ks_mem_free(ctx, dx);
  ks_mem_free(ctx, dout);
  return 0;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "tests/data/treesum.ll";
  long nel = argc > 2 ? strtol(argv[2], NULL, 10) : 97 * MAXB;
  if (nel < 1 || nel > 4096 * MAXB) {
    fprintf(stderr, "test_shfl: N must be 1..%d\n", 4096 * MAXB);
    return 2;
  }
  const unsigned NB = (unsigned)((nel + MAXB - 1) / MAXB);
  ks_ctx *ctx = NULL;
  ks_device_info dev = {.size = sizeof dev};
  ks_status s;
  if (gpu_open(NULL, &ctx, &dev, &s))
    return KS_TEST_SKIP;
  if (s != KS_OK)
    return fail("device", ctx);
  ks_template *ts = NULL, *rs = NULL;
  if (ks_template_load(ctx, path, &ts) != KS_OK ||
      ks_template_load(ctx, "reduce_sum", &rs) != KS_OK)
    return fail("templates", ctx);
  rng = (uint64_t)time(NULL) * 2654435761u + 1;
  printf("seed %llu\n", (unsigned long long)rng);
  void *xf = malloc((size_t)NB * MAXB * 4), *xi = malloc((size_t)NB * MAXB * 4);
  ks_devptr dxf = 0, dxi = 0, dout = 0;
  if (!xf || !xi)
    return fail("out of memory", NULL);
  fill(xf, (size_t)NB * MAXB, 1);
  fill(xi, (size_t)NB * MAXB, 0);
  if (ks_mem_alloc(ctx, (size_t)NB * MAXB * 4, &dxf) != KS_OK ||
      ks_mem_alloc(ctx, (size_t)NB * MAXB * 4, &dxi) != KS_OK ||
      ks_mem_alloc(ctx, (size_t)NB * MAXB * 4, &dout) != KS_OK ||
      ks_memcpy_htod(ctx, dxf, xf, (size_t)NB * MAXB * 4) != KS_OK ||
      ks_memcpy_htod(ctx, dxi, xi, (size_t)NB * MAXB * 4) != KS_OK)
    return fail("memory", ctx);
  static const kcase cases[] = {{"tree_f32", 1, 0},
                                {"tree_i32", 0, 0},
                                {"tail_f32", 1, 1},
                                {"tail_i32", 0, 1},
                                {NULL, 1, 0}};
  /* powers of two; reduce_sum, which handles any block, also others */
  static const unsigned blocks[] = {32, 64, 128, 256, 512, 1024, 48, 96, 1000};
  int bad = 0, runs = 0;
  for (size_t ci = 0; ci < sizeof cases / sizeof *cases; ci++) {
    const kcase *c = &cases[ci];
    unsigned nblocks = c->kernel ? 6 : 9;
    for (unsigned bi = 0; bi < nblocks && !bad; bi++) {
      unsigned b = blocks[bi];
      int last = c->racy_source && argc > 2; /* the pass on only */
      for (int on = 1; on >= last && !bad; on--) {
        ks_kernel *k = NULL;
        char label[96];
        snprintf(label, sizeof label, "%s, block %u, shfl %s",
                 c->kernel ? c->kernel : "reduce_sum", b, on ? "on" : "off");
        /* reduce_sum, one block a launch: fewer blocks */
        unsigned nb = c->kernel ? NB : (NB < 8 ? NB : 8);
        int m = (int)(nb * b) - 37; /* the last block partly 0 */
        bad = specialize(ctx, c->kernel ? ts : rs, c, b, on, &k) ||
              check(ctx, k, c, b, nb, c->is_float ? xf : xi, m,
                    c->is_float ? dxf : dxi, dout, label);
        runs++;
      }
    }
  }
  if (bad)
    return 1;
  printf("%d variants, every block's sum as the CPU's tree gives it\n", runs);
  if (argc <= 2 && timing(ctx, rs))
    return 1;
  free(xf);
  free(xi);
  ks_template_destroy(ts);
  ks_template_destroy(rs);
  ks_ctx_destroy(ctx);
  printf("test_shfl: PASS\n");
  return 0;
}
