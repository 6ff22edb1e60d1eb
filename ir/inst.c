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

int ks_ir_value_in(const LLVMValueRef *a, size_t n, LLVMValueRef v) {
  for (size_t i = 0; i < n; i++)
    if (a[i] == v)
      return 1;
  return 0;
}

int ks_ir_int_binop(LLVMOpcode op) {
  switch (op) {
  case LLVMAdd:
  case LLVMSub:
  case LLVMMul:
  case LLVMUDiv:
  case LLVMSDiv:
  case LLVMURem:
  case LLVMSRem:
  case LLVMShl:
  case LLVMLShr:
  case LLVMAShr:
  case LLVMAnd:
  case LLVMOr:
  case LLVMXor:
    return 1;
  default:
    return 0;
  }
}

int ks_ir_outlined(LLVMModuleRef m, LLVMValueRef f) {
  size_t len = 0;
  const char *name = LLVMGetValueName2(f, &len);
  unsigned n = LLVMGetNamedMetadataNumOperands(m, "kspec.outlined");
  LLVMValueRef ops[64];
  if (n == 0 || n > 64 || len < 5 || memcmp(name, "__nv_", 5) != 0 ||
      !LLVMIsDeclaration(f))
    return 0;
  LLVMGetNamedMetadataOperands(m, "kspec.outlined", ops);
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef s = NULL;
    unsigned sl = 0;
    LLVMGetMDNodeOperands(ops[i], &s);
    const char *t = s ? LLVMGetMDString(s, &sl) : NULL;
    if (t && sl == len && memcmp(t, name, len) == 0)
      return 1;
  }
  return 0;
}

int ks_ir_pure_call(LLVMValueRef call) {
  LLVMValueRef f = LLVMGetCalledValue(call);
  if (!f || !LLVMIsAFunction(f) ||
      !(LLVMGetIntrinsicID(f) || ks_ir_outlined(LLVMGetGlobalParent(f), f)))
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

int ks_ir_barrier_kind(LLVMValueRef i) {
  if (!i || !LLVMIsACallInst(i))
    return KS_BARRIER_NONE;
  const char *n = ks_ir_callee_name(i);
  if (!strncmp(n, "llvm.nvvm.barrier.cluster.", 26))
    return KS_BARRIER_CLUSTER;
  if (!strcmp(n, "llvm.nvvm.bar.warp.sync"))
    return KS_BARRIER_WARP;
  /* barrier0*, barrier, barrier.n, barrier.sync*, bar.sync; a bar.* form
   * LLVM may add later counts as the widest it could be */
  if (!strncmp(n, "llvm.nvvm.barrier", 17) || !strncmp(n, "llvm.nvvm.bar.", 14))
    return KS_BARRIER_BLOCK;
  return KS_BARRIER_NONE;
}

int ks_ir_is_barrier(LLVMValueRef i) {
  return ks_ir_barrier_kind(i) != KS_BARRIER_NONE;
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

unsigned ks_ir_addrspace(LLVMValueRef p) {
  for (int i = 0; i < 64; i++) {
    LLVMTypeRef t = LLVMTypeOf(p);
    unsigned as = LLVMGetTypeKind(t) == LLVMPointerTypeKind
                      ? LLVMGetPointerAddressSpace(t)
                      : 0;
    if (as)
      return as;
    if (LLVMIsAAllocaInst(p))
      return 5;
    LLVMOpcode opc = LLVMIsAInstruction(p)    ? LLVMGetInstructionOpcode(p)
                     : LLVMIsAConstantExpr(p) ? LLVMGetConstOpcode(p)
                                              : LLVMRet;
    if (opc != LLVMGetElementPtr && opc != LLVMAddrSpaceCast &&
        opc != LLVMBitCast)
      return 0;
    p = LLVMGetOperand(p, 0);
  }
  return 0;
}

/* The function attribute `name` on the call or its callee f (NULL: none). */
static LLVMAttributeRef fn_attr(LLVMValueRef call, LLVMValueRef f,
                                const char *name) {
  unsigned k = LLVMGetEnumAttributeKindForName(name, strlen(name));
  LLVMAttributeRef a =
      LLVMGetCallSiteEnumAttribute(call, LLVMAttributeFunctionIndex, k);
  if (!a && f && LLVMIsAFunction(f))
    a = LLVMGetEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, k);
  return a;
}

/* memory(...) on the call or the callee without a mod bit (MemoryEffects:
 * two bits, ref and mod, per location). */
static int writes_nothing(LLVMValueRef call, LLVMValueRef f) {
  unsigned k = LLVMGetEnumAttributeKindForName("memory", 6);
  LLVMAttributeRef a =
      LLVMGetCallSiteEnumAttribute(call, LLVMAttributeFunctionIndex, k);
  if (a && (LLVMGetEnumAttributeValue(a) & 0x2a) == 0)
    return 1;
  a = f && LLVMIsAFunction(f)
          ? LLVMGetEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, k)
          : NULL;
  return a && (LLVMGetEnumAttributeValue(a) & 0x2a) == 0;
}

int ks_ir_dead_call(LLVMValueRef call) {
  if (!call || !LLVMIsACallInst(call) || LLVMGetFirstUse(call))
    return 0;
  LLVMValueRef f = LLVMGetCalledValue(call);
  if (f && LLVMIsAInlineAsm(f)) /* what asm without side effects does is
                                   its value (GCC's rule for asm) */
    return !LLVMGetInlineAsmHasSideEffects(f) && writes_nothing(call, NULL);
  if (!f || !LLVMIsAFunction(f) || !writes_nothing(call, f) ||
      !fn_attr(call, f, "nounwind") || fn_attr(call, f, "noreturn"))
    return 0;
  /* a function that only reads and must make progress returns (C++'s
   * forward progress, which LLVM infers willreturn from too) */
  return LLVMGetIntrinsicID(f) || fn_attr(call, f, "willreturn") ||
         fn_attr(call, f, "mustprogress");
}

int ks_ir_asm_pure(LLVMValueRef call) {
  LLVMValueRef f =
      call && LLVMIsACallInst(call) ? LLVMGetCalledValue(call) : NULL;
  if (!f || !LLVMIsAInlineAsm(f) || LLVMGetInlineAsmHasSideEffects(f))
    return 0;
  unsigned k = LLVMGetEnumAttributeKindForName("memory", 6);
  LLVMAttributeRef a =
      LLVMGetCallSiteEnumAttribute(call, LLVMAttributeFunctionIndex, k);
  return a && LLVMGetEnumAttributeValue(a) == 0;
}

int ks_ir_warp_exchange(LLVMValueRef call) {
  static const char *const pre[] = {"llvm.nvvm.shfl.sync.", "llvm.nvvm.vote.",
                                    "llvm.nvvm.match.", "llvm.nvvm.redux.sync.",
                                    "llvm.nvvm.activemask"};
  if (!call || !LLVMIsACallInst(call))
    return 0;
  const char *n = ks_ir_callee_name(call);
  for (size_t i = 0; i < sizeof pre / sizeof *pre; i++)
    if (!strncmp(n, pre[i], strlen(pre[i])))
      return 1;
  return 0;
}

/* Deletes fn's dead calls; returns how many. */
static unsigned drop_in(LLVMValueRef fn) {
  unsigned n = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
      next = LLVMGetNextInstruction(i);
      if (ks_ir_dead_call(i)) {
        LLVMInstructionEraseFromParent(i);
        n++;
      }
    }
  return n;
}

unsigned ks_ir_drop_dead_calls(LLVMModuleRef m) {
  unsigned total = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f))
      for (unsigned n; (n = drop_in(f)) != 0;)
        total += n; /* a deleted call may have been a dead one's last use */
  return total;
}

int ks_ir_calls_defined(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb =
             LLVMIsDeclaration(f) ? NULL : LLVMGetFirstBasicBlock(f);
         bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i)) {
        LLVMValueRef callee = LLVMIsACallInst(i) ? LLVMGetCalledValue(i) : NULL;
        if (callee && LLVMIsAFunction(callee) && !LLVMIsDeclaration(callee) &&
            callee != f)
          return 1;
      }
  return 0;
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
