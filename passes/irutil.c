/*
 * irutil.c - small questions about IR that several passes ask: what a call
 * calls, whether it may touch memory a kernel shares, what object a
 * pointer comes from.
 */
#include <string.h>

#include "passes/ks_passes.h"

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
