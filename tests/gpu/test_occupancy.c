/*
 * test_occupancy.c - the offline occupancy calculator against the driver:
 * for every built-in template, generic and specialized, at three block
 * sizes (128, 256, 1024, or the three blocks the template's block
 * parameter fixes) and with and without dynamic shared memory, the blocks
 * per SM of cuOccupancyMaxActiveBlocksPerMultiprocessor must equal the
 * calculator's over the driver's own register and shared-memory figures;
 * and the block of cuOccupancyMaxPotentialBlockSize must equal the
 * calculator's best block. Prints one line per case (and ptxas's register
 * count beside the driver's where ptxas is found), so the log is the
 * comparison table.
 *
 * Without a driver or a device the program prints "skipped: ..." and exits
 * 77, which CTest reports as skipped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kspec.h"

typedef struct gpu {
  ks_ctx *ctx;
  ks_device_info dev;
} gpu;

enum { SMEM_LIMIT = 48 * 1024, DYN_SMEM = 40000 };

static const char *limits_text(unsigned bits, char *buf, size_t cap) {
  static const char *const names[] = {"threads", "registers", "smem", "blocks"};
  size_t used = 0;
  buf[0] = '\0';
  for (unsigned i = 0; i < 4; i++)
    if (bits & (1u << i) && used < cap)
      used += (size_t)snprintf(buf + used, cap - used, "%s%s", used ? "+" : "",
                               names[i]);
  return buf;
}

/* One kernel at one block and dynamic shared memory: driver against
 * calculator. Returns the number of mismatches (0 or 1). */
static int compare_at(ks_kernel *k, const char *what, unsigned block,
                      unsigned dyn) {
  ks_occupancy drv = {.size = sizeof drv}, calc = {.size = sizeof calc};
  ks_kernel_resources r = {.size = sizeof r}, p = {.size = sizeof p};
  char lim[64], ptxas[32] = "";
  ks_status s = ks_kernel_occupancy(k, block, dyn, KS_RES_DRIVER, &drv);
  if (s != KS_OK) {
    print_error("%s block %u: driver: %s %s\n", what, block, ks_status_name(s),
                ks_errmsg(NULL));
    return 1;
  }
  /* Loaded now: KS_RES_ANY is the calculator over the driver's figures. */
  assert_int_equal(ks_kernel_resources_get(k, KS_RES_ANY, &r), KS_OK);
  assert_int_equal(r.source, KS_RES_DRIVER);
  s = ks_kernel_occupancy(k, block, dyn, KS_RES_ANY, &calc);
  if (s != KS_OK) {
    print_error("%s block %u: calculator: %s %s\n", what, block,
                ks_status_name(s), ks_errmsg(NULL));
    return 1;
  }
  if (ks_kernel_resources_get(k, KS_RES_PTXAS, &p) == KS_OK)
    snprintf(ptxas, sizeof ptxas, " (ptxas %d)", p.regs);
  int bad = drv.blocks_per_sm != calc.blocks_per_sm;
  print_message("%-36s block %4u dyn %5u regs %3d%s smem %5d: driver %2d "
                "calculator %2d (%s)%s\n",
                what, block, dyn, r.regs, ptxas, r.static_smem,
                drv.blocks_per_sm, calc.blocks_per_sm,
                limits_text(calc.limiters, lim, sizeof lim),
                bad ? "  MISMATCH" : "");
  return bad;
}

/* At block, without and with dynamic shared memory (as much of DYN_SMEM
 * as fits under the default 48 KiB beside the static). */
static int compare_block(ks_kernel *k, const char *what, unsigned block) {
  ks_kernel_resources r = {.size = sizeof r};
  assert_int_equal(ks_kernel_resources_get(k, KS_RES_DRIVER, &r), KS_OK);
  unsigned room = SMEM_LIMIT - (unsigned)r.static_smem;
  return compare_at(k, what, block, 0) +
         compare_at(k, what, block, room < DYN_SMEM ? room : DYN_SMEM);
}

static int compare_best(ks_kernel *k, const char *what) {
  unsigned b_drv = 0, b_calc = 0;
  int g_drv = 0, g_calc = 0;
  assert_int_equal(ks_kernel_best_block(k, 0, KS_RES_DRIVER, &b_drv, &g_drv),
                   KS_OK);
  assert_int_equal(ks_kernel_best_block(k, 0, KS_RES_ANY, &b_calc, &g_calc),
                   KS_OK);
  int bad = b_drv != b_calc || g_drv != g_calc;
  print_message("%-36s best block: driver %u (grid %d), calculator %u (grid "
                "%d)%s\n",
                what, b_drv, g_drv, b_calc, g_calc, bad ? "  MISMATCH" : "");
  return bad;
}

static ks_kernel *specialize(gpu *g, ks_template *t, const ks_binding *b,
                             unsigned bx, unsigned by) {
  ks_spec_req req = {
      .bindings = b,
      .nbindings = b ? 1 : 0,
      .bounds = {.block = {bx, bx ? (by ? by : 1) : 0, bx ? 1 : 0}}};
  ks_kernel *k = NULL;
  ks_status s = ks_specialize(g->ctx, t, &req, &k);
  if (s != KS_OK)
    fail_msg("specialize %s: %s %s", ks_template_name(t), ks_status_name(s),
             ks_errmsg(g->ctx));
  return k;
}

/* A template whose block is free: generic and bound to its default, at
 * 128, 256 and 1024 threads; bound with the block fixed at each. */
static void free_block(void **state, const char *name) {
  gpu *g = *state;
  static const unsigned blocks[] = {128, 256, 1024};
  ks_template *t = NULL;
  ks_param_info p = {.size = sizeof p};
  char what[128];
  int bad = 0;
  assert_int_equal(ks_template_load(g->ctx, name, &t), KS_OK);
  assert_int_equal(ks_template_param(t, 0, 0, &p), KS_OK);
  ks_binding b = {.name = p.name, .kind = KS_VALUE_INT, .v.i = (long)p.def};
  ks_kernel *generic = specialize(g, t, NULL, 0, 0);
  ks_kernel *bound = specialize(g, t, &b, 0, 0);
  for (size_t i = 0; i < 3; i++) {
    snprintf(what, sizeof what, "%s generic", name);
    bad += compare_block(generic, what, blocks[i]);
    snprintf(what, sizeof what, "%s %s=%ld", name, p.name, (long)p.def);
    bad += compare_block(bound, what, blocks[i]);
    ks_kernel *fixed = specialize(g, t, &b, blocks[i], 0);
    snprintf(what, sizeof what, "%s %s=%ld --block %u", name, p.name,
             (long)p.def, blocks[i]);
    bad += compare_block(fixed, what, blocks[i]);
  }
  snprintf(what, sizeof what, "%s generic", name);
  bad += compare_best(generic, what);
  snprintf(what, sizeof what, "%s %s=%ld", name, p.name, (long)p.def);
  bad += compare_best(bound, what);
  ks_template_destroy(t);
  assert_int_equal(bad, 0);
}

/* A template whose parameter fixes the block: three values. */
static void fixed_block(void **state, const char *name, const long vals[3],
                        int two_d) {
  gpu *g = *state;
  ks_template *t = NULL;
  ks_param_info p = {.size = sizeof p};
  char what[128];
  int bad = 0;
  assert_int_equal(ks_template_load(g->ctx, name, &t), KS_OK);
  assert_int_equal(ks_template_param(t, 0, 0, &p), KS_OK);
  for (size_t i = 0; i < 3; i++) {
    ks_binding b = {.name = p.name, .kind = KS_VALUE_INT, .v.i = vals[i]};
    unsigned x = (unsigned)vals[i], y = two_d ? x : 1;
    ks_kernel *k = specialize(g, t, &b, x, y);
    snprintf(what, sizeof what, "%s %s=%ld", name, p.name, vals[i]);
    bad += compare_block(k, what, x * y);
    bad += compare_best(k, what);
  }
  /* The driver is not asked about a block the kernel cannot run with. */
  ks_binding b = {.name = p.name, .kind = KS_VALUE_INT, .v.i = vals[0]};
  ks_kernel *k =
      specialize(g, t, &b, (unsigned)vals[0], two_d ? (unsigned)vals[0] : 1);
  ks_occupancy o = {.size = sizeof o};
  assert_int_equal(ks_kernel_occupancy(k, 1024, 0, KS_RES_DRIVER, &o),
                   KS_EBOUNDS);
  ks_template_destroy(t);
  assert_int_equal(bad, 0);
}

static void test_conv1d(void **state) { free_block(state, "conv1d"); }
static void test_sepfilter_rows(void **state) {
  free_block(state, "sepfilter_rows");
}
static void test_sepfilter_cols(void **state) {
  free_block(state, "sepfilter_cols");
}
static void test_histogram(void **state) { free_block(state, "histogram"); }

/* histogram with its bins privatized in static shared memory (BINS=4096:
 * the 256 that a byte can reach, 1 KiB), at the three blocks. */
static void test_histogram_smem(void **state) {
  gpu *g = *state;
  ks_template *t = NULL;
  ks_binding b = {.name = "BINS", .kind = KS_VALUE_INT, .v.i = 4096};
  static const unsigned blocks[] = {128, 256, 1024};
  char what[128];
  int bad = 0;
  assert_int_equal(ks_template_load(g->ctx, "histogram", &t), KS_OK);
  for (size_t i = 0; i < 3; i++) {
    ks_kernel *k = specialize(g, t, &b, blocks[i], 0);
    snprintf(what, sizeof what, "histogram BINS=4096 --block %u", blocks[i]);
    bad += compare_block(k, what, blocks[i]);
  }
  ks_template_destroy(t);
  assert_int_equal(bad, 0);
}

static void test_reduce_sum(void **state) {
  static const long vals[3] = {128, 256, 1024};
  fixed_block(state, "reduce_sum", vals, 0);
}

static void test_transpose(void **state) {
  static const long vals[3] = {8, 16, 32};
  fixed_block(state, "transpose", vals, 1);
}

/* Opens the GPU; *why says why not. */
static ks_status open_gpu(gpu *g, char *why, size_t cap) {
  ks_status s = ks_ctx_create(NULL, &g->ctx);
  g->dev.size = sizeof g->dev;
  if (s == KS_OK)
    s = ks_device_query(g->ctx, &g->dev);
  if (s != KS_OK)
    snprintf(why, cap, "%s: %s", ks_status_name(s), ks_errmsg(g->ctx));
  return s;
}

static int group_setup(void **state) {
  char why[512];
  gpu *g = calloc(1, sizeof *g);
  if (!g || open_gpu(g, why, sizeof why) != KS_OK) {
    print_error("cannot open the GPU: %s\n", g ? why : "out of memory");
    if (g)
      ks_ctx_destroy(g->ctx);
    free(g);
    return -1;
  }
  print_message("%s, sm_%d, %d SMs, arch %s\n", g->dev.name, g->dev.sm,
                g->dev.multiprocessors, ks_ctx_arch(g->ctx));
  *state = g;
  return 0;
}

static int group_teardown(void **state) {
  gpu *g = *state;
  if (g)
    ks_ctx_destroy(g->ctx);
  free(g);
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_conv1d),
      cmocka_unit_test(test_sepfilter_rows),
      cmocka_unit_test(test_sepfilter_cols),
      cmocka_unit_test(test_histogram),
      cmocka_unit_test(test_histogram_smem),
      cmocka_unit_test(test_reduce_sum),
      cmocka_unit_test(test_transpose),
  };
  gpu probe = {0};
  char why[512];
  ks_status s = open_gpu(&probe, why, sizeof why);
  ks_ctx_destroy(probe.ctx);
  if (s == KS_ENODRIVER || s == KS_ENODEVICE) {
    printf("skipped: %s\n", why);
    return 77;
  }
  return cmocka_run_group_tests_name("gpu_occupancy", tests, group_setup,
                                     group_teardown);
}
