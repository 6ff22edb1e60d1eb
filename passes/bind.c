/*
 * bind.c - the bind pass: run-time values become compile-time constants.
 *
 * Bound arguments are replaced by constants (the argument stays, unused, so
 * the launch signature does not change); a fixed block size replaces the
 * kernel's reads of %ntid; launch bounds become nvvm.annotations entries,
 * which the NVPTX backend turns into .reqntid/.maxntid/.minnctapersm/
 * .maxnreg; every function is retargeted to the requested sm and PTX ISA,
 * since clang records its own target in function attributes, and
 * __nvvm_reflect("__CUDA_ARCH") is answered for that sm.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "passes/ks_passes.h"

int ks_diag_fail(ks_diag *d, ks_status s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(d->msg, sizeof d->msg, fmt, ap);
  va_end(ap);
  d->status = s;
  return 1;
}

static LLVMValueRef value_constant(LLVMTypeRef ty, const ks_spec_value *v) {
  if (v->type == KS_TYPE_F32 || v->type == KS_TYPE_F64)
    return LLVMConstReal(ty, v->f);
  return LLVMConstInt(ty, (unsigned long long)v->i, 1);
}

static int bind_values(LLVMValueRef fn, const ks_spec *s, ks_diag *d) {
  for (size_t i = 0; i < s->nvalues; i++) {
    const ks_spec_value *v = &s->values[i];
    if (v->arg_index >= LLVMCountParams(fn))
      return ks_diag_fail(d, KS_EPARAM, "bind: kernel '%s' has no argument %u",
                          s->kernel, v->arg_index);
    LLVMValueRef arg = LLVMGetParam(fn, v->arg_index);
    LLVMReplaceAllUsesWith(arg, value_constant(LLVMTypeOf(arg), v));
  }
  return 0;
}

/* Which %ntid component a call reads: 0..2, or -1. */
static int ntid_component(LLVMValueRef inst) {
  if (!LLVMIsACallInst(inst))
    return -1;
  LLVMValueRef callee = LLVMGetCalledValue(inst);
  if (!callee || !LLVMIsAFunction(callee))
    return -1;
  size_t len = 0;
  const char *name = LLVMGetValueName2(callee, &len);
  static const char prefix[] = "llvm.nvvm.read.ptx.sreg.ntid.";
  if (len != sizeof prefix || memcmp(name, prefix, sizeof prefix - 1) != 0)
    return -1;
  char c = name[sizeof prefix - 1];
  return c >= 'x' && c <= 'z' ? c - 'x' : -1;
}

static void bind_block(LLVMValueRef fn, const ks_spec *s) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef inst = LLVMGetFirstInstruction(bb);
    while (inst) {
      LLVMValueRef next = LLVMGetNextInstruction(inst);
      int c = ntid_component(inst);
      if (c >= 0 && s->block[c]) {
        LLVMTypeRef ty = LLVMTypeOf(inst);
        LLVMReplaceAllUsesWith(inst, LLVMConstInt(ty, s->block[c], 0));
        LLVMInstructionEraseFromParent(inst);
      }
      inst = next;
    }
  }
}

static void annotate(LLVMModuleRef m, LLVMValueRef fn, const char *key,
                     unsigned value) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMMetadataRef ops[3] = {
      LLVMValueAsMetadata(fn),
      LLVMMDStringInContext2(c, key, strlen(key)),
      LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(c), value, 0)),
  };
  LLVMValueRef node = LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, ops, 3));
  LLVMAddNamedMetadataOperand(m, "nvvm.annotations", node);
}

static int add_bounds(LLVMModuleRef m, LLVMValueRef fn, const ks_spec *s,
                      ks_diag *d) {
  static const char *req[3] = {"reqntidx", "reqntidy", "reqntidz"};
  if (s->block[0]) {
    unsigned long long threads = 1;
    for (int i = 0; i < 3; i++)
      threads *= s->block[i] ? s->block[i] : 1;
    if (s->maxntid && threads > s->maxntid)
      return ks_diag_fail(d, KS_EBOUNDS,
                          "bind: block of %llu threads exceeds maxntid %u",
                          threads, s->maxntid);
    for (int i = 0; i < 3; i++)
      annotate(m, fn, req[i], s->block[i] ? s->block[i] : 1);
  } else if (s->maxntid) {
    /* PTX allows .maxntid or .reqntid, not both; a fixed block says more. */
    annotate(m, fn, "maxntidx", s->maxntid);
    annotate(m, fn, "maxntidy", 1);
    annotate(m, fn, "maxntidz", 1);
  }
  if (s->minctasm)
    annotate(m, fn, "minctasm", s->minctasm);
  if (s->maxnreg)
    annotate(m, fn, "maxnreg", s->maxnreg);
  return 0;
}

static void set_string_attr(LLVMValueRef fn, const char *key,
                            const char *value) {
  LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
  unsigned klen = (unsigned)strlen(key);
  LLVMRemoveStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, key, klen);
  LLVMAddAttributeAtIndex(
      fn, LLVMAttributeFunctionIndex,
      LLVMCreateStringAttribute(c, key, klen, value, (unsigned)strlen(value)));
}

static void retarget(LLVMModuleRef m, const ks_spec *s) {
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn;
       fn = LLVMGetNextFunction(fn)) {
    if (LLVMIsDeclaration(fn))
      continue;
    set_string_attr(fn, "target-cpu", s->cpu);
    set_string_attr(fn, "target-features", s->features);
  }
}

/* Does a reflect call's argument name `want`? The argument is a constant
 * global's C string, reached through casts and all-zero GEPs, as NVVM's
 * reflect pass reads it (the string without its last byte, the NUL). */
static int reflect_names(LLVMValueRef arg, const char *want) {
  for (int depth = 0; arg && depth < 8; depth++) {
    if (LLVMIsAGlobalVariable(arg)) {
      LLVMValueRef init = LLVMGetInitializer(arg);
      if (!init || !LLVMIsGlobalConstant(arg) || !LLVMIsConstantString(init))
        return 0;
      size_t len, n = strlen(want);
      const char *str = LLVMGetAsString(init, &len);
      return len == n + 1 && memcmp(str, want, n) == 0;
    }
    LLVMOpcode op;
    if (LLVMIsAConstantExpr(arg))
      op = LLVMGetConstOpcode(arg);
    else if (LLVMIsAInstruction(arg))
      op = LLVMGetInstructionOpcode(arg);
    else
      return 0;
    if (op == LLVMGetElementPtr) {
      for (int i = 1; i < LLVMGetNumOperands(arg); i++) {
        LLVMValueRef idx = LLVMGetOperand(arg, i);
        if (!LLVMIsAConstantInt(idx) || LLVMConstIntGetZExtValue(idx) != 0)
          return 0;
      }
    } else if (op != LLVMAddrSpaceCast && op != LLVMBitCast) {
      return 0;
    }
    arg = LLVMGetOperand(arg, 0);
  }
  return 0;
}

/* __nvvm_reflect("__CUDA_ARCH") becomes the target's sm times ten (900
 * for sm_90), as the NVPTX backend's own reflect pass would make it. The
 * optimize stage's nvvm-reflect, LLVM's pass as the new pass manager
 * builds it, knows no sm and would make it 0: code that asks (libdevice,
 * IR from other front ends) would take its oldest path. The FTZ query is
 * left to that pass: it reads the module's flag. */
static void reflect_arch(LLVMModuleRef m, const ks_spec *s) {
  unsigned sm = 0;
  if (!s->cpu || sscanf(s->cpu, "sm_%u", &sm) != 1 || sm == 0)
    return;
  static const char *const names[] = {"__nvvm_reflect", "llvm.nvvm.reflect"};
  for (size_t f = 0; f < sizeof names / sizeof names[0]; f++) {
    LLVMValueRef fn = LLVMGetNamedFunction(m, names[f]);
    LLVMUseRef next;
    for (LLVMUseRef u = fn ? LLVMGetFirstUse(fn) : NULL; u; u = next) {
      next = LLVMGetNextUse(u);
      LLVMValueRef call = LLVMGetUser(u);
      if (!LLVMIsACallInst(call) || LLVMGetCalledValue(call) != fn ||
          LLVMGetNumArgOperands(call) != 1 ||
          LLVMGetTypeKind(LLVMTypeOf(call)) != LLVMIntegerTypeKind ||
          !reflect_names(LLVMGetOperand(call, 0), "__CUDA_ARCH"))
        continue;
      LLVMReplaceAllUsesWith(call, LLVMConstInt(LLVMTypeOf(call), sm * 10, 0));
      LLVMInstructionEraseFromParent(call);
    }
  }
}

int ks_pass_bind(LLVMModuleRef m, const ks_spec *s, ks_diag *d) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, s->kernel);
  if (!fn || LLVMIsDeclaration(fn))
    return ks_diag_fail(d, KS_ENOKERNEL, "bind: no kernel '%s'", s->kernel);
  if (bind_values(fn, s, d) || add_bounds(m, fn, s, d))
    return 1;
  bind_block(fn, s);
  retarget(m, s);
  reflect_arch(m, s);
  /* The markings have been read; their strings must not reach the PTX. */
  LLVMValueRef ga = LLVMGetNamedGlobal(m, "llvm.global.annotations");
  if (ga)
    LLVMDeleteGlobal(ga);
  return 0;
}
