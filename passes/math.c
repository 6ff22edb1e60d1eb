/*
 * math.c - the math stage, right after bind: the request's floating-point
 * modes, and the libdevice functions the libdevice stage linked made part
 * of the kernel.
 *
 * libdevice (and IR that clang's CUDA mode linked it into) asks at run
 * time what it was compiled for through __nvvm_reflect: __CUDA_ARCH (bind
 * answers it), __CUDA_FTZ, __CUDA_PREC_DIV and __CUDA_PREC_SQRT. Every
 * query is answered here, before kspec's own passes look at the kernel,
 * as nvcc's flags would: flush to zero when the request asks for it (or
 * the module's nvvm-reflect-ftz flag says so, as clang sets it for
 * -fgpu-flush-denormals-to-zero), IEEE division and square root unless the
 * request asks for the approximate ones. The kernel's own arithmetic
 * follows the same modes: flush to zero is the functions' f32 denormal
 * mode (NVPTX then emits the .ftz forms), an approximate division is
 * div.approx (full range: a divisor over 2^126 is scaled by 1/4 with its
 * dividend first, as div.full does; fast math leaves that out, as nvcc's
 * --use_fast_math and __fdividef do), an approximate square root
 * sqrt.approx; and fast math calls libdevice's fast forms (__nv_fast_expf
 * for __nv_expf). Queries of other names are left to the optimize stage's
 * nvvm-reflect, which answers 0.
 *
 * libdevice's own arithmetic is made contractable, as nvcc's default
 * -fmad=true has it.
 *
 * With the queries answered, the linked libdevice functions are inlined
 * (they are alwaysinline) and those left without a call removed, so that
 * the later stages see straight code in which the other branches of each
 * query fold away.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/ks_passes.h"

/* The module flag nvvm-reflect-ftz, 0 when absent. */
static int module_ftz(LLVMModuleRef m) {
  LLVMMetadataRef md = LLVMGetModuleFlag(m, "nvvm-reflect-ftz", 16);
  if (!md)
    return 0;
  /* a flag's value is constant metadata: read through a node holding it */
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMValueRef node = LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, &md, 1));
  LLVMValueRef v = NULL;
  LLVMGetMDNodeOperands(node, &v);
  return v && LLVMIsAConstantInt(v) && LLVMConstIntGetZExtValue(v) != 0;
}

typedef struct answers {
  long arch, ftz, prec_div, prec_sqrt;
  int asked[4]; /* which were asked, for the explanation */
} answers;

/* The answer to query q (n bytes), or -1 when it is not one of ours. */
static long answer(answers *a, const char *q, size_t n) {
  static const char *const names[] = {"__CUDA_ARCH", "__CUDA_FTZ",
                                      "__CUDA_PREC_DIV", "__CUDA_PREC_SQRT"};
  const long v[] = {a->arch, a->ftz, a->prec_div, a->prec_sqrt};
  for (int i = 0; i < 4; i++)
    if (n == strlen(names[i]) && memcmp(q, names[i], n) == 0 &&
        (i > 0 || a->arch > 0)) {
      a->asked[i] = 1;
      return v[i];
    }
  return -1;
}

/* Answers every reflect query of m that answer() knows. */
static void reflect(LLVMModuleRef m, answers *a) {
  static const char *const fns[] = {"__nvvm_reflect", "llvm.nvvm.reflect"};
  for (size_t f = 0; f < 2; f++) {
    LLVMValueRef fn = LLVMGetNamedFunction(m, fns[f]);
    LLVMUseRef next;
    for (LLVMUseRef u = fn ? LLVMGetFirstUse(fn) : NULL; u; u = next) {
      next = LLVMGetNextUse(u);
      LLVMValueRef call = LLVMGetUser(u);
      size_t n = 0;
      const char *q = NULL;
      if (LLVMIsACallInst(call) && LLVMGetCalledValue(call) == fn &&
          LLVMGetNumArgOperands(call) == 1 &&
          LLVMGetTypeKind(LLVMTypeOf(call)) == LLVMIntegerTypeKind)
        q = ks_ir_reflect_query(call, &n);
      long v = q ? answer(a, q, n) : -1;
      if (v < 0)
        continue;
      LLVMReplaceAllUsesWith(
          call, LLVMConstInt(LLVMTypeOf(call), (unsigned long)v, 0));
      LLVMInstructionEraseFromParent(call);
    }
  }
}

/* ---- the kernel's own arithmetic ------------------------------------------
 */

static void set_ftz(LLVMModuleRef m) {
  static const char k[] = "denormal-fp-math-f32",
                    v[] = "preserve-sign,preserve-sign";
  LLVMContextRef c = LLVMGetModuleContext(m);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f)) {
      LLVMRemoveStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, k,
                                       sizeof k - 1);
      LLVMAddAttributeAtIndex(
          f, LLVMAttributeFunctionIndex,
          LLVMCreateStringAttribute(c, k, sizeof k - 1, v, sizeof v - 1));
    }
}

/* div.approx of a and b at the builder; full range unless fast. */
static LLVMValueRef approx_div(LLVMModuleRef m, LLVMBuilderRef b,
                               LLVMValueRef x, LLVMValueRef y, int ftz,
                               int fast) {
  LLVMTypeRef f32 = LLVMTypeOf(x);
  if (!fast) {
    LLVMTypeRef t[] = {f32};
    LLVMValueRef ay = ks_ir_call_overloaded(m, b, "llvm.fabs", t, 1, &y, 1);
    LLVMValueRef big =
        LLVMBuildFCmp(b, LLVMRealOGT, ay, LLVMConstReal(f32, 0x1p126), "");
    LLVMValueRef s = LLVMBuildSelect(b, big, LLVMConstReal(f32, 0.25),
                                     LLVMConstReal(f32, 1.0), "");
    x = LLVMBuildFMul(b, x, s, "");
    y = LLVMBuildFMul(b, y, s, "");
  }
  LLVMValueRef args[] = {x, y};
  return ks_ir_call_intrinsic(
      m, b, ftz ? "llvm.nvvm.div.approx.ftz.f" : "llvm.nvvm.div.approx.f", args,
      2);
}

/* f32 divisions and square roots become the approximate ones. */
static void approx_ops(LLVMModuleRef m, int div, int sqrt, int ftz, int fast) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
         bb = LLVMGetNextBasicBlock(bb)) {
      LLVMValueRef next;
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = next) {
        next = LLVMGetNextInstruction(i);
        if (LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMFloatTypeKind)
          continue;
        LLVMValueRef r = NULL;
        LLVMPositionBuilderBefore(b, i);
        if (div && LLVMGetInstructionOpcode(i) == LLVMFDiv) {
          r = approx_div(m, b, LLVMGetOperand(i, 0), LLVMGetOperand(i, 1), ftz,
                         fast);
        } else if (sqrt && LLVMIsACallInst(i) &&
                   strcmp(ks_ir_callee_name(i), "llvm.sqrt.f32") == 0) {
          LLVMValueRef a = LLVMGetOperand(i, 0);
          r = ks_ir_call_intrinsic(m, b,
                                   ftz ? "llvm.nvvm.sqrt.approx.ftz.f"
                                       : "llvm.nvvm.sqrt.approx.f",
                                   &a, 1);
        }
        if (r) {
          LLVMReplaceAllUsesWith(i, r);
          LLVMInstructionEraseFromParent(i);
        }
      }
    }
  LLVMDisposeBuilder(b);
}

/* Calls of libdevice functions that have a fast form call that instead. */
static void fast_forms(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f;
       f = LLVMGetNextFunction(f)) {
    const char *quick =
        ks_libdevice_fast_form(LLVMGetValueName2(f, &(size_t){0}));
    LLVMValueRef q = quick ? LLVMGetNamedFunction(m, quick) : NULL;
    if (!q || LLVMIsDeclaration(q) ||
        LLVMGlobalGetValueType(q) != LLVMGlobalGetValueType(f))
      continue;
    LLVMUseRef next;
    for (LLVMUseRef u = LLVMGetFirstUse(f); u; u = next) {
      next = LLVMGetNextUse(u);
      LLVMValueRef call = LLVMGetUser(u);
      if (LLVMIsACallInst(call) && LLVMGetCalledValue(call) == f)
        LLVMSetOperand(call, (unsigned)LLVMGetNumOperands(call) - 1, q);
    }
  }
}

/* ---- libdevice's functions ---------------------------------------------- */

int ks_math_libdevice_fn(LLVMValueRef f) {
  size_t len = 0;
  const char *name = LLVMGetValueName2(f, &len);
  return !LLVMIsDeclaration(f) && (strncmp(name, "__nv_", 5) == 0 ||
                                   strncmp(name, "__internal_", 11) == 0);
}

/* libdevice's own f32 and f64 multiplies, adds and subtracts may be
 * contracted, as nvcc contracts them by default (-fmad=true, ptxas fusing
 * its mul.f32 into the add.f32 that takes it): each gets the contract flag
 * clang gives a kernel's own arithmetic, so that codegen fuses them alike.
 * Without it codegen keeps them apart (mul.rn, add.rn) and the function
 * computes other bits than nvcc's build of the same call. */
static void contract_libdevice(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (ks_math_libdevice_fn(f))
      for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
           bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
             i = LLVMGetNextInstruction(i)) {
          LLVMOpcode op = LLVMGetInstructionOpcode(i);
          if ((op == LLVMFAdd || op == LLVMFSub || op == LLVMFMul) &&
              LLVMCanValueUseFastMathFlags(i))
            LLVMSetFastMathFlags(i, LLVMGetFastMathFlags(i) |
                                        LLVMFastMathAllowContract);
        }
}

/* The lines of kspec.libdevice (the libdevice stage's record), each
 * NUL-terminated in its own slot of *lines (malloc'd); their count. */
enum { LINE_CAP = 256 };
static unsigned record_lines(LLVMModuleRef m, char (**lines)[LINE_CAP]) {
  unsigned n = LLVMGetNamedMetadataNumOperands(m, "kspec.libdevice");
  LLVMValueRef *ops = n ? calloc(n, sizeof *ops) : NULL;
  *lines = ops ? calloc(n, sizeof **lines) : NULL;
  if (!*lines) {
    free(ops);
    return 0;
  }
  LLVMGetNamedMetadataOperands(m, "kspec.libdevice", ops);
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef s = NULL;
    unsigned len = 0;
    LLVMGetMDNodeOperands(ops[i], &s);
    const char *t = s ? LLVMGetMDString(s, &len) : NULL;
    if (t)
      snprintf((*lines)[i], LINE_CAP, "%.*s", (int)len, t);
  }
  free(ops);
  return n;
}

/* The intrinsics the libdevice stage made calls of name, ", "-separated,
 * into buf. */
static void mapped_to(char (*lines)[LINE_CAP], unsigned n, const char *name,
                      char *buf, size_t cap) {
  size_t used = 0;
  buf[0] = '\0';
  for (unsigned i = 0; i < n && used + 1 < cap; i++) {
    const char *sp =
        strncmp(lines[i], "map ", 4) == 0 ? strchr(lines[i] + 4, ' ') : NULL;
    if (sp && strcmp(sp + 1, name) == 0)
      used +=
          (size_t)snprintf(buf + used, cap - used, "%s%.*s", used ? ", " : "",
                           (int)(sp - lines[i] - 4), lines[i] + 4);
  }
}

/* Into buf: the libdevice functions called now (a fast form as such, and
 * the intrinsics each stands for), and the library. */
static void linked_text(LLVMModuleRef m, char *buf, size_t cap) {
  char(*lines)[LINE_CAP] = NULL;
  unsigned n = record_lines(m, &lines);
  size_t used = 0;
  const char *path = "";
  char maps[LINE_CAP];
  buf[0] = '\0';
  for (unsigned i = 0; i < n && used + 1 < cap; i++) {
    const char *t = lines[i];
    if (strncmp(t, "libdevice ", 10) == 0)
      path = t + 10;
    if (strncmp(t, "fn ", 3) != 0)
      continue;
    LLVMValueRef f = LLVMGetNamedFunction(m, t + 3);
    const char *quick = ks_libdevice_fast_form(t + 3);
    LLVMValueRef q = quick ? LLVMGetNamedFunction(m, quick) : NULL;
    const char *called = f && LLVMGetFirstUse(f)   ? t + 3
                         : q && LLVMGetFirstUse(q) ? quick
                                                   : NULL;
    if (!called)
      continue;
    mapped_to(lines, n, t + 3, maps, sizeof maps);
    used += (size_t)snprintf(buf + used, cap - used, "%s%s", used ? ", " : "",
                             called);
    if (called != t + 3 || maps[0])
      used += (size_t)snprintf(
          buf + used, cap - used, " (for %s%s%s)", maps[0] ? maps : "",
          maps[0] && called != t + 3 ? ", " : "", called != t + 3 ? t + 3 : "");
  }
  if (used && used + 1 < cap)
    snprintf(buf + used, cap - used, "; from %s", path);
  free(lines);
}

/* Internal functions named __nv_* without a call are removed (those fast
 * math or folding left behind), until none is left. */
static void drop_unused(LLVMModuleRef m) {
  for (int again = 1; again;) {
    again = 0;
    LLVMValueRef next;
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = next) {
      next = LLVMGetNextFunction(f);
      if (ks_math_libdevice_fn(f) && !LLVMGetFirstUse(f) &&
          LLVMGetLinkage(f) == LLVMInternalLinkage) {
        LLVMDeleteFunction(f);
        again = 1;
      }
    }
  }
}

static void explain_modes(ks_stage_ctx *c, const answers *a) {
  unsigned fp = c->spec->fp;
  const char *what[4];
  int n = 0;
  if (fp & KS_FP_FAST_MATH)
    what[n++] = "fast math (libdevice's fast forms)";
  if (a->ftz)
    what[n++] = "f32 denormals flushed to zero";
  if (!a->prec_div)
    what[n++] = "approximate f32 division";
  if (!a->prec_sqrt)
    what[n++] = "approximate sqrtf";
  if (fp && n)
    ks_diag_explain(c->diag, c->name, "floating point: %s%s%s%s%s%s%s", what[0],
                    n > 1 ? ", " : "", n > 1 ? what[1] : "", n > 2 ? ", " : "",
                    n > 2 ? what[2] : "", n > 3 ? ", " : "",
                    n > 3 ? what[3] : "");
  if (a->asked[1] || a->asked[2] || a->asked[3])
    ks_diag_explain(
        c->diag, c->name, "__nvvm_reflect answered:%s%s%s",
        a->asked[1] ? (a->ftz ? " __CUDA_FTZ=1" : " __CUDA_FTZ=0") : "",
        a->asked[2]
            ? (a->prec_div ? " __CUDA_PREC_DIV=1" : " __CUDA_PREC_DIV=0")
            : "",
        a->asked[3]
            ? (a->prec_sqrt ? " __CUDA_PREC_SQRT=1" : " __CUDA_PREC_SQRT=0")
            : "");
}

/* ---- the stage run ahead of bind ------------------------------------------
 *
 * What the stage does to a template that links libdevice depends on the
 * template, its target and the request's floating-point modes, not on the
 * values bind folds: jit/ runs it once per prepared template and modes
 * (ks_pipeline_math_ahead) and specializes copies of the result, so that
 * a specialization neither copies the library's functions nor inlines
 * them. The named metadata kspec.math marks such a module and keeps the
 * stage's explanation, which the stage gives again at its place in the
 * pipeline. */
static const char ahead_md[] = "kspec.math";

int ks_math_ahead_worth(LLVMModuleRef m) {
  if (LLVMGetNamedMetadataNumOperands(m, "kspec.libdevice") == 0 ||
      LLVMGetNamedMetadataNumOperands(m, ahead_md) > 0)
    return 0;
  /* The tex stage's inlining of sampling functions, before the math
   * stage, inlines the library's functions too: not ahead, then. */
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && ks_tex_is_sampler(f))
      return 0;
  return 1;
}

void ks_math_mark_ahead(LLVMModuleRef m, const char *explain) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMMetadataRef s = LLVMMDStringInContext2(c, explain, strlen(explain));
  LLVMAddNamedMetadataOperand(
      m, ahead_md, LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, &s, 1)));
}

/* The explanation kept by ks_math_mark_ahead ("math: ...\n" lines), given
 * again; 0 when m was not marked. */
static int replay_ahead(ks_stage_ctx *c) {
  LLVMValueRef node = NULL, s = NULL;
  if (LLVMGetNamedMetadataNumOperands(c->m, ahead_md) != 1)
    return 0;
  LLVMGetNamedMetadataOperands(c->m, ahead_md, &node);
  LLVMGetMDNodeOperands(node, &s);
  unsigned len = 0;
  const char *t = s ? LLVMGetMDString(s, &len) : NULL;
  if (!t)
    return 1;
  for (const char *end = t + len; t < end;) {
    const char *nl = memchr(t, '\n', (size_t)(end - t));
    const char *colon = memchr(t, ':', (size_t)((nl ? nl : end) - t));
    const char *text = colon && colon + 2 <= (nl ? nl : end) ? colon + 2 : t;
    ks_diag_explain(c->diag, c->name, "%.*s", (int)((nl ? nl : end) - text),
                    text);
    t = nl ? nl + 1 : end;
  }
  return 1;
}

int ks_pass_math(ks_stage_ctx *c) {
  LLVMModuleRef m = c->m;
  const ks_spec *s = c->spec;
  unsigned fp = s->fp, sm = 0;
  int fast = (fp & KS_FP_FAST_MATH) != 0;
  int linked = LLVMGetNamedMetadataNumOperands(m, "kspec.libdevice") > 0;
  int reflects = LLVMGetNamedFunction(m, "__nvvm_reflect") ||
                 LLVMGetNamedFunction(m, "llvm.nvvm.reflect");
  if (!fp && !linked && !reflects)
    return 0; /* the usual kernel: nothing to do */
  if (s->cpu)
    sscanf(s->cpu, "sm_%u", &sm);
  answers a = {
      .arch = (long)sm * 10,
      .ftz = (fp & (KS_FP_FTZ | KS_FP_FAST_MATH)) || module_ftz(m),
      .prec_div = !(fp & (KS_FP_APPROX_DIV | KS_FP_FAST_MATH)),
      .prec_sqrt = !(fp & (KS_FP_APPROX_SQRT | KS_FP_FAST_MATH)),
  };
  /* Run ahead, the modes are applied again, for what bind and the tex
   * stage made since (tex's fetch functions divide): the rest found
   * nothing left to change then. */
  reflect(m, &a);
  if (fp & (KS_FP_FTZ | KS_FP_FAST_MATH))
    set_ftz(m);
  if (fast)
    fast_forms(m);
  if (!a.prec_div || !a.prec_sqrt)
    approx_ops(m, !a.prec_div, !a.prec_sqrt, (int)a.ftz, fast);
  if (replay_ahead(c))
    return 0;
  explain_modes(c, &a);
  contract_libdevice(m);
  if (!linked)
    return 0;
  drop_unused(m);
  char text[1536];
  linked_text(m, text, sizeof text);
  if (text[0])
    ks_diag_explain(c->diag, c->name, "libdevice functions linked: %s", text);
  if (c->inline_later)
    return 0; /* ks_pipeline_math_ahead splits the module first */
  return ks_pipeline_llvm(c, "always-inline");
}
