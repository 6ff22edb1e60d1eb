/*
 * test_globals.c - module globals: their discovery (ir/globals.c) on IR
 * as clang emits CUDA (data/globals.ll) and on hand-written IR for the
 * rules (what is skipped, what counts as a write), their place in the
 * template's description and the disk cache's encoding of it (tplcache.c),
 * and a loaded kernel's globals through the C API over the mocked driver
 * (mock/cuda_mock.c): address, size, writes read back, bounds, and the
 * storage of two specializations kept apart. Then bakes of globals: from
 * the initializer and from values (the PTX has the immediates and no load
 * of the global; the specialization's copy holds the values), part of the
 * cache key, and every bad bake refused with one line and nothing cached.
 */
#define _GNU_SOURCE /* setenv */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/ks_jit.h"
#include "kspec.h"
#include "test_util.h"

#ifndef KS_TEST_DATA_DIR
#error "KS_TEST_DATA_DIR must name tests/data"
#endif

static const char globals_ll[] = KS_TEST_DATA_DIR "/globals.ll";

/* The description of data/globals.ll's global name. */
static const ks_global_info *info_of(const ks_template *t, const char *name,
                                     ks_global_info *out) {
  for (size_t i = 0; i < ks_template_global_count(t); i++) {
    assert_int_equal(ks_template_global(t, i, out), KS_OK);
    if (strcmp(out->name, name) == 0)
      return out;
  }
  fail_msg("no global '%s'", name);
  return NULL;
}

static size_t kernel_index(const ks_template *t, const char *name) {
  for (size_t i = 0; i < ks_template_kernel_count(t); i++)
    if (strcmp(ks_template_kernel_name(t, i), name) == 0)
      return i;
  fail_msg("no kernel '%s'", name);
  return 0;
}

/* Kernel kernel is g's only writer (or none when kernel is NULL). */
static void assert_writer(const ks_template *t, const char *g,
                          const char *kernel) {
  const ks_ir_global *d = ks_ir_global_find(&t->desc, g);
  assert_non_null(d);
  if (!kernel) {
    assert_int_equal(d->nwriters, 0);
    return;
  }
  assert_int_equal(d->nwriters, 1);
  assert_int_equal(d->writers[0], kernel_index(t, kernel));
}

/* clang's CUDA: every user global, its C type, size and flags; the
 * writers through an atomic, a store and a helper that is not inlined. */
static void discover_cuda(void **state) {
  (void)state;
  ks_template *t = NULL;
  assert_int_equal(ks_template_load(NULL, globals_ll, &t), KS_OK);
  assert_int_equal(ks_template_global_count(t), 5);
  ks_global_info g = {.size = sizeof g};
  info_of(t, "taps", &g);
  assert_string_equal(g.type, "float[9]");
  assert_int_equal(g.bytes, 36);
  assert_true(g.constant && !g.written && g.has_init);
  info_of(t, "co", &g);
  assert_string_equal(g.type, "struct coeffs {float, int, float[4]}");
  assert_int_equal(g.bytes, 24);
  assert_true(g.constant && !g.written && !g.has_init);
  info_of(t, "counter", &g);
  assert_string_equal(g.type, "int");
  assert_int_equal(g.bytes, 4);
  assert_true(!g.constant && g.written && !g.has_init);
  info_of(t, "lut", &g);
  assert_string_equal(g.type, "int[8]");
  assert_true(!g.constant && g.written && g.has_init);
  info_of(t, "scratch", &g);
  assert_string_equal(g.type, "float[32]");
  assert_int_equal(g.bytes, 128);
  assert_true(g.written && !g.has_init);
  assert_writer(t, "taps", NULL);
  assert_writer(t, "co", NULL);
  assert_writer(t, "counter", "conv3x3");
  assert_writer(t, "lut", "reset");
  assert_writer(t, "scratch", "lookup"); /* through note() */
  assert_int_equal(ks_ir_global_find(&t->desc, "co")->leaves, 6);
  assert_int_equal(ks_template_global(t, 5, &g), KS_EINVAL);
  assert_int_equal(ks_template_global_count(NULL), 0);
  ks_template_destroy(t);
}

/* What is not a user global, and the uses that count as writes. */
static const char rules_ll[] =
    "target triple = \"nvptx64-nvidia-cuda\"\n"
    "%struct.v = type { ptr, float }\n"
    "@.str = private unnamed_addr addrspace(4) constant [3 x i8] c\"ab\\00\"\n"
    "@__nv_flag = addrspace(1) global i32 1\n"
    "@tile = internal addrspace(3) global [64 x float] undef\n"
    "@ext = external addrspace(1) global [4 x float]\n"
    "@ring = addrspace(1) global [16 x i32] zeroinitializer\n"
    "@seen = addrspace(1) global [4 x i32] zeroinitializer\n"
    "@escaped = addrspace(1) global i32 0\n"
    "@table = addrspace(4) global [2 x ptr] [ptr addrspacecast (ptr "
    "addrspace(1) @escaped to ptr), ptr null]\n"
    "@grid = addrspace(4) global [2 x [3 x double]] zeroinitializer\n"
    "@withptr = addrspace(1) global %struct.v zeroinitializer\n"
    "@llvm.used = appending global [1 x ptr] [ptr addrspacecast (ptr "
    "addrspace(1) @seen to ptr)], section \"llvm.metadata\"\n"
    "define void @k(i32 %n) {\n"
    "entry:\n"
    "  br label %loop\n"
    "loop:\n"
    "  %p = phi ptr addrspace(1) [ @ring, %entry ], [ %q, %loop ]\n"
    "  %i = phi i32 [ 0, %entry ], [ %j, %loop ]\n"
    "  %q = getelementptr i32, ptr addrspace(1) %p, i32 1\n"
    "  %j = add i32 %i, 1\n"
    "  %done = icmp eq i32 %j, %n\n"
    "  br i1 %done, label %out, label %loop\n"
    "out:\n"
    "  store i32 %n, ptr addrspace(1) %q\n"
    "  %s = load i32, ptr addrspace(1) @seen\n"
    "  ret void\n"
    "}\n"
    "define void @k2() {\n"
    "  ret void\n"
    "}\n"
    "!nvvm.annotations = !{!0, !1}\n"
    "!0 = !{ptr @k, !\"kernel\", i32 1}\n"
    "!1 = !{ptr @k2, !\"kernel\", i32 1}\n";

static void discover_rules(void **state) {
  (void)state;
  ks_template *t = NULL;
  assert_int_equal(
      ks_template_load_mem(NULL, "rules", rules_ll, strlen(rules_ll), &t),
      KS_OK);
  const char *want[] = {"ring", "seen", "escaped", "table", "grid", "withptr"};
  assert_int_equal(ks_template_global_count(t), 6);
  ks_global_info g = {.size = sizeof g};
  for (size_t i = 0; i < 6; i++) {
    assert_int_equal(ks_template_global(t, i, &g), KS_OK);
    assert_string_equal(g.name, want[i]);
  }
  assert_writer(t, "ring", "k");  /* through a loop of pointers */
  assert_writer(t, "seen", NULL); /* loaded; llvm.used is no write */
  /* its address sits in @table: every kernel may write it */
  assert_int_equal(ks_ir_global_find(&t->desc, "escaped")->nwriters, 2);
  assert_writer(t, "table", NULL);
  info_of(t, "grid", &g);
  assert_string_equal(g.type, "double[2][3]");
  assert_int_equal(g.bytes, 48);
  assert_int_equal(ks_ir_global_find(&t->desc, "grid")->leaves, 6);
  info_of(t, "withptr", &g);
  assert_string_equal(g.type, "struct v {void*, float}");
  assert_int_equal(ks_ir_global_find(&t->desc, "withptr")->leaves, 0);
  ks_template_destroy(t);
}

/* The disk cache's encoding keeps every field; damaged writers miss. */
static void desc_roundtrip(void **state) {
  (void)state;
  ks_template *t = NULL;
  assert_int_equal(ks_template_load(NULL, globals_ll, &t), KS_OK);
  size_t n = 0;
  unsigned char *p = ks_jit_desc_pack(&t->desc, &n);
  assert_non_null(p);
  ks_ir_desc d;
  assert_int_equal(ks_jit_desc_unpack(p, n, &d), 0);
  assert_int_equal(d.nglobals, t->desc.nglobals);
  for (size_t i = 0; i < d.nglobals; i++) {
    const ks_ir_global *a = &d.globals[i], *b = &t->desc.globals[i];
    assert_string_equal(a->name, b->name);
    assert_string_equal(a->type, b->type);
    assert_true(a->bytes == b->bytes && a->constant == b->constant &&
                a->has_init == b->has_init && a->leaves == b->leaves &&
                a->nwriters == b->nwriters);
    for (uint32_t j = 0; j < a->nwriters; j++)
      assert_int_equal(a->writers[j], b->writers[j]);
  }
  ks_ir_desc_free(&d);
  /* the last global's last writer is the description's last u32 */
  uint32_t bad = 7;
  memcpy(p + n - 4, &bad, 4);
  assert_int_equal(ks_jit_desc_unpack(p, n, &d), -1);
  assert_int_equal(ks_jit_desc_unpack(p, n - 4, &d), -1);
  free(p);
  ks_template_destroy(t);
}

/* ---- a loaded kernel's globals, over the mocked driver ------------------- */

typedef struct api {
  ks_ctx *ctx;
  ks_template *t;
} api;

static int api_setup(void **state) {
  api *a = calloc(1, sizeof *a);
  ks_ctx_opts o = {.arch = "sm_90", .no_disk_cache = 1};
  if (!a || ks_ctx_create(&o, &a->ctx) != KS_OK ||
      ks_template_load(a->ctx, globals_ll, &a->t) != KS_OK)
    return -1;
  *state = a;
  return 0;
}

static int api_teardown(void **state) {
  api *a = *state;
  ks_template_destroy(a->t);
  ks_ctx_destroy(a->ctx);
  free(a);
  return 0;
}

static ks_kernel *spec(api *a, const char *kernel, unsigned block) {
  ks_spec_req r = {.kernel = kernel, .bounds.block = {block, 0, 0}};
  ks_kernel *k = NULL;
  if (ks_specialize(a->ctx, a->t, &r, &k) != KS_OK)
    fail_msg("specialize %s: %s", kernel, ks_errmsg(a->ctx));
  return k;
}

/* Address and size from the module; the initializer is there to read;
 * what is written reads back, at an offset too. */
static void kernel_global_rw(void **state) {
  api *a = *state;
  ks_kernel *k = spec(a, "conv3x3", 0);
  ks_devptr p = 0;
  size_t n = 0;
  assert_int_equal(ks_kernel_global(k, "taps", &p, &n), KS_OK);
  assert_true(p != 0);
  assert_int_equal(n, 36);
  float taps[9];
  assert_int_equal(ks_kernel_global_read(k, "taps", 0, taps, 36, NULL), KS_OK);
  assert_true(taps[0] == 0.0625f && taps[4] == 0.25f && taps[8] == 0.0625f);
  struct {
    float scale;
    int shift;
    float bias[4];
  } co = {2.0f, 3, {0.5f, -1.0f, 4.0f, 8.0f}}, back;
  assert_int_equal(ks_kernel_global_write(k, "co", 0, &co, sizeof co, NULL),
                   KS_OK);
  float b2 = 16.0f;
  assert_int_equal(ks_kernel_global_write(k, "co", 16, &b2, 4, NULL), KS_OK);
  assert_int_equal(ks_kernel_global_read(k, "co", 0, &back, sizeof back, NULL),
                   KS_OK);
  assert_true(back.scale == 2.0f && back.shift == 3 && back.bias[1] == -1.0f &&
              back.bias[2] == 16.0f && back.bias[3] == 8.0f);
  unsigned c = 41, got = 0;
  assert_int_equal(ks_kernel_global_write(k, "counter", 0, &c, 4, NULL), KS_OK);
  assert_int_equal(ks_kernel_global_read(k, "counter", 0, &got, 4, NULL),
                   KS_OK);
  assert_int_equal(got, 41);
  assert_int_equal(ks_kernel_global_read(k, "counter", 0, &got, 0, NULL),
                   KS_OK);
}

/* Unknown names and copies outside the global: one line each. */
static void kernel_global_bad(void **state) {
  api *a = *state;
  ks_kernel *k = spec(a, "conv3x3", 0);
  ks_devptr p = 1;
  size_t n = 1;
  float f[10] = {0};
  assert_int_equal(ks_kernel_global(k, "nosuch", &p, &n), KS_EINVAL);
  assert_true(p == 0 && n == 0);
  TU_ASSERT_CONTAINS(ks_errmsg(a->ctx),
                     "global: kernel 'conv3x3' has no global 'nosuch'");
  assert_null(strchr(ks_errmsg(a->ctx), '\n'));
  assert_int_equal(ks_kernel_global_write(k, "taps", 0, f, 40, NULL),
                   KS_ERANGE);
  assert_string_equal(ks_errmsg(a->ctx),
                      "global: kernel 'conv3x3': 40 bytes at offset 0 do not "
                      "fit in 'taps' (36 bytes)");
  assert_int_equal(ks_kernel_global_read(k, "taps", 36, f, 1, NULL), KS_ERANGE);
  assert_int_equal(ks_kernel_global_read(k, "taps", SIZE_MAX, f, 2, NULL),
                   KS_ERANGE);
  assert_int_equal(ks_kernel_global_write(k, "taps", 0, NULL, 4, NULL),
                   KS_EINVAL);
  assert_int_equal(ks_kernel_global(NULL, "taps", &p, &n), KS_EINVAL);
  assert_int_equal(ks_kernel_global(k, NULL, &p, &n), KS_EINVAL);
}

/* Two specializations are two modules: a write to one is not seen by the
 * other, which keeps the initializer. */
static void kernel_global_private(void **state) {
  api *a = *state;
  ks_kernel *k1 = spec(a, "conv3x3", 0), *k2 = spec(a, "conv3x3", 128);
  assert_ptr_not_equal(k1, k2);
  ks_devptr p1 = 0, p2 = 0;
  assert_int_equal(ks_kernel_global(k1, "taps", &p1, NULL), KS_OK);
  assert_int_equal(ks_kernel_global(k2, "taps", &p2, NULL), KS_OK);
  assert_true(p1 != p2);
  float one[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1}, back[9];
  assert_int_equal(ks_kernel_global_write(k1, "taps", 0, one, 36, NULL), KS_OK);
  assert_int_equal(ks_kernel_global_read(k2, "taps", 0, back, 36, NULL), KS_OK);
  assert_true(back[0] == 0.0625f && back[4] == 0.25f);
  assert_int_equal(ks_kernel_global_read(k1, "taps", 0, back, 36, NULL), KS_OK);
  assert_true(back[0] == 1.0f && back[8] == 1.0f);
}

/* ---- bakes -------------------------------------------------------------- */

static ks_kernel *bake(api *a, const char *kernel, const ks_bake *b, size_t n,
                       ks_status want) {
  ks_spec_req r = {.kernel = kernel, .bakes = b, .nbakes = n};
  ks_kernel *k = NULL;
  ks_status s = ks_specialize(a->ctx, a->t, &r, &k);
  if (s != want)
    fail_msg("bake on %s: %s, want %s: %s", kernel, ks_status_name(s),
             ks_status_name(want), ks_errmsg(a->ctx));
  return k;
}

static const char *ptx_of(ks_kernel *k) {
  const char *p = NULL;
  assert_int_equal(ks_kernel_ptx(k, &p, NULL), KS_OK);
  return p;
}

/* The taps of a __constant__ filter from its initializer: immediates
 * (0.0625 is 0f3D800000, 0.25 0f3E800000) and no load of taps. */
static void bake_initializer(void **state) {
  api *a = *state;
  ks_bake b = {.arg = "taps"};
  ks_kernel *k = bake(a, "conv3x3", &b, 1, KS_OK);
  const char *p = ptx_of(k);
  TU_ASSERT_CONTAINS(p, "0f3D800000");
  TU_ASSERT_CONTAINS(p, "0f3E800000");
  TU_ASSERT_NOT_CONTAINS(p, "[taps");
  TU_ASSERT_CONTAINS(ks_kernel_explain(k),
                     "const_promote: global taps: 9 loads became constants "
                     "(from its initializer)");
  ks_kernel *plain = spec(a, "conv3x3", 0);
  TU_ASSERT_CONTAINS(ptx_of(plain), "[taps");
  /* a table one kernel writes can be baked for another */
  ks_bake lut = {.arg = "lut"};
  k = bake(a, "lookup", &lut, 1, KS_OK);
  TU_ASSERT_NOT_CONTAINS(ptx_of(k), "[lut");
  TU_ASSERT_CONTAINS(ks_kernel_explain(k), "global lut: 2 loads became");
}

/* Values: immediates where the offset is constant, and the module's copy
 * of the global holds them for the loads left (co.bias[x & 3]). */
static void bake_values(void **state) {
  api *a = *state;
  const double taps[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const double co[6] = {2, 3, 0.5, 1, 1.5, -2};
  ks_bake b[2] = {{.arg = "taps", .values = taps, .n = 9},
                  {.arg = "co", .values = co, .n = 6}};
  ks_kernel *k = bake(a, "conv3x3", b, 2, KS_OK);
  const char *p = ptx_of(k);
  TU_ASSERT_CONTAINS(p, "0f41100000"); /* 9.0 */
  TU_ASSERT_CONTAINS(p, "0f40000000"); /* 2.0: co.scale */
  TU_ASSERT_NOT_CONTAINS(p, "[taps");
  TU_ASSERT_NOT_CONTAINS(p, "[co]");
  TU_ASSERT_CONTAINS(ks_kernel_explain(k),
                     "global co: 1 loads kept: offset not constant");
  struct {
    float scale;
    int shift;
    float bias[4];
  } back;
  assert_int_equal(ks_kernel_global_read(k, "co", 0, &back, sizeof back, NULL),
                   KS_OK);
  assert_true(back.scale == 2.0f && back.shift == 3 && back.bias[0] == 0.5f &&
              back.bias[3] == -2.0f);
  float t[9];
  assert_int_equal(ks_kernel_global_read(k, "taps", 0, t, sizeof t, NULL),
                   KS_OK);
  assert_true(t[0] == 1.0f && t[8] == 9.0f);
}

/* The values are part of the key: other values, another kernel; the same
 * ones in another order of bakes, the same kernel. */
static void bake_key(void **state) {
  api *a = *state;
  double v1[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9},
         v2[9] = {1, 2, 3, 4, 5, 6, 7, 8, 10};
  const double co[6] = {2, 3, 0.5, 1, 1.5, -2};
  ks_bake b1[2] = {{.arg = "taps", .values = v1, .n = 9},
                   {.arg = "co", .values = co, .n = 6}};
  ks_bake b2[2] = {{.arg = "co", .values = co, .n = 6},
                   {.arg = "taps", .values = v1, .n = 9}};
  ks_bake b3[2] = {{.arg = "taps", .values = v2, .n = 9},
                   {.arg = "co", .values = co, .n = 6}};
  ks_bake init = {.arg = "taps"};
  ks_kernel *k1 = bake(a, "conv3x3", b1, 2, KS_OK);
  assert_ptr_equal(bake(a, "conv3x3", b2, 2, KS_OK), k1);
  ks_kernel *k3 = bake(a, "conv3x3", b3, 2, KS_OK);
  assert_ptr_not_equal(k3, k1);
  TU_ASSERT_CONTAINS(ptx_of(k3), "0f41200000"); /* 10.0 */
  ks_kernel *ki = bake(a, "conv3x3", &init, 1, KS_OK);
  assert_ptr_not_equal(ki, k1);
  assert_ptr_not_equal(ki, spec(a, "conv3x3", 0));
}

/* Each bad bake: KS_EPARAM, one line naming it, nothing compiled or
 * cached (a value its type cannot hold is found compiling: not cached). */
static void bake_bad(void **state) {
  api *a = *state;
  static const double nine[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  static const double co_big[6] = {1e39, 3, 0.5, 1, 1.5, 2};
  static const struct {
    const char *kernel;
    ks_bake b;
    const char *msg;
  } cases[] = {
      {"conv3x3",
       {.arg = "nosuch"},
       "bake: globals: kernel 'conv3x3' has no argument 'nosuch'"},
      {"conv3x3",
       {.arg = "counter"},
       "bake: globals: kernel 'conv3x3' writes global 'counter'"},
      {"reset", {.arg = "lut"}, "kernel 'reset' writes global 'lut'"},
      {"lookup", {.arg = "scratch"}, "kernel 'lookup' writes global 'scratch'"},
      {"conv3x3",
       {.arg = "taps", .values = nine, .n = 4},
       "bake: globals: global 'taps' (float[9]) holds 9 values; the bake "
       "gives 4"},
      {"conv3x3",
       {.arg = "taps", .values = nine, .n = 10},
       "holds 9 values; the bake gives 10"},
      {"conv3x3",
       {.arg = "co"},
       "bake: globals: global 'co' (struct coeffs {float, int, float[4]}) has "
       "no initializer (all zero: the host sets it): give its values"},
      {"conv3x3",
       {.arg = "co", .values = co_big, .n = 6},
       "bake: globals: global co[0]=9.9999999999999994e+38: not a value of "
       "its type float"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    for (int again = 0; again < 2; again++) {
      ks_cache_counters before = {.size = sizeof before},
                        after = {.size = sizeof after};
      ks_cache_stats(a->ctx, &before);
      assert_null(bake(a, cases[i].kernel, &cases[i].b, 1, KS_EPARAM));
      const char *m = ks_errmsg(a->ctx);
      TU_ASSERT_CONTAINS(m, cases[i].msg);
      assert_null(strchr(m, '\n'));
      ks_cache_stats(a->ctx, &after);
      assert_int_equal(after.memory_hits, before.memory_hits);
      /* refused before compiling, or compiled again: never cached */
      assert_true(after.compiles - before.compiles ==
                  (cases[i].b.values == co_big));
    }
  }
  ks_bake none = {.arg = "nosuch"};
  assert_null(bake(a, "conv3x3", &none, 1, KS_EPARAM));
  TU_ASSERT_CONTAINS(ks_errmsg(a->ctx),
                     "-fno-discard-value-names), and the template no global "
                     "of that name");
  ks_bake twice[2] = {{.arg = "taps"}, {.arg = "taps"}};
  assert_null(bake(a, "conv3x3", twice, 2, KS_EPARAM));
  TU_ASSERT_CONTAINS(ks_errmsg(a->ctx), "taps baked twice");
}

int main(void) {
  /* the mock, whatever the environment says */
  setenv("KSPEC_LIBCUDA", KS_MOCK_LIB, 1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(discover_cuda),
      cmocka_unit_test(discover_rules),
      cmocka_unit_test(desc_roundtrip),
      cmocka_unit_test_setup_teardown(kernel_global_rw, api_setup,
                                      api_teardown),
      cmocka_unit_test_setup_teardown(kernel_global_bad, api_setup,
                                      api_teardown),
      cmocka_unit_test_setup_teardown(kernel_global_private, api_setup,
                                      api_teardown),
      cmocka_unit_test_setup_teardown(bake_initializer, api_setup,
                                      api_teardown),
      cmocka_unit_test_setup_teardown(bake_values, api_setup, api_teardown),
      cmocka_unit_test_setup_teardown(bake_key, api_setup, api_teardown),
      cmocka_unit_test_setup_teardown(bake_bad, api_setup, api_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
