/*
 * test_cache.c - kspec's caches: single flight in memory (concurrent
 * requests for one key compile once, distinct keys in parallel), the
 * counters of ks_cache_stats.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kspec.h"
#include "test_util.h"

enum { NKEYS = 20, NTHREADS = 8, PER_THREAD = 200 };

typedef struct fixture {
  ks_ctx *ctx;
  ks_template *t;
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  ks_ctx_opts o = {.arch = "sm_90", .ptx_isa = 85, .no_driver = 1};
  if (!f || ks_ctx_create(&o, &f->ctx) != KS_OK ||
      ks_template_load(f->ctx, "conv1d", &f->t) != KS_OK)
    return -1;
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  ks_template_destroy(f->t);
  ks_ctx_destroy(f->ctx);
  free(f);
  return 0;
}

/* conv1d with FILTER_LEN = len and 64-thread blocks. */
static ks_status spec_len(ks_ctx *ctx, ks_template *t, int len, ks_kernel **k) {
  ks_binding b = {.name = "FILTER_LEN", .kind = KS_VALUE_INT, .v.i = len};
  ks_spec_req req = {.bindings = &b, .nbindings = 1, .bounds.block = {64}};
  return ks_specialize(ctx, t, &req, k);
}

static ks_cache_counters counters(ks_ctx *ctx) {
  ks_cache_counters c;
  assert_int_equal(ks_cache_stats(ctx, &c), KS_OK);
  return c;
}

/* ---- single flight ------------------------------------------------------ */

typedef struct worker {
  fixture *f;
  int id;
  ks_kernel *got[NKEYS]; /* the kernel each key gave this thread */
  int bad;               /* requests that failed or disagreed */
} worker;

static void *hammer(void *arg) {
  worker *w = arg;
  for (int i = 0; i < PER_THREAD; i++) {
    int key = (i * 7 + w->id * 3) % NKEYS; /* every thread in its own order */
    ks_kernel *k = NULL;
    if (spec_len(w->f->ctx, w->f->t, key + 1, &k) != KS_OK || !k ||
        (w->got[key] && w->got[key] != k))
      w->bad++;
    w->got[key] = k;
  }
  return NULL;
}

/* 8 threads x 200 requests over 20 keys: each key compiles exactly once,
 * and every thread gets the same kernel for it. */
static void single_flight(void **state) {
  fixture *f = *state;
  pthread_t th[NTHREADS];
  worker *w = calloc(NTHREADS, sizeof *w);
  assert_non_null(w);
  for (int i = 0; i < NTHREADS; i++) {
    w[i] = (worker){.f = f, .id = i};
    assert_int_equal(pthread_create(&th[i], NULL, hammer, &w[i]), 0);
  }
  for (int i = 0; i < NTHREADS; i++)
    assert_int_equal(pthread_join(th[i], NULL), 0);
  for (int i = 0; i < NTHREADS; i++) {
    assert_int_equal(w[i].bad, 0);
    for (int k = 0; k < NKEYS; k++)
      assert_ptr_equal(w[i].got[k], w[0].got[k]);
  }
  for (int k = 0; k < NKEYS; k++) {
    char want[64];
    const char *ptx = NULL;
    assert_int_equal(ks_kernel_ptx(w[0].got[k], &ptx, NULL), KS_OK);
    snprintf(want, sizeof want, ".reqntid 64, 1, 1");
    TU_ASSERT_CONTAINS(ptx, want);
    for (int j = 0; j < k; j++)
      assert_ptr_not_equal(w[0].got[k], w[0].got[j]);
  }
  ks_cache_counters c = counters(f->ctx);
  assert_int_equal(c.compiles, NKEYS);
  assert_int_equal(c.misses, NKEYS);
  assert_int_equal(c.memory_hits, NTHREADS * PER_THREAD - NKEYS);
  assert_true(c.waits <= c.memory_hits);
  assert_true(c.compile_ms > 0);
  assert_true(c.saved_ms > 0);
  free(w);
}

/* A template whose compile fails after the request checks passed: the
 * codegen screen rejects llvm.sin. */
static const char bad_ir[] = "target triple = \"nvptx64-nvidia-cuda\"\n"
                             "define void @ksin(ptr %p) {\n"
                             "entry:\n"
                             "  %v = load float, ptr %p, align 4\n"
                             "  %r = call float @llvm.sin.f32(float %v)\n"
                             "  store float %r, ptr %p, align 4\n"
                             "  ret void\n"
                             "}\n"
                             "declare float @llvm.sin.f32(float)\n"
                             "!nvvm.annotations = !{!0}\n"
                             "!0 = !{ptr @ksin, !\"kernel\", i32 1}\n";

typedef struct failer {
  ks_ctx *ctx;
  ks_template *t;
  ks_status s;
  ks_kernel *k;
  char msg[512];
} failer;

static void *fail_once(void *arg) {
  failer *x = arg;
  ks_spec_req req = {.bounds.block = {32}};
  x->s = ks_specialize(x->ctx, x->t, &req, &x->k);
  snprintf(x->msg, sizeof x->msg, "%s", ks_errmsg(x->ctx));
  return NULL;
}

/* A failed compile gives every waiter the same status and message, and is
 * not cached: the next request compiles again. */
static void single_flight_failure(void **state) {
  fixture *f = *state;
  ks_template *t = NULL;
  assert_int_equal(
      ks_template_load_mem(f->ctx, "ksin", bad_ir, strlen(bad_ir), &t), KS_OK);
  pthread_t th[NTHREADS];
  failer x[NTHREADS];
  for (int i = 0; i < NTHREADS; i++) {
    x[i] = (failer){.ctx = f->ctx, .t = t};
    assert_int_equal(pthread_create(&th[i], NULL, fail_once, &x[i]), 0);
  }
  for (int i = 0; i < NTHREADS; i++)
    assert_int_equal(pthread_join(th[i], NULL), 0);
  for (int i = 0; i < NTHREADS; i++) {
    assert_int_equal(x[i].s, KS_ECODEGEN);
    assert_null(x[i].k);
    TU_ASSERT_CONTAINS(x[i].msg, "llvm.sin");
    assert_string_equal(x[i].msg, x[0].msg);
  }
  ks_cache_counters c = counters(f->ctx);
  assert_true(c.compiles >= 1 && c.compiles <= NTHREADS);
  assert_int_equal(c.compiles + c.waits, NTHREADS);
  fail_once(&x[0]);
  assert_int_equal(x[0].s, KS_ECODEGEN);
  assert_int_equal(counters(f->ctx).compiles, c.compiles + 1);
  ks_template_destroy(t);
}

/* Counters: a hit adds the kernel's compile time to saved_ms. */
static void counters_hits(void **state) {
  fixture *f = *state;
  ks_kernel *a = NULL, *b = NULL;
  assert_int_equal(ks_cache_stats(NULL, NULL), KS_EINVAL);
  ks_cache_counters c0 = counters(f->ctx);
  assert_int_equal(c0.compiles + c0.memory_hits + c0.disk_hits, 0);
  assert_int_equal(spec_len(f->ctx, f->t, 9, &a), KS_OK);
  ks_kernel_info info;
  assert_int_equal(ks_kernel_info_get(a, &info), KS_OK);
  ks_cache_counters c1 = counters(f->ctx);
  assert_int_equal(c1.misses, 1);
  assert_int_equal(c1.compiles, 1);
  assert_int_equal(c1.memory_hits, 0);
  assert_true(c1.compile_ms >= info.compile_ms * 0.999);
  assert_int_equal(spec_len(f->ctx, f->t, 9, &b), KS_OK);
  assert_ptr_equal(a, b);
  ks_cache_counters c2 = counters(f->ctx);
  assert_int_equal(c2.misses, 1);
  assert_int_equal(c2.compiles, 1);
  assert_int_equal(c2.memory_hits, 1);
  assert_true(c2.saved_ms > info.compile_ms * 0.99 &&
              c2.saved_ms < info.compile_ms * 1.01);
  /* a request rejected before the cache counts nowhere */
  ks_binding bad = {.name = "FILTER_LEN", .kind = KS_VALUE_INT, .v.i = 0};
  ks_spec_req req = {.bindings = &bad, .nbindings = 1};
  assert_int_equal(ks_specialize(f->ctx, f->t, &req, &b), KS_ERANGE);
  ks_cache_counters c3 = counters(f->ctx);
  assert_int_equal(c3.misses + c3.memory_hits, 2);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void) {
  const struct CMUnitTest tests[] = {
      T(single_flight),
      T(single_flight_failure),
      T(counters_hits),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
