/*
 * test_passes.c - passes/: the bind pass on small modules, inspected through
 * the LLVM C API, and the whole pipeline on a built-in template. The
 * FileCheck tests in tests/ir/ cover the printed IR; these check the module
 * itself (uses, constants, metadata, attributes).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <llvm-c/Analysis.h>

#include "ir/ks_ir.h"
#include "jit/ks_jit.h"
#include "passes/ks_passes.h"
#include "test_util.h"

#ifndef KS_TEMPLATE_DIR
#error "KS_TEMPLATE_DIR must name the folder of the built-in templates' .bc"
#endif

typedef struct fixture {
  LLVMContextRef c;
  char sink[KS_IR_DIAG_CAP];
  LLVMModuleRef m;
  ks_diag d;
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
  free(f->d.dump);
  free(f->d.explain);
  if (f->m)
    LLVMDisposeModule(f->m);
  LLVMContextDispose(f->c);
  free(f);
  return 0;
}

/* A kernel storing each of its scalar arguments, reading %ntid, with a
 * marking and clang's target attributes. */
static const char module_k[] =
    "target triple = \"nvptx64-nvidia-cuda\"\n"
    "@.str = private unnamed_addr constant [21 x i8] "
    "c\"kspec.param N 8 1 16\\00\", section \"llvm.metadata\"\n"
    "@.file = private unnamed_addr constant [8 x i8] c\"test.cu\\00\", "
    "section \"llvm.metadata\"\n"
    "@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, "
    "ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @k, ptr @.str, ptr @.file, "
    "i32 3, ptr null }], section \"llvm.metadata\"\n"
    "define void @k(ptr %out, i32 %N, i64 %L, float %F, double %D) #0 {\n"
    "entry:\n"
    "  store volatile i32 %N, ptr %out, align 4\n"
    "  store volatile i64 %L, ptr %out, align 8\n"
    "  store volatile float %F, ptr %out, align 4\n"
    "  store volatile double %D, ptr %out, align 8\n"
    "  %x = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()\n"
    "  %y = call i32 @llvm.nvvm.read.ptx.sreg.ntid.y()\n"
    "  store volatile i32 %x, ptr %out, align 4\n"
    "  store volatile i32 %y, ptr %out, align 4\n"
    "  ret void\n"
    "}\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.ntid.y()\n"
    "declare void @ext(ptr)\n"
    "attributes #0 = { \"target-cpu\"=\"sm_70\" "
    "\"target-features\"=\"+ptx70,+sm_70\" }\n"
    "!nvvm.annotations = !{!0}\n"
    "!0 = !{ptr @k, !\"kernel\", i32 1}\n";

static void parse(fixture *f, const char *text) {
  ks_status s =
      ks_ir_parse(f->c, text, strlen(text), "t", &f->m, f->err, sizeof f->err);
  if (s != KS_OK)
    fail_msg("%s", f->err);
}

static void parse_template(fixture *f, const char *name) {
  char path[512];
  size_t len = 0;
  snprintf(path, sizeof path, "%s/%s.bc", KS_TEMPLATE_DIR, name);
  unsigned char *bc = tu_read_file(path, &len);
  if (!bc)
    fail_msg("cannot read %s", path);
  ks_status s = ks_ir_parse(f->c, bc, len, name, &f->m, f->err, sizeof f->err);
  free(bc);
  if (s != KS_OK)
    fail_msg("%s", f->err);
}

static ks_spec spec_for(const char *kernel) {
  return (ks_spec){
      .kernel = kernel, .cpu = "sm_90", .features = "+ptx85,+sm_90"};
}

static void assert_verifies(LLVMModuleRef m) {
  char *msg = NULL;
  if (LLVMVerifyModule(m, LLVMReturnStatusAction, &msg))
    fail_msg("module broken: %s", msg);
  LLVMDisposeMessage(msg);
}

/* The stored value of the i-th store of fn's entry block. */
static LLVMValueRef stored(LLVMValueRef fn, int i) {
  for (LLVMValueRef in = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(fn));
       in; in = LLVMGetNextInstruction(in))
    if (LLVMIsAStoreInst(in) && i-- == 0)
      return LLVMGetOperand(in, 0);
  fail_msg("no such store");
  return NULL;
}

/* Calls in fn to the function named callee. */
static int count_calls(LLVMValueRef fn, const char *callee) {
  int n = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in;
         in = LLVMGetNextInstruction(in)) {
      if (!LLVMIsACallInst(in))
        continue;
      LLVMValueRef c = LLVMGetCalledValue(in);
      size_t len = 0;
      const char *name = c ? LLVMGetValueName2(c, &len) : "";
      n += len == strlen(callee) && memcmp(name, callee, len) == 0;
    }
  return n;
}

static int count_opcode(LLVMValueRef fn, LLVMOpcode op) {
  int n = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in;
         in = LLVMGetNextInstruction(in))
      n += LLVMGetInstructionOpcode(in) == op;
  return n;
}

/* The value of the nvvm.annotations entry (fn, key), or -1; -2 when there
 * are several. */
static long annotation(LLVMModuleRef m, LLVMValueRef fn, const char *key) {
  unsigned n = LLVMGetNamedMetadataNumOperands(m, "nvvm.annotations");
  LLVMValueRef ops[64];
  assert_true(n <= 64);
  LLVMGetNamedMetadataOperands(m, "nvvm.annotations", ops);
  long found = -1;
  for (unsigned i = 0; i < n; i++) {
    if (LLVMGetMDNodeNumOperands(ops[i]) != 3)
      continue;
    LLVMValueRef f[3];
    LLVMGetMDNodeOperands(ops[i], f);
    unsigned len = 0;
    const char *k = LLVMGetMDString(f[1], &len);
    if (f[0] != fn || !k || len != strlen(key) || memcmp(k, key, len) != 0)
      continue;
    found = found == -1 ? (long)LLVMConstIntGetZExtValue(f[2]) : -2;
  }
  return found;
}

static const char *string_attr(LLVMValueRef fn, const char *key) {
  LLVMAttributeRef a = LLVMGetStringAttributeAtIndex(
      fn, LLVMAttributeFunctionIndex, key, (unsigned)strlen(key));
  unsigned len = 0;
  return a ? LLVMGetStringAttributeValue(a, &len) : NULL;
}

/* ---- stages ------------------------------------------------------------- */

static void stage_names(void **state) {
  (void)state;
  size_t n = ks_pipeline_stage_count();
  assert_true(n >= 3);
  assert_string_equal(ks_pipeline_stage_name(0), "input");
  assert_null(ks_pipeline_stage_name(n));
  long at_inline = -1, at_bind = -1;
  for (size_t i = 0; i < n; i++) {
    const char *s = ks_pipeline_stage_name(i);
    assert_non_null(s);
    for (size_t j = 0; j < i; j++)
      assert_string_not_equal(s, ks_pipeline_stage_name(j));
    if (strcmp(s, "inline") == 0)
      at_inline = (long)i;
    if (strcmp(s, "bind") == 0)
      at_bind = (long)i;
  }
  assert_true(at_bind > 0);
  /* Inlining first, so that helpers' %ntid reads reach the kernel. */
  assert_true(at_inline >= 0 && at_inline < at_bind);
}

static void diag_fail(void **state) {
  (void)state;
  ks_diag d = {0};
  assert_int_equal(ks_diag_fail(&d, KS_EPASS, "stage: %s %d", "x", 7), 1);
  assert_int_equal(d.status, KS_EPASS);
  assert_string_equal(d.msg, "stage: x 7");
  char big[3000];
  memset(big, 'a', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  ks_diag_fail(&d, KS_EBOUNDS, "%s", big);
  assert_int_equal(strlen(d.msg), sizeof d.msg - 1);
}

/* ---- bind --------------------------------------------------------------- */

static void bind_unknown_kernel(void **state) {
  fixture *f = *state;
  parse(f, module_k);
  ks_spec s = spec_for("nosuch");
  assert_int_equal(ks_pass_bind(f->m, &s, &f->d), 1);
  assert_int_equal(f->d.status, KS_ENOKERNEL);
  TU_ASSERT_CONTAINS(f->d.msg, "bind: ");
  TU_ASSERT_CONTAINS(f->d.msg, "nosuch");
  s = spec_for("ext"); /* a declaration is no kernel either */
  assert_int_equal(ks_pass_bind(f->m, &s, &f->d), 1);
  assert_int_equal(f->d.status, KS_ENOKERNEL);
  TU_ASSERT_CONTAINS(f->d.msg, "ext");
}

static void bind_bad_argument(void **state) {
  fixture *f = *state;
  parse(f, module_k);
  ks_spec_value v = {.arg_index = 5, .type = KS_TYPE_I32, .i = 1};
  ks_spec s = spec_for("k");
  s.values = &v;
  s.nvalues = 1;
  assert_int_equal(ks_pass_bind(f->m, &s, &f->d), 1);
  assert_int_equal(f->d.status, KS_EPARAM);
  TU_ASSERT_CONTAINS(f->d.msg, "5");
}

static void bind_values(void **state) {
  fixture *f = *state;
  parse(f, module_k);
  const ks_spec_value v[] = {
      {.arg_index = 1, .type = KS_TYPE_I32, .i = -3},
      {.arg_index = 2, .type = KS_TYPE_I64, .i = INT64_C(1) << 40},
      {.arg_index = 3, .type = KS_TYPE_F32, .f = 0.25},
      {.arg_index = 4, .type = KS_TYPE_F64, .f = -1e-3},
  };
  ks_spec s = spec_for("k");
  s.values = v;
  s.nvalues = 4;
  LLVMValueRef fn = LLVMGetNamedFunction(f->m, "k");
  assert_int_equal(ks_pass_bind(f->m, &s, &f->d), 0);
  assert_verifies(f->m);
  /* Same signature, bound arguments unused. */
  assert_int_equal(LLVMCountParams(fn), 5);
  for (unsigned i = 1; i <= 4; i++)
    assert_null(LLVMGetFirstUse(LLVMGetParam(fn, i)));
  assert_non_null(LLVMGetFirstUse(LLVMGetParam(fn, 0)));
  LLVMValueRef c = stored(fn, 0);
  assert_true(LLVMIsAConstantInt(c));
  assert_int_equal(LLVMConstIntGetSExtValue(c), -3);
  c = stored(fn, 1);
  assert_true(LLVMIsAConstantInt(c));
  assert_int_equal(LLVMConstIntGetSExtValue(c), INT64_C(1) << 40);
  LLVMBool lost = 0;
  c = stored(fn, 2);
  assert_true(LLVMIsAConstantFP(c));
  assert_true(LLVMConstRealGetDouble(c, &lost) == 0.25);
  c = stored(fn, 3);
  assert_true(LLVMIsAConstantFP(c));
  assert_true(LLVMConstRealGetDouble(c, &lost) == -1e-3);
}

static void bind_block(void **state) {
  fixture *f = *state;
  parse(f, module_k);
  ks_spec s = spec_for("k");
  s.block[0] = 96;
  LLVMValueRef fn = LLVMGetNamedFunction(f->m, "k");
  assert_int_equal(count_calls(fn, "llvm.nvvm.read.ptx.sreg.ntid.x"), 1);
  assert_int_equal(ks_pass_bind(f->m, &s, &f->d), 0);
  assert_verifies(f->m);
  assert_int_equal(count_calls(fn, "llvm.nvvm.read.ptx.sreg.ntid.x"), 0);
  LLVMValueRef c = stored(fn, 4);
  assert_true(LLVMIsAConstantInt(c));
  assert_int_equal(LLVMConstIntGetZExtValue(c), 96);
  /* Unbound values and the arguments' uses are left alone. */
  assert_non_null(LLVMGetFirstUse(LLVMGetParam(fn, 1)));
  assert_int_equal(annotation(f->m, fn, "reqntidx"), 96);
  assert_int_equal(annotation(f->m, fn, "reqntidy"), 1);
  assert_int_equal(annotation(f->m, fn, "reqntidz"), 1);
}

static void bind_bounds(void **state) {
  fixture *f = *state;
  parse(f, module_k);
  ks_spec s = spec_for("k");
  s.block[0] = 32;
  s.block[1] = 4;
  s.maxntid = 256;
  s.minctasm = 3;
  s.maxnreg = 40;
  LLVMValueRef fn = LLVMGetNamedFunction(f->m, "k");
  assert_int_equal(ks_pass_bind(f->m, &s, &f->d), 0);
  assert_verifies(f->m);
  assert_int_equal(annotation(f->m, fn, "kernel"), 1);
  assert_int_equal(annotation(f->m, fn, "reqntidx"), 32);
  assert_int_equal(annotation(f->m, fn, "reqntidy"), 4);
  assert_int_equal(annotation(f->m, fn, "reqntidz"), 1);
  /* PTX takes .reqntid or .maxntid; the fixed block is the stronger. */
  assert_int_equal(annotation(f->m, fn, "maxntidx"), -1);
  assert_int_equal(annotation(f->m, fn, "minctasm"), 3);
  assert_int_equal(annotation(f->m, fn, "maxnreg"), 40);
  assert_int_equal(count_calls(fn, "llvm.nvvm.read.ptx.sreg.ntid.y"), 0);
}

static void bind_no_bounds(void **state) {
  fixture *f = *state;
  parse(f, module_k);
  ks_spec s = spec_for("k");
  LLVMValueRef fn = LLVMGetNamedFunction(f->m, "k");
  assert_int_equal(ks_pass_bind(f->m, &s, &f->d), 0);
  assert_int_equal(LLVMGetNamedMetadataNumOperands(f->m, "nvvm.annotations"),
                   1);
  assert_int_equal(count_calls(fn, "llvm.nvvm.read.ptx.sreg.ntid.x"), 1);
}

static void bind_block_over_maxntid(void **state) {
  fixture *f = *state;
  parse(f, module_k);
  ks_spec s = spec_for("k");
  s.block[0] = 64;
  s.block[1] = 4;
  s.maxntid = 128;
  assert_int_equal(ks_pass_bind(f->m, &s, &f->d), 1);
  assert_int_equal(f->d.status, KS_EBOUNDS);
  TU_ASSERT_CONTAINS(f->d.msg, "bind: ");
  TU_ASSERT_CONTAINS(f->d.msg, "128");
}

static void bind_retarget(void **state) {
  fixture *f = *state;
  parse(f, module_k);
  ks_spec s = spec_for("k");
  s.cpu = "sm_86";
  s.features = "+ptx80,+sm_86";
  LLVMValueRef fn = LLVMGetNamedFunction(f->m, "k");
  assert_string_equal(string_attr(fn, "target-cpu"), "sm_70");
  assert_int_equal(ks_pass_bind(f->m, &s, &f->d), 0);
  assert_string_equal(string_attr(fn, "target-cpu"), "sm_86");
  assert_string_equal(string_attr(fn, "target-features"), "+ptx80,+sm_86");
}

static void bind_removes_markings(void **state) {
  fixture *f = *state;
  parse(f, module_k);
  ks_spec s = spec_for("k");
  assert_non_null(LLVMGetNamedGlobal(f->m, "llvm.global.annotations"));
  assert_int_equal(ks_pass_bind(f->m, &s, &f->d), 0);
  assert_null(LLVMGetNamedGlobal(f->m, "llvm.global.annotations"));
  assert_verifies(f->m);
}

/* ---- the pipeline ------------------------------------------------------- */

/* The index of stage `name`, for ks_spec.disabled. */
static unsigned stage_index(const char *name) {
  for (size_t i = 0; i < ks_pipeline_stage_count(); i++)
    if (!strcmp(ks_pipeline_stage_name(i), name))
      return (unsigned)i;
  fail_msg("no stage %s", name);
  return 0;
}

/* Runs the pipeline as jit/ does: the target's data layout first. */
static int run_pipeline(fixture *f, const ks_spec *s) {
  const ks_arch *a = ks_jit_arch_find("sm_90");
  assert_non_null(a);
  LLVMTargetMachineRef tm = ks_jit_target_machine(a, 85);
  assert_non_null(tm);
  LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
  LLVMSetModuleDataLayout(f->m, dl);
  LLVMDisposeTargetData(dl);
  free(f->d.explain); /* one run's explanation at a time */
  f->d.explain = NULL;
  f->d.explain_len = f->d.explain_cap = 0;
  int rc = ks_pipeline_run(&f->m, tm, s, &f->d);
  LLVMDisposeTargetMachine(tm);
  return rc;
}

static void pipeline_conv1d_bound(void **state) {
  fixture *f = *state;
  parse_template(f, "conv1d");
  const ks_spec_value v = {.arg_index = 4, .type = KS_TYPE_I32, .i = 12};
  ks_spec s = spec_for("conv1d");
  s.values = &v;
  s.nvalues = 1;
  s.block[0] = 128;
  for (size_t i = 0; i < ks_pipeline_stage_count(); i++)
    if (!strcmp(ks_pipeline_stage_name(i), "tcoarsen"))
      s.disabled |= 1u << i; /* one thread, one output */
  if (run_pipeline(f, &s))
    fail_msg("%s", f->d.msg);
  assert_verifies(f->m);
  LLVMValueRef fn = LLVMGetNamedFunction(f->m, "conv1d");
  assert_non_null(fn);
  /* Fully unrolled: no phi, one multiply per tap; no %ntid read left. */
  assert_int_equal(count_opcode(fn, LLVMPHI), 0);
  assert_int_equal(count_opcode(fn, LLVMFMul), 12);
  assert_int_equal(count_calls(fn, "llvm.nvvm.read.ptx.sreg.ntid.x"), 0);
  assert_null(LLVMGetFirstUse(LLVMGetParam(fn, 4)));
  assert_int_equal(annotation(f->m, fn, "reqntidx"), 128);
  assert_null(f->d.dump);
}

static void pipeline_conv1d_generic(void **state) {
  fixture *f = *state;
  parse_template(f, "conv1d");
  ks_spec s = spec_for("conv1d");
  if (run_pipeline(f, &s))
    fail_msg("%s", f->d.msg);
  assert_verifies(f->m);
  LLVMValueRef fn = LLVMGetNamedFunction(f->m, "conv1d");
  assert_true(count_opcode(fn, LLVMPHI) > 0);
  assert_non_null(LLVMGetFirstUse(LLVMGetParam(fn, 4)));
  assert_int_equal(count_calls(fn, "llvm.nvvm.read.ptx.sreg.ntid.x"), 1);
}

static void pipeline_dump_stage(void **state) {
  fixture *f = *state;
  parse_template(f, "conv1d");
  ks_spec s = spec_for("conv1d");
  s.dump_stage = "input";
  assert_int_equal(run_pipeline(f, &s), 0);
  assert_non_null(f->d.dump);
  TU_ASSERT_CONTAINS(f->d.dump, "@llvm.global.annotations");
  TU_ASSERT_CONTAINS(f->d.dump, "kspec.param FILTER_LEN");
  free(f->d.dump);
  f->d.dump = NULL;

  LLVMDisposeModule(f->m);
  f->m = NULL;
  parse_template(f, "conv1d");
  s.dump_stage = "bind";
  assert_int_equal(run_pipeline(f, &s), 0);
  assert_non_null(f->d.dump);
  TU_ASSERT_CONTAINS(f->d.dump, "define");
  TU_ASSERT_NOT_CONTAINS(f->d.dump, "@llvm.global.annotations");
}

/* The loops stage keeps tcoarsen its rolled clone of the kernel, only when
 * tcoarsen will run; tcoarsen deletes it. */
static void pipeline_rolled_clone(void **state) {
  fixture *f = *state;
  static const char *const dumps[] = {"loops", "unroll", "tcoarsen", "loops"};
  for (size_t k = 0; k < 4; k++) {
    parse_template(f, "conv1d");
    const ks_spec_value v = {.arg_index = 4, .type = KS_TYPE_I32, .i = 12};
    ks_spec s = spec_for("conv1d");
    s.values = &v;
    s.nvalues = 1;
    s.block[0] = 128;
    s.dump_stage = dumps[k];
    if (k == 3)
      s.disabled |= 1u << stage_index("tcoarsen");
    if (run_pipeline(f, &s))
      fail_msg("%s", f->d.msg);
    assert_non_null(f->d.dump);
    if (k < 2)
      TU_ASSERT_CONTAINS(f->d.dump, "@conv1d.ks.rolled(");
    else
      TU_ASSERT_NOT_CONTAINS(f->d.dump, "ks.rolled");
    free(f->d.dump);
    f->d.dump = NULL;
    LLVMDisposeModule(f->m);
    f->m = NULL;
  }
}

/* tcoarsen marks its kernel's read-only loads ld.global.nc only when the
 * const_promote stage (the read-only path) will run. */
static void pipeline_tcoarsen_readonly(void **state) {
  fixture *f = *state;
  for (int off = 0; off < 2; off++) {
    parse_template(f, "conv1d");
    const ks_spec_value v = {.arg_index = 4, .type = KS_TYPE_I32, .i = 12};
    ks_spec s = spec_for("conv1d");
    s.values = &v;
    s.nvalues = 1;
    s.block[0] = 128;
    s.dump_stage = "tcoarsen";
    if (off)
      s.disabled |= 1u << stage_index("const_promote");
    if (run_pipeline(f, &s))
      fail_msg("%s", f->d.msg);
    TU_ASSERT_CONTAINS(f->d.explain, "tcoarsen: coarsened x by 4");
    if (off)
      TU_ASSERT_NOT_CONTAINS(f->d.dump, "!invariant.load");
    else
      TU_ASSERT_CONTAINS(f->d.dump, "!invariant.load");
    free(f->d.dump);
    f->d.dump = NULL;
    LLVMDisposeModule(f->m);
    f->m = NULL;
  }
}

/* LLVM's passes through the stage's context: a failure names the stage;
 * the context's setting for value names is left as it was. */
static void stage_llvm(void **state) {
  fixture *f = *state;
  parse(f, module_k);
  ks_stage_ctx c = {.m = f->m, .diag = &f->d, .name = "mystage"};
  assert_int_equal(ks_pipeline_llvm(&c, "function(early-cse)"), 0);
  assert_int_equal(ks_pipeline_llvm_unnamed(&c, "function(early-cse)"), 0);
  assert_false(LLVMContextShouldDiscardValueNames(f->c));
  assert_int_equal(ks_pipeline_llvm(&c, "function(no-such-pass)"), 1);
  assert_int_equal(f->d.status, KS_EPASS);
  TU_ASSERT_CONTAINS(f->d.msg, "mystage: ");
  TU_ASSERT_CONTAINS(f->d.msg, "no-such-pass");
}

static void pipeline_failure(void **state) {
  fixture *f = *state;
  parse_template(f, "conv1d");
  ks_spec s = spec_for("conv1d");
  s.block[0] = 512;
  s.maxntid = 256;
  s.dump_stage = "optimize";
  assert_int_equal(run_pipeline(f, &s), 1);
  assert_int_equal(f->d.status, KS_EBOUNDS);
  TU_ASSERT_CONTAINS(f->d.msg, "bind: ");
  assert_null(f->d.dump);
}

/* ---- straight-line screens (straight.c) ------------------------------- */

/* A module's body between the common head and the sreg declarations. */
#define SL_HEAD                                                                \
  "target datalayout = \"e-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\n"        \
  "target triple = \"nvptx64-nvidia-cuda\"\n"                                  \
  "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"                             \
  "declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()\n"

typedef struct sl_case {
  const char *name, *body;
  int slsr, nary;    /* what the screens must say */
  int slsr_rewrites; /* does LLVM's slsr change the module (when run)? */
  int nary_rewrites; /* and nary-reassociate? */
} sl_case;

static const sl_case sl_cases[] = {
    /* b + 3 * s and b + 5 * s: slsr makes the second of the first */
    {"slsr_same_base",
     "define void @k(ptr addrspace(1) %p, i32 %b, i32 %s) {\n"
     "  %m3 = mul i32 %s, 3\n  %x = add i32 %b, %m3\n"
     "  %m5 = mul i32 %s, 5\n  %y = add i32 %b, %m5\n"
     "  store volatile i32 %x, ptr addrspace(1) %p\n"
     "  store volatile i32 %y, ptr addrspace(1) %p\n  ret void\n}\n",
     1, 0, 1, 0},
    /* the bases are two arguments: nothing to share */
    {"slsr_other_base",
     "define void @k(ptr addrspace(1) %p, i32 %b, i32 %c, i32 %s) {\n"
     "  %m3 = mul i32 %s, 3\n  %x = add i32 %b, %m3\n"
     "  %m5 = mul i32 %s, 5\n  %y = add i32 %c, %m5\n"
     "  store volatile i32 %x, ptr addrspace(1) %p\n"
     "  store volatile i32 %y, ptr addrspace(1) %p\n  ret void\n}\n",
     0, 0, 0, 0},
    /* the bases 4 * t and 5 * t differ as linear forms */
    {"slsr_linear_bases",
     "define void @k(ptr addrspace(1) %p, i32 %t, i32 %s) {\n"
     "  %b1 = shl i32 %t, 2\n  %b2 = mul i32 %t, 5\n"
     "  %m3 = mul i32 %s, 3\n  %x = add i32 %b1, %m3\n"
     "  %m5 = mul i32 %s, 5\n  %y = add i32 %b2, %m5\n"
     "  store volatile i32 %x, ptr addrspace(1) %p\n"
     "  store volatile i32 %y, ptr addrspace(1) %p\n  ret void\n}\n",
     0, 0, 0, 0},
    /* the same base, but on two sides of a branch: no basis dominates */
    {"slsr_branches",
     "define void @k(ptr addrspace(1) %p, i32 %b, i32 %s, i1 %c) {\n"
     "entry:\n  br i1 %c, label %a, label %z\n"
     "a:\n  %m3 = mul i32 %s, 3\n  %x = add i32 %b, %m3\n"
     "  store volatile i32 %x, ptr addrspace(1) %p\n  ret void\n"
     "z:\n  %m5 = mul i32 %s, 5\n  %y = add i32 %b, %m5\n"
     "  store volatile i32 %y, ptr addrspace(1) %p\n  ret void\n}\n",
     0, 0, 0, 0},
    /* &p[i] and &p[2 * i]: the second from the first */
    {"slsr_gep_same_object",
     "define void @k(ptr addrspace(1) %p, i64 %i) {\n"
     "  %a = getelementptr i32, ptr addrspace(1) %p, i64 %i\n"
     "  %i2 = mul nsw i64 %i, 2\n"
     "  %b = getelementptr i32, ptr addrspace(1) %p, i64 %i2\n"
     "  store volatile i32 0, ptr addrspace(1) %a\n"
     "  store volatile i32 1, ptr addrspace(1) %b\n  ret void\n}\n",
     1, 0, 1, 0},
    /* &p[i] and &q[2 * i]: two objects */
    {"slsr_gep_two_objects",
     "define void @k(ptr addrspace(1) %p, ptr addrspace(1) %q, i64 %i) {\n"
     "  %a = getelementptr i32, ptr addrspace(1) %p, i64 %i\n"
     "  %i2 = mul nsw i64 %i, 2\n"
     "  %b = getelementptr i32, ptr addrspace(1) %q, i64 %i2\n"
     "  store volatile i32 0, ptr addrspace(1) %a\n"
     "  store volatile i32 1, ptr addrspace(1) %b\n  ret void\n}\n",
     0, 0, 0, 0},
    /* (a + b) + c after a + c: nary-reassociate makes it (a + c) + b */
    {"nary_found",
     "define void @k(ptr addrspace(1) %p, i32 %a, i32 %b, i32 %c) {\n"
     "  %ac = add i32 %a, %c\n"
     "  store volatile i32 %ac, ptr addrspace(1) %p\n"
     "  %ab = add i32 %a, %b\n  %abc = add i32 %ab, %c\n"
     "  store volatile i32 %abc, ptr addrspace(1) %p\n  ret void\n}\n",
     0, 1, 0, 1},
    /* (x * y) * c with no x * c or y * c before it (the histogram's
     * thread count) */
    {"nary_product_missing",
     "define void @k(ptr addrspace(1) %p, i32 %c, i32 %d) {\n"
     "  %x = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
     "  %y = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()\n"
     "  %xd = mul i32 %x, %d\n"
     "  store volatile i32 %xd, ptr addrspace(1) %p\n"
     "  %xy = mul i32 %x, %y\n  %xyc = mul i32 %xy, %c\n"
     "  store volatile i32 %xyc, ptr addrspace(1) %p\n  ret void\n}\n",
     0, 0, 0, 0},
    /* a + c only after (a + b) + c */
    {"nary_after",
     "define void @k(ptr addrspace(1) %p, i32 %a, i32 %b, i32 %c) {\n"
     "  %ab = add i32 %a, %b\n  %abc = add i32 %ab, %c\n"
     "  store volatile i32 %abc, ptr addrspace(1) %p\n"
     "  %ac = add i32 %a, %c\n"
     "  store volatile i32 %ac, ptr addrspace(1) %p\n  ret void\n}\n",
     0, 0, 0, 0},
    /* a + d before (a + b) + c: another sum */
    {"nary_other_sum",
     "define void @k(ptr addrspace(1) %p, i32 %a, i32 %b, i32 %c, i32 %d) {\n"
     "  %ad = add i32 %a, %d\n"
     "  store volatile i32 %ad, ptr addrspace(1) %p\n"
     "  %ab = add i32 %a, %b\n  %abc = add i32 %ab, %c\n"
     "  store volatile i32 %abc, ptr addrspace(1) %p\n  ret void\n}\n",
     0, 0, 0, 0},
    /* the base t + 8 * r moves with the loop, 5 * t does not: no basis */
    {"slsr_induction_base",
     "define void @k(ptr addrspace(1) %p, i32 %t, i32 %s) {\n"
     "entry:\n  %b1 = mul i32 %t, 5\n  %m3 = mul i32 %s, 3\n"
     "  %x = add i32 %b1, %m3\n"
     "  store volatile i32 %x, ptr addrspace(1) %p\n  br label %loop\n"
     "loop:\n  %r = phi i32 [ 0, %entry ], [ %r1, %loop ]\n"
     "  %r8 = shl i32 %r, 3\n  %my = add i32 %t, %r8\n"
     "  %m5 = mul i32 %s, 5\n  %y = add i32 %my, %m5\n"
     "  store volatile i32 %y, ptr addrspace(1) %p\n"
     "  %r1 = add i32 %r, 1\n  %c = icmp ult i32 %r1, 4\n"
     "  br i1 %c, label %loop, label %done\ndone:\n  ret void\n}\n",
     0, 1, 0, 0},
    /* both bases move with the loop, the same way: y from x */
    {"slsr_induction_both",
     "define void @k(ptr addrspace(1) %p, i32 %t, i32 %s) {\n"
     "entry:\n  br label %loop\n"
     "loop:\n  %r = phi i32 [ 0, %entry ], [ %r1, %loop ]\n"
     "  %r8 = shl i32 %r, 3\n  %my = add i32 %t, %r8\n"
     "  %m3 = mul i32 %s, 3\n  %x = add i32 %my, %m3\n"
     "  store volatile i32 %x, ptr addrspace(1) %p\n"
     "  %r8b = mul i32 %r, 8\n  %my2 = add i32 %t, %r8b\n"
     "  %m5 = mul i32 %s, 5\n  %y = add i32 %my2, %m5\n"
     "  store volatile i32 %y, ptr addrspace(1) %p\n"
     "  %r1 = add i32 %r, 1\n  %c = icmp ult i32 %r1, 4\n"
     "  br i1 %c, label %loop, label %done\ndone:\n  ret void\n}\n",
     1, 1, 1, 0},
    /* &p[a] before &p[sext(a + b)] */
    {"nary_gep_found",
     "define void @k(ptr addrspace(1) %p, i32 %a, i32 %b) {\n"
     "  %ea = sext i32 %a to i64\n"
     "  %pa = getelementptr float, ptr addrspace(1) %p, i64 %ea\n"
     "  store volatile float 0.0, ptr addrspace(1) %pa\n"
     "  %ab = add nsw i32 %a, %b\n  %eab = sext i32 %ab to i64\n"
     "  %pab = getelementptr float, ptr addrspace(1) %p, i64 %eab\n"
     "  store volatile float 1.0, ptr addrspace(1) %pab\n  ret void\n}\n",
     0, 1, 0, 1},
};

/* Runs LLVM's pass on m; did the printed module change? */
static int pass_changes(LLVMModuleRef m, LLVMTargetMachineRef tm,
                        const char *pass) {
  char *before = LLVMPrintModuleToString(m);
  ks_diag d = {0};
  ks_stage_ctx c = {.m = m, .tm = tm, .diag = &d, .name = "test"};
  if (ks_pipeline_llvm(&c, pass))
    fail_msg("%s", d.msg);
  char *after = LLVMPrintModuleToString(m);
  int changed = strcmp(before, after) != 0;
  LLVMDisposeMessage(before);
  LLVMDisposeMessage(after);
  return changed;
}

/* bake_globals on a constant index whose byte offset overflows 64 bits
 * (4 * (2^62 + 1) wraps to 4): that load is kept, not baked from tab[1];
 * the load at a true offset (tab[2]) is baked. Canonicalization would fold
 * the index first, so the pass is run on the IR as written. */
static const char module_wrap[] =
    "target triple = \"nvptx64-nvidia-cuda\"\n"
    "@tab = addrspace(4) externally_initialized global [4 x i32] "
    "[i32 10, i32 20, i32 30, i32 40], align 4\n"
    "define void @wrap(ptr %out) {\n"
    "  %p = getelementptr [4 x i32], ptr addrspace(4) @tab, i64 0, "
    "i64 4611686018427387905\n"
    "  %v = load i32, ptr addrspace(4) %p, align 4\n"
    "  store i32 %v, ptr %out, align 4\n"
    "  %q = getelementptr [4 x i32], ptr addrspace(4) @tab, i64 0, i64 2\n"
    "  %w = load i32, ptr addrspace(4) %q, align 4\n"
    "  store i32 %w, ptr %out, align 4\n"
    "  ret void\n"
    "}\n"
    "!nvvm.annotations = !{!0}\n"
    "!0 = !{ptr @wrap, !\"kernel\", i32 1}\n";

static void bake_global_offset_overflow(void **state) {
  fixture *f = *state;
  parse(f, module_wrap);
  ks_spec_bake b = {.global = "tab"};
  ks_spec s = spec_for("wrap");
  s.bakes = &b;
  s.nbakes = 1;
  LLVMValueRef fn = LLVMGetNamedFunction(f->m, "wrap");
  assert_int_equal(ks_bake_globals(f->m, fn, &s, &f->d), 0);
  assert_non_null(LLVMIsALoadInst(stored(fn, 0)));
  assert_non_null(LLVMIsAConstantInt(stored(fn, 1)));
  assert_int_equal(LLVMConstIntGetSExtValue(stored(fn, 1)), 30);
  TU_ASSERT_CONTAINS(f->d.explain, "global tab: 1 loads kept: offset not "
                                   "constant");
  assert_verifies(f->m);
}

/* Each screen says what it must on small modules, and where it says no,
 * LLVM's pass indeed leaves the module as it is; where the case says the
 * pass rewrites, it does (so the no cases are not vacuous). */
static void straight_screens(void **state) {
  fixture *f = *state;
  const ks_arch *a = ks_jit_arch_find("sm_90");
  assert_non_null(a);
  LLVMTargetMachineRef tm = ks_jit_target_machine(a, 85);
  assert_non_null(tm);
  for (size_t i = 0; i < sizeof sl_cases / sizeof sl_cases[0]; i++) {
    const sl_case *c = &sl_cases[i];
    char text[4096];
    snprintf(text, sizeof text, "%s%s", SL_HEAD, c->body);
    for (int pass = 0; pass < 2; pass++) {
      parse(f, text);
      int says = pass ? ks_lower_nary(f->m) : ks_lower_slsr(f->m);
      if (says != (pass ? c->nary : c->slsr))
        fail_msg("%s: the %s screen says %d", c->name, pass ? "nary" : "slsr",
                 says);
      int changed = pass_changes(
          f->m, tm, pass ? "function(nary-reassociate)" : "function(slsr)");
      if (changed != (pass ? c->nary_rewrites : c->slsr_rewrites))
        fail_msg("%s: LLVM's %s %s the module", c->name,
                 pass ? "nary-reassociate" : "slsr",
                 changed ? "changed" : "left");
      if (!says && changed)
        fail_msg("%s: screened out, yet the pass found work", c->name);
      LLVMDisposeModule(f->m);
      f->m = NULL;
    }
  }
  LLVMDisposeTargetMachine(tm);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(stage_names),
      cmocka_unit_test(diag_fail),
      cmocka_unit_test_setup_teardown(bind_unknown_kernel, setup, teardown),
      cmocka_unit_test_setup_teardown(bind_bad_argument, setup, teardown),
      cmocka_unit_test_setup_teardown(bind_values, setup, teardown),
      cmocka_unit_test_setup_teardown(bind_block, setup, teardown),
      cmocka_unit_test_setup_teardown(bind_bounds, setup, teardown),
      cmocka_unit_test_setup_teardown(bind_no_bounds, setup, teardown),
      cmocka_unit_test_setup_teardown(bind_block_over_maxntid, setup, teardown),
      cmocka_unit_test_setup_teardown(bind_retarget, setup, teardown),
      cmocka_unit_test_setup_teardown(bind_removes_markings, setup, teardown),
      cmocka_unit_test_setup_teardown(pipeline_conv1d_bound, setup, teardown),
      cmocka_unit_test_setup_teardown(pipeline_conv1d_generic, setup, teardown),
      cmocka_unit_test_setup_teardown(pipeline_dump_stage, setup, teardown),
      cmocka_unit_test_setup_teardown(pipeline_failure, setup, teardown),
      cmocka_unit_test_setup_teardown(pipeline_rolled_clone, setup, teardown),
      cmocka_unit_test_setup_teardown(pipeline_tcoarsen_readonly, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(stage_llvm, setup, teardown),
      cmocka_unit_test_setup_teardown(straight_screens, setup, teardown),
      cmocka_unit_test_setup_teardown(bake_global_offset_overflow, setup,
                                      teardown),
  };
  return cmocka_run_group_tests_name("passes", tests, NULL, NULL);
}
