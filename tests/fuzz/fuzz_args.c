/*
 * fuzz_args.c - the target "args": the parsers of what people type.
 *
 * The first byte of the input chooses the parser, the rest is its text
 * (up to its first NUL):
 *   0  ks_binding_parse (`-D NAME=VALUE`), then the value bound to a
 *      parameter of each type of a small template (so the library's
 *      conversion and range checks run too)
 *   1  --block X[,Y[,Z]]          (tools/args.c: ks_arg_block)
 *   2  --bake ARG=V,V,...         (ks_arg_bake), then baked into the
 *      template's buffer argument
 *   3  kspec tune --sweep NAME=V,... (ks_arg_sweep)
 *   4  unsigned option values     (ks_arg_uint)
 *   5  a file of recorded requests for ks_prewarm (kspec-req-1 lines)
 * Each parser must not crash and must give what its contract says for
 * what it accepts. The request checks stop before any LLVM work: the
 * requests name a stage that does not exist, which ks_specialize checks
 * after the values and bakes.
 */
#define _GNU_SOURCE /* memfd_create */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "args.h"
#include "fuzz.h"
#include "kspec.h"

/* One kernel with a parameter of each type and a buffer to bake. */
static const char TEMPLATE[] =
    "target datalayout = \"e-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\n"
    "target triple = \"nvptx64-nvidia-cuda\"\n"
    "@.a = private constant [30 x i8] c\"kspec.param I 3 -5 2147483647\\00\"\n"
    "@.b = private constant [42 x i8] "
    "c\"kspec.param L 0 -9223372036854775808 1e18\\00\"\n"
    "@.c = private constant [29 x i8] c\"kspec.param F 0.5 -1e30 1e30\\00\"\n"
    "@.d = private constant [29 x i8] c\"kspec.param D 1 -1e300 1e300\\00\"\n"
    "@.e = private constant [32 x i8] c\"kspec.param B 64 1 1024 "
    "block_x\\00\"\n"
    "@llvm.global.annotations = appending global [5 x { ptr, ptr, ptr, i32, "
    "ptr }] [\n"
    "  { ptr, ptr, ptr, i32, ptr } { ptr @k, ptr @.a, ptr null, i32 0, ptr "
    "null },\n"
    "  { ptr, ptr, ptr, i32, ptr } { ptr @k, ptr @.b, ptr null, i32 0, ptr "
    "null },\n"
    "  { ptr, ptr, ptr, i32, ptr } { ptr @k, ptr @.c, ptr null, i32 0, ptr "
    "null },\n"
    "  { ptr, ptr, ptr, i32, ptr } { ptr @k, ptr @.d, ptr null, i32 0, ptr "
    "null },\n"
    "  { ptr, ptr, ptr, i32, ptr } { ptr @k, ptr @.e, ptr null, i32 0, ptr "
    "null }], section \"llvm.metadata\"\n"
    "define ptx_kernel void @k(ptr %w, i32 %I, i64 %L, float %F, double %D, "
    "i32 %B) {\n"
    "  %x = load float, ptr %w\n"
    "  %y = fadd float %x, %F\n"
    "  store float %y, ptr %w\n"
    "  ret void\n"
    "}\n";

static ks_ctx *ctx;
static ks_template *tpl;

static void init(void) {
  ks_ctx_opts o = {
      .arch = "sm_90", .no_driver = 1, .no_disk_cache = 1, .jobs = 1};
  if (ks_ctx_create(&o, &ctx) != KS_OK ||
      ks_template_load_mem(ctx, "args", TEMPLATE, sizeof TEMPLATE - 1, &tpl) !=
          KS_OK) {
    fprintf(stderr, "kspec-fuzz: args: %s\n", ks_errmsg(ctx));
    abort();
  }
}

/* ks_specialize's checks of req, stopped before the pipeline by a stage
 * name that does not exist: KS_EINVAL means everything else passed. */
static ks_status check_request(ks_spec_req *req) {
  ks_kernel *k = NULL;
  req->dump_stage = "no such stage";
  ks_status s = ks_specialize(ctx, tpl, req, &k);
  KS_FUZZ_CHECK(s != KS_OK && k == NULL && ks_errmsg(ctx)[0]);
  return s;
}

static void binding(const char *text) {
  char name[64];
  ks_binding b;
  if (ks_binding_parse(text, &b, name, sizeof name) != KS_OK)
    return;
  const char *eq = strchr(text, '=');
  size_t n = (size_t)(eq - text);
  KS_FUZZ_CHECK(b.kind == KS_VALUE_TEXT && b.name == name);
  KS_FUZZ_CHECK(n > 0 && n < sizeof name && strlen(name) == n &&
                memcmp(name, text, n) == 0);
  KS_FUZZ_CHECK(b.v.s == eq + 1 && b.v.s[0]);
  /* the value, as each parameter's type */
  static const char *const params[] = {"I", "L", "F", "D", "B"};
  for (size_t i = 0; i < sizeof params / sizeof params[0]; i++) {
    ks_binding one = b;
    one.name = params[i];
    ks_spec_req req = {.bindings = &one, .nbindings = 1};
    check_request(&req);
  }
  ks_spec_req req = {.bindings = &b, .nbindings = 1};
  check_request(&req);
}

static void block(const char *text) {
  unsigned b[3] = {0, 0, 0};
  if (!ks_arg_block(text, b))
    return;
  KS_FUZZ_CHECK(b[0] >= 1 && b[0] <= 1u << 20);
  for (int i = 1; i < 3; i++)
    KS_FUZZ_CHECK(b[i] <= 1u << 20);
  ks_spec_req req = {.bounds = {.block = {b[0], b[1], b[2]}}};
  check_request(&req);
}

static void bake(const char *text) {
  char name[64];
  double *v = NULL;
  size_t n = 0;
  if (!ks_arg_bake(text, name, sizeof name, &v, &n))
    return;
  const char *eq = strchr(text, '=');
  if (!eq) { /* NAME alone: a global baked from its initializer */
    KS_FUZZ_CHECK(!v && n == 0 && name[0] && strcmp(name, text) == 0);
    ks_bake bk = {.arg = name};
    ks_spec_req req = {.bakes = &bk, .nbakes = 1};
    check_request(&req);
    return;
  }
  size_t commas = 0;
  for (const char *p = eq + 1; *p; p++)
    commas += *p == ',';
  KS_FUZZ_CHECK(v && n == commas + 1);
  KS_FUZZ_CHECK(strlen(name) == (size_t)(eq - text) && name[0] &&
                memcmp(name, text, strlen(name)) == 0);
  ks_bake bk = {.arg = "w", .values = v, .n = n};
  ks_spec_req req = {.bakes = &bk, .nbakes = 1};
  check_request(&req);
  bk.arg = name;
  check_request(&req);
  free(v);
}

static void sweep(const char *text) {
  char name[64] = "", why[512];
  int64_t v[64];
  size_t n = 0;
  if (ks_arg_sweep(text, name, sizeof name, v, 64, &n, why, sizeof why) != 0) {
    KS_FUZZ_CHECK(why[0]);
    return;
  }
  KS_FUZZ_CHECK(name[0] && n >= 1 && n <= 64);
  KS_FUZZ_CHECK(strncmp(text, name, strlen(name)) == 0 &&
                text[strlen(name)] == '=');
  for (size_t i = 0; i < n; i++)
    KS_FUZZ_CHECK(v[i] >= 0);
}

static void uint_value(const char *text) {
  unsigned long long v = 0;
  if (ks_arg_uint(text, 1, 1000000, &v))
    KS_FUZZ_CHECK(v >= 1 && v <= 1000000);
  if (ks_arg_uint(text, 0, UINT32_MAX, &v))
    KS_FUZZ_CHECK(v <= UINT32_MAX);
}

static void on_fail(void *arg, unsigned long line, const char *why) {
  (void)line;
  KS_FUZZ_CHECK(why && why[0]);
  ++*(unsigned long *)arg;
}

/* The recorded requests, as a file (a memfd, nothing on disk). */
static void prewarm(const uint8_t *data, size_t n) {
  int fd = memfd_create("kspec-fuzz", MFD_CLOEXEC);
  if (fd < 0)
    return;
  for (size_t at = 0; at < n;) {
    ssize_t w = write(fd, data + at, n - at);
    if (w <= 0)
      break;
    at += (size_t)w;
  }
  char path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  unsigned long fails = 0;
  ks_prewarm_result res = {.size = sizeof res};
  ks_status s = ks_prewarm(ctx, path, on_fail, &fails, &res);
  if (s == KS_OK)
    KS_FUZZ_CHECK(res.failed == fails &&
                  res.compiled + res.cached + res.duplicates + res.failed ==
                      res.requests);
  close(fd);
}

static int run(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  if (data[0] % 6 == 5) {
    prewarm(data + 1, size - 1);
    return 0;
  }
  char *text = ks_fuzz_text(data + 1, size - 1);
  switch (data[0] % 6) {
  case 0:
    binding(text);
    break;
  case 1:
    block(text);
    break;
  case 2:
    bake(text);
    break;
  case 3:
    sweep(text);
    break;
  case 4:
    uint_value(text);
    break;
  }
  free(text);
  return 0;
}

const ks_fuzz_target ks_fuzz_args = {
    "args", "-D, --block, --bake, --sweep, option numbers, prewarm lines", init,
    run};
