/*
 * test_globals.c - module globals on the GPU (tests/data/globals.ll, from
 * globals.cu): conv3x3 reads its taps from a __constant__ table and its
 * coefficients from a __constant__ struct, and counts the outputs over 0.5
 * in a __device__ counter; lookup reads a __device__ table. Each variant
 * sets the globals through the API (ks_kernel_global_write), runs, reads
 * the counter back (ks_kernel_global_read) and checks outputs and count
 * against the CPU, outputs poisoned (NaN) first, on an image that is not
 * a multiple of the block:
 *
 *   generic, block 16x16       taps and coefficients written
 *   taps baked (initializer)   the template's taps, coefficients written
 *   taps and co baked (values) nothing written but the counter
 *   lookup, lut written / lut baked from its initializer
 *
 * and two specializations keep apart: the counter of one stays 0 while
 * the other runs.
 *
 *   test_gpu_globals [PATH/TO/globals.ll]
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

enum { W = 517, H = 263, N = W * H, NLUT = 8 };

struct coeffs { /* as globals.cu lays it out */
  float scale;
  int shift;
  float bias[4];
};

static const float init_taps[9] = {0.0625f, 0.125f,  0.0625f, 0.125f, 0.25f,
                                   0.125f,  0.0625f, 0.125f,  0.0625f};

static uint64_t rng;

static float uniform(void) { /* in [-1, 1) */
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((double)(rng >> 40) / (double)(1ull << 23) - 1.0);
}

typedef struct run {
  ks_ctx *ctx;
  ks_template *t;
  float *in, *out;
  ks_devptr din, dout;
} run;

static int fail(const run *r, const char *what) {
  fprintf(stderr, "test_globals: %s: %s\n", what, ks_errmsg(r->ctx));
  return 1;
}

static ks_kernel *make(run *r, const char *kernel, unsigned block,
                       const ks_bake *b, size_t nb) {
  ks_spec_req req = {.kernel = kernel, .bakes = b, .nbakes = nb};
  req.bounds.block[0] = block;
  req.bounds.block[1] = block ? block : 0;
  ks_kernel *k = NULL;
  if (ks_specialize(r->ctx, r->t, &req, &k) != KS_OK)
    return NULL;
  return k;
}

/* conv3x3's outputs against the CPU; *over gets the count of outputs over
 * 0.5 as the GPU computed them (the kernel's counter must equal it). */
static int check_conv(const run *r, const float *taps, const struct coeffs *c,
                      const char *what, unsigned *over) {
  int wrong = 0;
  *over = 0;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      float got = r->out[y * W + x];
      if (x < 1 || y < 1 || x >= W - 1 || y >= H - 1) {
        if (!isnan(got) && wrong++ < 3)
          fprintf(stderr, "%s: border (%d, %d) written\n", what, x, y);
        continue;
      }
      float s = 0.0f;
      for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
          s += taps[(dy + 1) * 3 + dx + 1] * r->in[(y + dy) * W + x + dx];
      float want = s * c->scale + c->bias[x & 3];
      *over += got > 0.5f;
      if (!(fabsf(got - want) <= 1e-5f * (1.0f + fabsf(want))) && wrong++ < 3)
        fprintf(stderr, "%s: out(%d, %d) = %g, want %g\n", what, x, y,
                (double)got, (double)want);
    }
  return wrong;
}

/* One conv3x3 variant: globals written unless baked, counter zeroed, run,
 * compared. */
static int conv_variant(run *r, ks_kernel *k, const char *what,
                        const float *taps, const struct coeffs *c,
                        int write_taps, int write_co) {
  unsigned zero = 0, counter = 0, over = 0;
  int w = W, h = H;
  void *args[] = {&r->din, &r->dout, &w, &h};
  ks_dim3 grid = {(W + 15) / 16, (H + 15) / 16, 1}, block = {16, 16, 1};
  if ((write_taps &&
       ks_kernel_global_write(k, "taps", 0, taps, 36, NULL) != KS_OK) ||
      (write_co &&
       ks_kernel_global_write(k, "co", 0, c, sizeof *c, NULL) != KS_OK) ||
      ks_kernel_global_write(k, "counter", 0, &zero, 4, NULL) != KS_OK ||
      ks_memset8(r->ctx, r->dout, 0xff, N * sizeof(float)) != KS_OK ||
      ks_launch(k, grid, block, 0, NULL, args) != KS_OK ||
      ks_synchronize(r->ctx) != KS_OK ||
      ks_memcpy_dtoh(r->ctx, r->out, r->dout, N * sizeof(float)) != KS_OK ||
      ks_kernel_global_read(k, "counter", 0, &counter, 4, NULL) != KS_OK)
    return fail(r, what);
  int wrong = check_conv(r, taps, c, what, &over);
  if (counter != over) {
    fprintf(stderr, "%s: counter %u, want %u\n", what, counter, over);
    wrong++;
  }
  printf("%s: %d outputs wrong, counter %u (want %u)\n", what, wrong, counter,
         over);
  return wrong != 0;
}

static int conv_tests(run *r) {
  float taps[9];
  double dtaps[9], dco[6];
  struct coeffs c = {uniform() + 1.5f, 0, {0}};
  for (int i = 0; i < 9; i++)
    dtaps[i] = taps[i] = uniform();
  for (int i = 0; i < 4; i++)
    c.bias[i] = uniform();
  dco[0] = c.scale, dco[1] = c.shift;
  for (int i = 0; i < 4; i++)
    dco[2 + i] = c.bias[i];
  ks_bake init = {.arg = "taps"};
  ks_bake vals[2] = {{.arg = "taps", .values = dtaps, .n = 9},
                     {.arg = "co", .values = dco, .n = 6}};
  ks_kernel *gen = make(r, "conv3x3", 0, NULL, 0),
            *blk = make(r, "conv3x3", 16, NULL, 0),
            *bi = make(r, "conv3x3", 16, &init, 1),
            *bv = make(r, "conv3x3", 16, vals, 2);
  if (!gen || !blk || !bi || !bv)
    return fail(r, "specialize conv3x3");
  int bad = conv_variant(r, gen, "conv3x3 generic", taps, &c, 1, 1);
  bad |= conv_variant(r, blk, "conv3x3 block 16x16", taps, &c, 1, 1);
  bad |= conv_variant(r, bi, "conv3x3 taps baked (initializer)", init_taps, &c,
                      0, 1);
  bad |=
      conv_variant(r, bv, "conv3x3 taps and co baked (values)", taps, &c, 0, 0);
  /* the generic kernel's counter was not touched by the others' runs */
  unsigned other = 1;
  unsigned zero = 0;
  if (ks_kernel_global_write(gen, "counter", 0, &zero, 4, NULL) != KS_OK ||
      conv_variant(r, blk, "conv3x3 block 16x16 again", taps, &c, 0, 0) ||
      ks_kernel_global_read(gen, "counter", 0, &other, 4, NULL) != KS_OK ||
      other != 0) {
    fprintf(stderr, "separate storage: generic counter %u, want 0\n", other);
    bad = 1;
  }
  return bad;
}

/* lookup: out[i] = lut[idx[i] & 7] + lut[0] + lut[7]. */
static int lookup_variant(run *r, ks_kernel *k, const char *what,
                          const int *lut, int write) {
  int n = N, wrong = 0;
  void *args[] = {&r->din, &r->dout, &n};
  ks_dim3 grid = {(N + 255) / 256, 1, 1}, block = {256, 1, 1};
  int *idx = (int *)r->in, *out = (int *)r->out;
  if ((write &&
       ks_kernel_global_write(k, "lut", 0, lut, NLUT * 4, NULL) != KS_OK) ||
      ks_memcpy_htod(r->ctx, r->din, idx, N * 4) != KS_OK ||
      ks_memset8(r->ctx, r->dout, 0xff, N * 4) != KS_OK ||
      ks_launch(k, grid, block, 0, NULL, args) != KS_OK ||
      ks_synchronize(r->ctx) != KS_OK ||
      ks_memcpy_dtoh(r->ctx, out, r->dout, N * 4) != KS_OK)
    return fail(r, what);
  for (int i = 0; i < N; i++) {
    int want = lut[idx[i] & 7] + lut[0] + lut[7];
    if (out[i] != want && wrong++ < 3)
      fprintf(stderr, "%s: out[%d] = %d, want %d\n", what, i, out[i], want);
  }
  printf("%s: %d outputs wrong\n", what, wrong);
  return wrong != 0;
}

static int lookup_tests(run *r) {
  int *idx = malloc(N * sizeof *idx), lut[NLUT], init[NLUT];
  if (!idx)
    return fail(r, "out of memory");
  for (int i = 0; i < N; i++)
    idx[i] = (int)(rng = rng * 6364136223846793005ull + 1) >> 7;
  for (int i = 0; i < NLUT; i++) {
    lut[i] = (int)(uniform() * 1000);
    init[i] = i + 1;
  }
  ks_bake b = {.arg = "lut"};
  ks_kernel *gen = make(r, "lookup", 0, NULL, 0),
            *baked = make(r, "lookup", 0, &b, 1);
  float *keep = r->in;
  r->in = (float *)idx; /* lookup's input is an int array */
  int bad = !gen || !baked
                ? fail(r, "specialize lookup")
                : lookup_variant(r, gen, "lookup, lut written", lut, 1) |
                      lookup_variant(r, baked,
                                     "lookup, lut baked "
                                     "(initializer)",
                                     init, 0);
  r->in = keep;
  free(idx);
  return bad;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "tests/data/globals.ll";
  run r = {0};
  ks_device_info dev = {.size = sizeof dev};
  ks_status st;
  if (gpu_open(NULL, &r.ctx, &dev, &st))
    return KS_TEST_SKIP;
  if (st != KS_OK)
    return fail(&r, "device");
  if (ks_template_load(r.ctx, path, &r.t) != KS_OK)
    return fail(&r, path);
  r.in = malloc(N * sizeof *r.in);
  r.out = malloc(N * sizeof *r.out);
  if (!r.in || !r.out)
    return fail(&r, "out of memory");
  rng = (uint64_t)time(NULL) * 2654435761u + 1;
  printf("seed %llu\n", (unsigned long long)rng);
  for (int i = 0; i < N; i++)
    r.in[i] = uniform();
  if (ks_mem_alloc(r.ctx, N * sizeof(float), &r.din) != KS_OK ||
      ks_mem_alloc(r.ctx, N * sizeof(float), &r.dout) != KS_OK ||
      ks_memcpy_htod(r.ctx, r.din, r.in, N * sizeof(float)) != KS_OK)
    return fail(&r, "memory");
  int bad = conv_tests(&r);
  bad |= lookup_tests(&r);
  ks_mem_free(r.ctx, r.din);
  ks_mem_free(r.ctx, r.dout);
  free(r.in);
  free(r.out);
  ks_template_destroy(r.t);
  ks_ctx_destroy(r.ctx);
  printf("%s\n", bad ? "FAILED" : "ok");
  return bad;
}
