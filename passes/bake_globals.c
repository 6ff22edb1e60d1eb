/*
 * bake_globals.c - baked module globals (`--bake taps`, `--bake
 * taps=0.1,0.2,...`): the __constant__ filter taps or __device__ table a
 * kernel only reads become immediates where it loads them at offsets that
 * binding and unrolling made constant.
 *
 * A bake with values first becomes the global's initializer in the
 * specialization's module (ks_bake_global_init, before the pipeline, and
 * so whatever passes are switched off): each specialization is a module
 * of its own with its own storage, so the loads left (at indices known
 * only at run time) read the baked values too, without the caller writing
 * them. A bake without values takes the initializer the template has.
 * Either way the initializer is then the global's contents at every
 * launch: the kernel does not write it (checked before compiling, from
 * the template's description), no other kernel is in the module, and the
 * caller promises not to write it (kspec.h). So a load of one of its
 * numbers, of that number's type, at a constant offset, is that number
 * (ks_bake_globals, in the const_promote stage).
 */
#include <stdlib.h>
#include <string.h>

#include "ir/ks_ir.h"
#include "passes/ks_passes.h"

static const char pass[] = "const_promote";

/* ---- the initializer from the values ------------------------------------ */

typedef struct filler {
  const double *v;
  size_t at;
  LLVMTypeRef bad; /* the type a value did not fit, when one did not */
} filler;

/* The constant of type ty from the next values; NULL when one does not fit
 * (f->bad says its type) or memory ran out. */
static LLVMValueRef fill(filler *f, LLVMTypeRef ty) {
  LLVMTypeKind k = LLVMGetTypeKind(ty);
  if (k != LLVMArrayTypeKind && k != LLVMStructTypeKind) {
    LLVMValueRef c = ks_const_value(ty, f->v[f->at]);
    if (!c)
      f->bad = ty;
    else
      f->at++;
    return c;
  }
  unsigned n = k == LLVMArrayTypeKind ? (unsigned)LLVMGetArrayLength2(ty)
                                      : LLVMCountStructElementTypes(ty);
  LLVMValueRef *e = malloc((n ? n : 1) * sizeof *e), c = NULL;
  unsigned i = 0;
  for (; e && i < n; i++) {
    LLVMTypeRef et = k == LLVMArrayTypeKind ? LLVMGetElementType(ty)
                                            : LLVMStructGetTypeAtIndex(ty, i);
    if (!(e[i] = fill(f, et)))
      break;
  }
  if (e && i == n)
    c = k == LLVMArrayTypeKind ? LLVMConstArray2(LLVMGetElementType(ty), e, n)
        : LLVMIsLiteralStruct(ty)
            ? LLVMConstStructInContext(LLVMGetTypeContext(ty), e, n,
                                       LLVMIsPackedStruct(ty))
            : LLVMConstNamedStruct(ty, e, n);
  free(e);
  return c;
}

int ks_bake_global_init(LLVMModuleRef m, const ks_spec *s, ks_diag *d) {
  for (size_t i = 0; i < s->nbakes; i++) {
    const ks_spec_bake *b = &s->bakes[i];
    LLVMValueRef g = b->global ? LLVMGetNamedGlobal(m, b->global) : NULL;
    if (!b->global || !b->n)
      continue;
    if (!g || LLVMIsDeclaration(g))
      return ks_diag_fail(d, KS_EPARAM, "bake: no global '%s' in the module",
                          b->global);
    LLVMTypeRef ty = LLVMGlobalGetValueType(g);
    if (ks_ir_leaf_count(ty) != b->n)
      return ks_diag_fail(
          d, KS_EPARAM, "bake: global '%s' holds %llu values, not %zu",
          b->global, (unsigned long long)ks_ir_leaf_count(ty), b->n);
    filler f = {.v = b->values};
    LLVMValueRef c = fill(&f, ty);
    if (!c && f.bad) {
      char *tn = LLVMPrintTypeToString(f.bad);
      int r = ks_diag_fail(d, KS_EPARAM,
                           "bake: global %s[%zu]=%.17g: not a value of its "
                           "type %s",
                           b->global, f.at, b->values[f.at], tn);
      LLVMDisposeMessage(tn);
      return r;
    }
    if (!c)
      return ks_diag_fail(d, KS_ENOMEM, "bake: out of memory");
    LLVMSetInitializer(g, c);
  }
  return 0;
}

/* ---- loads become their values ------------------------------------------ */

/* A GEP, bitcast or address space cast, instruction or constant. */
static int address_step(LLVMValueRef v, int *gep) {
  *gep = 0;
  if (LLVMIsAGetElementPtrInst(v))
    return *gep = 1;
  if (LLVMIsABitCastInst(v) || LLVMIsAAddrSpaceCastInst(v))
    return 1;
  if (!LLVMIsAConstantExpr(v))
    return 0;
  LLVMOpcode op = LLVMGetConstOpcode(v);
  *gep = op == LLVMGetElementPtr;
  return *gep || op == LLVMBitCast || op == LLVMAddrSpaceCast;
}

/* *off += k * size; 0 when that overflows 64 bits (a crafted index could
 * otherwise wrap to an offset inside the global). */
static int add_scaled(int64_t *off, int64_t k, uint64_t size) {
  int64_t step = 0;
  return size <= INT64_MAX &&
         !__builtin_mul_overflow(k, (int64_t)size, &step) &&
         !__builtin_add_overflow(*off, step, off);
}

/* The constant byte offset of GEP p from its pointer operand; 0 when an
 * index is not constant or the offset overflows. */
static int gep_offset(LLVMTargetDataRef dl, LLVMValueRef p, int64_t *off) {
  LLVMTypeRef ty = LLVMGetGEPSourceElementType(p);
  unsigned n = LLVMGetNumOperands(p);
  for (unsigned i = 1; i < n; i++) {
    LLVMValueRef idx = LLVMGetOperand(p, i);
    if (!LLVMIsAConstantInt(idx))
      return 0;
    int64_t k = LLVMConstIntGetSExtValue(idx);
    LLVMTypeKind kind = LLVMGetTypeKind(ty);
    if (i == 1) {
      if (!add_scaled(off, k, LLVMABISizeOfType(dl, ty)))
        return 0;
    } else if (kind == LLVMStructTypeKind) {
      if (!add_scaled(off, 1, LLVMOffsetOfElement(dl, ty, (unsigned)k)))
        return 0;
      ty = LLVMStructGetTypeAtIndex(ty, (unsigned)k);
    } else if (kind == LLVMArrayTypeKind) {
      ty = LLVMGetElementType(ty);
      if (!add_scaled(off, k, LLVMABISizeOfType(dl, ty)))
        return 0;
    } else {
      return 0; /* vector lanes */
    }
  }
  return 1;
}

/* The value pointer p is based on, with p's constant byte offset from it
 * in *off; *exact 0 when an offset on the way is not constant. */
static LLVMValueRef base_of(LLVMTargetDataRef dl, LLVMValueRef p, int64_t *off,
                            int *exact) {
  int gep = 0;
  *off = 0;
  *exact = 1;
  while (address_step(p, &gep)) {
    if (gep && *exact)
      *exact = gep_offset(dl, p, off);
    p = LLVMGetOperand(p, 0);
  }
  return p;
}

typedef struct bake_count {
  size_t baked, varying, other;
} bake_count;

/* The loads of g's storage in fn (through GEPs and casts, instructions
 * or constants), appended to *loads. 0, or 1 when memory ran out. */
static int collect(LLVMValueRef g, LLVMValueRef fn, LLVMValueRef **loads,
                   size_t *n, size_t *cap) {
  LLVMValueRef *work = NULL;
  size_t nw = 0, cw = 0;
  int bad = !ks_ir_room(&work, &cw, nw, sizeof *work, 16);
  if (!bad)
    work[nw++] = g;
  while (nw && !bad) {
    LLVMValueRef p = work[--nw];
    for (LLVMUseRef u = LLVMGetFirstUse(p); u && !bad; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      int gep = 0;
      if (address_step(user, &gep)) {
        bad = !ks_ir_room(&work, &cw, nw, sizeof *work, 16);
        if (!bad)
          work[nw++] = user;
      } else if (LLVMIsALoadInst(user) && !LLVMGetVolatile(user) &&
                 LLVMGetOrdering(user) == LLVMAtomicOrderingNotAtomic &&
                 LLVMGetBasicBlockParent(LLVMGetInstructionParent(user)) ==
                     fn) {
        bad = !ks_ir_room(loads, cap, *n, sizeof **loads, 16);
        if (!bad)
          (*loads)[(*n)++] = user;
      }
    }
  }
  free(work);
  return bad;
}

/* Replaces load ld of g's storage by its number, when it reads one. */
static void bake_load(LLVMTargetDataRef dl, LLVMValueRef g, LLVMValueRef ld,
                      bake_count *c) {
  int64_t off = 0;
  int exact = 0;
  if (base_of(dl, LLVMGetOperand(ld, 0), &off, &exact) != g || !exact) {
    c->varying++;
    return;
  }
  LLVMValueRef k = NULL;
  LLVMTypeRef gty = LLVMGlobalGetValueType(g);
  if (off < 0 || ks_ir_leaf(dl, gty, (uint64_t)off, LLVMTypeOf(ld),
                            LLVMGetInitializer(g), &k) < 0) {
    c->other++;
    return;
  }
  LLVMValueRef p = LLVMGetOperand(ld, 0);
  LLVMReplaceAllUsesWith(ld, k);
  LLVMInstructionEraseFromParent(ld);
  int gep = 0; /* the address computation left without users goes too */
  while (LLVMIsAInstruction(p) && address_step(p, &gep) &&
         !LLVMGetFirstUse(p)) {
    LLVMValueRef base = LLVMGetOperand(p, 0);
    LLVMInstructionEraseFromParent(p);
    p = base;
  }
  c->baked++;
}

static int bake_one(LLVMModuleRef m, LLVMValueRef fn, const ks_spec_bake *b,
                    ks_diag *d) {
  LLVMValueRef g = LLVMGetNamedGlobal(m, b->global);
  if (!g || !LLVMGetInitializer(g)) {
    ks_diag_explain(d, pass, "declined bake of global %s: not in the module",
                    b->global);
    return 0;
  }
  LLVMValueRef *loads = NULL;
  size_t n = 0, cap = 0;
  if (collect(g, fn, &loads, &n, &cap)) {
    free(loads);
    return ks_diag_fail(d, KS_ENOMEM, "const_promote: out of memory");
  }
  bake_count c = {0};
  LLVMTargetDataRef dl = LLVMGetModuleDataLayout(m);
  for (size_t i = 0; i < n; i++)
    bake_load(dl, g, loads[i], &c);
  free(loads);
  const char *from = b->n ? "baked values" : "its initializer";
  if (!n)
    ks_diag_explain(d, pass, "global %s: baked, but the kernel never loads it",
                    b->global);
  if (c.baked)
    ks_diag_explain(d, pass, "global %s: %zu loads became constants (from %s)",
                    b->global, c.baked, from);
  if (c.varying)
    ks_diag_explain(d, pass, "global %s: %zu loads kept: offset not constant",
                    b->global, c.varying);
  if (c.other)
    ks_diag_explain(
        d, pass,
        "global %s: %zu loads kept: not one of its numbers (another "
        "type or a part of one)",
        b->global, c.other);
  return 0;
}

int ks_bake_globals(LLVMModuleRef m, LLVMValueRef fn, const ks_spec *s,
                    ks_diag *d) {
  for (size_t i = 0; i < s->nbakes; i++)
    if (s->bakes[i].global && bake_one(m, fn, &s->bakes[i], d))
      return 1;
  return 0;
}
