/*
 * test_fused.c - sepfilter_fused (the separable filter in one cooperative
 * kernel: rows, grid barrier, columns) on the GPU, against the two-pass
 * sepfilter_rows + sepfilter_cols and the CPU reference of
 * tools/workloads.c.
 *
 * For each image side (1, 7, 333, 1001, 2048: one block, partial blocks,
 * more blocks than can be resident at once) and RADIUS (1, 3, 8, 32), with
 * a 32 x 8 block (and 16 x 16, 64 x 1 at side 1001), generic (nothing
 * bound) and specialized (RADIUS and the block bound):
 *
 *   - the fused kernel, launched by plain ks_launch on the workload's grid
 *     (the blocks that cover the image, or the co-resident maximum), must
 *     match the CPU reference (|d| <= 1e-4 (1 + |ref|));
 *   - the two-pass kernels on the same inputs must too, and the fused
 *     result must equal theirs bit for bit (the same sums in the same
 *     order);
 *   - the fused kernel launched on grids of 1 x 1 and 3 x 2 blocks (every
 *     thread striding over the image) must give the same bits again;
 *   - the workload's grid is the image's blocks where they can all be
 *     resident, else at most (and over half) the co-resident maximum;
 *   - a grid of one block more than ks_kernel_max_coresident_grid is
 *     refused (KS_EBOUNDS, the figure in the message), before the device
 *     sees it.
 *
 * Outputs are poisoned (NaN) before every run. Under kspec's mocked driver
 * (KSPEC_LIBCUDA; the CPU test gpu_fused.mock) every kernel is specialized
 * and launched, the grids and the refusal checked, and no output is
 * compared: the mock runs no kernel.
 *
 *   test_gpu_fused [SIDE]   (only that side, e.g. a small one for
 *                            compute-sanitizer)
 *
 * Without a driver or a device: "skipped: ...", exit 77.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_open.h"
#include "kspec.h"
#include "workloads.h"

typedef struct run {
  ks_ctx *ctx;
  ks_template *fused, *rows, *cols;
  int mock;
  int bad, cases;
} run;

static int fail(run *r, const char *what, const char *msg) {
  fprintf(stderr, "FAIL %s: %s\n", what, msg);
  r->bad++;
  return 1;
}

/* t specialized: nothing bound (radius 0), or RADIUS and the block. */
static int spec(run *r, ks_template *t, long radius, ks_dim3 b, ks_kernel **k,
                const char *what) {
  ks_binding v = {.name = "RADIUS", .kind = KS_VALUE_INT, .v.i = radius};
  ks_spec_req req = {.bindings = &v, .nbindings = radius ? 1 : 0};
  if (radius) {
    req.bounds.block[0] = b.x;
    req.bounds.block[1] = b.y;
    req.bounds.block[2] = b.z;
  }
  if (ks_specialize(r->ctx, t, &req, k) != KS_OK)
    return fail(r, what, ks_errmsg(r->ctx));
  return 0;
}

/* The workload's out buffer, read back into host. */
static int read_out(run *r, ks_wl *w, float *host, const char *what) {
  size_t n = ks_wl_size(w) * ks_wl_size(w);
  if (ks_synchronize(r->ctx) != KS_OK ||
      ks_memcpy_dtoh(r->ctx, host, ks_wl_buffer(w, "out"), n * 4) != KS_OK)
    return fail(r, what, ks_errmsg(r->ctx));
  return 0;
}

/* got and want bit for bit; the first difference is the message. */
static int same_bits(run *r, const ks_wl *w, const float *got,
                     const float *want, const char *what) {
  size_t side = ks_wl_size(w);
  for (size_t i = 0; i < side * side; i++)
    if (memcmp(&got[i], &want[i], sizeof *got) != 0) {
      char msg[160];
      snprintf(msg, sizeof msg, "out[%zu][%zu] = %.9g, the two passes %.9g",
               i / side, i % side, got[i], want[i]);
      return fail(r, what, msg);
    }
  return 0;
}

/* The fused kernel k launched directly on grid g (poisoned out first). */
static int launch_grid(run *r, ks_wl *w, ks_kernel *k, ks_dim3 g, long radius,
                       float *host, const char *what) {
  ks_devptr in = ks_wl_buffer(w, "in"), c = ks_wl_buffer(w, "c");
  ks_devptr out = ks_wl_buffer(w, "out"), tmp = ks_wl_buffer(w, "tmp");
  int side = (int)ks_wl_size(w), rad = (int)radius;
  void *args[] = {&in, &c, &out, &tmp, &side, &side, &rad};
  if (ks_memset8(r->ctx, out, 0xFF, (size_t)side * side * 4) != KS_OK ||
      ks_launch(k, g, ks_wl_block(w), 0, NULL, args) != KS_OK)
    return fail(r, what, ks_errmsg(r->ctx));
  return read_out(r, w, host, what);
}

/* One more block than can be resident: refused with the figure. */
static int too_many(run *r, ks_wl *w, ks_kernel *k, const char *what) {
  ks_dim3 b = ks_wl_block(w);
  unsigned most = 0;
  if (ks_kernel_max_coresident_grid(k, b.x * b.y * b.z, 0, &most) != KS_OK)
    return fail(r, what, ks_errmsg(r->ctx));
  ks_devptr in = ks_wl_buffer(w, "in"), c = ks_wl_buffer(w, "c");
  ks_devptr out = ks_wl_buffer(w, "out"), tmp = ks_wl_buffer(w, "tmp");
  int side = (int)ks_wl_size(w), rad = (int)ks_wl_param(w);
  void *args[] = {&in, &c, &out, &tmp, &side, &side, &rad};
  char want[64];
  snprintf(want, sizeof want, "over the %u that can be resident", most);
  if (ks_launch(k, (ks_dim3){most + 1, 1, 1}, b, 0, NULL, args) != KS_EBOUNDS ||
      !strstr(ks_errmsg(r->ctx), want))
    return fail(r, what, "a grid over the co-resident maximum was not refused");
  return 0;
}

/* The grid the workload launched k on: the blocks that cover the image
 * where they fit the co-resident maximum, else at most that many, and
 * more than half of them (whole rows of blocks). */
static int check_grid(run *r, ks_wl *w, ks_kernel *k, const char *what) {
  ks_dim3 b = ks_wl_block(w), g = ks_wl_grid(w);
  size_t side = ks_wl_size(w);
  unsigned tx = (unsigned)((side + b.x - 1) / b.x);
  unsigned ty = (unsigned)((side + b.y - 1) / b.y), most = 0;
  if (ks_kernel_max_coresident_grid(k, b.x * b.y * b.z, 0, &most) != KS_OK)
    return fail(r, what, ks_errmsg(r->ctx));
  unsigned long long n = (unsigned long long)g.x * g.y * g.z;
  int good = (unsigned long long)tx * ty <= most
                 ? g.x == tx && g.y == ty && g.z == 1
                 : n <= most && 2 * n > most && g.x <= tx && g.y <= ty;
  if (!good) {
    char msg[160];
    snprintf(msg, sizeof msg,
             "grid %ux%ux%u for %ux%u blocks of image and %u co-resident", g.x,
             g.y, g.z, tx, ty, most);
    return fail(r, what, msg);
  }
  return 0;
}

/* The workload's checks of the fused kernel and the two passes, then the
 * comparisons. */
static int check_variant(run *r, ks_wl *w, ks_kernel *kf, ks_kernel *kp[2],
                         long radius, float *a, float *b, const char *what) {
  char err[512], lab[256];
  if (r->mock) { /* nothing runs: the launches are what there is to see */
    if (ks_wl_launch(w, kf, err, sizeof err) != KS_OK ||
        ks_wl_two_pass(w, kp, err, sizeof err) != KS_OK)
      return fail(r, what, err);
    return check_grid(r, w, kf, what) || too_many(r, w, kf, what);
  }
  if (ks_wl_check(w, kf, err, sizeof err) != KS_OK || read_out(r, w, a, what))
    return fail(r, what, err);
  if (check_grid(r, w, kf, what))
    return 1;
  ks_dim3 g = ks_wl_grid(w);
  snprintf(lab, sizeof lab, "%s, two passes", what);
  if (ks_wl_check_run(w, ks_wl_two_pass, kp, err, sizeof err) != KS_OK ||
      read_out(r, w, b, lab))
    return fail(r, lab, err);
  snprintf(lab, sizeof lab, "%s, grid %ux%u: fused against two passes", what,
           g.x, g.y);
  if (same_bits(r, w, a, b, lab))
    return 1;
  static const ks_dim3 odd[] = {{1, 1, 1}, {3, 2, 1}};
  for (int i = 0; i < 2; i++) {
    snprintf(lab, sizeof lab, "%s, grid %ux%u", what, odd[i].x, odd[i].y);
    if (launch_grid(r, w, kf, odd[i], radius, a, lab) ||
        same_bits(r, w, a, b, lab))
      return 1;
  }
  if (too_many(r, w, kf, what))
    return 1;
  printf("ok   %s: grid %ux%u, = CPU, = two passes bit for bit, grids 1x1 "
         "and 3x2 too\n",
         what, g.x, g.y);
  return 0;
}

/* One side, radius and block: generic and specialized. */
static int one_case(run *r, size_t side, long radius, ks_dim3 blk,
                    uint64_t seed) {
  ks_binding v = {.name = "RADIUS", .kind = KS_VALUE_INT, .v.i = radius};
  ks_wl *w = NULL;
  char err[512];
  float *a = malloc(side * side * 4), *b = malloc(side * side * 4);
  int rc = 1;
  if (!a || !b) {
    fail(r, "memory", "out of memory");
    goto done;
  }
  if (ks_wl_create(r->ctx, r->fused, NULL, side, &v, 1, 0, seed, &w, err,
                   sizeof err) != KS_OK ||
      ks_wl_set_block3(w, blk, err, sizeof err)) {
    fail(r, "workload", err);
    goto done;
  }
  for (int generic = 1; generic >= 0; generic--) {
    char what[128];
    snprintf(what, sizeof what, "side %zu RADIUS=%ld block %ux%u %s", side,
             radius, blk.x, blk.y, generic ? "generic" : "specialized");
    ks_kernel *kf = NULL, *kp[2] = {NULL, NULL};
    long bind = generic ? 0 : radius;
    if (spec(r, r->fused, bind, blk, &kf, what) ||
        spec(r, r->rows, bind, blk, &kp[0], what) ||
        spec(r, r->cols, bind, blk, &kp[1], what))
      goto done;
    ks_kernel_info in = {.size = sizeof in};
    if (ks_kernel_info_get(kf, &in) != KS_OK || !in.grid_sync) {
      fail(r, what, "the fused kernel's info does not say grid_sync");
      goto done;
    }
    r->cases++;
    if (check_variant(r, w, kf, kp, radius, a, b, what))
      goto done;
    if (r->mock)
      printf("ok   %s: grid %ux%u, launched (mock: not run)\n", what,
             ks_wl_grid(w).x, ks_wl_grid(w).y);
  }
  rc = 0;
done:
  ks_wl_destroy(w);
  free(a);
  free(b);
  return rc;
}

int main(int argc, char **argv) {
  run r = {0};
  ks_device_info dev;
  ks_status s;
  if (gpu_open(NULL, &r.ctx, &dev, &s))
    return KS_TEST_SKIP;
  if (s != KS_OK) {
    fprintf(stderr, "test_fused: %s\n", ks_errmsg(r.ctx));
    return 1;
  }
  r.mock = strstr(dev.name, "(kspec mock)") != NULL;
  if (!dev.cooperative_launch) {
    printf("skipped: %s takes no cooperative launch\n", dev.name);
    ks_ctx_destroy(r.ctx);
    return KS_TEST_SKIP;
  }
  if (ks_template_load(r.ctx, "sepfilter_fused", &r.fused) != KS_OK ||
      ks_template_load(r.ctx, "sepfilter_rows", &r.rows) != KS_OK ||
      ks_template_load(r.ctx, "sepfilter_cols", &r.cols) != KS_OK) {
    fprintf(stderr, "test_fused: %s\n", ks_errmsg(r.ctx));
    return 1;
  }
  size_t sides[] = {1, 7, 333, 1001, 2048};
  size_t nsides = sizeof sides / sizeof *sides;
  if (argc > 1) {
    sides[0] = (size_t)strtoul(argv[1], NULL, 0);
    nsides = 1;
  }
  static const long radii[] = {1, 3, 8, 32};
  static const ks_dim3 blocks[] = {{32, 8, 1}, {16, 16, 1}, {64, 1, 1}};
  uint64_t seed = 0x5eedf00d;
  for (size_t i = 0; i < nsides; i++)
    for (size_t j = 0; j < sizeof radii / sizeof *radii; j++)
      for (size_t k = 0; k < (sides[i] == 1001 ? 3u : 1u); k++)
        one_case(&r, sides[i], radii[j], blocks[k], seed++);
  printf("sepfilter_fused: %d kernels over %zu sides x 4 radii: %s\n", r.cases,
         nsides, r.bad ? "FAILED" : "PASSED");
  ks_template_destroy(r.fused);
  ks_template_destroy(r.rows);
  ks_template_destroy(r.cols);
  ks_ctx_destroy(r.ctx);
  return r.bad ? 1 : 0;
}
