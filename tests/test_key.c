/*
 * test_key.c - the cache key's one list of fields (jit/request/request.h's
 * KS_KEY_FIELDS): for every field of the list, a key that differs in that
 * field alone hashes differently and its text differs in a line that
 * --why-miss names. A field added to the list without a way to hash or
 * print it does not compile; one printed under another name, or hashed
 * without being printed, fails here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/request/request.h"
#include "test_util.h"

typedef struct fixture {
  ks_ctx *ctx;
  ks_template *t;
  ks_request r;
  ks_key_in base;
} fixture;

static const double taps[] = {0.5, 0.25, 0.125};

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  ks_ctx_opts o = {.arch = "sm_90", .no_driver = 1, .no_disk_cache = 1};
  if (!f || ks_ctx_create(&o, &f->ctx) != KS_OK ||
      ks_template_load(f->ctx, "conv1d", &f->t) != KS_OK)
    return -1;
  ks_binding len = {.name = "FILTER_LEN", .kind = KS_VALUE_INT, .v.i = 3};
  ks_bake bake = {"f", taps, 3};
  ks_spec_req req = {.bindings = &len,
                     .nbindings = 1,
                     .bakes = &bake,
                     .nbakes = 1,
                     .bounds.block = {128}};
  if (ks_req_make(f->ctx, f->t, &req, &f->r) != KS_OK)
    return -1;
  ks_key_of(f->ctx, f->t, &f->r, &f->base);
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

/* mutate_KIND changes a field of that kind and returns what the why-miss
 * text must then say (the field's name, for most). */

static const char *mutate_tpl(ks_key_tpl *v, const char *name) {
  (void)name;
  v->hash[0] ^= 1;
  return "template conv1d changed";
}

static const char *mutate_str(ks_key_str *v, const char *name) {
  static char buf[64];
  *v = "other";
  snprintf(buf, sizeof buf, "%s ", name);
  return buf;
}

static const char *mutate_optstr(ks_key_optstr *v, const char *name) {
  *v = *v ? NULL : "bind";
  return name;
}

static const char *mutate_fp(ks_key_fp *v, const char *name) {
  (void)name;
  *v ^= KS_FP_FTZ;
  return "fp ftz != default";
}

static const char *mutate_u(ks_key_u *v, const char *name) {
  ++*v;
  return name;
}

static const char *mutate_u3(ks_key_u3 *v, const char *name) {
  v->v[2]++;
  return name;
}

static const char *mutate_ver(ks_key_ver *v, const char *name) {
  v->v[2]++;
  return name;
}

static const char *mutate_passes(ks_key_passes *v, const char *name) {
  *v ^= 1u << 3;
  return name;
}

static const char *mutate_lowers(ks_key_lowers *v, const char *name) {
  *v = !*v;
  return name;
}

static const char *mutate_bytes(ks_key_bytes *v, const char *name) {
  static unsigned char other[64];
  (void)name;
  memcpy(other, v->p, v->n < sizeof other ? v->n : sizeof other);
  other[0] ^= 1;
  v->p = other;
  return "kspec was rebuilt";
}

static const char *mutate_values(ks_key_values *v, const char *name) {
  static ks_spec_value other[KS_REQ_MAX_VALUES];
  (void)name;
  memcpy(other, v->v, v->n * sizeof *v->v);
  other[0].i++;
  v->v = other;
  return "FILTER_LEN 4 != 3";
}

static const char *mutate_bakes(ks_key_bakes *v, const char *name) {
  static ks_spec_bake other[KS_REQ_MAX_BAKES];
  static const double more[] = {0.5, 0.25, 0.126};
  (void)name;
  memcpy(other, v->b, v->n * sizeof *v->b);
  other[0].values = more;
  v->b = other;
  return "bake:f 3 values";
}

static const char *mutate_tex(ks_key_tex *v, const char *name) {
  v->args ^= 1;
  return name;
}

static void check(const ks_key_in *base, const ks_key_in *m, const char *field,
                  const char *want) {
  uint64_t a[2], b[2];
  ks_key_hash(base, a);
  ks_key_hash(m, b);
  if (a[0] == b[0] && a[1] == b[1])
    fail_msg("%s: the hash does not change with the field", field);
  char ta[4096], tb[4096], diff[1024];
  ks_key_text(base, ta, sizeof ta);
  ks_key_text(m, tb, sizeof tb);
  int n = ks_key_compare(tb, ta, diff, sizeof diff);
  if (n != 1)
    fail_msg("%s: %d lines differ, want 1: %s", field, n, diff);
  if (!strstr(diff, want))
    fail_msg("%s: why-miss says '%s', want '%s'", field, diff, want);
}

static void every_field_named(void **state) {
  fixture *f = *state;
  int fields = 0;
#define CHECK_FIELD(name, kind)                                                \
  {                                                                            \
    ks_key_in m = f->base;                                                     \
    const char *want = mutate_##kind(&m.name, #name);                          \
    check(&f->base, &m, #name, want);                                          \
    fields++;                                                                  \
  }
  KS_KEY_FIELDS(CHECK_FIELD)
#undef CHECK_FIELD
  assert_int_equal(fields, 20);
}

/* The text holds every field's line, under the field's name. */
static void text_lines(void **state) {
  fixture *f = *state;
  char text[4096];
  ks_key_text(&f->base, text, sizeof text);
  TU_ASSERT_CONTAINS(text, "template conv1d ");
  TU_ASSERT_CONTAINS(text, "\nkernel conv1d\n");
  TU_ASSERT_CONTAINS(text, "\nFILTER_LEN 3\n");
  TU_ASSERT_CONTAINS(text, "\nbake:f 3 values ");
  TU_ASSERT_CONTAINS(text, "\nblock 128,1,1\n");
  TU_ASSERT_CONTAINS(text, "\nmaxntid 0\n");
  TU_ASSERT_CONTAINS(text, "\nno_pass\n");
  TU_ASSERT_CONTAINS(text, "\narch sm_90\n");
  TU_ASSERT_CONTAINS(text, "\nllvm 19.");
  TU_ASSERT_CONTAINS(text, "\nbuild ");
  assert_null(strstr(text, "dump_stage")); /* not set: not there */
  assert_null(strstr(text, "libdevice"));  /* conv1d calls none */
  TU_ASSERT_CONTAINS(text, "\nfp default\n");
}

/* Binding by name or by position is one key. */
static void spelling_one_key(void **state) {
  fixture *f = *state;
  ks_binding pos = {.name = NULL, .arg = 4, .kind = KS_VALUE_TEXT, .v.s = "3"};
  ks_bake bake = {"f", taps, 3};
  ks_spec_req req = {.bindings = &pos,
                     .nbindings = 1,
                     .bakes = &bake,
                     .nbakes = 1,
                     .bounds.block = {128, 1, 1}};
  ks_request r;
  ks_key_in in;
  assert_int_equal(ks_req_make(f->ctx, f->t, &req, &r), KS_OK);
  ks_key_of(f->ctx, f->t, &r, &in);
  uint64_t a[2], b[2];
  ks_key_hash(&f->base, a);
  ks_key_hash(&in, b);
  assert_memory_equal(a, b, sizeof a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_field_named),
      cmocka_unit_test(text_lines),
      cmocka_unit_test(spelling_one_key),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
