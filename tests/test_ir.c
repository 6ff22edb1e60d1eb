/*
 * test_ir.c - ir/: parsing (text and bitcode), verification, the NVPTX
 * check and the discovery of kernels and parameters from the template
 * markings. Every bad input must give its status and a one-line message
 * that names the stage; none may crash.
 *
 * The control-flow graph (cfg.c) is checked on small functions worked
 * out by hand: predecessors, reverse post-order, back edges, dominators.
 *
 * The IR is written here as text, in the shape clang gives templates:
 * kernels listed in !nvvm.annotations and markings in
 * @llvm.global.annotations (section "llvm.metadata").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ir/ks_ir.h"
#include "jit/ks_jit.h"
#include "test_util.h"

#ifndef KS_TEMPLATE_DIR
#error "KS_TEMPLATE_DIR must name the folder of the built-in templates' .bc"
#endif

enum { TEXT_CAP = 16384 };

static const char nvptx[] = "nvptx64-nvidia-cuda";

/* A kernel with an argument of every kind a marking may or may not name. */
static const char kernel_k[] =
    "define void @k(ptr %out, i32 %n, i32 %LEN, i64 %BIG, float %SCALE,\n"
    "               double %EPS, i16 %SMALL) {\n"
    "entry:\n"
    "  store i32 %LEN, ptr %out, align 4\n"
    "  ret void\n"
    "}\n";
/* A second kernel and a device function that is no kernel. */
static const char kernel_k2[] =
    "define void @k2(ptr %p, i32 %TILE) {\n"
    "entry:\n"
    "  call void @helper(ptr %p, i32 %TILE)\n"
    "  ret void\n"
    "}\n"
    "define internal void @helper(ptr %p, i32 %v) {\n"
    "entry:\n"
    "  store i32 %v, ptr %p, align 4\n"
    "  ret void\n"
    "}\n";
static const char md_k[] = "!nvvm.annotations = !{!0}\n"
                           "!0 = !{ptr @k, !\"kernel\", i32 1}\n";
static const char md_k_k2[] = "!nvvm.annotations = !{!0, !1}\n"
                              "!0 = !{ptr @k, !\"kernel\", i32 1}\n"
                              "!1 = !{ptr @k2, !\"kernel\", i32 1}\n";

/* One annotate() marking: on function fn, the string text. */
typedef struct mark {
  const char *fn;
  const char *text;
} mark;

/* Appends printf output to buf (TEXT_CAP bytes). */
static void put(char *buf, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void put(char *buf, const char *fmt, ...) {
  size_t used = strlen(buf);
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf + used, TEXT_CAP - used, fmt, ap);
  va_end(ap);
  assert_true(n >= 0 && used + (size_t)n < TEXT_CAP);
}

/* Module text: triple (NULL: none), functions, metadata and markings. */
static char *module_text(const char *triple, const char *funcs, const char *md,
                         const mark *marks, size_t n) {
  char *t = calloc(1, TEXT_CAP);
  assert_non_null(t);
  if (triple)
    put(t, "target triple = \"%s\"\n\n", triple);
  put(t, "@.file = private unnamed_addr constant [8 x i8] c\"test.cu\\00\", "
         "section \"llvm.metadata\"\n");
  for (size_t i = 0; i < n; i++)
    put(t,
        "@.ks%zu = private unnamed_addr constant [%zu x i8] c\"%s\\00\", "
        "section \"llvm.metadata\"\n",
        i, strlen(marks[i].text) + 1, marks[i].text);
  if (n) {
    put(t,
        "@llvm.global.annotations = appending global [%zu x { ptr, ptr, ptr, "
        "i32, ptr }] [",
        n);
    for (size_t i = 0; i < n; i++)
      put(t,
          "%s{ ptr, ptr, ptr, i32, ptr } { ptr @%s, ptr @.ks%zu, ptr @.file, "
          "i32 1, ptr null }",
          i ? ", " : "", marks[i].fn, i);
    put(t, "], section \"llvm.metadata\"\n");
  }
  put(t, "\n%s\n%s", funcs, md ? md : "");
  return t;
}

/* One LLVM context per test, with its diagnostics captured. */
typedef struct fixture {
  LLVMContextRef c;
  char sink[KS_IR_DIAG_CAP];
  LLVMModuleRef m;
  ks_ir_desc desc;
  char err[1024];
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  if (!f)
    return -1;
  f->c = ks_ir_context_create(f->sink);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  ks_ir_desc_free(&f->desc);
  if (f->m)
    LLVMDisposeModule(f->m);
  LLVMContextDispose(f->c);
  free(f);
  return 0;
}

/* Everything a template goes through, in the library's order; the first
 * failure's status, with its message in f->err. */
static ks_status load(fixture *f, const void *data, size_t len,
                      const char *name) {
  f->err[0] = '\0';
  ks_status s =
      ks_ir_parse(f->c, data, len, name, &f->m, f->err, sizeof f->err);
  if (s == KS_OK)
    s = ks_ir_check_target(f->m, name, f->err, sizeof f->err);
  if (s == KS_OK)
    s = ks_ir_verify(f->m, name, f->err, sizeof f->err);
  if (s == KS_OK)
    s = ks_ir_discover(f->m, name, &f->desc, f->err, sizeof f->err);
  return s;
}

static ks_status load_text(fixture *f, char *text) {
  ks_status s = load(f, text, strlen(text), "t");
  free(text);
  return s;
}

/* A failure message: one line, starting with its stage. */
static void assert_message(const char *err, const char *stage) {
  assert_true(err[0] != '\0');
  if (strncmp(err, stage, strlen(stage)) != 0)
    fail_msg("message should start with \"%s\": %s", stage, err);
  if (strchr(err, '\n'))
    fail_msg("message is not one line: %s", err);
}

static unsigned char *template_bitcode(const char *tname, size_t *len) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s.bc", KS_TEMPLATE_DIR, tname);
  unsigned char *bc = tu_read_file(path, len);
  if (!bc)
    fail_msg("cannot read %s", path);
  return bc;
}

/* ---- parsing ------------------------------------------------------------ */

static void parse_text(void **state) {
  fixture *f = *state;
  const mark m[] = {{"k", "kspec.param LEN 8 1 64"}};
  assert_int_equal(load_text(f, module_text(nvptx, kernel_k, md_k, m, 1)),
                   KS_OK);
  LLVMValueRef fn = LLVMGetNamedFunction(f->m, "k");
  assert_non_null(fn);
  assert_int_equal(LLVMCountParams(fn), 7);
  assert_true(ks_ir_is_kernel(f->m, fn));
  assert_string_equal(LLVMGetTarget(f->m), nvptx);
}

/* Text -> bitcode -> module: the same kernels and markings. */
static void parse_bitcode_roundtrip(void **state) {
  fixture *f = *state;
  const mark m[] = {{"k", "kspec.param LEN 8 1 64"},
                    {"k2", "kspec.param TILE 16 1 32 block_xy"}};
  char funcs[4096];
  snprintf(funcs, sizeof funcs, "%s%s", kernel_k, kernel_k2);
  assert_int_equal(load_text(f, module_text(nvptx, funcs, md_k_k2, m, 2)),
                   KS_OK);

  unsigned char *bc = NULL;
  size_t len = 0;
  assert_int_equal(ks_ir_to_bitcode(f->m, &bc, &len, f->err, sizeof f->err),
                   KS_OK);
  assert_true(len > 4 && bc[0] == 'B' && bc[1] == 'C');

  char sink[KS_IR_DIAG_CAP];
  LLVMContextRef c2 = ks_ir_context_create(sink);
  LLVMModuleRef m2 = NULL;
  ks_ir_desc d2;
  assert_int_equal(ks_ir_parse(c2, bc, len, "t.bc", &m2, f->err, sizeof f->err),
                   KS_OK);
  assert_int_equal(ks_ir_verify(m2, "t.bc", f->err, sizeof f->err), KS_OK);
  assert_int_equal(ks_ir_discover(m2, "t.bc", &d2, f->err, sizeof f->err),
                   KS_OK);
  assert_int_equal(d2.nkernels, f->desc.nkernels);
  for (size_t i = 0; i < d2.nkernels; i++) {
    assert_string_equal(d2.kernels[i].name, f->desc.kernels[i].name);
    assert_int_equal(d2.kernels[i].nparams, f->desc.kernels[i].nparams);
  }
  ks_ir_desc_free(&d2);
  LLVMDisposeModule(m2);
  LLVMContextDispose(c2);
  free(bc);
}

/* A built-in template's bitcode, as clang wrote it. */
static void parse_template_bitcode(void **state) {
  fixture *f = *state;
  size_t len = 0;
  unsigned char *bc = template_bitcode("conv1d", &len);
  assert_int_equal(load(f, bc, len, "conv1d"), KS_OK);
  free(bc);
  assert_int_equal(f->desc.nkernels, 1);
  assert_string_equal(f->desc.kernels[0].name, "conv1d");
  assert_int_equal(f->desc.kernels[0].nparams, 1);
  assert_string_equal(f->desc.kernels[0].params[0].name, "FILTER_LEN");
  /* The marking names the argument the kernel really has there. */
  LLVMValueRef fn = LLVMGetNamedFunction(f->m, "conv1d");
  size_t nlen = 0;
  const char *an = LLVMGetValueName2(
      LLVMGetParam(fn, f->desc.kernels[0].params[0].arg_index), &nlen);
  assert_int_equal(nlen, strlen("FILTER_LEN"));
  assert_memory_equal(an, "FILTER_LEN", nlen);
}

static void parse_empty(void **state) {
  fixture *f = *state;
  assert_int_equal(
      ks_ir_parse(f->c, "", 0, "empty.ll", &f->m, f->err, sizeof f->err),
      KS_EIO);
  assert_null(f->m);
  assert_message(f->err, "parse: ");
  TU_ASSERT_CONTAINS(f->err, "empty.ll");
}

static void parse_garbage(void **state) {
  fixture *f = *state;
  static const unsigned char bytes[] = {0x7f, 'E',  'L',  'F',  2,    1,
                                        1,    0,    0xde, 0xad, 0xbe, 0xef,
                                        0x00, 0xff, 0x10, 0x80};
  assert_int_equal(ks_ir_parse(f->c, bytes, sizeof bytes, "junk.bin", &f->m,
                               f->err, sizeof f->err),
                   KS_EPARSE);
  assert_null(f->m);
  assert_message(f->err, "parse: ");
  TU_ASSERT_CONTAINS(f->err, "junk.bin");

  static const char text[] = "this is not LLVM IR\n{ at all }\n";
  assert_int_equal(ks_ir_parse(f->c, text, sizeof text - 1, "junk.ll", &f->m,
                               f->err, sizeof f->err),
                   KS_EPARSE);
  assert_message(f->err, "parse: ");

  /* The bitcode magic followed by nonsense. */
  static const unsigned char fake_bc[] = {'B',  'C',  0xc0, 0xde, 1, 2, 3, 4,
                                          0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0};
  assert_int_equal(ks_ir_parse(f->c, fake_bc, sizeof fake_bc, "fake.bc", &f->m,
                               f->err, sizeof f->err),
                   KS_EPARSE);
  assert_message(f->err, "parse: ");
}

/* Bitcode cut anywhere must be an error, never a crash or a module. */
static void parse_truncated_bitcode(void **state) {
  fixture *f = *state;
  size_t tlen = 0;
  unsigned char *tbc = template_bitcode("conv1d", &tlen);
  assert_int_equal(
      ks_ir_parse(f->c, tbc, tlen, "conv1d", &f->m, f->err, sizeof f->err),
      KS_OK);
  free(tbc);
  unsigned char *bc = NULL;
  size_t len = 0;
  assert_int_equal(ks_ir_to_bitcode(f->m, &bc, &len, f->err, sizeof f->err),
                   KS_OK);
  assert_true(len > 256);
  const size_t cuts[] = {
      1,           2,        3,        4,       5,       8,       16,
      31,          64,       len / 8,  len / 4, len / 3, len / 2, 2 * len / 3,
      3 * len / 4, len - 64, len - 16, len - 8, len - 5, len - 4, len - 1};
  for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
    char sink[KS_IR_DIAG_CAP];
    char err[1024] = "";
    LLVMContextRef c = ks_ir_context_create(sink);
    LLVMModuleRef m = NULL;
    ks_status s = ks_ir_parse(c, bc, cuts[i], "cut.bc", &m, err, sizeof err);
    if (s == KS_OK) {
      /* A reader may stop early without noticing; the module must still
       * not pass as complete. */
      fail_msg("bitcode cut at %zu of %zu bytes parsed", cuts[i], len);
    }
    assert_int_equal(s, KS_EPARSE);
    assert_null(m);
    assert_message(err, "parse: ");
    LLVMContextDispose(c);
  }
  free(bc);
}

/* ---- verification and target ------------------------------------------- */

static void verify_failure(void **state) {
  fixture *f = *state;
  /* Parses, but %a is used before it is defined. */
  static const char bad[] = "define void @k(ptr %out) {\n"
                            "entry:\n"
                            "  %b = add i32 %a, 1\n"
                            "  %a = add i32 %b, 1\n"
                            "  store i32 %a, ptr %out, align 4\n"
                            "  ret void\n"
                            "}\n";
  assert_int_equal(load_text(f, module_text(nvptx, bad, md_k, NULL, 0)),
                   KS_EVERIFY);
  assert_message(f->err, "verify: ");
  TU_ASSERT_CONTAINS(f->err, "dominate");
}

static void wrong_target(void **state) {
  fixture *f = *state;
  assert_int_equal(load_text(f, module_text("x86_64-unknown-linux-gnu",
                                            kernel_k, md_k, NULL, 0)),
                   KS_ETARGET);
  assert_message(f->err, "parse: ");
  TU_ASSERT_CONTAINS(f->err, "x86_64-unknown-linux-gnu");
}

static void no_target(void **state) {
  fixture *f = *state;
  assert_int_equal(load_text(f, module_text(NULL, kernel_k, md_k, NULL, 0)),
                   KS_ETARGET);
  assert_message(f->err, "parse: ");
}

static void nvptx32_target(void **state) {
  fixture *f = *state;
  assert_int_equal(
      load_text(f, module_text("nvptx-nvidia-cuda", kernel_k, md_k, NULL, 0)),
      KS_OK);
}

/* ---- discovery: kernels ------------------------------------------------- */

static void no_kernels(void **state) {
  fixture *f = *state;
  /* A device function only, and an annotation saying k is no kernel. */
  static const char md0[] = "!nvvm.annotations = !{!0}\n"
                            "!0 = !{ptr @k, !\"kernel\", i32 0}\n";
  assert_int_equal(load_text(f, module_text(nvptx, kernel_k, md0, NULL, 0)),
                   KS_ETEMPLATE);
  assert_message(f->err, "template: ");
  TU_ASSERT_CONTAINS(f->err, "no kernels");
  assert_int_equal(f->desc.nkernels, 0);
}

static void kernel_without_body(void **state) {
  fixture *f = *state;
  static const char decl[] = "declare void @k(ptr, i32)\n";
  assert_int_equal(load_text(f, module_text(nvptx, decl, md_k, NULL, 0)),
                   KS_ETEMPLATE);
  assert_message(f->err, "template: ");
  TU_ASSERT_CONTAINS(f->err, "'k'");
  TU_ASSERT_CONTAINS(f->err, "no body");
}

/* The PTX kernel calling convention makes a kernel without metadata. */
static void kernel_by_calling_convention(void **state) {
  fixture *f = *state;
  static const char fn[] = "define ptx_kernel void @cc(ptr %p, i32 %N) {\n"
                           "entry:\n"
                           "  store i32 %N, ptr %p, align 4\n"
                           "  ret void\n"
                           "}\n";
  const mark m[] = {{"cc", "kspec.param N 4 1 8"}};
  assert_int_equal(load_text(f, module_text(nvptx, fn, NULL, m, 1)), KS_OK);
  assert_int_equal(f->desc.nkernels, 1);
  assert_string_equal(f->desc.kernels[0].name, "cc");
  assert_int_equal(f->desc.kernels[0].nparams, 1);
}

/* ---- discovery: a good module ------------------------------------------- */

static const ks_ir_param *param(const ks_ir_kernel *k, const char *name) {
  for (size_t i = 0; i < k->nparams; i++)
    if (strcmp(k->params[i].name, name) == 0)
      return &k->params[i];
  fail_msg("kernel %s has no parameter %s", k->name, name);
  return NULL;
}

static void discover_good(void **state) {
  fixture *f = *state;
  const mark m[] = {
      {"k", "kspec.param LEN 32 1 128"},
      {"k", "kspec.doc a test kernel, with words"},
      {"k", "kspec.param BIG 100000 -5 10000000000"},
      {"k", "kspec.param SCALE 0.5 -1.5 2.25"},
      {"k", "kspec.param EPS 1e-6 0 1"},
      {"k", "some other tool's annotation"},
      {"k2", "kspec.param TILE 16 1 32 block_xy"},
  };
  size_t nm = sizeof m / sizeof m[0];
  /* Both kernels in one module: k first, then k2 and its helper. */
  char funcs[4096];
  snprintf(funcs, sizeof funcs, "%s%s", kernel_k, kernel_k2);
  assert_int_equal(load_text(f, module_text(nvptx, funcs, md_k_k2, m, nm)),
                   KS_OK);
  assert_int_equal(f->desc.nkernels, 2);

  const ks_ir_kernel *k = &f->desc.kernels[0];
  assert_string_equal(k->name, "k");
  assert_int_equal(k->nargs, 7);
  assert_non_null(k->doc);
  assert_string_equal(k->doc, "a test kernel, with words");
  assert_int_equal(k->nparams, 4);

  const ks_ir_param *p = param(k, "LEN");
  assert_int_equal(p->type, KS_TYPE_I32);
  assert_int_equal(p->arg_index, 2);
  assert_int_equal(p->flags, 0);
  assert_true(p->def == 32 && p->min == 1 && p->max == 128);

  p = param(k, "BIG");
  assert_int_equal(p->type, KS_TYPE_I64);
  assert_int_equal(p->arg_index, 3);
  assert_true(p->def == 100000 && p->min == -5 && p->max == 1e10);

  p = param(k, "SCALE");
  assert_int_equal(p->type, KS_TYPE_F32);
  assert_int_equal(p->arg_index, 4);
  assert_true(p->def == 0.5 && p->min == -1.5 && p->max == 2.25);

  p = param(k, "EPS");
  assert_int_equal(p->type, KS_TYPE_F64);
  assert_int_equal(p->arg_index, 5);
  assert_true(p->def == 1e-6 && p->min == 0 && p->max == 1);

  const ks_ir_kernel *k2 = &f->desc.kernels[1];
  assert_string_equal(k2->name, "k2");
  assert_int_equal(k2->nargs, 2);
  assert_null(k2->doc);
  assert_int_equal(k2->nparams, 1);
  p = param(k2, "TILE");
  assert_int_equal(p->arg_index, 1);
  assert_int_equal(p->flags, KS_PARAM_BLOCK_X | KS_PARAM_BLOCK_Y);

  /* The helper is a function but not a kernel. */
  assert_false(ks_ir_is_kernel(f->m, LLVMGetNamedFunction(f->m, "helper")));
}

static void discover_block_x(void **state) {
  fixture *f = *state;
  const mark m[] = {{"k", "kspec.param LEN 256 1 1024 block_x"}};
  assert_int_equal(load_text(f, module_text(nvptx, kernel_k, md_k, m, 1)),
                   KS_OK);
  assert_int_equal(f->desc.kernels[0].params[0].flags, KS_PARAM_BLOCK_X);
}

/* Markings of the built-in templates: each names a real argument, within
 * its range, and each template has its doc line; only sepfilter_fused
 * synchronizes the grid. */
static void discover_builtin_templates(void **state) {
  (void)state;
  static const char *const names[] = {
      "conv1d",     "sepfilter_rows", "sepfilter_cols", "histogram",
      "reduce_sum", "transpose",      "stencil1d",      "sepfilter_fused"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    fixture g = {0};
    g.c = ks_ir_context_create(g.sink);
    size_t len = 0;
    unsigned char *bc = template_bitcode(names[i], &len);
    ks_status s = load(&g, bc, len, names[i]);
    free(bc);
    if (s != KS_OK)
      fail_msg("%s: %s", names[i], g.err);
    assert_int_equal(g.desc.nkernels, 1);
    const ks_ir_kernel *k = &g.desc.kernels[0];
    assert_string_equal(k->name, names[i]);
    assert_non_null(k->doc);
    assert_true(strlen(k->doc) > 0);
    assert_true(k->nparams >= 1);
    for (size_t j = 0; j < k->nparams; j++) {
      const ks_ir_param *p = &k->params[j];
      assert_true(p->arg_index < k->nargs);
      assert_true(p->min <= p->def && p->def <= p->max);
    }
    /* the fused filter's grid barrier (ks_grid_sync, a function of its own
     * in the unoptimized bitcode) reads %envreg; no other template's does */
    assert_int_equal(k->grid_sync, strcmp(names[i], "sepfilter_fused") == 0);
    ks_ir_desc_free(&g.desc);
    LLVMDisposeModule(g.m);
    LLVMContextDispose(g.c);
  }
}

/* Which kernels synchronize the grid: @a reads %envreg through inline asm
 * two calls down (past a recursive function), @b through the intrinsic in
 * a callee, @c reads nothing, though @unused, which no kernel calls, reads
 * it, and @d calls a declaration only. */
static void discover_grid_sync(void **state) {
  fixture *f = *state;
  static const char funcs[] =
      "define void @a(ptr %p) {\n"
      "  call void @rec(ptr %p, i32 3)\n"
      "  ret void\n"
      "}\n"
      "define internal void @rec(ptr %p, i32 %n) {\n"
      "entry:\n"
      "  %z = icmp eq i32 %n, 0\n"
      "  br i1 %z, label %done, label %more\n"
      "more:\n"
      "  %m = sub i32 %n, 1\n"
      "  call void @rec(ptr %p, i32 %m)\n"
      "  br label %done\n"
      "done:\n"
      "  call void @ws(ptr %p)\n"
      "  ret void\n"
      "}\n"
      "define internal void @ws(ptr %p) {\n"
      "  %lo = call i32 asm sideeffect \"mov.u32 $0, %envreg1;\", \"=r\"()\n"
      "  store i32 %lo, ptr %p, align 4\n"
      "  ret void\n"
      "}\n"
      "define void @b(ptr %p) {\n"
      "  call void @sync()\n"
      "  ret void\n"
      "}\n"
      "define internal void @sync() {\n"
      "  %hi = call i32 @llvm.nvvm.read.ptx.sreg.envreg2()\n"
      "  ret void\n"
      "}\n"
      "define void @c(ptr %p) {\n"
      "  call void @rec0(ptr %p)\n"
      "  ret void\n"
      "}\n"
      "define internal void @rec0(ptr %p) {\n"
      "  store i32 1, ptr %p, align 4\n"
      "  ret void\n"
      "}\n"
      "define void @unused(ptr %p) {\n"
      "  %lo = call i32 @llvm.nvvm.read.ptx.sreg.envreg1()\n"
      "  ret void\n"
      "}\n"
      "define void @d(ptr %p) {\n"
      "  call void @ext(ptr %p)\n"
      "  ret void\n"
      "}\n"
      "declare void @ext(ptr)\n"
      "declare i32 @llvm.nvvm.read.ptx.sreg.envreg1()\n"
      "declare i32 @llvm.nvvm.read.ptx.sreg.envreg2()\n";
  static const char md[] = "!nvvm.annotations = !{!0, !1, !2, !3}\n"
                           "!0 = !{ptr @a, !\"kernel\", i32 1}\n"
                           "!1 = !{ptr @b, !\"kernel\", i32 1}\n"
                           "!2 = !{ptr @c, !\"kernel\", i32 1}\n"
                           "!3 = !{ptr @d, !\"kernel\", i32 1}\n";
  assert_int_equal(load_text(f, module_text(nvptx, funcs, md, NULL, 0)), KS_OK);
  assert_int_equal(f->desc.nkernels, 4);
  static const char *const name[] = {"a", "b", "c", "d"};
  static const int want[] = {1, 1, 0, 0};
  for (size_t i = 0; i < 4; i++) {
    assert_string_equal(f->desc.kernels[i].name, name[i]);
    if (f->desc.kernels[i].grid_sync != want[i])
      fail_msg("kernel %s: grid_sync %d", name[i],
               f->desc.kernels[i].grid_sync);
  }
}

/* ---- discovery: bad markings -------------------------------------------- */

/* Loads k with one marking and expects KS_ETEMPLATE naming what. */
static void expect_bad_mark(fixture *f, const mark *m, size_t n,
                            const char *what) {
  assert_int_equal(load_text(f, module_text(nvptx, kernel_k, md_k, m, n)),
                   KS_ETEMPLATE);
  assert_message(f->err, "template: ");
  TU_ASSERT_CONTAINS(f->err, what);
  assert_int_equal(f->desc.nkernels, 0); /* freed on failure */
}

static void mark_not_an_argument(void **state) {
  const mark m[] = {{"k", "kspec.param NOPE 1 1 2"}};
  expect_bad_mark(*state, m, 1, "NOPE");
}

static void mark_min_over_max(void **state) {
  const mark m[] = {{"k", "kspec.param LEN 4 8 2"}};
  expect_bad_mark(*state, m, 1, "LEN");
}

static void mark_default_outside(void **state) {
  const mark m[] = {{"k", "kspec.param LEN 100 1 64"}};
  expect_bad_mark(*state, m, 1, "LEN");
}

static void mark_pointer_argument(void **state) {
  const mark m[] = {{"k", "kspec.param out 1 1 2"}};
  expect_bad_mark(*state, m, 1, "'out'");
}

static void mark_i16_argument(void **state) {
  const mark m[] = {{"k", "kspec.param SMALL 1 1 2"}};
  expect_bad_mark(*state, m, 1, "SMALL");
}

static void mark_duplicate(void **state) {
  const mark m[] = {{"k", "kspec.param LEN 4 1 8"},
                    {"k", "kspec.param LEN 2 1 8"}};
  expect_bad_mark(*state, m, 2, "twice");
}

static void mark_unknown_flag(void **state) {
  const mark m[] = {{"k", "kspec.param LEN 4 1 8 block_q"}};
  expect_bad_mark(*state, m, 1, "block_q");
}

static void mark_malformed(void **state) {
  const mark bad[][1] = {
      {{"k", "kspec.param LEN 4 1"}},                /* missing MAX */
      {{"k", "kspec.param LEN four 1 8"}},           /* not a number */
      {{"k", "kspec.param LEN 4 1 8 block_x more"}}, /* extra word */
      {{"k", "kspec.param LEN 4 1 inf"}},            /* not finite */
      {{"k", "kspec.param "}},                       /* nothing at all */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    fixture *f = *state;
    ks_status s = load_text(f, module_text(nvptx, kernel_k, md_k, bad[i], 1));
    if (s != KS_ETEMPLATE)
      fail_msg("'%s': got %s", bad[i][0].text, ks_status_name(s));
    assert_message(f->err, "template: ");
    if (f->m)
      LLVMDisposeModule(f->m);
    f->m = NULL;
  }
}

static void mark_value_outside_type(void **state) {
  const mark frac[] = {{"k", "kspec.param LEN 1.5 1 8"}};
  expect_bad_mark(*state, frac, 1, "LEN");
}

static void mark_i32_range(void **state) {
  const mark m[] = {{"k", "kspec.param LEN 1 1 3000000000"}};
  expect_bad_mark(*state, m, 1, "LEN");
}

/* A block-fixing parameter must allow only positive sizes. */
static void mark_block_flag_min(void **state) {
  const mark m[] = {{"k", "kspec.param LEN 4 0 8 block_x"}};
  expect_bad_mark(*state, m, 1, "LEN");
}

static void mark_on_non_kernel(void **state) {
  fixture *f = *state;
  const mark m[] = {{"helper", "kspec.param v 1 1 2"}};
  static const char md2[] = "!nvvm.annotations = !{!0}\n"
                            "!0 = !{ptr @k2, !\"kernel\", i32 1}\n";
  assert_int_equal(load_text(f, module_text(nvptx, kernel_k2, md2, m, 1)),
                   KS_ETEMPLATE);
  assert_message(f->err, "template: ");
  TU_ASSERT_CONTAINS(f->err, "helper");
}

/* ---- what each argument is, for binding ---------------------------------- */

typedef struct want_arg {
  const char *name;
  ks_ir_arg_kind kind;
  ks_type type; /* a scalar's */
  ks_ir_sign sign;
} want_arg;

static void load_file(fixture *f, const char *file) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", KS_TEST_DATA_DIR, file);
  size_t len = 0;
  unsigned char *data = tu_read_file(path, &len);
  assert_non_null(data);
  ks_status s = load(f, data, len, file);
  free(data);
  if (s != KS_OK)
    fail_msg("%s: %s", file, f->err);
}

static void check_args(const ks_ir_kernel *k, const want_arg *w, unsigned n) {
  assert_int_equal(k->nargs, n);
  for (unsigned i = 0; i < n; i++) {
    const ks_ir_arg *a = &k->args[i];
    char label[16];
    snprintf(label, sizeof label, "@%u", i);
    assert_string_equal(a->name, w[i].name);
    assert_string_equal(a->label, label);
    assert_int_equal(a->kind, w[i].kind);
    assert_int_equal(a->pointer, w[i].kind != KS_IR_ARG_SCALAR);
    if (w[i].kind == KS_IR_ARG_SCALAR) {
      assert_int_equal(a->type, w[i].type);
      assert_int_equal(a->sign, w[i].sign);
    }
  }
}

/* Every argument's fields, equal in two descriptions. */
static void same_args(const ks_ir_desc *a, const ks_ir_desc *b) {
  assert_int_equal(a->nkernels, b->nkernels);
  for (size_t i = 0; i < a->nkernels; i++) {
    const ks_ir_kernel *x = &a->kernels[i], *y = &b->kernels[i];
    assert_string_equal(x->name, y->name);
    assert_int_equal(x->nargs, y->nargs);
    for (unsigned j = 0; j < x->nargs; j++) {
      const ks_ir_arg *p = &x->args[j], *q = &y->args[j];
      assert_string_equal(p->name, q->name);
      assert_string_equal(p->label, q->label);
      assert_int_equal(p->pointer, q->pointer);
      assert_int_equal(p->kind, q->kind);
      assert_int_equal(p->type, q->type);
      assert_int_equal(p->sign, q->sign);
    }
  }
}

/* f's description through the template disk cache's encoding and back:
 * the same arguments. */
static void args_roundtrip(const fixture *f) {
  size_t n = 0;
  unsigned char *p = ks_jit_desc_pack(&f->desc, &n);
  assert_non_null(p);
  ks_ir_desc d;
  assert_int_equal(ks_jit_desc_unpack(p, n, &d), 0);
  same_args(&f->desc, &d);
  ks_ir_desc_free(&d);
  free(p);
}

/* data/user_args.cu (extern "C", names kept): scalars of each type, their
 * signedness where the IR says it (zeroext, signext; bool) and unknown
 * where it does not (int, long long, unsigned long long are plain i32 and
 * i64), pointers; the same after the disk cache's encoding. */
static void describe_user_args(void **state) {
  fixture *f = *state;
  load_file(f, "user_args.ll");
  assert_int_equal(f->desc.nkernels, 2);
  const want_arg sum[] = {
      {"n", KS_IR_ARG_SCALAR, KS_TYPE_I32, KS_IR_SIGN_UNKNOWN},
      {"taps", KS_IR_ARG_SCALAR, KS_TYPE_I32, KS_IR_SIGN_UNKNOWN},
      {"a", KS_IR_ARG_SCALAR, KS_TYPE_F32, KS_IR_SIGNED},
      {"x", KS_IR_ARG_POINTER, 0, 0},
      {"y", KS_IR_ARG_POINTER, 0, 0}};
  const want_arg kinds[] = {
      {"c", KS_IR_ARG_SCALAR, KS_TYPE_I8, KS_IR_SIGNED},
      {"us", KS_IR_ARG_SCALAR, KS_TYPE_I16, KS_IR_UNSIGNED},
      {"flag", KS_IR_ARG_SCALAR, KS_TYPE_BOOL, KS_IR_UNSIGNED},
      {"h", KS_IR_ARG_SCALAR, KS_TYPE_F16, KS_IR_SIGNED},
      {"uc", KS_IR_ARG_SCALAR, KS_TYPE_I8, KS_IR_UNSIGNED},
      {"big", KS_IR_ARG_SCALAR, KS_TYPE_I64, KS_IR_SIGN_UNKNOWN},
      {"ubig", KS_IR_ARG_SCALAR, KS_TYPE_I64, KS_IR_SIGN_UNKNOWN},
      {"d", KS_IR_ARG_SCALAR, KS_TYPE_F64, KS_IR_SIGNED},
      {"out", KS_IR_ARG_POINTER, 0, 0}};
  check_args(&f->desc.kernels[0], sum, 5);
  check_args(&f->desc.kernels[1], kinds, 9);
  args_roundtrip(f);
}

/* data/user_tmpl.cu (C++, no value names): the symbol says which int and
 * long long arguments are unsigned; a const pointer is a pointer. */
static void describe_user_cxx(void **state) {
  fixture *f = *state;
  load_file(f, "user_tmpl.ll");
  assert_int_equal(f->desc.nkernels, 4);
  const want_arg block[] = {
      {"", KS_IR_ARG_POINTER, 0, 0},
      {"", KS_IR_ARG_POINTER, 0, 0},
      {"", KS_IR_ARG_SCALAR, KS_TYPE_I32, KS_IR_UNSIGNED}};
  const want_arg sizes[] = {{"", KS_IR_ARG_SCALAR, KS_TYPE_I32, KS_IR_UNSIGNED},
                            {"", KS_IR_ARG_SCALAR, KS_TYPE_I64, KS_IR_UNSIGNED},
                            {"", KS_IR_ARG_SCALAR, KS_TYPE_I64, KS_IR_SIGNED},
                            {"", KS_IR_ARG_SCALAR, KS_TYPE_I32, KS_IR_SIGNED},
                            {"", KS_IR_ARG_POINTER, 0, 0}};
  check_args(&f->desc.kernels[2], block, 3);
  check_args(&f->desc.kernels[3], sizes, 5);
  args_roundtrip(f);
}

/* data/byval.cu: a struct by value is an aggregate (a byval pointer in
 * the IR), neither a scalar nor a buffer. */
static void describe_byval(void **state) {
  fixture *f = *state;
  load_file(f, "byval.ll");
  const want_arg taps[] = {{"", KS_IR_ARG_AGGREGATE, 0, 0},
                           {"", KS_IR_ARG_POINTER, 0, 0},
                           {"", KS_IR_ARG_POINTER, 0, 0},
                           {"", KS_IR_ARG_SCALAR, KS_TYPE_I32, 0}};
  const ks_ir_kernel *k = &f->desc.kernels[0];
  assert_string_equal(k->name, "taps_read");
  assert_int_equal(k->nargs, 4);
  for (unsigned i = 0; i < 3; i++) {
    assert_int_equal(k->args[i].kind, taps[i].kind);
    assert_true(k->args[i].pointer);
  }
  assert_int_equal(k->args[3].kind, KS_IR_ARG_SCALAR);
  args_roundtrip(f);
}

/* The parameter list of a demangled name, as the signedness reader sees
 * it: nesting in <>, () and [], const words, counts that do not match. */
static void signature_signs(void **state) {
  (void)state;
  signed char s[8];
  assert_true(ks_ir_signature_signs(
      "f<std::pair<int, unsigned int>, 2>(unsigned int, long const, "
      "unsigned long long, float const*, void (*)(int, int), bool, "
      "std::pair<int, unsigned int>, char)",
      8, s));
  const signed char want[] = {1, 0, 1, -1, -1, 1, -1, 0};
  assert_memory_equal(s, want, sizeof want);
  assert_true(ks_ir_signature_signs("g()", 0, s));
  assert_true(ks_ir_signature_signs("h(const volatile unsigned long)", 1, s));
  assert_int_equal(s[0], 1);
  assert_false(ks_ir_signature_signs("g()", 1, s));
  assert_false(ks_ir_signature_signs("h(int, int)", 1, s));
  assert_false(ks_ir_signature_signs("h(int)", 2, s));
  assert_false(ks_ir_signature_signs("h", 0, s));
  assert_false(ks_ir_signature_signs("h(int>)", 1, s));
  assert_false(ks_ir_signature_signs("", 0, s));
}

/* ---- cfg.c: the control-flow graph ------------------------------------ */

/* Four functions whose graphs are small enough to work out by hand. */
static const char cfg_ir[] =
    "define void @diamond(i1 %c) {\n"
    "entry:\n  br i1 %c, label %a, label %b\n"
    "a:\n  br label %j\n"
    "b:\n  br label %j\n"
    "j:\n  ret void\n"
    "}\n"
    "define void @loop(i32 %n) {\n"
    "entry:\n  br label %h\n"
    "h:\n"
    "  %i = phi i32 [ 0, %entry ], [ %i1, %body ], [ 0, %dead ]\n"
    "  %c = icmp slt i32 %i, %n\n"
    "  br i1 %c, label %body, label %exit\n"
    "body:\n  %i1 = add i32 %i, 1\n  br label %h\n"
    "dead:\n  br label %h\n"
    "exit:\n  ret void\n"
    "}\n"
    "define void @nested(i1 %c, i1 %d) {\n"
    "entry:\n  br label %outer\n"
    "outer:\n  br label %inner\n"
    "inner:\n  br i1 %c, label %inner, label %latch\n"
    "latch:\n  br i1 %d, label %outer, label %exit\n"
    "exit:\n  ret void\n"
    "}\n"
    "define void @twice(i1 %c) {\n"
    "entry:\n  br i1 %c, label %x, label %x\n"
    "x:\n  ret void\n"
    "}\n";

/* g for function name of cfg_ir, parsed into f->m. */
static void cfg_of(fixture *f, const char *name, ks_cfg *g) {
  if (!f->m) {
    char *text = module_text(nvptx, cfg_ir, NULL, NULL, 0);
    ks_status s = ks_ir_parse(f->c, text, strlen(text), "cfg.ll", &f->m, f->err,
                              sizeof f->err);
    free(text);
    assert_int_equal(s, KS_OK);
    assert_int_equal(ks_ir_verify(f->m, "cfg.ll", f->err, sizeof f->err),
                     KS_OK);
  }
  LLVMValueRef fn = LLVMGetNamedFunction(f->m, name);
  assert_non_null(fn);
  assert_int_equal(ks_cfg_build(g, fn), 0);
}

/* Block b's predecessors, as numbers, are exactly want (nwant of them). */
static void assert_preds(const ks_cfg *g, unsigned b, const unsigned *want,
                         unsigned nwant) {
  assert_int_equal(g->pred_at[b + 1] - g->pred_at[b], nwant);
  for (unsigned j = 0; j < nwant; j++)
    assert_int_equal(g->pred[g->pred_at[b] + j], want[j]);
}

static void assert_list(const unsigned *got, unsigned n, const unsigned *want,
                        unsigned nwant) {
  assert_int_equal(n, nwant);
  for (unsigned k = 0; k < n; k++)
    assert_int_equal(got[k], want[k]);
}

static void cfg_diamond(void **state) {
  fixture *f = *state;
  ks_cfg g;
  cfg_of(f, "diamond", &g); /* entry 0, a 1, b 2, j 3 */
  assert_int_equal(g.n, 4);
  assert_preds(&g, 0, NULL, 0);
  assert_preds(&g, 1, (unsigned[]){0}, 1);
  assert_preds(&g, 3, (unsigned[]){1, 2}, 2);
  /* the walk takes a first: post-order j, a, b, entry */
  assert_list(g.rpo, g.nrpo, (unsigned[]){0, 2, 1, 3}, 4);
  assert_int_equal(g.rpo_num[1], 2);
  assert_int_equal(g.nback, 0);
  assert_list(g.idom, g.n, (unsigned[]){0, 0, 0, 0}, 4);
  assert_true(ks_cfg_dominates(&g, 0, 3));
  assert_true(ks_cfg_dominates(&g, 3, 3));
  assert_false(ks_cfg_dominates(&g, 1, 3));
  assert_false(ks_cfg_dominates(&g, 3, 1));
  assert_int_equal(ks_cfg_index(&g, g.bb[2]), 2);
  assert_int_equal(ks_cfg_single_pred(&g, 3), KS_CFG_NONE);
  assert_int_equal(ks_cfg_single_pred(&g, 2), 0);
  unsigned char reach[4];
  ks_cfg_reaching(&g, 3, reach);
  assert_memory_equal(reach, ((unsigned char[]){1, 1, 1, 0}), 4);
  ks_cfg_free(&g);
  ks_cfg_free(&g); /* a freed graph is empty: harmless */
}

static void cfg_loop_unreachable(void **state) {
  fixture *f = *state;
  ks_cfg g;
  cfg_of(f, "loop", &g); /* entry 0, h 1, body 2, dead 3, exit 4 */
  assert_preds(&g, 1, (unsigned[]){0, 2, 3}, 3);
  assert_preds(&g, 4, (unsigned[]){1}, 1);
  assert_list(g.rpo, g.nrpo, (unsigned[]){0, 1, 4, 2}, 4);
  assert_int_equal(g.rpo_num[3], KS_CFG_NONE);
  assert_int_equal(g.nback, 1);
  assert_int_equal(g.back[0].from, 2);
  assert_int_equal(g.back[0].to, 1);
  assert_list(g.idom, g.n, (unsigned[]){0, 0, 1, KS_CFG_NONE, 1}, 5);
  assert_true(ks_cfg_dominates(&g, 1, 2));
  assert_false(ks_cfg_dominates(&g, 2, 4));
  assert_false(ks_cfg_dominates(&g, 0, 3)); /* unreached: none */
  assert_int_equal(ks_cfg_single_pred(&g, 1), KS_CFG_NONE);
  assert_int_equal(ks_cfg_single_pred(&g, 2), 1);
  unsigned char reach[5];
  ks_cfg_reaching(&g, 1, reach); /* h is in a loop; dead reaches it too */
  assert_memory_equal(reach, ((unsigned char[]){1, 1, 1, 1, 0}), 5);
  ks_cfg_reaching(&g, 4, reach);
  assert_memory_equal(reach, ((unsigned char[]){1, 1, 1, 1, 0}), 5);
  ks_cfg_free(&g);
}

static void cfg_nested_loops(void **state) {
  fixture *f = *state;
  ks_cfg g;
  cfg_of(f, "nested", &g); /* entry 0, outer 1, inner 2, latch 3, exit 4 */
  assert_preds(&g, 1, (unsigned[]){0, 3}, 2);
  assert_preds(&g, 2, (unsigned[]){1, 2}, 2);
  assert_list(g.rpo, g.nrpo, (unsigned[]){0, 1, 2, 3, 4}, 5);
  /* inner's self-loop first, then the outer loop's latch */
  assert_int_equal(g.nback, 2);
  assert_int_equal(g.back[0].from, 2);
  assert_int_equal(g.back[0].to, 2);
  assert_int_equal(g.back[1].from, 3);
  assert_int_equal(g.back[1].to, 1);
  assert_list(g.idom, g.n, (unsigned[]){0, 0, 1, 2, 3}, 5);
  assert_true(ks_cfg_dominates(&g, 1, 4));
  assert_false(ks_cfg_dominates(&g, 3, 2));
  unsigned char reach[5];
  ks_cfg_reaching(&g, 2, reach);
  assert_memory_equal(reach, ((unsigned char[]){1, 1, 1, 1, 0}), 5);
  ks_cfg_free(&g);
}

static void cfg_two_edges(void **state) {
  fixture *f = *state;
  ks_cfg g;
  cfg_of(f, "twice", &g); /* a branch with both edges to x */
  assert_preds(&g, 1, (unsigned[]){0, 0}, 2);
  assert_int_equal(ks_cfg_single_pred(&g, 1), 0);
  LLVMBasicBlockRef p[1];
  assert_int_equal(ks_cfg_preds(&g, g.bb[1], p, 1), 2);
  assert_ptr_equal(p[0], g.bb[0]);
  assert_int_equal(ks_cfg_index(&g, NULL), KS_CFG_NONE);
  ks_cfg_free(&g);
  /* a declaration has no blocks */
  LLVMTypeRef ft = LLVMFunctionType(LLVMVoidTypeInContext(f->c), NULL, 0, 0);
  assert_int_equal(ks_cfg_build(&g, LLVMAddFunction(f->m, "decl", ft)), 0);
  assert_int_equal(g.n, 0);
  assert_int_equal(g.nrpo, 0);
  ks_cfg_free(&g);
}

/* ---- shared arrays' alignment (ks_ir_align_shared) ----------------------- */

/* Shared arrays of 16 bytes or more defined in the module get 16-byte
 * alignment (the driver's linker compiles relocatable code, where ptxas
 * merges shared loads only as wide as the declared alignment): smaller
 * ones, declarations (dynamic shared memory), wider alignments and other
 * address spaces stay. */
static void align_shared(void **state) {
  fixture *f = *state;
  static const char text[] =
      "target datalayout = \"e-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\n"
      "target triple = \"nvptx64-nvidia-cuda\"\n"
      "@tile = internal addrspace(3) global [256 x float] undef, align 4\n"
      "@pair = internal addrspace(3) global [2 x i32] undef, align 4\n"
      "@wide = internal addrspace(3) global [64 x double] undef, align 32\n"
      "@edge = internal addrspace(3) global [4 x i32] undef, align 4\n"
      "@dyn = external addrspace(3) global [0 x float], align 4\n"
      "@glob = internal addrspace(1) global [256 x float] undef, align 4\n";
  assert_int_equal(ks_ir_parse(f->c, text, sizeof text - 1, "align.ll", &f->m,
                               f->err, sizeof f->err),
                   KS_OK);
  assert_int_equal(ks_ir_align_shared(f->m), 2);
  static const struct {
    const char *name;
    unsigned align;
  } want[] = {{"tile", 16}, {"pair", 4}, {"wide", 32},
              {"edge", 16}, {"dyn", 4},  {"glob", 4}};
  for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
    LLVMValueRef g = LLVMGetNamedGlobal(f->m, want[i].name);
    assert_non_null(g);
    if (LLVMGetAlignment(g) != want[i].align)
      fail_msg("@%s: align %u, want %u", want[i].name, LLVMGetAlignment(g),
               want[i].align);
  }
  assert_int_equal(ks_ir_align_shared(f->m), 0); /* done once */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(parse_text, setup, teardown),
      cmocka_unit_test_setup_teardown(parse_bitcode_roundtrip, setup, teardown),
      cmocka_unit_test_setup_teardown(parse_template_bitcode, setup, teardown),
      cmocka_unit_test_setup_teardown(parse_empty, setup, teardown),
      cmocka_unit_test_setup_teardown(parse_garbage, setup, teardown),
      cmocka_unit_test_setup_teardown(parse_truncated_bitcode, setup, teardown),
      cmocka_unit_test_setup_teardown(verify_failure, setup, teardown),
      cmocka_unit_test_setup_teardown(wrong_target, setup, teardown),
      cmocka_unit_test_setup_teardown(no_target, setup, teardown),
      cmocka_unit_test_setup_teardown(nvptx32_target, setup, teardown),
      cmocka_unit_test_setup_teardown(no_kernels, setup, teardown),
      cmocka_unit_test_setup_teardown(kernel_without_body, setup, teardown),
      cmocka_unit_test_setup_teardown(kernel_by_calling_convention, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(discover_good, setup, teardown),
      cmocka_unit_test_setup_teardown(discover_block_x, setup, teardown),
      cmocka_unit_test(discover_builtin_templates),
      cmocka_unit_test_setup_teardown(discover_grid_sync, setup, teardown),
      cmocka_unit_test_setup_teardown(mark_not_an_argument, setup, teardown),
      cmocka_unit_test_setup_teardown(mark_min_over_max, setup, teardown),
      cmocka_unit_test_setup_teardown(mark_default_outside, setup, teardown),
      cmocka_unit_test_setup_teardown(mark_pointer_argument, setup, teardown),
      cmocka_unit_test_setup_teardown(mark_i16_argument, setup, teardown),
      cmocka_unit_test_setup_teardown(mark_duplicate, setup, teardown),
      cmocka_unit_test_setup_teardown(mark_unknown_flag, setup, teardown),
      cmocka_unit_test_setup_teardown(mark_malformed, setup, teardown),
      cmocka_unit_test_setup_teardown(mark_value_outside_type, setup, teardown),
      cmocka_unit_test_setup_teardown(mark_i32_range, setup, teardown),
      cmocka_unit_test_setup_teardown(mark_block_flag_min, setup, teardown),
      cmocka_unit_test_setup_teardown(mark_on_non_kernel, setup, teardown),
      cmocka_unit_test_setup_teardown(describe_user_args, setup, teardown),
      cmocka_unit_test_setup_teardown(describe_user_cxx, setup, teardown),
      cmocka_unit_test_setup_teardown(describe_byval, setup, teardown),
      cmocka_unit_test(signature_signs),
      cmocka_unit_test_setup_teardown(cfg_diamond, setup, teardown),
      cmocka_unit_test_setup_teardown(cfg_loop_unreachable, setup, teardown),
      cmocka_unit_test_setup_teardown(cfg_nested_loops, setup, teardown),
      cmocka_unit_test_setup_teardown(cfg_two_edges, setup, teardown),
      cmocka_unit_test_setup_teardown(align_shared, setup, teardown),
  };
  return cmocka_run_group_tests_name("ir", tests, NULL, NULL);
}
