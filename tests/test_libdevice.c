/*
 * test_libdevice.c - the device library (jit/codegen/libdevice.c): where
 * it is looked for, in order; files that are not NVPTX bitcode and
 * functions it lacks, each one line naming it; no search at all for a
 * kernel that calls no math; and, with the real libdevice (the toolkit's
 * or the copy built in) and ptxas, a kernel calling math compiled for
 * sm_80 and sm_90 and taken by ptxas (skipped without them).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llvm-c/BitWriter.h>

#include "jit/ks_jit.h"
#include "templates/ks_templates.h"
#include "test_util.h"

/* ---- the search order -----------------------------------------------------
 */

static char tmp[256];

/* Makes tmp/rel (and its directories) holding a few bytes. */
static void touch(const char *rel) {
  char p[1024];
  snprintf(p, sizeof p, "%s/%s", tmp, rel);
  for (char *s = p + strlen(tmp) + 1; (s = strchr(s, '/')); s++) {
    *s = '\0';
    mkdir(p, 0700);
    *s = '/';
  }
  FILE *f = fopen(p, "w");
  assert_non_null(f);
  fputs("x", f);
  fclose(f);
}

static void gone(const char *rel) {
  char p[1024];
  snprintf(p, sizeof p, "%s/%s", tmp, rel);
  assert_int_equal(unlink(p), 0);
}

static const char *at(const char *rel) {
  static char p[8][1024];
  static int i;
  i = (i + 1) % 8;
  snprintf(p[i], sizeof p[i], "%s/%s", tmp, rel);
  return p[i];
}

/* What the search finds, relative to tmp ("" for the built-in copy, "-"
 * for none). */
static const char *found(const ks_jit_ld_env *e, char *searched, size_t cap) {
  static char path[1024];
  int r = ks_jit_libdevice_find(e, path, sizeof path, searched, cap);
  if (r < 0)
    return "-";
  if (r == 1)
    return "";
  assert_true(strncmp(path, tmp, strlen(tmp)) == 0);
  return path + strlen(tmp) + 1;
}

static void search_order(void **state) {
  (void)state;
  snprintf(tmp, sizeof tmp, "/tmp/kspec-ld-XXXXXX");
  assert_non_null(mkdtemp(tmp));
  touch("own/libdevice.10.bc");
  touch("owndir/libdevice.10.bc");
  touch("home/nvvm/libdevice/libdevice.10.bc");
  touch("path/nvvm/libdevice/libdevice.10.bc");
  touch("usr/local/cuda/nvvm/libdevice/libdevice.10.bc");
  touch("tk/bin/nvcc");
  touch("tk/nvvm/libdevice/libdevice.10.bc");
  touch("usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc");
  touch("venv/lib/python3.11/site-packages/nvidia/cuda_nvcc/nvvm/libdevice/"
        "libdevice.10.bc");
  touch("user/.local/lib/python3.12/site-packages/nvidia/cuda_nvcc/nvvm/"
        "libdevice/libdevice.10.bc");
  chmod(at("tk/bin/nvcc"), 0700);
  mkdir(at("bin"), 0700);
  assert_int_equal(symlink(at("tk/bin/nvcc"), at("bin/nvcc")), 0);
  char pathvar[2100], searched[2048];
  snprintf(pathvar, sizeof pathvar, "/nonexistent:%s", at("bin"));
  ks_jit_ld_env e = {.kspec_libdevice = at("own/libdevice.10.bc"),
                     .cuda_home = at("home"),
                     .cuda_path = at("path"),
                     .path = pathvar,
                     .home = at("user"),
                     .virtual_env = at("venv"),
                     .root = tmp,
                     .embedded = 1};
  assert_string_equal(found(&e, searched, sizeof searched),
                      "own/libdevice.10.bc");
  e.kspec_libdevice = at("owndir"); /* a directory holding it */
  assert_string_equal(found(&e, searched, sizeof searched),
                      "owndir/libdevice.10.bc");
  e.kspec_libdevice = NULL;
  assert_string_equal(found(&e, searched, sizeof searched),
                      "home/nvvm/libdevice/libdevice.10.bc");
  e.cuda_home = at("nothing-here"); /* set, but no toolkit: on */
  assert_string_equal(found(&e, searched, sizeof searched),
                      "path/nvvm/libdevice/libdevice.10.bc");
  e.cuda_path = NULL;
  assert_string_equal(found(&e, searched, sizeof searched),
                      "usr/local/cuda/nvvm/libdevice/libdevice.10.bc");
  gone("usr/local/cuda/nvvm/libdevice/libdevice.10.bc");
  assert_string_equal(found(&e, searched, sizeof searched),
                      "tk/nvvm/libdevice/libdevice.10.bc");
  e.path = "/nonexistent";
  assert_string_equal(found(&e, searched, sizeof searched),
                      "usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc");
  gone("usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc");
  assert_string_equal(found(&e, searched, sizeof searched),
                      "venv/lib/python3.11/site-packages/nvidia/cuda_nvcc/"
                      "nvvm/libdevice/libdevice.10.bc");
  e.virtual_env = NULL;
  assert_string_equal(found(&e, searched, sizeof searched),
                      "user/.local/lib/python3.12/site-packages/nvidia/"
                      "cuda_nvcc/nvvm/libdevice/libdevice.10.bc");
  e.home = NULL;
  assert_string_equal(found(&e, searched, sizeof searched), "");
  e.embedded = 0;
  assert_string_equal(found(&e, searched, sizeof searched), "-");
  TU_ASSERT_CONTAINS(searched, "$KSPEC_LIBDEVICE (unset)");
  TU_ASSERT_CONTAINS(searched, "$CUDA_HOME, ");
  TU_ASSERT_CONTAINS(searched, "$CUDA_PATH (unset)");
  TU_ASSERT_CONTAINS(searched, "/usr/local/cuda, nvcc on PATH");
  TU_ASSERT_CONTAINS(searched, "nvidia-cuda-nvcc wheel");
  TU_ASSERT_CONTAINS(searched, "no copy built into libkspec");
  /* one that names nothing is an error, not a reason to look elsewhere */
  e.kspec_libdevice = at("missing.bc");
  e.embedded = 1;
  char path[1024];
  assert_int_equal(
      ks_jit_libdevice_find(&e, path, sizeof path, searched, sizeof searched),
      -2);
  TU_ASSERT_CONTAINS(searched, "missing.bc: no such file");
  e.kspec_libdevice = "builtin";
  assert_string_equal(found(&e, searched, sizeof searched), "");
  e.embedded = 0;
  assert_string_equal(found(&e, searched, sizeof searched), "-");
  TU_ASSERT_CONTAINS(searched, "$KSPEC_LIBDEVICE=builtin: no copy built");
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
  assert_int_equal(system(cmd), 0);
}

/* ---- through the API ------------------------------------------------------
 */

static const char math_ir[] =
    "target triple = \"nvptx64-nvidia-cuda\"\n"
    "define void @k(ptr %p, ptr %pd) {\n"
    "entry:\n"
    "  %v = load float, ptr %p, align 4\n"
    "  %d = load double, ptr %pd, align 8\n"
    "  %e = call float @llvm.exp.f32(float %v)\n"
    "  %l = call float @llvm.log.f32(float %e)\n"
    "  %s = call float @__nv_sinf(float %l)\n"
    "  %w = call float @llvm.pow.f32(float %s, float %v)\n"
    "  %q = call float @__nv_sqrtf(float %w)\n"
    "  %x = call double @llvm.exp.f64(double %d)\n"
    "  store float %q, ptr %p, align 4\n"
    "  store double %x, ptr %pd, align 8\n"
    "  ret void\n"
    "}\n"
    "declare float @llvm.exp.f32(float)\n"
    "declare float @llvm.log.f32(float)\n"
    "declare float @llvm.pow.f32(float, float)\n"
    "declare double @llvm.exp.f64(double)\n"
    "declare float @__nv_sinf(float)\n"
    "declare float @__nv_sqrtf(float)\n"
    "!nvvm.annotations = !{!0}\n"
    "!0 = !{ptr @k, !\"kernel\", i32 1}\n";

/* Specializes ir for arch with the library the environment gives: the
 * status, the message in msg and (KS_OK) the PTX and explanation. */
static ks_status specialize(const char *arch, const char *ir, char *msg,
                            size_t cap, char **ptx, char **explain) {
  ks_ctx_opts o = {.arch = arch, .no_driver = 1, .no_disk_cache = 1};
  ks_ctx *ctx = NULL;
  ks_template *t = NULL;
  ks_kernel *k = NULL;
  assert_int_equal(ks_ctx_create(&o, &ctx), KS_OK);
  assert_int_equal(ks_template_load_mem(ctx, "math", ir, strlen(ir), &t),
                   KS_OK);
  ks_spec_req req = {0};
  ks_status s = ks_specialize(ctx, t, &req, &k);
  snprintf(msg, cap, "%s", ks_errmsg(ctx));
  if (s == KS_OK) {
    const char *p = NULL;
    size_t len = 0;
    assert_int_equal(ks_kernel_ptx(k, &p, &len), KS_OK);
    if (ptx)
      *ptx = strdup(p);
    if (explain)
      *explain = strdup(ks_kernel_explain(k));
  }
  ks_template_destroy(t);
  ks_ctx_destroy(ctx); /* the last context: the library is forgotten */
  return s;
}

static void write_file(const char *path, const void *p, size_t n) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(p, 1, n, f), n);
  fclose(f);
}

static void bad_files(void **state) {
  (void)state;
  char msg[1024];
  const char *text = "/tmp/kspec-ld-text.bc", *x86 = "/tmp/kspec-ld-x86.bc";
  write_file(text, "not bitcode at all\n", 19);
  setenv("KSPEC_LIBDEVICE", text, 1);
  assert_int_equal(specialize("sm_90", math_ir, msg, sizeof msg, NULL, NULL),
                   KS_EIO);
  TU_ASSERT_CONTAINS(msg, "libdevice: math: calls ");
  TU_ASSERT_CONTAINS(msg, "kspec-ld-text.bc is not LLVM bitcode");
  assert_null(strchr(msg, '\n'));
  /* bitcode of another architecture */
  LLVMContextRef c = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("x", c);
  LLVMSetTarget(m, "x86_64-pc-linux-gnu");
  assert_int_equal(LLVMWriteBitcodeToFile(m, x86), 0);
  LLVMDisposeModule(m);
  LLVMContextDispose(c);
  setenv("KSPEC_LIBDEVICE", x86, 1);
  assert_int_equal(specialize("sm_90", math_ir, msg, sizeof msg, NULL, NULL),
                   KS_EIO);
  TU_ASSERT_CONTAINS(msg, "kspec-ld-x86.bc is bitcode for x86_64-pc-linux-gnu, "
                          "not NVPTX's libdevice");
  /* one that names nothing */
  setenv("KSPEC_LIBDEVICE", "/tmp/kspec-ld-missing.bc", 1);
  assert_int_equal(specialize("sm_90", math_ir, msg, sizeof msg, NULL, NULL),
                   KS_EIO);
  TU_ASSERT_CONTAINS(msg, "$KSPEC_LIBDEVICE=/tmp/kspec-ld-missing.bc: no such "
                          "file");
  /* and a kernel without math never looks: the same setting is no error */
  char *ptx = NULL;
  const char *plain = "target triple = \"nvptx64-nvidia-cuda\"\n"
                      "define void @k(ptr %p) {\n"
                      "  store float 1.0, ptr %p, align 4\n"
                      "  ret void\n"
                      "}\n"
                      "!nvvm.annotations = !{!0}\n"
                      "!0 = !{ptr @k, !\"kernel\", i32 1}\n";
  assert_int_equal(specialize("sm_90", plain, msg, sizeof msg, &ptx, NULL),
                   KS_OK);
  free(ptx);
  unsetenv("KSPEC_LIBDEVICE");
  unlink(text);
  unlink(x86);
}

/* A function libdevice does not have (with the stand-in library). */
static void missing_function(void **state) {
  (void)state;
  char msg[1024];
  setenv("KSPEC_LIBDEVICE", KS_TEST_BINARY_DIR "/libdevice_mini.bc", 1);
  const char *ir = "target triple = \"nvptx64-nvidia-cuda\"\n"
                   "define void @k(ptr %p) {\n"
                   "  %v = load float, ptr %p, align 4\n"
                   "  %r = call float @__nv_nosuchf(float %v)\n"
                   "  store float %r, ptr %p, align 4\n"
                   "  ret void\n"
                   "}\n"
                   "declare float @__nv_nosuchf(float)\n"
                   "!nvvm.annotations = !{!0}\n"
                   "!0 = !{ptr @k, !\"kernel\", i32 1}\n";
  assert_int_equal(specialize("sm_90", ir, msg, sizeof msg, NULL, NULL),
                   KS_ECODEGEN);
  TU_ASSERT_CONTAINS(msg, "libdevice: math: calls __nv_nosuchf, which "
                          "libdevice (");
  TU_ASSERT_CONTAINS(msg, "libdevice_mini.bc) does not have");
  unsetenv("KSPEC_LIBDEVICE");
}

/* With the real library (found as a program would find it) and ptxas:
 * the kernel compiles for sm_80 and sm_90 and ptxas takes the PTX. */
static void real_library_ptxas(void **state) {
  (void)state;
  ks_jit_ld_env e = {.cuda_home = getenv("CUDA_HOME"),
                     .cuda_path = getenv("CUDA_PATH"),
                     .path = getenv("PATH"),
                     .home = getenv("HOME"),
                     .root = "",
                     .embedded = ks_libdevice_end > ks_libdevice_begin};
  char path[1024], searched[2048];
  unsetenv("KSPEC_LIBDEVICE");
  if (ks_jit_libdevice_find(&e, path, sizeof path, searched, sizeof searched) <
          0 ||
      !KS_PTXAS[0]) {
    skip(); /* no libdevice here, or no ptxas */
    return;
  }
  /* the copy built in too, where there is one (sm_90 only) */
  static const char *const archs[] = {"sm_80", "sm_90", "sm_90"};
  for (int i = 0; i < 3; i++) {
    if (i == 2 && !e.embedded)
      break;
    if (i == 2)
      setenv("KSPEC_LIBDEVICE", "builtin", 1);
    char msg[1024], *ptx = NULL, *explain = NULL, *log = NULL;
    ks_status s =
        specialize(archs[i], math_ir, msg, sizeof msg, &ptx, &explain);
    if (s != KS_OK)
      fail_msg("%s: %s", archs[i], msg);
    TU_ASSERT_CONTAINS(explain, "math: libdevice functions linked: __nv_sinf, "
                                "__nv_sqrtf, __nv_expf (for llvm.exp.f32)");
    TU_ASSERT_CONTAINS(explain, "__nv_exp (for llvm.exp.f64)");
    TU_ASSERT_NOT_CONTAINS(ptx, "__nv_");
    s = ks_jit_ptxas_run(KS_PTXAS, archs[i], ptx, strlen(ptx), 120000, &log);
    if (s != KS_OK)
      fail_msg("ptxas %s: %s", archs[i], log ? log : "");
    if (i == 2)
      TU_ASSERT_CONTAINS(explain, "from the copy built into libkspec");
    free(log);
    free(ptx);
    free(explain);
  }
  unsetenv("KSPEC_LIBDEVICE");
}

/* The request's floating-point modes (with the stand-in library): part of
 * the key, fast math spelled either way one kernel, unknown bits refused. */
static void fp_modes(void **state) {
  (void)state;
  setenv("KSPEC_LIBDEVICE", KS_TEST_BINARY_DIR "/libdevice_mini.bc", 1);
  ks_ctx_opts o = {.arch = "sm_90", .no_driver = 1, .no_disk_cache = 1};
  ks_ctx *ctx = NULL;
  ks_template *t = NULL;
  ks_kernel *k[4] = {NULL};
  assert_int_equal(ks_ctx_create(&o, &ctx), KS_OK);
  assert_int_equal(ks_template_load(ctx, "blackscholes", &t), KS_OK);
  static const unsigned fps[] = {0, KS_FP_FAST_MATH,
                                 KS_FP_FAST_MATH | KS_FP_FTZ, KS_FP_FTZ};
  for (int i = 0; i < 4; i++) {
    ks_spec_req req = {.fp = fps[i]};
    assert_int_equal(ks_specialize(ctx, t, &req, &k[i]), KS_OK);
  }
  assert_true(k[0] != k[1] && k[1] == k[2] && k[3] != k[0] && k[3] != k[1]);
  const char *p = NULL;
  size_t n = 0;
  assert_int_equal(ks_kernel_ptx(k[1], &p, &n), KS_OK);
  TU_ASSERT_CONTAINS(p, "div.approx.ftz.f32");
  TU_ASSERT_CONTAINS(ks_kernel_explain(k[1]), "fast math");
  assert_int_equal(ks_kernel_ptx(k[0], &p, &n), KS_OK);
  TU_ASSERT_CONTAINS(p, "div.rn.f32");
  TU_ASSERT_NOT_CONTAINS(p, "div.approx");
  ks_spec_req bad = {.fp = 0x100};
  ks_kernel *kb = NULL;
  assert_int_equal(ks_specialize(ctx, t, &bad, &kb), KS_EPARAM);
  TU_ASSERT_CONTAINS(ks_errmsg(ctx), "fp: blackscholes: unknown "
                                     "floating-point mode bits 0x100");
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
  unsetenv("KSPEC_LIBDEVICE");
}

/* ---- the math stage ahead of bind ------------------------------------------
 */

/* Two kernels calling the stand-in library: k1 expf and sqrtf, k2 powf
 * (its internal helper stays out of line) and a division. */
static const char two_ir[] =
    "target triple = \"nvptx64-nvidia-cuda\"\n"
    "define void @k1(ptr %p) {\n"
    "  %v = load float, ptr %p, align 4\n"
    "  %e = call float @__nv_expf(float %v)\n"
    "  %q = call float @__nv_sqrtf(float %e)\n"
    "  store float %q, ptr %p, align 4\n"
    "  ret void\n"
    "}\n"
    "define void @k2(ptr %p, float %s) {\n"
    "  %v = load float, ptr %p, align 4\n"
    "  %w = call float @__nv_powf(float %v, float %s)\n"
    "  %d = fdiv float %w, %v\n"
    "  store float %d, ptr %p, align 4\n"
    "  ret void\n"
    "}\n"
    "declare float @__nv_expf(float)\n"
    "declare float @__nv_sqrtf(float)\n"
    "declare float @__nv_powf(float, float)\n"
    "!nvvm.annotations = !{!0, !1}\n"
    "!0 = !{ptr @k1, !\"kernel\", i32 1}\n"
    "!1 = !{ptr @k2, !\"kernel\", i32 1}\n";

/* One request of ir in a context of its own (the process's pools outlive
 * it while another context lives): its PTX and its explanation without
 * the time and compile lines, malloc'd. */
static void spec_one(const char *ir, const char *kernel, unsigned fp,
                     const char *dump, char **ptx, char **explain) {
  ks_ctx_opts o = {.arch = "sm_90", .no_driver = 1, .no_disk_cache = 1};
  ks_ctx *ctx = NULL;
  ks_template *t = NULL;
  ks_kernel *k = NULL;
  assert_int_equal(ks_ctx_create(&o, &ctx), KS_OK);
  assert_int_equal(ks_template_load_mem(ctx, "two", ir, strlen(ir), &t), KS_OK);
  ks_binding b = {.name = "s", .kind = KS_VALUE_REAL, .v.f = 2.5};
  ks_spec_req req = {.kernel = kernel,
                     .fp = fp,
                     .dump_stage = dump,
                     .bindings = &b,
                     .nbindings = strcmp(kernel, "k2") == 0};
  if (ks_specialize(ctx, t, &req, &k) != KS_OK)
    fail_msg("%s fp %u: %s", kernel, fp, ks_errmsg(ctx));
  const char *p = NULL;
  size_t n = 0;
  assert_int_equal(ks_kernel_ptx(k, &p, &n), KS_OK);
  *ptx = strdup(p);
  assert_non_null(*ptx);
  /* NVPTX numbers the calls it lowers over the process: "callseq N" */
  for (char *c = *ptx; (c = strstr(c, "callseq "));)
    for (c += 8; *c >= '0' && *c <= '9'; c++)
      *c = '#';
  const char *e = ks_kernel_explain(k);
  *explain = calloc(1, strlen(e) + 1);
  assert_non_null(*explain);
  for (const char *l = e; *l;) {
    size_t len = strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n');
    if (strncmp(l, "time:", 5) != 0 && strncmp(l, "compile:", 8) != 0)
      strncat(*explain, l, len);
    l += len;
  }
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
}

/* The copies the template pool keeps of t's prepared form, run ahead for
 * a kernel and modes: how many, and whether (kernel, fp) is one. */
static unsigned ahead_copies(ks_ctx *ctx, const ks_template *t,
                             const char *kernel, unsigned fp, int *has) {
  ks_jit_tpl tp;
  assert_int_equal(ks_jit_tpl_get(t, ctx->arch, ctx->ptx_isa, &tp), KS_OK);
  assert_non_null(tp.prepared); /* the pool's, not a fresh one */
  unsigned n = tp.nahead;
  *has = 0;
  for (unsigned i = 0; i < n; i++)
    *has |= tp.ahead[i].fp == fp && strcmp(tp.ahead[i].kernel, kernel) == 0;
  ks_jit_tpl_put(&tp, 1);
  return n;
}

/* A template that links libdevice is specialized from a copy of its
 * prepared form that the math stage ran on ahead of bind, one a kernel and
 * floating-point modes (jit/codegen/specialize.c): each request's
 * explanation is that of the pipeline's own order (which a request that
 * keeps a stage's IR takes), and so is its PTX where bind makes an
 * argument of a library call constant (k2); k1's calls are out of line,
 * their PTX compiled once and inlined in the kernel's (math_outline.c,
 * mathptx.c). Each copy has its own modes, and a template that calls no
 * math gets no copy. */
static void math_ahead(void **state) {
  (void)state;
  setenv("KSPEC_LIBDEVICE", KS_TEST_BINARY_DIR "/libdevice_mini.bc", 1);
  ks_ctx_opts o = {.arch = "sm_90", .no_driver = 1, .no_disk_cache = 1};
  ks_ctx *keep = NULL; /* holds the pools from one request to the next */
  ks_template *t = NULL, *plain = NULL;
  assert_int_equal(ks_ctx_create(&o, &keep), KS_OK);
  assert_int_equal(
      ks_template_load_mem(keep, "two", two_ir, strlen(two_ir), &t), KS_OK);
  static const struct {
    const char *kernel;
    unsigned fp;
    const char *has, *lacks; /* in the PTX */
  } reqs[] = {
      {"k1", 0, "ex2.approx.f32", "sqrt.approx"},
      {"k2", 0, "div.rn.f32", "div.approx"},
      {"k1", KS_FP_FTZ | KS_FP_APPROX_SQRT, "ex2.approx.ftz.f32", "sqrt.rn"},
      {"k1", 0, "sqrt.rn.f32", "ex2.approx.ftz"},
      {"k2", KS_FP_APPROX_DIV, "div.approx.f32", "div.rn"},
      {"k1", KS_FP_FAST_MATH, "ex2.approx.ftz.f32", "sqrt.rn"},
  };
  for (size_t i = 0; i < sizeof reqs / sizeof reqs[0]; i++) {
    char *ptx, *ex, *dptx, *dex;
    spec_one(two_ir, reqs[i].kernel, reqs[i].fp, NULL, &ptx, &ex);
    spec_one(two_ir, reqs[i].kernel, reqs[i].fp, "lower", &dptx, &dex);
    if (strcmp(reqs[i].kernel, "k1") == 0) {
      /* out of line: the functions' PTX compiled once, spliced in and
       * inlined there; the explanation the pipeline's and one line */
      TU_ASSERT_CONTAINS(ex, "math: libdevice functions called out of "
                             "line: __nv_");
      TU_ASSERT_CONTAINS(ptx, "// __nv_");
      TU_ASSERT_CONTAINS(ptx, " inlined\n");
      TU_ASSERT_NOT_CONTAINS(ptx, "call.uni");
      TU_ASSERT_NOT_CONTAINS(ptx, ".extern");
      TU_ASSERT_NOT_CONTAINS(dptx, "__nv_");
      char *line = strstr(ex, "math: libdevice functions called out of");
      memmove(line, strchr(line, '\n') + 1, strlen(strchr(line, '\n')));
    } else {
      /* powf's exponent bound: inlined, as the pipeline has it */
      assert_string_equal(ptx, dptx);
      TU_ASSERT_NOT_CONTAINS(ptx, "__nv_");
    }
    assert_string_equal(ex, dex);
    TU_ASSERT_CONTAINS(ptx, reqs[i].has);
    TU_ASSERT_NOT_CONTAINS(ptx, reqs[i].lacks);
    TU_ASSERT_CONTAINS(ex, "math: libdevice functions linked: ");
    int has = 0;
    unsigned fp = reqs[i].fp & KS_FP_FAST_MATH ? KS_FP_ALL : reqs[i].fp;
    unsigned n = ahead_copies(keep, t, reqs[i].kernel, fp, &has);
    if (!has)
      fail_msg("request %zu: no copy run ahead (%u kept)", i, n);
    assert_int_equal(n, i < 3 ? i + 1 : i < 5 ? i : 5);
    free(ptx), free(ex), free(dptx), free(dex);
  }
  /* more kernels and modes than a template keeps: the oldest go */
  for (unsigned fp = 0; fp < KS_FP_FAST_MATH; fp++)
    for (int j = 0; j < 2; j++) {
      char *ptx, *ex;
      spec_one(two_ir, j ? "k2" : "k1", fp, NULL, &ptx, &ex);
      free(ptx), free(ex);
    }
  int has = 0;
  assert_int_equal(ahead_copies(keep, t, "k2", KS_FP_FAST_MATH - 1, &has),
                   KS_JIT_AHEAD);
  assert_true(has);
  assert_int_equal(ahead_copies(keep, t, "k1", 0, &has), KS_JIT_AHEAD);
  assert_false(has);
  /* no math: no copy */
  assert_int_equal(ks_template_load(keep, "conv1d", &plain), KS_OK);
  ks_kernel *k = NULL;
  ks_spec_req req = {0};
  assert_int_equal(ks_specialize(keep, plain, &req, &k), KS_OK);
  assert_int_equal(ahead_copies(keep, plain, "conv1d", 0, &has), 0);
  ks_template_destroy(plain);
  ks_template_destroy(t);
  ks_ctx_destroy(keep);
  unsetenv("KSPEC_LIBDEVICE");
}

/* k3 calls expf of a loaded value and of 2s. */
static const char fold_ir[] = "target triple = \"nvptx64-nvidia-cuda\"\n"
                              "define void @k3(ptr %p, float %s) {\n"
                              "  %v = load float, ptr %p, align 4\n"
                              "  %a = fmul float %s, 2.0\n"
                              "  %e = call float @__nv_expf(float %a)\n"
                              "  %f = call float @__nv_expf(float %v)\n"
                              "  %r = fadd float %e, %f\n"
                              "  store float %r, ptr %p, align 4\n"
                              "  ret void\n"
                              "}\n"
                              "declare float @__nv_expf(float)\n"
                              "!nvvm.annotations = !{!0}\n"
                              "!0 = !{ptr @k3, !\"kernel\", i32 1}\n";

/* One request of fold_ir's k3 (s bound or not, a stage's IR or not) in a
 * context of its own: its PTX, malloc'd. */
static char *fold_one(int bind, const char *dump) {
  ks_ctx_opts o = {.arch = "sm_90", .no_driver = 1, .no_disk_cache = 1};
  ks_ctx *ctx = NULL;
  ks_template *t = NULL;
  ks_kernel *k = NULL;
  assert_int_equal(ks_ctx_create(&o, &ctx), KS_OK);
  assert_int_equal(
      ks_template_load_mem(ctx, "fold", fold_ir, strlen(fold_ir), &t), KS_OK);
  ks_binding b = {.name = "s", .kind = KS_VALUE_REAL, .v.f = 2.5};
  ks_spec_req req = {.dump_stage = dump, .bindings = &b, .nbindings = bind};
  if (ks_specialize(ctx, t, &req, &k) != KS_OK)
    fail_msg("k3 bind %d: %s", bind, ks_errmsg(ctx));
  const char *p = NULL;
  size_t n = 0;
  assert_int_equal(ks_kernel_ptx(k, &p, &n), KS_OK);
  char *ptx = strdup(p);
  assert_non_null(ptx);
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
  return ptx;
}

/* A call whose argument bind makes constant keeps the inlined form, which
 * the copy run ahead makes when a request first needs it; requests that
 * bind nothing call out of line, before and after. */
static void math_fold(void **state) {
  (void)state;
  setenv("KSPEC_LIBDEVICE", KS_TEST_BINARY_DIR "/libdevice_mini.bc", 1);
  ks_ctx_opts o = {.arch = "sm_90", .no_driver = 1, .no_disk_cache = 1};
  ks_ctx *keep = NULL; /* holds the pools from one request to the next */
  assert_int_equal(ks_ctx_create(&o, &keep), KS_OK);
  for (int round = 0; round < 2; round++) {
    char *out = fold_one(0, NULL);
    TU_ASSERT_CONTAINS(out, "// __nv_expf inlined\n");
    TU_ASSERT_NOT_CONTAINS(out, "call.uni");
    char *in = fold_one(1, NULL), *dump = fold_one(1, "lower");
    assert_string_equal(in, dump);
    TU_ASSERT_NOT_CONTAINS(in, "__nv_");
    TU_ASSERT_CONTAINS(in, "ex2.approx.f32");
    free(out), free(in), free(dump);
  }
  ks_ctx_destroy(keep);
  unsetenv("KSPEC_LIBDEVICE");
}

/* ---- the functions' PTX inlined at their calls (ptxinline.c) -------------
 */

/* A kernel's PTX as codegen and mathptx.c leave it: f, straight PTX, and
 * g, with a stack frame, each called once. */
static const char inline_ptx[] =
    ".version 8.5\n.target sm_90\n.address_size 64\n\n"
    ".func  (.param .b32 func_retval0) f(\n"
    "\t.param .b32 f_param_0,\n"
    "\t.param .b32 f_param_1\n"
    ")\n{\n"
    "\t.reg .pred \t%p<2>;\n"
    "\t.reg .f32 \t%f<4>;\n\n"
    "\tld.param.f32 \t%f1, [f_param_0];\n"
    "\tld.param.f32 \t%f2, [f_param_1];\n"
    "\tsetp.lt.f32 \t%p1, %f1, %f2;\n"
    "\t@%p1 bra \t$L__BB0_2;\n"
    "\tmul.rn.f32 \t%f3, %f1, %f2;\n"
    "\tst.param.f32 \t[func_retval0+0], %f3;\n"
    "\tret;\n"
    "$L__BB0_2:\n"
    "\tst.param.f32 \t[func_retval0+0], %f1;\n"
    "\tret;\n\n}\n"
    ".func  (.param .b32 func_retval0) g(\n"
    "\t.param .b32 g_param_0\n"
    ")\n{\n"
    "\t.local .align 4 .b8 \t__local_depot1[4];\n"
    "\t.reg .b64 \t%SP;\n"
    "\tret;\n\n}\n"
    ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n"
    "\t.reg .f32 \t%f<4>;\n\n"
    "\t{ // callseq 0, 0\n"
    "\t.param .b32 param0;\n"
    "\tst.param.f32 \t[param0+0], %f1;\n"
    "\t.param .b32 param1;\n"
    "\tst.param.f32 \t[param1+0], %f2;\n"
    "\t.param .b32 retval0;\n"
    "\tcall.uni (retval0), \n"
    "\tf, \n"
    "\t(\n\tparam0, \n\tparam1\n\t);\n"
    "\tld.param.f32 \t%f3, [retval0+0];\n"
    "\t} // callseq 0\n"
    "\t{ // callseq 1, 0\n"
    "\t.param .b32 param0;\n"
    "\tst.param.f32 \t[param0+0], %f3;\n"
    "\t.param .b32 retval0;\n"
    "\tcall.uni (retval0), \n"
    "\tg, \n"
    "\t(\n\tparam0\n\t);\n"
    "\tld.param.f32 \t%f1, [retval0+0];\n"
    "\t} // callseq 1\n"
    "\tret;\n\n}\n";

/* f's call becomes its body, renamed, with moves for its arguments and
 * result; g's, with a stack frame, stays a call. */
static void ptx_inline(void **state) {
  (void)state;
  char *ptx = strdup(inline_ptx);
  size_t len = strlen(ptx);
  static const char *const names[] = {"f", "g"};
  assert_non_null(ptx);
  assert_int_equal(ks_jit_ptx_inline(&ptx, &len, names, 2), KS_OK);
  assert_int_equal(len, strlen(ptx));
  const char *k = strstr(ptx, ".entry k(");
  assert_non_null(k);
  static const char *const want[] = {
      "\t{ // f inlined\n",
      "\t.reg .pred \t%ks0_p<2>;\n",
      "\tmov.b32 \t%ks0_f1, %f1;\n",
      "\tmov.b32 \t%ks0_f2, %f2;\n",
      "\tsetp.lt.f32 \t%ks0_p1, %ks0_f1, %ks0_f2;\n",
      "\t@%ks0_p1 bra \t$Lks0___BB0_2;\n",
      "\tmov.b32 \t%f3, %ks0_f3;\n",
      "\tbra.uni \t$Lks0_ret;\n",
      "$Lks0___BB0_2:\n",
      "\tmov.b32 \t%f3, %ks0_f1;\n",
      "$Lks0_ret:\n\t}\n\t{ // callseq 1, 0\n",
      "\tg, \n",
  };
  for (size_t i = 0; i < sizeof want / sizeof *want; i++)
    TU_ASSERT_CONTAINS(k, want[i]);
  TU_ASSERT_NOT_CONTAINS(k, "callseq 0");
  TU_ASSERT_NOT_CONTAINS(k, "ld.param.f32 \t%f3");
  free(ptx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(search_order),     cmocka_unit_test(bad_files),
      cmocka_unit_test(missing_function), cmocka_unit_test(real_library_ptxas),
      cmocka_unit_test(fp_modes),         cmocka_unit_test(math_ahead),
      cmocka_unit_test(math_fold),        cmocka_unit_test(ptx_inline),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
