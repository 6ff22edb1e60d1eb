/*
 * test_isolate.c - LLVM work in a child process (jit/isolate.c) from a
 * process that holds a lot of memory, as a real application does (a CUDA
 * context alone maps hundreds of MiB): the child's memory limit counts
 * what the child allocates after the fork, never what it inherited.
 *
 * The process first allocates and touches 2 GiB. Then: template files,
 * IR text and bitcode, load with the disk cache off (so they are parsed,
 * in a child first); a child may allocate within its limit; a child that
 * allocates past its limit does not get the memory (malloc fails, or the
 * child ends), and the caller goes on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "jit/ks_jit.h"

enum { HELD = 2048 }; /* MiB the process holds */

static char *held;

/* The child: 'Y' when malloc gave *arg bytes (and they could be touched),
 * 'N' when it returned NULL. */
static void alloc_child(void *arg) {
  size_t bytes = *(const size_t *)arg;
  char *p = malloc(bytes);
  /* the pointer escapes: a compiler may otherwise drop the allocation and
   * take it as having succeeded */
  __asm__ volatile("" : : "r"(p) : "memory");
  if (p)
    memset(p, 1, bytes);
  ks_jit_child_write(p ? "Y" : "N", 1);
  free(p);
}

/* Runs alloc_child for bytes under a limit of limit_mib of growth: the
 * child's answer ('Y', 'N'), or 0 when it ended without one. */
static char child_alloc(size_t bytes, unsigned long long limit_mib) {
  const ks_jit_limits lim = {.seconds = 60, .max_growth = limit_mib << 20};
  char *ans = NULL, how[128];
  size_t n = 0;
  int r =
      ks_jit_child_run(alloc_child, &bytes, &lim, &ans, &n, how, sizeof how);
  char c = (r == 0 && n == 1) ? ans[0] : 0;
  free(ans);
  return c;
}

static void load_file(const char *path) {
  ks_ctx_opts o = {.no_driver = 1, .no_disk_cache = 1};
  ks_ctx *ctx = NULL;
  assert_int_equal(ks_ctx_create(&o, &ctx), KS_OK);
  ks_template *t = NULL;
  ks_status s = ks_template_load(ctx, path, &t);
  if (s != KS_OK)
    fail_msg("%s: %s", path, ks_errmsg(ctx));
  assert_true(ks_template_kernel_count(t) >= 1);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
}

static void loads_text(void **state) {
  (void)state;
  load_file(KS_TEST_DATA_DIR "/saxpy.ll");
}

static void loads_bitcode(void **state) {
  (void)state;
  load_file(KS_TEST_BINARY_DIR "/saxpy.bc");
}

static void child_within_limit(void **state) {
  (void)state;
  assert_int_equal(child_alloc(64u << 20, 512), 'Y');
}

static void child_over_limit(void **state) {
  (void)state;
  /* 1 GiB under a limit of 256 MiB: malloc returns NULL, or (a sanitizer's
   * allocator) the child ends; never the memory */
  char c = child_alloc(1u << 30, 256);
  assert_true(c == 'N' || c == 0);
  /* and the next child is unaffected */
  assert_int_equal(child_alloc(16u << 20, 256), 'Y');
}

int main(void) {
  held = malloc((size_t)HELD << 20);
  if (!held) {
    fprintf(stderr, "test_isolate: cannot allocate %d MiB\n", HELD);
    return 1;
  }
  memset(held, 7, (size_t)HELD << 20); /* resident, not just reserved */
  __asm__ volatile("" : : "r"(held) : "memory"); /* the stores stay */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(loads_text),
      cmocka_unit_test(loads_bitcode),
      cmocka_unit_test(child_within_limit),
      cmocka_unit_test(child_over_limit),
  };
  int r = cmocka_run_group_tests(tests, NULL, NULL);
  free(held);
  return r;
}
