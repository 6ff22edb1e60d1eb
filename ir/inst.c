/*
 * inst.c - small questions about IR that several passes ask: what a call
 * calls (a special register, a min or max, a barrier), whether it may
 * write memory a kernel shares, what object a pointer comes from, an
 * argument's position, the predicates of a negated or swapped comparison.
 */
#include <stdint.h>
#include <string.h>

#include "ir/ks_ir.h"

const char *ks_ir_callee_name(LLVMValueRef call) {
  LLVMValueRef f = LLVMGetCalledValue(call);
  size_t len = 0;
  return f && LLVMIsAFunction(f) ? LLVMGetValueName2(f, &len) : "";
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

int ks_ir_is_barrier(LLVMValueRef i) {
  if (!LLVMIsACallInst(i))
    return 0;
  const char *n = ks_ir_callee_name(i);
  return !strncmp(n, "llvm.nvvm.barrier", 17) ||
         !strncmp(n, "llvm.nvvm.bar.", 14);
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

unsigned ks_ir_param_index(LLVMValueRef arg) {
  LLVMValueRef fn = LLVMGetParamParent(arg);
  unsigned i = 0;
  while (i < LLVMCountParams(fn) && LLVMGetParam(fn, i) != arg)
    i++;
  return i;
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

unsigned ks_ir_hash_ptr(const void *p) {
  uint64_t v = (uint64_t)(uintptr_t)p;
  v ^= v >> 33;
  v *= 0xff51afd7ed558ccdull;
  v ^= v >> 33;
  return (unsigned)v;
}
