/*
 * test_api.c - the public API's own conventions (kspec.h, "Conventions"):
 * the version (header, library and CMake's project() agree), the size
 * field of every struct the library fills (refused when unset or too
 * small, filled up to the caller's size and zeros past the library's),
 * ks_errmsg's messages per thread, and the timer per thread over the
 * mocked driver.
 */
#define _GNU_SOURCE /* setenv */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/ks_jit.h"
#include "kspec.h"
#include "test_util.h"

/* ---- version ----------------------------------------------------------- */

static void version(void **state) {
  (void)state;
  assert_int_equal(ks_version(), KSPEC_VERSION_NUMBER);
  assert_int_equal(KSPEC_VERSION_NUMBER, KSPEC_VERSION_MAJOR * 1000000 +
                                             KSPEC_VERSION_MINOR * 1000 +
                                             KSPEC_VERSION_PATCH);
  assert_string_equal(ks_version_string(), KSPEC_VERSION_STRING);
  char want[32];
  snprintf(want, sizeof want, "%d.%d.%d", KSPEC_VERSION_MAJOR,
           KSPEC_VERSION_MINOR, KSPEC_VERSION_PATCH);
  assert_string_equal(ks_version_string(), want);
  /* CMake's project() version, which names the library file and goes into
   * kspec.pc and kspecConfigVersion.cmake, is the header's */
  assert_string_equal(KS_PROJECT_VERSION, want);
}

/* ---- out-struct sizes ---------------------------------------------------- */

typedef struct fixture {
  ks_ctx *ctx;
  ks_template *t;
  ks_kernel *k;
  char dir[256];
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  snprintf(f->dir, sizeof f->dir, "/tmp/ks_test_api_%d", (int)getpid());
  ks_ctx_opts o = {.no_driver = 1, .arch = "sm_90", .cache_dir = f->dir};
  if (ks_ctx_create(&o, &f->ctx) != KS_OK ||
      ks_template_load(f->ctx, "conv1d", &f->t) != KS_OK)
    return -1;
  ks_binding b = {.name = "FILTER_LEN", .kind = KS_VALUE_INT, .v.i = 8};
  ks_spec_req req = {.bindings = &b, .nbindings = 1, .bounds.block = {128}};
  if (ks_specialize(f->ctx, f->t, &req, &f->k) != KS_OK)
    return -1;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  ks_template_destroy(f->t);
  ks_ctx_destroy(f->ctx);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", f->dir);
  if (system(cmd) != 0)
    return -1;
  free(f);
  return 0;
}

static ks_status no_measure(void *arg, ks_kernel *k, const ks_tune_point *p,
                            double *ms, char *why, size_t cap) {
  (void)arg, (void)k, (void)p, (void)why, (void)cap;
  *ms = 1.0;
  return KS_OK;
}

/* Calls filler `which` with out (of the filler's type); -1 past the end. */
static int call_filler(fixture *f, int which, void *out, ks_status *s) {
  static const ks_occ_input in = {.block = 128, .regs = 32};
  int64_t blocks[] = {128};
  ks_tune_dim dim = {"block", blocks, 1};
  ks_tune_space space = {.dims = &dim, .ndims = 1};
  ks_tune_opts topts = {.measure = no_measure, .store_dir = ""};
  switch (which) {
  case 0:
    *s = ks_device_query(f->ctx, out);
    break;
  case 1:
    *s = ks_template_param(f->t, 0, 0, out);
    break;
  case 2:
    *s = ks_template_global(f->t, 0, out); /* conv1d has none: size first */
    break;
  case 3:
    *s = ks_kernel_info_get(f->k, out);
    break;
  case 4:
    *s = ks_kernel_resources_get(f->k, KS_RES_PTXAS, out);
    break;
  case 5:
    *s = ks_occupancy_calc("sm_90", &in, out);
    break;
  case 6:
    *s = ks_kernel_occupancy(f->k, 128, 0, KS_RES_PTXAS, out);
    break;
  case 7:
    *s = ks_cache_stats(f->ctx, out);
    break;
  case 8:
    *s = ks_cache_usage_get(f->ctx, out);
    break;
  case 9:
    *s = ks_prewarm(f->ctx, "/nonexistent", NULL, NULL, out);
    break;
  case 10:
    *s = ks_tune(f->ctx, f->t, &space, &topts, out);
    break;
  case 11:
    *s = ks_tune_lookup(f->ctx, f->t, &space, &topts, out);
    break;
  default:
    return -1;
  }
  return 0;
}

static const char *const filler_type[] = {
    "ks_device_info",    "ks_param_info",       "ks_global_info",
    "ks_kernel_info",    "ks_kernel_resources", "ks_occupancy",
    "ks_occupancy",      "ks_cache_counters",   "ks_cache_usage",
    "ks_prewarm_result", "ks_tune_result",      "ks_tune_best"};

/* Every filler refuses an unset size and one below the first version,
 * naming the struct, and writes nothing then. */
static void sizes_refused(void **state) {
  fixture *f = *state;
  union {
    size_t size;
    unsigned char bytes[4096];
  } out;
  ks_status s;
  int which = 0;
  for (; which < (int)(sizeof filler_type / sizeof *filler_type); which++) {
    char want[96];
    for (size_t size = 0; size <= 8; size += 8) {
      memset(&out, 0xab, sizeof out);
      out.size = size;
      assert_int_equal(call_filler(f, which, &out, &s), 0);
      if (s != KS_EINVAL)
        fail_msg("%s: size %zu: %s", filler_type[which], size,
                 ks_status_name(s));
      snprintf(want, sizeof want, "%s.size is %zu", filler_type[which], size);
      TU_ASSERT_CONTAINS(ks_errmsg(NULL), want);
      for (size_t i = sizeof out.size; i < sizeof out.bytes; i++)
        if (out.bytes[i] != 0xab)
          fail_msg("%s: byte %zu written though refused", filler_type[which],
                   i);
    }
  }
  assert_int_equal(call_filler(f, which, &out, &s), -1); /* all of them */
}

/* A caller's struct larger than the library's (a newer kspec.h) gets zeros
 * past the library's fields, up to its size and no further; size is kept. */
static void sizes_larger_and_exact(void **state) {
  fixture *f = *state;
  struct {
    ks_kernel_info info;
    unsigned char newer[24]; /* fields a later kspec.h might append */
    unsigned char after[8];  /* not the caller's: never written */
  } big;
  memset(&big, 0xab, sizeof big);
  big.info.size = offsetof(__typeof__(big), after);
  assert_int_equal(ks_kernel_info_get(f->k, &big.info), KS_OK);
  assert_int_equal(big.info.size, offsetof(__typeof__(big), after));
  assert_int_equal(big.info.reqntid[0], 128);
  for (size_t i = 0; i < sizeof big.newer; i++)
    assert_int_equal(big.newer[i], 0);
  for (size_t i = 0; i < sizeof big.after; i++)
    assert_int_equal(big.after[i], 0xab);

  ks_kernel_info exact = {.size = sizeof exact};
  assert_int_equal(ks_kernel_info_get(f->k, &exact), KS_OK);
  assert_memory_equal((char *)&exact + sizeof exact.size,
                      (char *)&big.info + sizeof exact.size,
                      sizeof exact - sizeof exact.size);
}

/* A smaller struct of an older kspec.h gets what fits: ks_jit_out_put
 * over a struct that grew (the library's) into its first version. */
static void sizes_older(void **state) {
  (void)state;
  typedef struct v1 {
    size_t size;
    int a, b;
  } v1;
  typedef struct v2 {
    size_t size;
    int a, b, c;
  } v2;
  struct {
    v1 old;
    unsigned char after[16];
  } caller;
  memset(&caller, 0xab, sizeof caller);
  caller.old.size = sizeof caller.old;
  assert_int_equal(
      ks_jit_out_check(&caller.old, KS_OUT_END(v2, b), "test", "v2"), KS_OK);
  v2 lib = {.size = 999, .a = 1, .b = 2, .c = 3};
  ks_jit_out_put(&caller.old, &lib, sizeof lib);
  assert_int_equal(caller.old.size, sizeof caller.old);
  assert_int_equal(caller.old.a, 1);
  assert_int_equal(caller.old.b, 2);
  for (size_t i = 0; i < sizeof caller.after; i++)
    assert_int_equal(caller.after[i], 0xab);
}

/* Tune entries carry the library's size; the accessor strides by it. */
static void tune_entries_sized(void **state) {
  fixture *f = *state;
  int64_t blocks[] = {64, 128, 256};
  ks_tune_dim dim = {"block", blocks, 3};
  ks_binding b = {.name = "FILTER_LEN", .kind = KS_VALUE_INT, .v.i = 8};
  ks_tune_space space = {.fixed = &b, .nfixed = 1, .dims = &dim, .ndims = 1};
  ks_tune_opts o = {.measure = no_measure, .store_dir = ""};
  ks_tune_result r = {.size = sizeof r};
  assert_int_equal(ks_tune(f->ctx, f->t, &space, &o, &r), KS_OK);
  assert_int_equal(r.size, sizeof r);
  assert_int_equal(r.n, 3);
  for (size_t i = 0; i < r.n; i++) {
    assert_int_equal(r.entries[i].size, sizeof(ks_tune_entry));
    assert_ptr_equal(ks_tune_result_entry(&r, i), &r.entries[i]);
    assert_int_equal(r.entries[i].point.threads, blocks[i]);
  }
  assert_null(ks_tune_result_entry(&r, r.n));
  ks_tune_result_free(&r);
}

/* ---- ks_errmsg: one message per thread ----------------------------------- */

static pthread_barrier_t barrier;

static void *fail_arch(void *arg) {
  (void)arg;
  ks_occ_input in = {.block = 128, .regs = 32};
  ks_occupancy o = {.size = sizeof o};
  ks_status s = ks_occupancy_calc("sm_bogus", &in, &o);
  pthread_barrier_wait(&barrier); /* the other thread fails now */
  pthread_barrier_wait(&barrier);
  int ok = s == KS_EARCH && strstr(ks_errmsg(NULL), "sm_bogus") &&
           !strstr(ks_errmsg(NULL), "no parameter");
  return ok ? arg : NULL;
}

static void *fail_param(void *arg) {
  pthread_barrier_wait(&barrier); /* the other thread has failed */
  ks_param_info p = {.size = sizeof p};
  ks_status s = ks_template_param(NULL, 0, 7, &p);
  pthread_barrier_wait(&barrier);
  int ok = s == KS_EINVAL && strstr(ks_errmsg(arg), "no parameter 7") &&
           !strstr(ks_errmsg(arg), "sm_bogus");
  return ok ? arg : NULL;
}

static void errmsg_per_thread(void **state) {
  fixture *f = *state;
  pthread_barrier_init(&barrier, NULL, 2);
  pthread_t a, b;
  void *ra = NULL, *rb = NULL;
  assert_int_equal(pthread_create(&a, NULL, fail_arch, f), 0);
  assert_int_equal(pthread_create(&b, NULL, fail_param, f->ctx), 0);
  pthread_join(a, &ra);
  pthread_join(b, &rb);
  pthread_barrier_destroy(&barrier);
  assert_ptr_equal(ra, f);      /* each saw its own message */
  assert_ptr_equal(rb, f->ctx); /* whatever ctx it asked with */
  /* this thread failed nothing: its message is untouched by theirs */
  ks_jit_clear();
  assert_string_equal(ks_errmsg(f->ctx), "no error");
}

/* ---- the timer: one per thread ------------------------------------------ */

static ks_ctx *mock_ctx;

static void *time_once(void *arg) {
  float ms = -1;
  ks_status s = ks_timer_start(mock_ctx);
  pthread_barrier_wait(&barrier); /* both started before either stops */
  if (s == KS_OK)
    s = ks_timer_stop(mock_ctx, &ms);
  return s == KS_OK && ms >= 0 ? arg : NULL;
}

static void *stop_unstarted(void *arg) {
  float ms = 0;
  ks_status s = ks_timer_stop(mock_ctx, &ms);
  return s == KS_EINVAL && strstr(ks_errmsg(NULL), "before this thread") ? arg
                                                                         : NULL;
}

static void timer_per_thread(void **state) {
  (void)state;
  setenv("KSPEC_LIBCUDA", KS_MOCK_LIB, 1);
  ks_ctx_opts o = {.no_disk_cache = 1};
  assert_int_equal(ks_ctx_create(&o, &mock_ctx), KS_OK);
  pthread_barrier_init(&barrier, NULL, 2);
  pthread_t a, b;
  void *ra = NULL, *rb = NULL;
  int x, y;
  assert_int_equal(pthread_create(&a, NULL, time_once, &x), 0);
  assert_int_equal(pthread_create(&b, NULL, time_once, &y), 0);
  pthread_join(a, &ra);
  pthread_join(b, &rb);
  pthread_barrier_destroy(&barrier);
  assert_ptr_equal(ra, &x);
  assert_ptr_equal(rb, &y);
  /* a thread that never started one has no timer, though others have */
  assert_int_equal(pthread_create(&a, NULL, stop_unstarted, &x), 0);
  pthread_join(a, &ra);
  assert_ptr_equal(ra, &x);
  ks_ctx_destroy(mock_ctx);
  unsetenv("KSPEC_LIBCUDA");
}

/* The never-slower guard without ptxas takes the driver's figures (here
 * the mocked driver's, whose registers come from the PTX's declarations:
 * 255 for data/tiled_sync.ll's tile loop unrolled in full, 40 for the
 * generic kernel and for the loop left rolled): the same retry as with
 * ptxas, local memory standing for spills; without a driver either, it
 * says that it did not check. */
static void guard_driver(void **state) {
  (void)state;
  ks_binding b[] = {{.name = "M", .kind = KS_VALUE_INT, .v.i = 1000},
                    {.name = "N", .kind = KS_VALUE_INT, .v.i = 1100},
                    {.name = "K", .kind = KS_VALUE_INT, .v.i = 900}};
  ks_spec_req req = {
      .bindings = b, .nbindings = 3, .bounds = {.block = {16, 16}}};
  for (int driver = 1; driver >= 0; driver--) {
    ks_ctx *ctx = NULL;
    ks_template *t = NULL;
    ks_kernel *k = NULL;
    ks_ctx_opts o = {.arch = "sm_90", .no_disk_cache = 1, .no_driver = !driver};
    setenv("KSPEC_PTXAS", "/nonexistent/ptxas", 1);
    setenv("KSPEC_LIBCUDA", KS_MOCK_LIB, 1);
    assert_int_equal(ks_ctx_create(&o, &ctx), KS_OK);
    assert_int_equal(
        ks_template_load(ctx, KS_TEST_DATA_DIR "/tiled_sync.ll", &t), KS_OK);
    assert_int_equal(ks_specialize(ctx, t, &req, &k), KS_OK);
    const char *e = ks_kernel_explain(k);
    if (driver) {
      TU_ASSERT_CONTAINS(e, "guard: 255 registers, 8 warps/SM, 0 B of local "
                            "memory at 256 threads against the generic's 40");
      TU_ASSERT_CONTAINS(e, "loops with a barrier left rolled: 40 registers, "
                            "48 warps/SM");
    } else {
      TU_ASSERT_CONTAINS(e, "guard: not checked: KSPEC_PTXAS=/nonexistent/"
                            "ptxas is not an executable file, and no driver");
    }
    ks_template_destroy(t);
    ks_ctx_destroy(ctx);
    unsetenv("KSPEC_LIBCUDA");
    unsetenv("KSPEC_PTXAS");
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(version),
      cmocka_unit_test(sizes_refused),
      cmocka_unit_test(sizes_larger_and_exact),
      cmocka_unit_test(sizes_older),
      cmocka_unit_test(tune_entries_sized),
      cmocka_unit_test(errmsg_per_thread),
      cmocka_unit_test(timer_per_thread),
      cmocka_unit_test(guard_driver),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
