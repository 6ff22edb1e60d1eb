/*
 * irutil.c - small questions about IR that several passes ask: what a call
 * calls, whether it may touch memory a kernel shares, what object a
 * pointer comes from, how much shared memory a module has; and the
 * launch-bound annotation that coarsening passes rewrite.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Target.h>

#include "passes/ks_passes.h"

int ks_room(void *pp, size_t *cap, size_t n, size_t elem, size_t first) {
  if (n < *cap)
    return 1;
  size_t c = *cap ? 2 * *cap : first;
  void *old, *p;
  if (c > SIZE_MAX / elem)
    return 0;
  memcpy(&old, pp, sizeof old); /* the T * at pp, read as what it is */
  if (!(p = realloc(old, c * elem)))
    return 0;
  memcpy(pp, &p, sizeof p);
  *cap = c;
  return 1;
}

const char *ks_ir_callee_name(LLVMValueRef call) {
  LLVMValueRef f = LLVMGetCalledValue(call);
  size_t len = 0;
  return f && LLVMIsAFunction(f) ? LLVMGetValueName2(f, &len) : "";
}

int ks_ir_pure_call(LLVMValueRef call) {
  LLVMValueRef f = LLVMGetCalledValue(call);
  if (!f || !LLVMIsAFunction(f) || !LLVMGetIntrinsicID(f))
    return 0;
  const char *name = ks_ir_callee_name(call);
  if (!strncmp(name, "llvm.lifetime.", 14) || !strncmp(name, "llvm.dbg.", 9) ||
      !strcmp(name, "llvm.assume"))
    return 1; /* touch no memory a kernel shares */
  unsigned kind = LLVMGetEnumAttributeKindForName("memory", 6);
  LLVMAttributeRef a =
      LLVMGetEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, kind);
  /* MemoryEffects: two bits (ref, mod) per location; no mod bit set. */
  return a && (LLVMGetEnumAttributeValue(a) & 0x2a) == 0;
}

LLVMValueRef ks_ir_base_of(LLVMValueRef p) {
  for (int i = 0; i < 64; i++) {
    LLVMOpcode opc = LLVMIsAInstruction(p)    ? LLVMGetInstructionOpcode(p)
                     : LLVMIsAConstantExpr(p) ? LLVMGetConstOpcode(p)
                                              : LLVMRet;
    if (opc != LLVMGetElementPtr && opc != LLVMAddrSpaceCast &&
        opc != LLVMBitCast)
      return p;
    p = LLVMGetOperand(p, 0);
  }
  return p;
}

int ks_ir_is_barrier(LLVMValueRef i) {
  if (!LLVMIsACallInst(i))
    return 0;
  const char *n = ks_ir_callee_name(i);
  return !strncmp(n, "llvm.nvvm.barrier", 17) ||
         !strncmp(n, "llvm.nvvm.bar.", 14);
}

unsigned ks_ir_shared_globals(LLVMModuleRef m) {
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
  unsigned long long n = 0;
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
    if (LLVMGetPointerAddressSpace(LLVMTypeOf(g)) == 3)
      n += LLVMABISizeOfType(td, LLVMGlobalGetValueType(g));
  return (unsigned)n;
}

int ks_ir_set_reqntid(LLVMModuleRef m, LLVMValueRef fn, int dim, unsigned n) {
  const char *nm = "nvvm.annotations";
  const char *want = dim ? "reqntidy" : "reqntidx";
  unsigned count = LLVMGetNamedMetadataNumOperands(m, nm);
  LLVMValueRef *ops = calloc((size_t)count + 1, sizeof *ops);
  if (!ops)
    return 1;
  LLVMGetNamedMetadataOperands(m, nm, ops);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetModuleContext(m));
  for (unsigned i = 0; i < count; i++) {
    if (LLVMGetMDNodeNumOperands(ops[i]) != 3)
      continue;
    LLVMValueRef o[3];
    LLVMGetMDNodeOperands(ops[i], o);
    unsigned len = 0;
    const char *key = o[1] ? LLVMGetMDString(o[1], &len) : NULL;
    if (o[0] == fn && key && len == 8 && !memcmp(key, want, 8))
      LLVMReplaceMDNodeOperandWith(
          ops[i], 2, LLVMValueAsMetadata(LLVMConstInt(i32, n, 0)));
  }
  free(ops);
  return 0;
}

unsigned ks_ir_param_index(LLVMValueRef arg) {
  LLVMValueRef fn = LLVMGetParamParent(arg);
  unsigned i = 0;
  while (i < LLVMCountParams(fn) && LLVMGetParam(fn, i) != arg)
    i++;
  return i;
}

const char *ks_ir_arg_symbol(LLVMValueRef arg, const char *prefix, char *buf,
                             size_t cap) {
  size_t len = 0;
  const char *name = LLVMGetValueName2(arg, &len);
  if (!len) {
    snprintf(buf, cap, "%sarg%u", prefix, ks_ir_param_index(arg));
    return buf;
  }
  snprintf(buf, cap, "%s%.*s", prefix, (int)(len < 64 ? len : 64), name);
  for (char *c = buf + strlen(prefix); *c; c++)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
          (*c >= '0' && *c <= '9') || *c == '_' || *c == '$'))
      *c = '_';
  return buf;
}

unsigned ks_ir_hash_ptr(const void *p) {
  uint64_t v = (uint64_t)(uintptr_t)p;
  v ^= v >> 33;
  v *= 0xff51afd7ed558ccdull;
  v ^= v >> 33;
  return (unsigned)v;
}

LLVMIntPredicate ks_ir_icmp_inverse(LLVMIntPredicate p) {
  switch (p) {
  case LLVMIntEQ:
    return LLVMIntNE;
  case LLVMIntNE:
    return LLVMIntEQ;
  case LLVMIntSLT:
    return LLVMIntSGE;
  case LLVMIntSGE:
    return LLVMIntSLT;
  case LLVMIntSLE:
    return LLVMIntSGT;
  case LLVMIntSGT:
    return LLVMIntSLE;
  case LLVMIntULT:
    return LLVMIntUGE;
  case LLVMIntUGE:
    return LLVMIntULT;
  case LLVMIntULE:
    return LLVMIntUGT;
  default:
    return LLVMIntULE;
  }
}

LLVMIntPredicate ks_ir_icmp_swap(LLVMIntPredicate p) {
  switch (p) {
  case LLVMIntSLT:
    return LLVMIntSGT;
  case LLVMIntSGT:
    return LLVMIntSLT;
  case LLVMIntSLE:
    return LLVMIntSGE;
  case LLVMIntSGE:
    return LLVMIntSLE;
  case LLVMIntULT:
    return LLVMIntUGT;
  case LLVMIntUGT:
    return LLVMIntULT;
  case LLVMIntULE:
    return LLVMIntUGE;
  case LLVMIntUGE:
    return LLVMIntULE;
  default:
    return p;
  }
}

const char *ks_ir_sreg(LLVMValueRef v) {
  static const char pre[] = "llvm.nvvm.read.ptx.sreg.";
  if (!v || !LLVMIsACallInst(v))
    return NULL;
  const char *n = ks_ir_callee_name(v);
  if (strncmp(n, pre, sizeof pre - 1) != 0 || !n[sizeof pre - 1])
    return NULL;
  return n + sizeof pre - 1;
}

int ks_ir_sreg_launch(const char *r) {
  return !strncmp(r, "tid.", 4) || !strncmp(r, "ntid.", 5) ||
         !strncmp(r, "ctaid.", 6) || !strncmp(r, "nctaid.", 7);
}

int ks_ir_minmax(LLVMValueRef v) {
  static const char *const names[4] = {"llvm.umin.", "llvm.umax.", "llvm.smin.",
                                       "llvm.smax."};
  if (!v || !LLVMIsACallInst(v))
    return 0;
  const char *n = ks_ir_callee_name(v);
  for (int k = 0; k < 4; k++)
    if (!strncmp(n, names[k], 10))
      return k + 1;
  return 0;
}

LLVMValueRef ks_ir_call_overloaded(LLVMModuleRef m, LLVMBuilderRef b,
                                   const char *name, LLVMTypeRef *types,
                                   unsigned ntypes, LLVMValueRef *args,
                                   unsigned n) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  LLVMValueRef f = LLVMGetIntrinsicDeclaration(m, id, types, ntypes);
  /* the declaration's own type: LLVMIntrinsicGetType would build it anew
   * from the intrinsic tables */
  return LLVMBuildCall2(b, LLVMGlobalGetValueType(f), f, args, n, "");
}

LLVMValueRef ks_ir_call_intrinsic(LLVMModuleRef m, LLVMBuilderRef b,
                                  const char *name, LLVMValueRef *args,
                                  unsigned n) {
  return ks_ir_call_overloaded(m, b, name, NULL, 0, args, n);
}

/* Turns fn into a declaration: every use of its instructions replaced by
 * poison first, so that erasing them in any order leaves nothing
 * dangling, then the blocks, once nothing branches to them. */
static void drop_body(LLVMValueRef fn) {
  LLVMBasicBlockRef bb;
  for (bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMVoidTypeKind)
        LLVMReplaceAllUsesWith(i, LLVMGetPoison(LLVMTypeOf(i)));
  /* every instruction first: a branch in a later block may name an
   * earlier one, which must have no uses left when it goes */
  for (bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef i;
    while ((i = LLVMGetLastInstruction(bb)))
      LLVMInstructionEraseFromParent(i);
  }
  while ((bb = LLVMGetFirstBasicBlock(fn)))
    LLVMDeleteBasicBlock(bb);
}

/* Deletes global value g, its uses replaced by poison first. */
static void drop_global(LLVMValueRef g, int fn) {
  LLVMReplaceAllUsesWith(g, LLVMGetPoison(LLVMTypeOf(g)));
  if (fn)
    LLVMDeleteFunction(g);
  else
    LLVMDeleteGlobal(g);
}

void ks_ir_forget_annotations(LLVMModuleRef m, LLVMTargetMachineRef tm) {
  /* An alias cannot be deleted through the C API, and the backend may end
   * the process on one the screen refused: such a module keeps its
   * entries (refused anyway, it is a failure path). */
  if (!m || !tm || LLVMGetFirstGlobalAlias(m))
    return;
  LLVMValueRef g, next;
  for (g = LLVMGetFirstFunction(m); g; g = LLVMGetNextFunction(g))
    if (!LLVMIsDeclaration(g))
      drop_body(g);
  /* then nothing at all is left for the backend to judge */
  for (g = LLVMGetFirstGlobalIFunc(m); g; g = next) {
    next = LLVMGetNextGlobalIFunc(g);
    LLVMReplaceAllUsesWith(g, LLVMGetPoison(LLVMTypeOf(g)));
    LLVMEraseGlobalIFunc(g);
  }
  for (g = LLVMGetFirstGlobal(m); g; g = next) {
    next = LLVMGetNextGlobal(g);
    drop_global(g, 0);
  }
  for (g = LLVMGetFirstFunction(m); g; g = next) {
    next = LLVMGetNextFunction(g);
    drop_global(g, 1);
  }
  LLVMSetModuleInlineAsm2(m, "", 0);
  char *msg = NULL;
  LLVMMemoryBufferRef buf = NULL;
  if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMAssemblyFile, &msg, &buf))
    LLVMDisposeMessage(msg);
  else
    LLVMDisposeMemoryBuffer(buf);
}
