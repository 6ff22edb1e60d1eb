/*
 * edit.c - changes to a module that several passes make: calls of
 * intrinsics, the launch-bound annotation that coarsening rewrites, a
 * symbol named after a kernel argument, and the emptying of a module
 * whose entries NVPTX's annotation cache must forget.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ks_ir.h"

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

/* The argument is a constant global's C string, reached through casts and
 * all-zero GEPs, as NVVM's reflect pass reads it (the string without its
 * last byte, the NUL). */
const char *ks_ir_reflect_query(LLVMValueRef call, size_t *n) {
  LLVMValueRef arg = LLVMGetOperand(call, 0);
  for (int depth = 0; arg && depth < 8; depth++) {
    if (LLVMIsAGlobalVariable(arg)) {
      LLVMValueRef init = LLVMGetInitializer(arg);
      if (!init || !LLVMIsGlobalConstant(arg) || !LLVMIsConstantString(init))
        return NULL;
      size_t len = 0;
      const char *str = LLVMGetAsString(init, &len);
      if (len == 0)
        return NULL;
      *n = len - 1;
      return str;
    }
    LLVMOpcode op;
    if (LLVMIsAConstantExpr(arg))
      op = LLVMGetConstOpcode(arg);
    else if (LLVMIsAInstruction(arg))
      op = LLVMGetInstructionOpcode(arg);
    else
      return NULL;
    if (op == LLVMGetElementPtr) {
      for (int i = 1; i < LLVMGetNumOperands(arg); i++) {
        LLVMValueRef idx = LLVMGetOperand(arg, i);
        if (!LLVMIsAConstantInt(idx) || LLVMConstIntGetZExtValue(idx) != 0)
          return NULL;
      }
    } else if (op != LLVMAddrSpaceCast && op != LLVMBitCast) {
      return NULL;
    }
    arg = LLVMGetOperand(arg, 0);
  }
  return NULL;
}

int ks_ir_reflect_is(LLVMValueRef call, const char *want) {
  size_t n = 0;
  const char *q = ks_ir_reflect_query(call, &n);
  return q && n == strlen(want) && memcmp(q, want, n) == 0;
}
