/*
 * test_templates.c - every built-in template on the GPU, generic (nothing
 * bound) and specialized (every parameter and the block bound; with
 * kspec's optional passes and with all of them switched off), at the
 * parameter's minimum, default and maximum and at some values between
 * (non powers of two included), on a small problem that is not a multiple
 * of the block and on the default one; each checked against the CPU
 * reference of tools/workloads.c. Also: an oversized block is KS_EBOUNDS,
 * not a crash; the compare on the device (ks_wl_use_checker) accepts what
 * the host accepts and leaves a wrong output to the host, which words the
 * same message as without it.
 *
 * Without a driver or a device the program prints "skipped: ..." and exits
 * 77, which CTest reports as skipped. KSPEC_TEST_SEED=N repeats a run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kspec.h"
#include "workloads.h"

enum { MAX_VALUES = 8 };

/* The context spoiled_run writes through (the runner gets the workload
 * only). */
static ks_ctx *ks_wl_ctx_of_test;

typedef struct gpu {
  ks_ctx *ctx;
  ks_device_info dev;
  int skip; /* no driver or no device */
  uint64_t seed;
} gpu;

/* A template's cases: its parameter's min, default and max come from the
 * template; these are added. small: a size that no block divides. */
typedef struct tcase {
  const char *name;
  long extra[4];
  size_t small;
} tcase;

static const tcase cases[] = {
    {"conv1d", {7, 37}, 1000003},
    {"sepfilter_rows", {5, 13}, 1001},
    {"sepfilter_cols", {5, 13}, 1001},
    {"histogram", {100, 255, 1000}, 1000003},
    {"reduce_sum", {33, 100, 640}, 1000003},
    {"transpose", {7, 8, 16, 31}, 1001},
    {"stencil1d", {1, 5, 16, 64}, 1000003},
};

/* Creates a context and queries the device. A missing driver or device is
 * not a failure: *why says so and g->skip is set. */
static ks_status open_gpu(gpu *g, char *why, size_t cap) {
  ks_status s = ks_ctx_create(NULL, &g->ctx);
  g->dev.size = sizeof g->dev;
  if (s == KS_OK)
    s = ks_device_query(g->ctx, &g->dev);
  if (s != KS_OK)
    snprintf(why, cap, "%s: %s", ks_status_name(s), ks_errmsg(g->ctx));
  g->skip = s == KS_ENODRIVER || s == KS_ENODEVICE;
  return s;
}

/* The run's seed, chosen once in main. */
static uint64_t run_seed;

static uint64_t base_seed(void) {
  const char *env = getenv("KSPEC_TEST_SEED");
  if (env && *env)
    return strtoull(env, NULL, 0);
  return (uint64_t)time(NULL);
}

static int group_setup(void **state) {
  char why[512];
  gpu *g = calloc(1, sizeof *g);
  ks_status s;
  if (!g)
    return -1;
  *state = g;
  s = open_gpu(g, why, sizeof why);
  g->seed = run_seed;
  if (s != KS_OK && !g->skip) {
    print_error("cannot open the GPU: %s\n", why);
    return -1;
  }
  return 0;
}

static int group_teardown(void **state) {
  gpu *g = *state;
  if (g)
    ks_ctx_destroy(g->ctx);
  free(g);
  return 0;
}

/* A different seed for every case, reproducible from the base seed. */
static uint64_t case_seed(const gpu *g, const char *name, long value,
                          size_t size) {
  uint64_t h = g->seed ^ 0x9E3779B97F4A7C15ull;
  for (const char *p = name; *p; p++)
    h = (h ^ (unsigned char)*p) * 0x100000001B3ull;
  h = (h ^ (uint64_t)value) * 0x100000001B3ull;
  return (h ^ size) * 0x100000001B3ull;
}

static void add_value(long *vals, size_t *n, long v) {
  for (size_t i = 0; i < *n; i++)
    if (vals[i] == v)
      return;
  if (*n < MAX_VALUES)
    vals[(*n)++] = v;
}

/* min, default and max of the template's parameter, then the extras that
 * lie in range. */
static size_t case_values(const ks_template *t, const tcase *c,
                          ks_param_info *p, long *vals) {
  size_t n = 0;
  /* one marked parameter, first; the other scalars are unmarked */
  assert_int_equal(ks_template_param(t, 0, 0, p), KS_OK);
  assert_true(p->marked);
  ks_param_info next = {.size = sizeof next};
  if (ks_template_param_count(t, 0) > 1) {
    assert_int_equal(ks_template_param(t, 0, 1, &next), KS_OK);
    assert_false(next.marked);
  }
  add_value(vals, &n, (long)p->min);
  add_value(vals, &n, (long)p->def);
  add_value(vals, &n, (long)p->max);
  for (size_t i = 0; i < 4 && c->extra[i]; i++)
    if (c->extra[i] >= p->min && c->extra[i] <= p->max)
      add_value(vals, &n, c->extra[i]);
  return n;
}

enum { GENERIC, SPECIALIZED, NO_PASSES };

/* Specializes (bound or not, passes on or off) and checks one workload; 0
 * when it passes, else prints why. */
static int run_variant(gpu *g, const ks_template *t, ks_wl *w,
                       const ks_binding *b, int variant, uint64_t seed) {
  static const char *const names[] = {"generic", "specialized",
                                      "specialized --no-pass (all)"};
  const char *off[32];
  ks_spec_req req = {0};
  ks_kernel *k = NULL;
  char err[512];
  ks_status s;
  const char *what = names[variant];
  if (variant == NO_PASSES) {
    for (size_t i = 0; i < ks_stage_count(); i++)
      if (ks_stage_optional(i) && req.nno_pass < 32)
        off[req.nno_pass++] = ks_stage_name(i);
    req.no_pass = off;
  }
  if (variant != GENERIC) {
    ks_dim3 blk = ks_wl_block(w);
    req.bindings = b;
    req.nbindings = 1;
    req.bounds.block[0] = blk.x;
    req.bounds.block[1] = blk.y;
    req.bounds.block[2] = blk.z;
  }
  s = ks_specialize(g->ctx, t, &req, &k);
  if (s != KS_OK) {
    print_error("%s %s: specialize: %s %s\n", what, ks_wl_describe(w),
                ks_status_name(s), ks_errmsg(g->ctx));
    return 1;
  }
  s = ks_wl_check(w, k, err, sizeof err);
  if (s != KS_OK) {
    print_error("%s %s (seed %llu): %s %s\n", what, ks_wl_describe(w),
                (unsigned long long)seed, ks_status_name(s), err);
    return 1;
  }
  return 0;
}

/* One parameter value at one size, generic and specialized. */
static int run_case(gpu *g, const ks_template *t, const ks_param_info *p,
                    long value, size_t size) {
  ks_binding b = {.name = p->name, .kind = KS_VALUE_INT, .v.i = value};
  uint64_t seed = case_seed(g, ks_template_name(t), value, size);
  ks_wl *w = NULL;
  char err[512];
  int failed;
  ks_status s =
      ks_wl_create(g->ctx, t, NULL, size, &b, 1, 0, seed, &w, err, sizeof err);
  if (s != KS_OK) {
    print_error("%s=%ld size %zu: workload: %s %s\n", p->name, value, size,
                ks_status_name(s), err);
    return 1;
  }
  failed = run_variant(g, t, w, &b, GENERIC, seed);
  failed += run_variant(g, t, w, &b, SPECIALIZED, seed);
  failed += run_variant(g, t, w, &b, NO_PASSES, seed);
  if (!failed)
    print_message("ok %s %s\n", ks_template_name(t), ks_wl_describe(w));
  ks_wl_destroy(w);
  return failed;
}

static void test_template(void **state, const tcase *c) {
  gpu *g = *state;
  ks_template *t = NULL;
  ks_param_info p = {.size = sizeof p};
  long vals[MAX_VALUES];
  size_t sizes[2] = {c->small, 0};
  int failures = 0;
  if (g->skip)
    skip();
  assert_int_equal(ks_template_load(g->ctx, c->name, &t), KS_OK);
  size_t nvals = case_values(t, c, &p, vals);
  for (size_t si = 0; si < 2; si++)
    for (size_t vi = 0; vi < nvals; vi++)
      failures += run_case(g, t, &p, vals[vi], sizes[si]);
  ks_template_destroy(t);
  assert_int_equal(failures, 0);
}

static void test_conv1d(void **state) { test_template(state, &cases[0]); }
static void test_sepfilter_rows(void **state) {
  test_template(state, &cases[1]);
}
static void test_sepfilter_cols(void **state) {
  test_template(state, &cases[2]);
}
static void test_histogram(void **state) { test_template(state, &cases[3]); }
static void test_reduce_sum(void **state) { test_template(state, &cases[4]); }
static void test_transpose(void **state) { test_template(state, &cases[5]); }
static void test_stencil1d(void **state) { test_template(state, &cases[6]); }

/* blackscholes (two float parameters, math from libdevice): generic,
 * specialized (both values and the block bound), with the passes off, and
 * specialized with each floating-point mode, against the CPU reference. */
static int bs_case(gpu *g, const ks_template *t, double r, double v,
                   size_t size) {
  char rt[32], vt[32], err[512];
  snprintf(rt, sizeof rt, "%g", r);
  snprintf(vt, sizeof vt, "%g", v);
  ks_binding b[] = {{.name = "RISKFREE", .kind = KS_VALUE_TEXT, .v.s = rt},
                    {.name = "VOLATILITY", .kind = KS_VALUE_TEXT, .v.s = vt}};
  uint64_t seed = case_seed(g, "blackscholes", (long)(r * 1e3 + v * 1e6), size);
  ks_wl *w = NULL;
  ks_status s =
      ks_wl_create(g->ctx, t, NULL, size, b, 2, 0, seed, &w, err, sizeof err);
  if (s != KS_OK) {
    print_error("blackscholes: workload: %s %s\n", ks_status_name(s), err);
    return 1;
  }
  static const unsigned fps[] = {0, KS_FP_FTZ, KS_FP_APPROX_DIV,
                                 KS_FP_APPROX_SQRT, KS_FP_FAST_MATH};
  const char *off[32];
  size_t noff = 0;
  for (size_t i = 0; i < ks_stage_count(); i++)
    if (ks_stage_optional(i) && noff < 32)
      off[noff++] = ks_stage_name(i);
  int failed = 0;
  for (int variant = 0; variant < 7; variant++) {
    ks_dim3 blk = ks_wl_block(w);
    ks_spec_req req = {.bindings = b,
                       .nbindings = variant ? 2 : 0,
                       .bounds.block = {variant ? blk.x : 0}};
    if (variant == 1)
      req.no_pass = off, req.nno_pass = noff;
    if (variant >= 2)
      req.fp = fps[variant - 2];
    ks_kernel *k = NULL;
    s = ks_specialize(g->ctx, t, &req, &k);
    if (s == KS_OK)
      s = ks_wl_check(w, k, err, sizeof err);
    else
      snprintf(err, sizeof err, "%s", ks_errmsg(g->ctx));
    if (s != KS_OK) {
      print_error("blackscholes variant %d (fp %u) %s (seed %llu): %s %s\n",
                  variant, req.fp, ks_wl_describe(w), (unsigned long long)seed,
                  ks_status_name(s), err);
      failed++;
    }
  }
  if (!failed)
    print_message("ok blackscholes %s\n", ks_wl_describe(w));
  ks_wl_destroy(w);
  return failed;
}

static void test_blackscholes(void **state) {
  gpu *g = *state;
  ks_template *t = NULL;
  int failures = 0;
  if (g->skip)
    skip();
  assert_int_equal(ks_template_load(g->ctx, "blackscholes", &t), KS_OK);
  static const double rv[][2] = {{0.02, 0.3}, {0, 0.01}, {0.1, 1.5}, {1, 4}};
  for (size_t i = 0; i < sizeof rv / sizeof rv[0]; i++) {
    failures += bs_case(g, t, rv[i][0], rv[i][1], 1000003);
    if (i == 0)
      failures += bs_case(g, t, rv[i][0], rv[i][1], 0);
  }
  ks_template_destroy(t);
  assert_int_equal(failures, 0);
}

/* Status of a check of `name` (generic) with `block` threads per block. */
static ks_status check_with_block(gpu *g, const char *name, unsigned block) {
  ks_template *t = NULL;
  ks_kernel *k = NULL;
  ks_spec_req req = {0};
  ks_wl *w = NULL;
  char err[512];
  ks_status s;
  assert_int_equal(ks_template_load(g->ctx, name, &t), KS_OK);
  assert_int_equal(ks_specialize(g->ctx, t, &req, &k), KS_OK);
  s = ks_wl_create(g->ctx, t, NULL, 1001, NULL, 0, block, g->seed, &w, err,
                   sizeof err);
  assert_int_equal(s, KS_OK);
  s = ks_wl_check(w, k, err, sizeof err);
  if (s != KS_OK)
    print_message("%s block %u: %s %s\n", name, block, ks_status_name(s), err);
  ks_wl_destroy(w);
  ks_template_destroy(t);
  return s;
}

/* A specialized reduce_sum (BLOCK=256, so blockDim.x == 256) launched with
 * another block. */
static ks_status launch_off_bounds(gpu *g, unsigned block) {
  ks_template *t = NULL;
  ks_kernel *k = NULL;
  ks_binding b = {.name = "BLOCK", .kind = KS_VALUE_INT, .v.i = 256};
  ks_spec_req req = {
      .bindings = &b, .nbindings = 1, .bounds = {.block = {256, 1, 1}}};
  ks_devptr x = 0, out = 0;
  int n = 1024, blk = 256;
  void *args[] = {&x, &out, &n, &blk};
  ks_status s;
  assert_int_equal(ks_template_load(g->ctx, "reduce_sum", &t), KS_OK);
  assert_int_equal(ks_specialize(g->ctx, t, &req, &k), KS_OK);
  assert_int_equal(ks_mem_alloc(g->ctx, 4096, &x), KS_OK);
  assert_int_equal(ks_mem_alloc(g->ctx, 4, &out), KS_OK);
  s = ks_launch(k, (ks_dim3){4, 1, 1}, (ks_dim3){block, 1, 1}, 0, NULL, args);
  if (s == KS_OK)
    s = ks_synchronize(g->ctx);
  ks_mem_free(g->ctx, x);
  ks_mem_free(g->ctx, out);
  ks_template_destroy(t);
  return s;
}

/* A launch of the kernel, then two of its output's elements overwritten
 * (0x40404040: 3.0039215), the later first. */
typedef struct spoil {
  ks_kernel *k;
  const char *buf;
  size_t at[2];
} spoil;

static ks_status spoiled_run(ks_wl *w, void *user, char *err, size_t cap) {
  spoil *sp = user;
  ks_status s = ks_wl_launch(w, sp->k, err, cap);
  for (int i = 1; i >= 0 && s == KS_OK && sp->at[i]; i--)
    s = ks_memset8(ks_wl_ctx_of_test, ks_wl_buffer(w, sp->buf) + 4 * sp->at[i],
                   0x40, 4);
  return s;
}

/* One template's generic kernel, checked with and without the device's
 * compare: both accept it (the device deciding where it has one), both
 * refuse it spoiled, with the same message. */
static int device_case(gpu *g, ks_kernel *checker, const char *name,
                       const ks_binding *b, size_t nb, size_t size,
                       const char *buf, size_t at_lo, size_t at_hi) {
  ks_template *t = NULL;
  ks_kernel *k = NULL;
  ks_wl *wd = NULL, *wh = NULL;
  char ed[512] = "", eh[512] = "";
  int failed = 1;
  ks_spec_req req = {0};
  if (ks_template_load(g->ctx, name, &t) != KS_OK ||
      ks_specialize(g->ctx, t, &req, &k) != KS_OK ||
      ks_wl_create(g->ctx, t, NULL, size, b, nb, 0, 7, &wd, ed, sizeof ed) !=
          KS_OK ||
      ks_wl_create(g->ctx, t, NULL, size, b, nb, 0, 7, &wh, eh, sizeof eh) !=
          KS_OK) {
    print_error("%s: setup: %s %s %s\n", name, ks_errmsg(g->ctx), ed, eh);
    goto done;
  }
  ks_wl_use_checker(wd, checker);
  ks_status sd = ks_wl_check(wd, k, ed, sizeof ed);
  ks_status sh = ks_wl_check(wh, k, eh, sizeof eh);
  if (sd != KS_OK || sh != KS_OK || ks_wl_device_accepts(wd) != 1 ||
      ks_wl_device_accepts(wh) != 0) {
    print_error("%s: right output: device %s (%zu accepted) %s, host %s %s\n",
                name, ks_status_name(sd), ks_wl_device_accepts(wd), ed,
                ks_status_name(sh), eh);
    goto done;
  }
  spoil sp = {k, buf, {at_lo, at_hi}};
  ks_wl_ctx_of_test = g->ctx;
  sd = ks_wl_check_run(wd, spoiled_run, &sp, ed, sizeof ed);
  sh = ks_wl_check_run(wh, spoiled_run, &sp, eh, sizeof eh);
  if (sd != KS_ERANGE || sh != KS_ERANGE || strcmp(ed, eh) != 0 ||
      ks_wl_device_accepts(wd) != 1) {
    print_error("%s: spoiled output: device %s '%s', host %s '%s'\n", name,
                ks_status_name(sd), ed, ks_status_name(sh), eh);
    goto done;
  }
  print_message("ok %s: device and host agree: %s\n", name, ed);
  failed = 0;
done:
  ks_wl_destroy(wd);
  ks_wl_destroy(wh);
  ks_template_destroy(t);
  return failed;
}

static void test_device_check(void **state) {
  gpu *g = *state;
  ks_kernel *checker = NULL;
  char err[512];
  if (g->skip)
    skip();
  assert_int_equal(ks_wl_compile_checker(g->ctx, &checker, err, sizeof err),
                   KS_OK);
  ks_binding taps = {.name = "FILTER_LEN", .kind = KS_VALUE_INT, .v.i = 9};
  ks_binding radius = {.name = "RADIUS", .kind = KS_VALUE_INT, .v.i = 4};
  ks_binding factor = {.name = "FACTOR", .kind = KS_VALUE_INT, .v.i = 2};
  int failures = 0;
  failures +=
      device_case(g, checker, "conv1d", &taps, 1, 1000003, "y", 17, 999999);
  failures += device_case(g, checker, "sepfilter_rows", &radius, 1, 1001, "out",
                          1001 * 3 + 5, 1001 * 1000);
  failures +=
      device_case(g, checker, "stencil1d", &radius, 1, 1000003, "y", 3, 500000);
  failures += device_case(g, checker, "resize", &factor, 1, 301, "dst", 1,
                          602 * 602 - 1);
  /* the second output (its reference's second half) */
  failures += device_case(g, checker, "blackscholes", NULL, 0, 100003, "put",
                          11, 100002);
  assert_int_equal(failures, 0);
}

static void test_block_too_large(void **state) {
  gpu *g = *state;
  unsigned most = (unsigned)g->dev.max_threads_per_block;
  if (g->skip)
    skip();
  /* Over the device's limit, in one dimension and in the product. */
  assert_int_equal(check_with_block(g, "conv1d", most + 1), KS_EBOUNDS);
  assert_int_equal(check_with_block(g, "histogram", 2 * most), KS_EBOUNDS);
  assert_int_equal(check_with_block(g, "sepfilter_rows", 2 * most), KS_EBOUNDS);
  /* Over the kernel's own bound. */
  assert_int_equal(launch_off_bounds(g, 128), KS_EBOUNDS);
  assert_int_equal(launch_off_bounds(g, 512), KS_EBOUNDS);
  /* The context is still sound. */
  assert_int_equal(check_with_block(g, "conv1d", 128), KS_OK);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_conv1d),
      cmocka_unit_test(test_sepfilter_rows),
      cmocka_unit_test(test_sepfilter_cols),
      cmocka_unit_test(test_histogram),
      cmocka_unit_test(test_reduce_sum),
      cmocka_unit_test(test_transpose),
      cmocka_unit_test(test_stencil1d),
      cmocka_unit_test(test_blackscholes),
      cmocka_unit_test(test_block_too_large),
      cmocka_unit_test(test_device_check),
  };
  gpu probe = {0};
  char why[512];
  if (open_gpu(&probe, why, sizeof why) != KS_OK && probe.skip) {
    printf("skipped: %s\n", why);
    ks_ctx_destroy(probe.ctx);
    return 77;
  }
  ks_ctx_destroy(probe.ctx);
  run_seed = base_seed();
  printf("seed %llu (KSPEC_TEST_SEED repeats it)\n",
         (unsigned long long)run_seed);
  return cmocka_run_group_tests_name("gpu_templates", tests, group_setup,
                                     group_teardown);
}
