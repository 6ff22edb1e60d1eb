/*
 * clone.c - a copy of a function's body inside the same function: the
 * second version of a kernel that a run-time check chooses between
 * (passes/alias.c). The copy computes what the original computes: every
 * instruction is cloned with its operands mapped to their copies (blocks
 * included), phis get the copies of their incoming values and blocks, and
 * values from outside the copied blocks (arguments, constants, globals)
 * are shared. Metadata comes with each clone, loop IDs included (as
 * LLVM's own loop versioning leaves them). And a function moved into a
 * copy of itself with more parameters (ks_ir_add_params: hidden launch
 * arguments, passes/gcoarsen_emit.c and passes/tex.c). The map from
 * originals to copies (ks_ir_vmap) serves passes that copy code
 * themselves (passes/unclamp.c).
 */
#include <stdlib.h>
#include <string.h>

#include "ir/ks_ir.h"

int ks_ir_vmap_init(ks_ir_vmap *m, size_t n) {
  m->cap = 16;
  while (m->cap < 2 * n + 1)
    m->cap *= 2;
  m->from = calloc(m->cap, sizeof *m->from);
  m->to = calloc(m->cap, sizeof *m->to);
  return m->from && m->to;
}

void ks_ir_vmap_free(ks_ir_vmap *m) {
  free(m->from);
  free(m->to);
  m->from = m->to = NULL;
}

static size_t vmap_slot(const ks_ir_vmap *m, LLVMValueRef v) {
  size_t i = ks_ir_hash_ptr(v) & (m->cap - 1);
  while (m->from[i] && m->from[i] != v)
    i = (i + 1) & (m->cap - 1);
  return i;
}

void ks_ir_vmap_put(ks_ir_vmap *m, LLVMValueRef from, LLVMValueRef to) {
  size_t i = vmap_slot(m, from);
  m->from[i] = from;
  m->to[i] = to;
}

LLVMValueRef ks_ir_vmap_get(const ks_ir_vmap *m, LLVMValueRef v) {
  size_t i = vmap_slot(m, v);
  return m->from[i] ? m->to[i] : v;
}

static int is_dbg(LLVMValueRef i) {
  if (!LLVMIsACallInst(i))
    return 0;
  const char *name = ks_ir_callee_name(i);
  return name[0] == 'l' && !strncmp(name, "llvm.dbg.", 9);
}

/* First pass: the blocks bbs[0..nb) and their instructions, operands
 * still the originals'; phis empty. */
static void copy_blocks(LLVMValueRef fn, LLVMBasicBlockRef *bbs, size_t nb,
                        ks_ir_vmap *m, LLVMBuilderRef b) {
  LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
  for (size_t k = 0; k < nb; k++) {
    LLVMBasicBlockRef nbb = LLVMAppendBasicBlockInContext(c, fn, "ks.v");
    ks_ir_vmap_put(m, LLVMBasicBlockAsValue(bbs[k]),
                   LLVMBasicBlockAsValue(nbb));
  }
  for (size_t k = 0; k < nb; k++) {
    LLVMPositionBuilderAtEnd(b, LLVMValueAsBasicBlock(ks_ir_vmap_get(
                                    m, LLVMBasicBlockAsValue(bbs[k]))));
    for (LLVMValueRef i = LLVMGetFirstInstruction(bbs[k]); i;
         i = LLVMGetNextInstruction(i)) {
      if (is_dbg(i))
        continue;
      LLVMValueRef r;
      if (LLVMIsAPHINode(i)) {
        r = LLVMBuildPhi(b, LLVMTypeOf(i), "");
      } else {
        r = LLVMInstructionClone(i);
        LLVMInsertIntoBuilder(b, r);
      }
      ks_ir_vmap_put(m, i, r);
    }
  }
}

/* Second pass: operands and phis' incoming values to their copies. */
static void map_operands(LLVMBasicBlockRef *bbs, size_t nb,
                         const ks_ir_vmap *m) {
  for (size_t k = 0; k < nb; k++)
    for (LLVMValueRef i = LLVMGetFirstInstruction(bbs[k]); i;
         i = LLVMGetNextInstruction(i)) {
      if (is_dbg(i))
        continue;
      LLVMValueRef r = ks_ir_vmap_get(m, i);
      if (LLVMIsAPHINode(i)) {
        for (unsigned e = 0; e < LLVMCountIncoming(i); e++) {
          LLVMValueRef v = ks_ir_vmap_get(m, LLVMGetIncomingValue(i, e));
          LLVMBasicBlockRef from = LLVMValueAsBasicBlock(ks_ir_vmap_get(
              m, LLVMBasicBlockAsValue(LLVMGetIncomingBlock(i, e))));
          LLVMAddIncoming(r, &v, &from, 1);
        }
        continue;
      }
      int n = LLVMGetNumOperands(i);
      for (int o = 0; o < n; o++) {
        LLVMValueRef v = LLVMGetOperand(i, (unsigned)o);
        LLVMValueRef w = v ? ks_ir_vmap_get(m, v) : v;
        if (w != v)
          LLVMSetOperand(r, (unsigned)o, w);
      }
    }
}

LLVMBasicBlockRef ks_ir_clone_blocks(LLVMValueRef fn, LLVMBasicBlockRef stop) {
  size_t nb = 0, n = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && bb != stop;
       bb = LLVMGetNextBasicBlock(bb)) {
    nb++;
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      n++;
  }
  LLVMBasicBlockRef *bbs = malloc((nb ? nb : 1) * sizeof *bbs), first = NULL;
  ks_ir_vmap m = {0};
  if (nb && bbs && ks_ir_vmap_init(&m, n + nb)) {
    size_t k = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); k < nb;
         bb = LLVMGetNextBasicBlock(bb))
      bbs[k++] = bb;
    LLVMBuilderRef b = LLVMCreateBuilderInContext(
        LLVMGetModuleContext(LLVMGetGlobalParent(fn)));
    copy_blocks(fn, bbs, nb, &m, b);
    map_operands(bbs, nb, &m);
    LLVMDisposeBuilder(b);
    first = LLVMValueAsBasicBlock(
        ks_ir_vmap_get(&m, LLVMBasicBlockAsValue(bbs[0])));
  }
  free(bbs);
  ks_ir_vmap_free(&m);
  return first;
}

/* Copies old's attributes (function, return, parameters 0..k0-1) to nf. */
static void copy_attributes(LLVMValueRef old, LLVMValueRef nf, unsigned k0) {
  for (int idx = -1; idx <= (int)k0; idx++) {
    unsigned na = LLVMGetAttributeCountAtIndex(old, (LLVMAttributeIndex)idx);
    LLVMAttributeRef a[64];
    if (!na || na > 64)
      continue;
    LLVMGetAttributesAtIndex(old, (LLVMAttributeIndex)idx, a);
    for (unsigned k = 0; k < na; k++)
      LLVMAddAttributeAtIndex(nf, (LLVMAttributeIndex)idx, a[k]);
  }
  size_t nmd = 0;
  LLVMValueMetadataEntry *md = LLVMGlobalCopyAllMetadata(old, &nmd);
  for (size_t k = 0; k < nmd; k++)
    LLVMGlobalSetMetadata(nf, LLVMValueMetadataEntriesGetKind(md, (unsigned)k),
                          LLVMValueMetadataEntriesGetMetadata(md, (unsigned)k));
  if (md)
    LLVMDisposeValueMetadataEntries(md);
}

LLVMValueRef ks_ir_add_params(LLVMValueRef old, const LLVMTypeRef *extra,
                              const char *const *names, unsigned n) {
  LLVMTypeRef ft = LLVMGlobalGetValueType(old);
  unsigned k0 = LLVMCountParamTypes(ft);
  LLVMTypeRef *pt = calloc(k0 + n + 1, sizeof *pt);
  size_t len = 0;
  char *name = strdup(LLVMGetValueName2(old, &len));
  if (!pt || !name) {
    free(pt), free(name);
    return NULL;
  }
  LLVMGetParamTypes(ft, pt);
  for (unsigned i = 0; i < n; i++)
    pt[k0 + i] = extra[i];
  LLVMTypeRef nft = LLVMFunctionType(LLVMGetReturnType(ft), pt, k0 + n,
                                     LLVMIsFunctionVarArg(ft));
  free(pt);
  LLVMSetValueName2(old, "ks.old", 6);
  LLVMValueRef nf = LLVMAddFunction(LLVMGetGlobalParent(old), name, nft);
  free(name);
  LLVMSetLinkage(nf, LLVMGetLinkage(old));
  LLVMSetVisibility(nf, LLVMGetVisibility(old));
  LLVMSetFunctionCallConv(nf, LLVMGetFunctionCallConv(old));
  copy_attributes(old, nf, k0);
  for (unsigned k = 0; k < k0; k++) {
    LLVMValueRef a = LLVMGetParam(old, k), b = LLVMGetParam(nf, k);
    const char *an = LLVMGetValueName2(a, &len);
    LLVMSetValueName2(b, an, len);
    LLVMReplaceAllUsesWith(a, b);
  }
  for (unsigned i = 0; i < n; i++)
    LLVMSetValueName2(LLVMGetParam(nf, k0 + i), names[i], strlen(names[i]));
  LLVMBasicBlockRef bb;
  while ((bb = LLVMGetFirstBasicBlock(old))) {
    LLVMRemoveBasicBlockFromParent(bb);
    LLVMAppendExistingBasicBlock(nf, bb);
  }
  LLVMReplaceAllUsesWith(old, nf); /* nvvm.annotations, annotations */
  LLVMDeleteFunction(old);
  return nf;
}
