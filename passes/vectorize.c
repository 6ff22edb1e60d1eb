/*
 * vectorize.c - whether LLVM's load/store vectorizer could merge anything.
 *
 * The vectorizer groups a block's loads (and stores) by what their
 * addresses are computed from and compares every pair of a group through
 * ScalarEvolution for a constant distance: quadratic in the accesses of a
 * block, and costly when the addresses are clamped (the separable filters:
 * a fifth of a specialization, for no vector). It merges two accesses only
 * when one ends where the other starts. This screen looks for such a pair
 * syntactically, in one pass and a sort: an address is split into a root,
 * a variable index times a scale, and a constant byte offset,
 *
 *   gep (gep root, sext(add nsw v, 3)), 0, 1  ->  root + 4*v + (12 + 4)
 *
 * and two accesses of the same kind in one block whose root, index and
 * scale agree and whose bytes touch, within 16 bytes (the widest vector
 * access), are a candidate if the first is aligned to the pair's size (a
 * vector access on NVPTX must be: conv1d's x[i + k], aligned to 4, touch
 * but never merge), or if they are in a stack array or a global of the
 * module, whose alignment the vectorizer may raise or know better. A
 * candidate is not a promise (an aliasing store in between) and a miss is
 * possible (an address the split does not see through): the screen only
 * decides whether the vectorizer runs. Loads of constant addresses in
 * constant memory do not count: ptxas reads those as operands of the
 * instructions that use them, vector or not.
 */
#include <stdint.h>
#include <stdlib.h>

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>

#include "passes/ks_passes.h"

enum { WIDEST = 16, ADDRSPACE_CONST = 4 };

typedef struct access {
  uintptr_t root, var; /* var 0: no variable index */
  int64_t scale, off;
  uint64_t size;
  unsigned align; /* the access's, as instcombine and infer-alignment left it */
  int store;
} access;

/* Offsets wrap rather than overflow: any constant index is valid IR. */
static int64_t wadd(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a + (uint64_t)b);
}
static int64_t wmul(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a * (uint64_t)b);
}

/* A GEP instruction or constant expression. */
static int is_gep(LLVMValueRef v) {
  return LLVMIsAGetElementPtrInst(v) ||
         (LLVMIsAConstantExpr(v) && LLVMGetConstOpcode(v) == LLVMGetElementPtr);
}

/* The bytes that indices 1 .. upto-1 of gep step over, all constants,
 * into *off; *ty becomes the type the last of them indexes into. 0, or 1
 * at a variable index, 2 at a step not followed (vector lanes). */
static int steps(LLVMTargetDataRef dl, LLVMValueRef gep, unsigned upto,
                 int64_t *off, LLVMTypeRef *ty) {
  *ty = LLVMGetGEPSourceElementType(gep);
  for (unsigned i = 1; i < upto; i++) {
    LLVMValueRef idx = LLVMGetOperand(gep, i);
    if (!LLVMIsAConstantInt(idx))
      return 1;
    int64_t k = LLVMConstIntGetSExtValue(idx);
    LLVMTypeKind kind = LLVMGetTypeKind(*ty);
    if (i == 1) {
      *off = wadd(*off, wmul(k, (int64_t)LLVMABISizeOfType(dl, *ty)));
    } else if (kind == LLVMStructTypeKind) {
      *off = wadd(*off, (int64_t)LLVMOffsetOfElement(dl, *ty, (unsigned)k));
      *ty = LLVMStructGetTypeAtIndex(*ty, (unsigned)k);
    } else if (kind == LLVMArrayTypeKind) {
      *ty = LLVMGetElementType(*ty);
      *off = wadd(*off, wmul(k, (int64_t)LLVMABISizeOfType(dl, *ty)));
    } else {
      return 2;
    }
  }
  return 0;
}

/* p's byte offset through GEPs whose indices are all constants; p becomes
 * what is left. 1 when an index is not followed (vector lanes). */
static int strip_const(LLVMTargetDataRef dl, LLVMValueRef *p, int64_t *off) {
  while (is_gep(*p)) {
    int64_t o = 0;
    LLVMTypeRef ty;
    int r = steps(dl, *p, (unsigned)LLVMGetNumOperands(*p), &o, &ty);
    if (r)
      return r == 2; /* a variable index: the caller's to split */
    *off = wadd(*off, o);
    *p = LLVMGetOperand(*p, 0);
  }
  return 0;
}

/* Splits pointer p into a. 1 when it cannot (the access is left out). */
static int split(LLVMTargetDataRef dl, LLVMValueRef p, access *a) {
  a->off = 0;
  a->var = 0;
  a->scale = 0;
  if (strip_const(dl, &p, &a->off))
    return 1;
  if (is_gep(p)) { /* constant indices, then a variable last one */
    unsigned n = (unsigned)LLVMGetNumOperands(p);
    LLVMTypeRef ty;
    if (steps(dl, p, n - 1, &a->off, &ty))
      return 1;
    if (n > 2) { /* the last index steps over the current type's elements */
      if (LLVMGetTypeKind(ty) != LLVMArrayTypeKind)
        return 1;
      ty = LLVMGetElementType(ty);
    }
    LLVMValueRef idx = LLVMGetOperand(p, n - 1);
    a->scale = (int64_t)LLVMABISizeOfType(dl, ty);
    if (LLVMIsASExtInst(idx) || LLVMIsAZExtInst(idx))
      idx = LLVMGetOperand(idx, 0);
    LLVMOpcode op =
        LLVMIsAInstruction(idx) ? LLVMGetInstructionOpcode(idx) : LLVMRet;
    if ((op == LLVMAdd || op == LLVMOr) &&
        LLVMIsAConstantInt(LLVMGetOperand(idx, 1))) {
      a->off =
          wadd(a->off, wmul(LLVMConstIntGetSExtValue(LLVMGetOperand(idx, 1)),
                            a->scale));
      idx = LLVMGetOperand(idx, 0);
    }
    a->var = (uintptr_t)idx;
    p = LLVMGetOperand(p, 0);
    if (strip_const(dl, &p, &a->off))
      return 1;
  }
  a->root = (uintptr_t)p;
  /* a constant address in constant memory: an operand to ptxas */
  return a->var == 0 && LLVMIsAGlobalVariable(p) &&
         LLVMGetPointerAddressSpace(LLVMTypeOf(p)) == ADDRSPACE_CONST;
}

/* Is root computed from a stack array or a global of this module, whose
 * alignment the vectorizer may raise or prove higher than its accesses
 * say? */
static int raisable(uintptr_t root) {
  LLVMValueRef p = (LLVMValueRef)root;
  while (is_gep(p))
    p = LLVMGetOperand(p, 0);
  return LLVMIsAAllocaInst(p) ||
         (LLVMIsAGlobalVariable(p) && !LLVMIsDeclaration(p));
}

static int by_key(const void *x, const void *y) {
  const access *a = x, *b = y;
  if (a->root != b->root)
    return a->root < b->root ? -1 : 1;
  if (a->var != b->var)
    return a->var < b->var ? -1 : 1;
  if (a->scale != b->scale)
    return a->scale < b->scale ? -1 : 1;
  if (a->store != b->store)
    return a->store - b->store;
  return (a->off > b->off) - (a->off < b->off);
}

static int same_group(const access *a, const access *b) {
  return a->root == b->root && a->var == b->var && a->scale == b->scale &&
         a->store == b->store;
}

/* Does one of acc[0..n) end where another of its group starts? */
static int adjacent(access *acc, size_t n) {
  qsort(acc, n, sizeof *acc, by_key);
  for (size_t i = 0; i < n; i++) {
    int64_t end = wadd(acc[i].off, (int64_t)acc[i].size);
    for (size_t j = i + 1;
         j < n && same_group(&acc[i], &acc[j]) && acc[j].off <= end; j++)
      if (acc[j].off == end && acc[i].size + acc[j].size <= WIDEST &&
          (acc[i].align >= acc[i].size + acc[j].size || raisable(acc[i].root)))
        return 1;
  }
  return 0;
}

/* A plain (not volatile, not atomic) load or store of a sized type: its
 * pointer and the type accessed, or NULL. */
static LLVMValueRef plain_access(LLVMValueRef i, LLVMTypeRef *ty, int *store) {
  LLVMOpcode op = LLVMGetInstructionOpcode(i);
  if (op != LLVMLoad && op != LLVMStore)
    return NULL;
  if (LLVMGetVolatile(i) || LLVMGetOrdering(i) != LLVMAtomicOrderingNotAtomic)
    return NULL;
  *store = op == LLVMStore;
  *ty = LLVMTypeOf(*store ? LLVMGetOperand(i, 0) : i);
  return LLVMTypeIsSized(*ty) ? LLVMGetOperand(i, *store ? 1 : 0) : NULL;
}

int ks_vectorize_worth(LLVMModuleRef m) {
  LLVMTargetDataRef dl = LLVMGetModuleDataLayout(m);
  access *acc = NULL;
  size_t cap = 0;
  int worth = 0;
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn && !worth;
       fn = LLVMGetNextFunction(fn))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && !worth;
         bb = LLVMGetNextBasicBlock(bb)) {
      size_t n = 0;
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i)) {
        LLVMTypeRef ty;
        int store;
        LLVMValueRef p = plain_access(i, &ty, &store);
        access a;
        if (!p || split(dl, p, &a))
          continue;
        a.size = LLVMABISizeOfType(dl, ty);
        a.align = LLVMGetAlignment(i);
        a.store = store;
        if (a.size == 0 || a.size >= WIDEST)
          continue;
        if (!ks_ir_room(&acc, &cap, n, sizeof *acc, 64)) {
          free(acc);
          return 1; /* cannot tell: let the vectorizer look */
        }
        acc[n++] = a;
      }
      worth = n > 1 && adjacent(acc, n);
    }
  free(acc);
  return worth;
}
