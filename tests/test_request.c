/*
 * test_request.c - the optional parts of a specialization request: passes
 * switched off by name (no_pass), baked buffers (bakes), and what the passes
 * explain. Every malformed request is a status and a message naming the
 * culprit, before any LLVM work; each option changes the cache key.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kspec.h"
#include "test_util.h"

typedef struct fixture {
  ks_ctx *ctx;
  ks_template *t;
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  ks_ctx_opts o = {.arch = "sm_90", .no_driver = 1};
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

static const ks_binding len5 = {
    .name = "FILTER_LEN", .kind = KS_VALUE_INT, .v.i = 5};

/* The index of the optional stage called name, or -1. */
static long optional_stage(const char *name) {
  for (size_t i = 0; i < ks_stage_count(); i++)
    if (ks_stage_optional(i) && strcmp(ks_stage_name(i), name) == 0)
      return (long)i;
  return -1;
}

static void optional_stages_listed(void **state) {
  (void)state;
  assert_true(optional_stage("smem_promote") >= 0);
  assert_true(optional_stage("const_promote") >= 0);
  /* the stages every kernel needs cannot be switched off */
  for (size_t i = 0; i < ks_stage_count(); i++)
    if (strcmp(ks_stage_name(i), "bind") == 0 ||
        strcmp(ks_stage_name(i), "optimize") == 0)
      assert_false(ks_stage_optional(i));
  assert_false(ks_stage_optional(ks_stage_count()));
}

static void no_pass_unknown(void **state) {
  fixture *f = *state;
  const char *const names[][1] = {{"bind"}, {"optimize"}, {"nosuch"}, {""}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    ks_spec_req req = {.no_pass = names[i], .nno_pass = 1};
    ks_kernel *k = NULL;
    assert_int_equal(ks_specialize(f->ctx, f->t, &req, &k), KS_EINVAL);
    assert_null(k);
    TU_ASSERT_CONTAINS(ks_errmsg(f->ctx), "not a pass that can be switched");
    TU_ASSERT_CONTAINS(ks_errmsg(f->ctx), "smem_promote");
  }
  ks_spec_req req = {.nno_pass = 1};
  ks_kernel *k = NULL;
  assert_int_equal(ks_specialize(f->ctx, f->t, &req, &k), KS_EINVAL);
}

/* Switching a pass off is explained, and is a different kernel. */
static void no_pass_explained(void **state) {
  fixture *f = *state;
  const char *const off[] = {"smem_promote", "const_promote"};
  ks_spec_req on = {.bindings = &len5, .nbindings = 1};
  ks_spec_req req = on;
  req.no_pass = off;
  req.nno_pass = 2;
  ks_kernel *a = NULL, *b = NULL, *c = NULL;
  assert_int_equal(ks_specialize(f->ctx, f->t, &on, &a), KS_OK);
  assert_int_equal(ks_specialize(f->ctx, f->t, &req, &b), KS_OK);
  assert_ptr_not_equal(a, b);
  TU_ASSERT_CONTAINS(ks_kernel_explain(b), "smem_promote: switched off");
  TU_ASSERT_CONTAINS(ks_kernel_explain(b), "const_promote: switched off");
  assert_null(strstr(ks_kernel_explain(a), "switched off"));
  /* the same request again is the cached kernel */
  assert_int_equal(ks_specialize(f->ctx, f->t, &req, &c), KS_OK);
  assert_ptr_equal(b, c);
  assert_string_equal(ks_kernel_explain(NULL), "");
}

static void bake_bad(void **state) {
  fixture *f = *state;
  static const double taps[] = {0.1, 0.2, 0.4, 0.2, 0.1};
  static const double inf[] = {0.1, INFINITY};
  const struct {
    ks_bake b[2];
    size_t n;
    const char *needle;
  } bad[] = {
      {{{"g", taps, 5}}, 1, "no argument 'g'"},
      {{{"n", taps, 5}}, 1, "'n' is not a buffer"},
      {{{NULL, taps, 5}}, 1, "no argument"},
      {{{"f", taps, 0}}, 1, "needs 1 to"},
      {{{"f", NULL, 5}}, 1, "needs 1 to"},
      {{{"f", inf, 2}}, 1, "f[1] is not finite"},
      {{{"f", taps, 5}, {"f", taps, 2}}, 2, "f baked twice"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ks_spec_req req = {.bakes = bad[i].b, .nbakes = bad[i].n};
    ks_kernel *k = NULL;
    assert_int_equal(ks_specialize(f->ctx, f->t, &req, &k), KS_EPARAM);
    assert_null(k);
    TU_ASSERT_CONTAINS(ks_errmsg(f->ctx), bad[i].needle);
  }
}

/* Bake values are part of the key: other values, another kernel. */
static void bake_key(void **state) {
  fixture *f = *state;
  double taps[] = {0.1, 0.2, 0.4, 0.2, 0.1};
  ks_bake bake = {"f", taps, 5};
  ks_spec_req req = {
      .bindings = &len5, .nbindings = 1, .bakes = &bake, .nbakes = 1};
  ks_kernel *a = NULL, *b = NULL, *c = NULL;
  assert_int_equal(ks_specialize(f->ctx, f->t, &req, &a), KS_OK);
  taps[2] = 0.5;
  assert_int_equal(ks_specialize(f->ctx, f->t, &req, &b), KS_OK);
  assert_ptr_not_equal(a, b);
  taps[2] = 0.4;
  assert_int_equal(ks_specialize(f->ctx, f->t, &req, &c), KS_OK);
  assert_ptr_equal(a, c);
}

/* A shared-memory size is reported for every kernel; reduce_sum declares
 * a shared array. */
static void smem_reported(void **state) {
  fixture *f = *state;
  ks_template *t = NULL;
  ks_kernel *k = NULL;
  ks_kernel_info info = {.size = sizeof info};
  assert_int_equal(ks_template_load(f->ctx, "reduce_sum", &t), KS_OK);
  ks_spec_req req = {0};
  assert_int_equal(ks_specialize(f->ctx, t, &req, &k), KS_OK);
  assert_int_equal(ks_kernel_info_get(k, &info), KS_OK);
  assert_true(info.smem_bytes >= 4);
  ks_template_destroy(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(optional_stages_listed),
      cmocka_unit_test(no_pass_unknown),
      cmocka_unit_test(no_pass_explained),
      cmocka_unit_test(bake_bad),
      cmocka_unit_test(bake_key),
      cmocka_unit_test(smem_reported),
  };
  return cmocka_run_group_tests_name("request", tests, setup, teardown);
}
