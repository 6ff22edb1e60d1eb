/*
 * screen.c - rejects, before codegen, IR the NVPTX backend cannot compile.
 *
 * LLVM's instruction selector ends the process (report_fatal_error) on
 * operations NVPTX has no instruction for, such as llvm.sin.f32 without
 * fast-math flags or llvm.pow. Codegen therefore only ever sees calls to
 * intrinsics on a list known to select, and no calls to functions that no
 * library provides (kspec links no libdevice).
 */
#include <string.h>

#include "ir/ks_ir.h"

/* Intrinsic name prefixes the NVPTX backend selects or expands for any
 * operand type it is given by clang or the optimizer. */
static const char *const allowed[] = {
    "llvm.nvvm.",
    "llvm.memcpy.",
    "llvm.memmove.",
    "llvm.memset.",
    "llvm.lifetime.",
    "llvm.assume",
    "llvm.expect",
    "llvm.fma.",
    "llvm.fmuladd.",
    "llvm.sqrt.",
    "llvm.fabs.",
    "llvm.minnum.",
    "llvm.maxnum.",
    "llvm.minimum.",
    "llvm.maximum.",
    "llvm.floor.",
    "llvm.ceil.",
    "llvm.trunc.",
    "llvm.rint.",
    "llvm.nearbyint.",
    "llvm.roundeven.",
    "llvm.copysign.",
    "llvm.ctpop.",
    "llvm.ctlz.",
    "llvm.cttz.",
    "llvm.bswap.",
    "llvm.bitreverse.",
    "llvm.fshl.",
    "llvm.fshr.",
    "llvm.abs.",
    "llvm.smin.",
    "llvm.smax.",
    "llvm.umin.",
    "llvm.umax.",
    "llvm.sadd.",
    "llvm.uadd.",
    "llvm.ssub.",
    "llvm.usub.",
    "llvm.smul.with.",
    "llvm.umul.with.",
    "llvm.vector.reduce.",
    "llvm.trap",
    "llvm.debugtrap",
    "llvm.ubsantrap",
    "llvm.ptrmask.",
    "llvm.annotation.",
    "llvm.var.annotation",
    "llvm.ptr.annotation.",
    "llvm.dbg.",
    "llvm.invariant.",
    "llvm.launder.invariant.",
    "llvm.strip.invariant.",
    "llvm.stacksave",
    "llvm.stackrestore",
    "llvm.experimental.noalias.scope.decl",
    "llvm.is.constant.",
    "llvm.objectsize.",
    "llvm.prefetch",
    "llvm.donothing",
    "llvm.threadlocal.address.",
};

/* Functions the CUDA driver provides to every module. */
static const char *const runtime[] = {"vprintf", "malloc", "free",
                                      "__assertfail"};

static int listed(const char *name, size_t len, const char *const *list,
                  size_t n, int prefix) {
  for (size_t i = 0; i < n; i++) {
    size_t l = strlen(list[i]);
    if (prefix ? len >= l && memcmp(name, list[i], l) == 0
               : len == l && memcmp(name, list[i], l) == 0)
      return 1;
  }
  return 0;
}

/* Checks one called declaration. */
static ks_status check_callee(LLVMValueRef callee, LLVMValueRef caller,
                              const char *tname, char *err, size_t cap) {
  size_t len = 0, clen = 0;
  const char *name = LLVMGetValueName2(callee, &len);
  const char *cname = LLVMGetValueName2(caller, &clen);
  if (LLVMGetIntrinsicID(callee)) {
    if (listed(name, len, allowed, sizeof allowed / sizeof *allowed, 1))
      return KS_OK;
    return ks_fail(err, cap, KS_ECODEGEN,
                   "codegen: %s: '%.*s' calls %.*s, which the NVPTX backend "
                   "cannot compile (use the llvm.nvvm.* form, e.g. "
                   "__nvvm_sin_approx_f)",
                   tname, (int)clen, cname, (int)len, name);
  }
  if (listed(name, len, runtime, sizeof runtime / sizeof *runtime, 0))
    return KS_OK;
  return ks_fail(err, cap, KS_ECODEGEN,
                 "codegen: %s: '%.*s' calls external function '%.*s', which "
                 "nothing provides (kspec links no libdevice)",
                 tname, (int)clen, cname, (int)len, name);
}

ks_status ks_ir_screen(LLVMModuleRef m, const char *tname, char *err,
                       size_t cap) {
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn;
       fn = LLVMGetNextFunction(fn)) {
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
         bb = LLVMGetNextBasicBlock(bb)) {
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i)) {
        if (!LLVMIsACallInst(i) && !LLVMIsAInvokeInst(i) &&
            !LLVMIsACallBrInst(i))
          continue;
        LLVMValueRef callee = LLVMGetCalledValue(i);
        if (!callee || !LLVMIsAFunction(callee) || !LLVMIsDeclaration(callee))
          continue;
        ks_status s = check_callee(callee, fn, tname, err, cap);
        if (s != KS_OK)
          return s;
      }
    }
  }
  return KS_OK;
}
