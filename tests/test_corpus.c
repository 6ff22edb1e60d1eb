/*
 * test_corpus.c - malformed input through the C API: every file of
 * tests/corpus, built-in bitcode cut short and with flipped bits, loaded
 * with ks_template_load_mem and specialized. Each must end in a status and
 * a one-line message naming its stage; none may end the process (that is
 * what a crash here would show). And every llvm.nvvm.* intrinsic the
 * codegen screen lets through in-process (ir/screen.c) must compile on
 * every architecture at its lowest PTX ISA: a mistake in that list ends
 * this test's process. The files of tests/corpus/ok are unusual but valid
 * and must compile, so that the screen is known not to refuse too much.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <llvm-c/Core.h>

#include "kspec.h"
#include "test_util.h"

#ifndef KS_CORPUS_DIR
#error "KS_CORPUS_DIR must name tests/corpus"
#endif

/* A context for arch at PTX ISA ptx, without driver or disk cache. */
static ks_ctx *context(const char *arch, unsigned ptx) {
  ks_ctx_opts o = {
      .arch = arch, .ptx_isa = ptx, .no_driver = 1, .no_disk_cache = 1};
  ks_ctx *ctx = NULL;
  if (ks_ctx_create(&o, &ctx) != KS_OK)
    fail_msg("context %s/%u: %s", arch, ptx, ks_errmsg(NULL));
  return ctx;
}

/* A failure message: one line that starts with a stage ("parse: ",
 * "codegen: ", ...), the template's name in it. */
static void assert_message(const ks_ctx *ctx, const char *what) {
  const char *m = ks_errmsg(ctx);
  if (!m || !m[0])
    fail_msg("%s: no message", what);
  if (strchr(m, '\n'))
    fail_msg("%s: message is not one line: %s", what, m);
  size_t w = strspn(m, "abcdefghijklmnopqrstuvwxyz ");
  if (w == 0 || m[w] != ':' || m[w + 1] != ' ')
    fail_msg("%s: message does not start with its stage: %s", what, m);
}

/* Loads len bytes as a template and specializes it with no values: KS_OK
 * only when both work, else the status (with its message checked). */
static ks_status load_and_specialize(ks_ctx *ctx, const char *name,
                                     const void *data, size_t len) {
  ks_template *t = NULL;
  ks_kernel *k = NULL;
  ks_status s = ks_template_load_mem(ctx, name, data, len, &t);
  if (s == KS_OK) {
    ks_spec_req req = {0};
    s = ks_specialize(ctx, t, &req, &k);
    assert_true(s == KS_OK ? k != NULL : k == NULL);
  } else {
    assert_null(t);
  }
  if (s != KS_OK)
    assert_message(ctx, name);
  ks_template_destroy(t);
  return s;
}

static int corpus_file(const struct dirent *e) {
  return e->d_name[0] != '.' && e->d_type != DT_DIR &&
         strcmp(e->d_name, "cases.txt") != 0;
}

/* Every file of the corpus fails to load, or to specialize with no values
 * for sm_60 at PTX ISA 6.0 (the lowest target, where the intrinsics of
 * later ones fail too). */
static void corpus_files(void **state) {
  (void)state;
  ks_ctx *ctx = context("sm_60", 60);
  struct dirent **names = NULL;
  int n = scandir(KS_CORPUS_DIR, &names, corpus_file, alphasort);
  assert_true(n >= 100);
  for (int i = 0; i < n; i++) {
    char path[1024];
    size_t len = 0;
    snprintf(path, sizeof path, "%s/%s", KS_CORPUS_DIR, names[i]->d_name);
    unsigned char *data = tu_read_file(path, &len);
    assert_non_null(data);
    ks_status s = load_and_specialize(ctx, names[i]->d_name, data, len);
    if (s == KS_OK)
      fail_msg("%s was accepted", names[i]->d_name);
    free(data);
    free(names[i]);
  }
  free(names);
  ks_ctx_destroy(ctx);
}

/* Assembles ptx with ptxas for sm_90; skipped without ptxas. */
static void assemble(const char *name, const char *ptx) {
  if (!tu_have_tool(KS_PTXAS))
    return;
  char path[256], cmd[1024];
  if (tu_write_temp(".ptx", ptx, strlen(ptx), path, sizeof path) != 0)
    fail_msg("cannot write a temporary file");
  snprintf(cmd, sizeof cmd, "%s -arch=sm_90 -o /dev/null %s", KS_PTXAS, path);
  int rc = system(cmd);
  unlink(path);
  if (rc != 0)
    fail_msg("%s: ptxas refused the PTX", name);
}

/* Every file of corpus/ok/ loads, specializes for sm_90 and assembles:
 * the screen refuses what LLVM cannot compile, not more. */
static void corpus_ok(void **state) {
  (void)state;
  ks_ctx *ctx = context("sm_90", 85);
  struct dirent **names = NULL;
  int n = scandir(KS_CORPUS_DIR "/ok", &names, corpus_file, alphasort);
  assert_true(n >= 10);
  for (int i = 0; i < n; i++) {
    char path[1024];
    size_t len = 0;
    snprintf(path, sizeof path, "%s/ok/%s", KS_CORPUS_DIR, names[i]->d_name);
    unsigned char *data = tu_read_file(path, &len);
    assert_non_null(data);
    ks_template *t = NULL;
    ks_kernel *k = NULL;
    ks_spec_req req = {0};
    const char *ptx = NULL;
    size_t plen = 0;
    if (ks_template_load_mem(ctx, names[i]->d_name, data, len, &t) != KS_OK ||
        ks_specialize(ctx, t, &req, &k) != KS_OK ||
        ks_kernel_ptx(k, &ptx, &plen) != KS_OK)
      fail_msg("%s: %s", names[i]->d_name, ks_errmsg(ctx));
    assemble(names[i]->d_name, ptx);
    ks_template_destroy(t);
    free(data);
    free(names[i]);
  }
  free(names);
  ks_ctx_destroy(ctx);
}

static unsigned char *conv1d_bitcode(size_t *len) {
  char path[512];
  snprintf(path, sizeof path, "%s/conv1d.bc", KS_TEMPLATE_DIR);
  unsigned char *bc = tu_read_file(path, len);
  if (!bc)
    fail_msg("cannot read %s", path);
  return bc;
}

/* conv1d's bitcode cut at every length up to 64 bytes and at 100 more
 * spread over the rest: KS_EIO (nothing) or KS_EPARSE, never a module. */
static void bitcode_cut_short(void **state) {
  (void)state;
  ks_ctx *ctx = context("sm_90", 85);
  size_t len = 0;
  unsigned char *bc = conv1d_bitcode(&len);
  assert_true(len > 1024);
  for (size_t i = 0; i < 164; i++) {
    size_t at = i < 64 ? i : 64 + (i - 64) * (len - 65) / 99;
    ks_template *t = NULL;
    ks_status s = ks_template_load_mem(ctx, "cut", bc, at, &t);
    if (s == KS_OK)
      fail_msg("conv1d.bc cut at %zu of %zu bytes loaded", at, len);
    assert_int_equal(s, at ? KS_EPARSE : KS_EIO);
    assert_null(t);
    assert_message(ctx, "cut");
  }
  free(bc);
  ks_ctx_destroy(ctx);
}

/* conv1d's bitcode with 1 to 4 bits flipped, 200 times: loaded and
 * specialized, or refused with a message. */
static void bitcode_flipped(void **state) {
  (void)state;
  ks_ctx *ctx = context("sm_90", 85);
  size_t len = 0;
  unsigned char *bc = conv1d_bitcode(&len);
  uint32_t seed = 2024;
  int refused = 0;
  for (int i = 0; i < 200; i++) {
    unsigned char *copy = malloc(len);
    assert_non_null(copy);
    memcpy(copy, bc, len);
    for (int b = 0; b <= i % 4; b++) {
      seed = seed * 1103515245u + 12345u;
      copy[(seed >> 8) % len] ^= (unsigned char)(1u << (seed >> 29));
    }
    refused += load_and_specialize(ctx, "flipped", copy, len) != KS_OK;
    free(copy);
  }
  assert_true(refused >= 20); /* flips that all parse would test nothing */
  free(bc);
  ks_ctx_destroy(ctx);
}

/* ---- the screen's llvm.nvvm.* list ------------------------------------------
 */

/* A kernel that calls intrinsic name (overloaded on ov, nov types) with
 * zero, the kernel's pointer argument or all-ones (for masks) as
 * arguments, as IR text (malloc'd), or NULL when LLVM has no such
 * intrinsic. */
static char *intrinsic_kernel(const char *name, LLVMTypeRef *ov, size_t nov,
                              LLVMContextRef c) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  if (!id)
    return NULL;
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("m", c);
  LLVMSetTarget(m, "nvptx64-nvidia-cuda");
  LLVMValueRef decl = LLVMGetIntrinsicDeclaration(m, id, ov, nov);
  LLVMTypeRef fty = LLVMIntrinsicGetType(c, id, ov, nov);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMValueRef k = LLVMAddFunction(
      m, "k", LLVMFunctionType(LLVMVoidTypeInContext(c), &ptr, 1, 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, k, "e"));
  unsigned np = LLVMCountParamTypes(fty);
  LLVMTypeRef pt[8];
  LLVMValueRef args[8];
  assert_true(np <= 8);
  LLVMGetParamTypes(fty, pt);
  for (unsigned i = 0; i < np; i++) {
    if (LLVMGetTypeKind(pt[i]) == LLVMPointerTypeKind)
      args[i] = LLVMGetPointerAddressSpace(pt[i]) == 0
                    ? LLVMGetParam(k, 0)
                    : LLVMBuildAddrSpaceCast(b, LLVMGetParam(k, 0), pt[i], "");
    else if (LLVMGetTypeKind(pt[i]) == LLVMIntegerTypeKind)
      args[i] = LLVMConstInt(pt[i], strstr(name, "ldg") ? 4 : 0xffffffff, 0);
    else
      args[i] = LLVMConstNull(pt[i]);
  }
  LLVMValueRef r = LLVMBuildCall2(b, fty, decl, args, np, "");
  if (LLVMGetTypeKind(LLVMGetReturnType(fty)) != LLVMVoidTypeKind)
    LLVMBuildStore(b, r, LLVMGetParam(k, 0));
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  char *ir = LLVMPrintModuleToString(m);
  size_t n = strlen(ir) + 128;
  char *text = malloc(n);
  snprintf(text, n,
           "%s!nvvm.annotations = !{!0}\n!0 = !{ptr @k, !\"kernel\", i32 1}\n",
           ir);
  LLVMDisposeMessage(ir);
  LLVMDisposeModule(m);
  return text;
}

/* Specializes text on every (arch, lowest PTX ISA) and checks that codegen
 * ran in this process (the screen vouched for it) and worked. */
static void compiles_everywhere(const char *name, const char *text) {
  static const struct {
    const char *arch;
    unsigned ptx;
  } targets[] = {{"sm_60", 60}, {"sm_70", 60}, {"sm_75", 63},
                 {"sm_80", 70}, {"sm_90", 78}, {"sm_90a", 80}};
  for (size_t i = 0; i < sizeof targets / sizeof *targets; i++) {
    ks_ctx *ctx = context(targets[i].arch, targets[i].ptx);
    ks_template *t = NULL;
    ks_kernel *k = NULL;
    ks_spec_req req = {0};
    if (ks_template_load_mem(ctx, name, text, strlen(text), &t) != KS_OK ||
        ks_specialize(ctx, t, &req, &k) != KS_OK)
      fail_msg("%s on %s: %s", name, targets[i].arch, ks_errmsg(ctx));
    TU_ASSERT_NOT_CONTAINS(ks_kernel_explain(k), "child process");
    ks_template_destroy(t);
    ks_ctx_destroy(ctx);
  }
}

/* redux.sync compiles in this process where the target has it (sm_80 and
 * PTX ISA 7.0 on: the screen reads the target-cpu bind gives the kernel),
 * and elsewhere in a child, whose codegen refuses it. */
static void redux_by_target(void **state) {
  (void)state;
  static const char text[] =
      "target triple = \"nvptx64-nvidia-cuda\"\n"
      "define void @k(ptr %p, i32 %n) {\n"
      "  %r = call i32 @llvm.nvvm.redux.sync.umax(i32 %n, i32 -1)\n"
      "  store i32 %r, ptr %p\n  ret void\n}\n"
      "declare i32 @llvm.nvvm.redux.sync.umax(i32, i32)\n"
      "!nvvm.annotations = !{!0}\n!0 = !{ptr @k, !\"kernel\", i32 1}\n";
  static const struct {
    const char *arch;
    unsigned ptx;
    int here;
  } targets[] = {
      {"sm_80", 70, 1}, {"sm_90", 78, 1}, {"sm_90a", 80, 1}, {"sm_75", 63, 0}};
  for (size_t i = 0; i < sizeof targets / sizeof *targets; i++) {
    ks_ctx *ctx = context(targets[i].arch, targets[i].ptx);
    ks_template *t = NULL;
    ks_kernel *k = NULL;
    ks_spec_req req = {0};
    if (ks_template_load_mem(ctx, "redux", text, strlen(text), &t) != KS_OK)
      fail_msg("redux: %s", ks_errmsg(ctx));
    ks_status st = ks_specialize(ctx, t, &req, &k);
    if (targets[i].here) {
      if (st != KS_OK)
        fail_msg("redux on %s: %s", targets[i].arch, ks_errmsg(ctx));
      TU_ASSERT_NOT_CONTAINS(ks_kernel_explain(k), "child process");
      const char *ptx = NULL;
      size_t len = 0;
      assert_int_equal(ks_kernel_ptx(k, &ptx, &len), KS_OK);
      TU_ASSERT_CONTAINS(ptx, "redux.sync.max.u32");
    } else {
      assert_int_not_equal(st, KS_OK);
      TU_ASSERT_CONTAINS(ks_errmsg(ctx), "Cannot select");
    }
    ks_template_destroy(t);
    ks_ctx_destroy(ctx);
  }
}

/* Inline asm: codegen runs in this process when every operand is a
 * register its type fits (libdevice's kind, tied and immediate operands
 * and a memory clobber included), in a child otherwise: an operand of
 * another class, an unknown constraint, an operand number out of range. */
static void inline_asm_screen(void **state) {
  (void)state;
  static const char head[] = "target triple = \"nvptx64-nvidia-cuda\"\n"
                             "define void @k(ptr %p, float %x, i32 %i, "
                             "i64 %l, double %d) {\n";
  static const char tail[] = "  ret void\n}\n"
                             "!nvvm.annotations = !{!0}\n"
                             "!0 = !{ptr @k, !\"kernel\", i32 1}\n";
  static const struct {
    const char *body;
    int here;
  } cases[] = {
      {"  %r = call float asm \"rcp.approx.ftz.f32 $0,$1;\", \"=f,f\"(float "
       "%x)\n  store float %r, ptr %p\n",
       1},
      {"  %r = call { i32, i32 } asm \"mul.lo.u32 $0,$2,$3; mul.hi.u32 "
       "$1,$2,$4;\", \"=r,=r,r,r,r\"(i32 %i, i32 %i, i32 %i)\n"
       "  %a = extractvalue { i32, i32 } %r, 1\n  store i32 %a, ptr %p\n",
       1},
      {"  %r = call double asm \"add.rn.f64 $0,$1,$2;\", "
       "\"=d,0,d,~{memory}\"(double %d, double %d)\n"
       "  store double %r, ptr %p\n",
       1},
      {"  %r = call i64 asm \"add.s64 $0,$1,$2;\", \"=l,l,n\"(i64 %l, i64 7)\n"
       "  store i64 %r, ptr %p\n",
       1},
      {"  %r = call i32 asm \"mov.b32 $0,$1;\", \"=r,r\"(float %x)\n"
       "  store i32 %r, ptr %p\n",
       0},
      {"  %r = call i32 asm \"mov.b32 $0,$1;\", \"=r,c\"(i32 %i)\n"
       "  store i32 %r, ptr %p\n",
       0},
      {"  %r = call i32 asm \"mov.b32 $0,$2;\", \"=r,r\"(i32 %i)\n"
       "  store i32 %r, ptr %p\n",
       0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char text[1024];
    snprintf(text, sizeof text, "%s%s%s", head, cases[i].body, tail);
    ks_ctx *ctx = context("sm_90", 78);
    ks_template *t = NULL;
    ks_kernel *k = NULL;
    ks_spec_req req = {0};
    if (ks_template_load_mem(ctx, "asm", text, strlen(text), &t) != KS_OK)
      fail_msg("asm case %zu: %s", i, ks_errmsg(ctx));
    ks_status st = ks_specialize(ctx, t, &req, &k);
    if (cases[i].here) {
      if (st != KS_OK)
        fail_msg("asm case %zu: %s", i, ks_errmsg(ctx));
      TU_ASSERT_NOT_CONTAINS(ks_kernel_explain(k), "child process");
    } else if (st == KS_OK) {
      TU_ASSERT_CONTAINS(ks_kernel_explain(k), "child process");
    }
    ks_template_destroy(t);
    ks_ctx_destroy(ctx);
  }
}

static void nvvm_everywhere(void **state) {
  (void)state;
  static const char *const fixed[] = {"read.ptx.sreg.tid.x",
                                      "read.ptx.sreg.ntid.z",
                                      "read.ptx.sreg.ctaid.y",
                                      "read.ptx.sreg.nctaid.x",
                                      "read.ptx.sreg.warpsize",
                                      "read.ptx.sreg.laneid",
                                      "read.ptx.sreg.smid",
                                      "read.ptx.sreg.lanemask.lt",
                                      "read.ptx.sreg.clock64",
                                      "read.ptx.sreg.globaltimer",
                                      "read.ptx.sreg.envreg2",
                                      "barrier0",
                                      "barrier0.popc",
                                      "bar.sync",
                                      "barrier.sync.cnt",
                                      "bar.warp.sync",
                                      "membar.gl",
                                      "shfl.sync.down.i32",
                                      "shfl.sync.idx.f32p",
                                      "vote.ballot.sync",
                                      "vote.uni.sync",

                                      "mul24.ui",
                                      "mulhi.ull",
                                      "sad.i",
                                      "prmt",
                                      "bitcast.d2ll",
                                      "isspacep.shared",
                                      "fma.rn.ftz.f",
                                      "add.rm.d",
                                      "div.rn.f",
                                      "rcp.rz.d",
                                      "sqrt.approx.ftz.f",
                                      "rsqrt.approx.d",
                                      "sin.approx.f",
                                      "ex2.approx.d",
                                      "lg2.approx.ftz.f",
                                      "fmin.ftz.f",
                                      "fmax.d",
                                      "fabs.f",
                                      "saturate.d",
                                      "floor.ftz.f",
                                      "round.d",
                                      "rcp.approx.ftz.d",
                                      "f2i.rn",
                                      "d2ull.rz",
                                      "ull2f.rm",
                                      "d2f.rn.ftz",
                                      "f2h.rn",
                                      "d2i.hi",
                                      "lohi.i2d"};
  LLVMContextRef c = LLVMContextCreate();
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) {
    char name[96];
    snprintf(name, sizeof name, "llvm.nvvm.%s", fixed[i]);
    char *text = intrinsic_kernel(name, NULL, 0, c);
    if (!text)
      fail_msg("LLVM has no %s", name);
    compiles_everywhere(name, text);
    free(text);
  }
  /* overloaded: loads through the read-only caches and scoped atomics */
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c), i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef f32 = LLVMFloatTypeInContext(c), f64 = LLVMDoubleTypeInContext(c);
  LLVMTypeRef p1 = LLVMPointerTypeInContext(c, 1);
  const struct {
    const char *name;
    LLVMTypeRef ty;
  } over[] = {{"llvm.nvvm.ldg.global.i", LLVMInt8TypeInContext(c)},
              {"llvm.nvvm.ldg.global.i", LLVMVectorType(i64, 2)},
              {"llvm.nvvm.ldu.global.f", LLVMVectorType(f32, 4)},
              {"llvm.nvvm.ldg.global.f", LLVMHalfTypeInContext(c)},
              {"llvm.nvvm.atomic.add.gen.f.cta", f64},
              {"llvm.nvvm.atomic.cas.gen.i.sys", i64},
              {"llvm.nvvm.atomic.inc.gen.i.cta", i32},
              {"llvm.nvvm.atomic.max.gen.i.sys", i64}};
  for (size_t i = 0; i < sizeof over / sizeof *over; i++) {
    LLVMTypeRef ov[2] = {over[i].ty, p1};
    char *text = intrinsic_kernel(over[i].name, ov, 2, c);
    if (!text)
      fail_msg("LLVM has no %s", over[i].name);
    compiles_everywhere(over[i].name, text);
    free(text);
  }
  LLVMContextDispose(c);
}

int main(int argc, char **argv) {
  (void)argc;
  (void)argv;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(corpus_files),      cmocka_unit_test(corpus_ok),
      cmocka_unit_test(bitcode_cut_short), cmocka_unit_test(bitcode_flipped),
      cmocka_unit_test(nvvm_everywhere),   cmocka_unit_test(redux_by_target),
      cmocka_unit_test(inline_asm_screen),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
