/*
 * const_promote.c - the constant and read-only promotion stage: baked
 * buffers become immediates (here), then read-only inputs take the
 * non-coherent path (const_nc.c).
 *
 * A bake is the caller's promise of a buffer's contents at launch (of a
 * module global's: bake_globals.c). A load
 * from the baked argument at an element index that binding and unrolling
 * made constant is replaced by that element's value. Only when the kernel
 * itself never writes the buffer through the argument (no store, atomic or
 * call through any pointer derived from it, and the pointer does not escape)
 * is the promise worth anything until the load; that writes through other,
 * overlapping arguments are excluded too is part of the request's contract
 * (kspec.h, ks_bake).
 *
 * Constant memory. A read-only pointer argument whose loads are at offsets
 * that binding and unrolling made constant (filter taps: c[k + RADIUS] for
 * every k) gets a __constant__ copy: a .const symbol ks_cmem_<argument> of
 * the bytes those loads cover, which ks_launch fills from the argument's
 * buffer before every launch, in the launch's stream (ks_launch_plan's
 * const_copy_*). The loads then read it, and ptxas folds them into the
 * arithmetic as constant-bank operands: no load instruction at all, where
 * the non-coherent path still issues one per tap. Only loads that const_nc
 * marked !invariant.load move: those no write of the kernel can precede,
 * so the value at launch is one the original may read. The copy is bytes
 * [0, N), N the end of the farthest such load: the buffer must hold them
 * (kspec.h). Arguments passed by value (byval) are not buffers: left
 * alone.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Target.h>

#include "passes/ks_passes.h"

static const char pass[] = "const_promote";

/* Is v a pointer computed from its operand 0 without reading memory? */
static int is_address_step(LLVMValueRef v) {
  return LLVMIsAGetElementPtrInst(v) || LLVMIsABitCastInst(v) ||
         LLVMIsAAddrSpaceCastInst(v);
}

/* Why the use of pointer p by user u is not a plain read or a step to a
 * pointer derived from p; NULL when it is. *follow is set when u is a
 * derived pointer itself. */
static const char *use_problem(LLVMValueRef p, LLVMValueRef u, int *follow) {
  *follow = 0;
  if (LLVMIsALoadInst(u))
    return LLVMGetVolatile(u) ||
                   LLVMGetOrdering(u) != LLVMAtomicOrderingNotAtomic
               ? "it has volatile or atomic loads"
               : NULL;
  if (LLVMIsAStoreInst(u))
    return LLVMGetOperand(u, 1) == p ? "it is stored to"
                                     : "its address is stored to memory";
  if (LLVMIsAAtomicRMWInst(u) || LLVMIsAAtomicCmpXchgInst(u))
    return "it is updated atomically";
  if (LLVMIsACallInst(u))
    return "it is passed to a call";
  if (LLVMIsAICmpInst(u))
    return NULL;
  if (is_address_step(u) || LLVMIsAPHINode(u) || LLVMIsASelectInst(u)) {
    *follow = 1;
    return NULL;
  }
  return "its address escapes (converted or returned)";
}

/* Pushes v on a growable array; 0 when memory ran out. */
static int push(LLVMValueRef **a, size_t *n, size_t *cap, LLVMValueRef v) {
  if (!ks_ir_room(a, cap, *n, sizeof **a, 32))
    return 0;
  (*a)[(*n)++] = v;
  return 1;
}

const char *ks_const_readonly(LLVMValueRef arg, LLVMValueRef **loads,
                              size_t *nloads) {
  LLVMValueRef *work = NULL, *phis = NULL;
  size_t nwork = 0, cwork = 0, nphis = 0, cphis = 0, cloads = 0;
  const char *why = NULL;
  *loads = NULL;
  *nloads = 0;
  if (!push(&work, &nwork, &cwork, arg))
    return "out of memory";
  while (!why && nwork) {
    LLVMValueRef p = work[--nwork];
    for (LLVMUseRef u = LLVMGetFirstUse(p); u && !why; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      int follow = 0;
      why = use_problem(p, user, &follow);
      if (why)
        break;
      if (LLVMIsALoadInst(user) && !push(loads, nloads, &cloads, user))
        why = "out of memory";
      /* Only a phi or select can lead back to a pointer already seen. */
      int join = LLVMIsAPHINode(user) || LLVMIsASelectInst(user);
      if (!follow || (join && ks_ir_value_in(phis, nphis, user)))
        continue;
      if ((join && !push(&phis, &nphis, &cphis, user)) ||
          !push(&work, &nwork, &cwork, user))
        why = "out of memory";
    }
  }
  free(work);
  free(phis);
  if (why) {
    free(*loads);
    *loads = NULL;
    *nloads = 0;
  }
  return why;
}

LLVMValueRef ks_const_root(LLVMValueRef p) {
  while (is_address_step(p))
    p = LLVMGetOperand(p, 0);
  return p;
}

LLVMValueRef ks_const_base(LLVMTargetDataRef dl, LLVMValueRef p,
                           int64_t *offset) {
  int exact = 1;
  int64_t off = 0;
  while (is_address_step(p)) {
    if (LLVMIsAGetElementPtrInst(p)) {
      unsigned n = LLVMGetNumOperands(p);
      LLVMTypeRef ty = LLVMGetGEPSourceElementType(p);
      for (unsigned i = 1; i < n && exact; i++) {
        LLVMValueRef idx = LLVMGetOperand(p, i);
        if (!LLVMIsAConstantInt(idx)) {
          exact = 0;
          break;
        }
        int64_t k = LLVMConstIntGetSExtValue(idx);
        LLVMTypeKind kind = LLVMGetTypeKind(ty);
        if (i == 1) {
          off += k * (int64_t)LLVMABISizeOfType(dl, ty);
        } else if (kind == LLVMStructTypeKind) {
          off += (int64_t)LLVMOffsetOfElement(dl, ty, (unsigned)k);
          ty = LLVMStructGetTypeAtIndex(ty, (unsigned)k);
        } else if (kind == LLVMArrayTypeKind) {
          ty = LLVMGetElementType(ty);
          off += k * (int64_t)LLVMABISizeOfType(dl, ty);
        } else {
          exact = 0; /* vector lanes: not worth following */
        }
      }
    }
    p = LLVMGetOperand(p, 0);
  }
  if (!LLVMIsAArgument(p))
    exact = 0;
  *offset = exact ? off : -1;
  return exact ? p : NULL;
}

/* ---- baking ----------------------------------------------------------------
 */

LLVMValueRef ks_const_value(LLVMTypeRef ty, double v) {
  switch (LLVMGetTypeKind(ty)) {
  case LLVMHalfTypeKind: /* past 65504 + half an ulp: infinity */
    return fabs(v) < 65520.0 ? LLVMConstReal(ty, v) : NULL;
  case LLVMBFloatTypeKind:
    return fabs(v) < 0x1.ffp127 ? LLVMConstReal(ty, v) : NULL;
  case LLVMFloatTypeKind:
    return isinf((float)v) ? NULL : LLVMConstReal(ty, v);
  case LLVMDoubleTypeKind:
    return LLVMConstReal(ty, v);
  case LLVMIntegerTypeKind: {
    unsigned w = LLVMGetIntTypeWidth(ty);
    if (w > 64 || v != floor(v) || v < -ldexp(1, (int)w - 1) ||
        v >= ldexp(1, (int)w))
      return NULL;
    unsigned long long bits =
        v < 0 ? (unsigned long long)(long long)v : (unsigned long long)v;
    return LLVMConstInt(ty, bits, 0);
  }
  default:
    return NULL;
  }
}

typedef struct bake_count {
  size_t baked, varying, outside, unfit;
} bake_count;

/* Replaces load ld (of the baked type) by its value when its index is
 * constant and inside the bake. */
static void bake_load(LLVMTargetDataRef dl, LLVMValueRef arg,
                      const ks_spec_bake *b, LLVMValueRef ld, bake_count *c) {
  LLVMTypeRef ty = LLVMTypeOf(ld);
  int64_t size = (int64_t)LLVMABISizeOfType(dl, ty), off = 0;
  if (ks_const_base(dl, LLVMGetOperand(ld, 0), &off) != arg) {
    c->varying++;
    return;
  }
  if (off < 0 || off % size != 0 || (uint64_t)(off / size) >= b->n) {
    c->outside++;
    return;
  }
  LLVMValueRef k = ks_const_value(ty, b->values[off / size]);
  if (!k) {
    c->unfit++;
    return;
  }
  LLVMValueRef p = LLVMGetOperand(ld, 0);
  LLVMReplaceAllUsesWith(ld, k);
  LLVMInstructionEraseFromParent(ld);
  /* The address computation left without users goes too. */
  while (is_address_step(p) && !LLVMGetFirstUse(p)) {
    LLVMValueRef base = LLVMGetOperand(p, 0);
    LLVMInstructionEraseFromParent(p);
    p = base;
  }
  c->baked++;
}

static void bake_report(ks_diag *d, const char *name, const ks_spec_bake *b,
                        LLVMTypeRef ty, const bake_count *c) {
  char *tn = LLVMPrintTypeToString(ty);
  if (c->baked)
    ks_diag_explain(d, pass, "%s: %zu loads baked to %s constants (%zu values)",
                    name, c->baked, tn, b->n);
  if (c->varying)
    ks_diag_explain(d, pass, "%s: %zu loads kept: index not constant", name,
                    c->varying);
  if (c->outside)
    ks_diag_explain(d, pass,
                    "%s: %zu loads kept: index outside the %zu baked values",
                    name, c->outside, b->n);
  if (c->unfit)
    ks_diag_explain(d, pass, "%s: %zu loads kept: baked value not a %s", name,
                    c->unfit, tn);
  LLVMDisposeMessage(tn);
}

/* The one type every load has, or NULL (with *why) when they differ or it
 * cannot be baked. */
static LLVMTypeRef bake_type(LLVMValueRef *loads, size_t n, const char **why) {
  LLVMTypeRef ty = n ? LLVMTypeOf(loads[0]) : NULL;
  for (size_t i = 1; i < n; i++)
    if (LLVMTypeOf(loads[i]) != ty) {
      *why = "it is loaded with more than one type";
      return NULL;
    }
  if (ty && !ks_const_value(ty, 0)) {
    *why = "its loads are not of a scalar number type";
    return NULL;
  }
  if (!ty)
    *why = "the kernel never loads it";
  return ty;
}

static int bake_one(LLVMModuleRef m, LLVMValueRef fn, const ks_spec_bake *b,
                    ks_diag *d) {
  if (b->arg_index >= LLVMCountParams(fn) ||
      LLVMGetTypeKind(LLVMTypeOf(LLVMGetParam(fn, b->arg_index))) !=
          LLVMPointerTypeKind)
    return ks_diag_fail(d, KS_EPARAM,
                        "const_promote: bake: argument %u of '%s' is not a "
                        "pointer",
                        b->arg_index, LLVMGetValueName(fn));
  LLVMValueRef arg = LLVMGetParam(fn, b->arg_index);
  char name[64];
  ks_diag_arg_name(arg, name, sizeof name);
  LLVMValueRef *loads = NULL;
  size_t n = 0;
  const char *why = ks_const_readonly(arg, &loads, &n);
  LLVMTypeRef ty = why ? NULL : bake_type(loads, n, &why);
  if (why) {
    ks_diag_explain(d, pass, "declined bake of %s: %s", name, why);
  } else {
    LLVMTargetDataRef dl = LLVMGetModuleDataLayout(m);
    bake_count c = {0};
    for (size_t i = 0; i < n; i++)
      bake_load(dl, arg, b, loads[i], &c);
    bake_report(d, name, b, ty, &c);
  }
  free(loads);
  return 0;
}

/* ---- constant memory -------------------------------------------------- */

enum {
  CMEM_MAX_BYTES = 4096, /* per argument: taps, not tables */
  CMEM_MIN_LOADS = 4     /* fewer do not pay for a copy per launch */
};

static int baked(const ks_spec *s, unsigned arg) {
  for (size_t i = 0; i < s->nbakes; i++)
    if (!s->bakes[i].global && s->bakes[i].arg_index == arg)
      return 1;
  return 0;
}

/* The largest power of two dividing off, at most 16 (0: 16). */
static unsigned offset_align(int64_t off) {
  unsigned a = 16;
  while (a > 1 && off % a)
    a /= 2;
  return a;
}

/* Load ld of a constant offset from argument arg that may read the
 * launch-time copy: !invariant.load, in fn, a scalar or vector of at most
 * 16 bytes at offset *off >= 0. */
static int cmem_load(LLVMTargetDataRef dl, LLVMValueRef fn, LLVMValueRef arg,
                     unsigned inv, LLVMValueRef ld, int64_t *off) {
  LLVMTypeRef ty = LLVMTypeOf(ld);
  LLVMTypeKind k = LLVMGetTypeKind(ty);
  if (!LLVMGetMetadata(ld, inv) ||
      LLVMGetBasicBlockParent(LLVMGetInstructionParent(ld)) != fn ||
      (k == LLVMStructTypeKind || k == LLVMArrayTypeKind) ||
      LLVMABISizeOfType(dl, ty) > 16 ||
      ks_const_base(dl, LLVMGetOperand(ld, 0), off) != arg || *off < 0)
    return 0;
  return 1;
}

/* Moves argument i's eligible loads to a ks_cmem_<i> symbol; records the
 * copy in d. */
static int cmem_arg(LLVMModuleRef m, LLVMValueRef fn, unsigned i, ks_diag *d) {
  LLVMValueRef arg = LLVMGetParam(fn, i);
  LLVMTargetDataRef dl = LLVMGetModuleDataLayout(m);
  LLVMContextRef lc = LLVMGetModuleContext(m);
  unsigned inv = LLVMGetMDKindIDInContext(lc, "invariant.load", 14);
  LLVMValueRef *loads = NULL;
  size_t n = 0, moved = 0;
  char name[64], sym[32];
  if (ks_const_readonly(arg, &loads, &n)) {
    free(loads);
    return 0; /* const_nc said why */
  }
  int64_t end = 0, off;
  for (size_t j = 0; j < n; j++)
    if (cmem_load(dl, fn, arg, inv, loads[j], &off)) {
      int64_t e = off + (int64_t)LLVMABISizeOfType(dl, LLVMTypeOf(loads[j]));
      end = e > end ? e : end;
      moved++;
    }
  ks_diag_arg_name(arg, name, sizeof name);
  snprintf(sym, sizeof sym, "ks_cmem_%u", i);
  const char *why = NULL;
  if (moved < CMEM_MIN_LOADS)
    why = moved ? "fewer loads at constant offsets than pay for a copy" : NULL;
  else if (end > CMEM_MAX_BYTES)
    why = "its constant offsets span more than 4096 bytes";
  else if (d->plan.const_copies == KS_CMEM_MAX)
    why = "four buffers already have constant copies";
  else if (LLVMGetNamedGlobal(m, sym))
    why = "the module already has a global of the copy's name";
  if (why || moved < CMEM_MIN_LOADS) {
    if (why)
      ks_diag_explain(d, pass, "%s: not copied to constant memory: %s", name,
                      why);
    free(loads);
    return 0;
  }
  LLVMTypeRef i8 = LLVMInt8TypeInContext(lc), i64 = LLVMInt64TypeInContext(lc);
  LLVMTypeRef aty = LLVMArrayType2(i8, (uint64_t)end);
  LLVMValueRef g = LLVMAddGlobalInAddressSpace(m, aty, sym, 4);
  LLVMSetInitializer(g, LLVMConstNull(aty));
  LLVMSetExternallyInitialized(g, 1);
  LLVMSetAlignment(g, 16);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(lc);
  for (size_t j = 0; j < n; j++) {
    LLVMValueRef ld = loads[j];
    if (!cmem_load(dl, fn, arg, inv, ld, &off))
      continue;
    LLVMValueRef idx = LLVMConstInt(i64, (unsigned long long)off, 0);
    LLVMValueRef at = LLVMConstInBoundsGEP2(i8, g, &idx, 1);
    LLVMPositionBuilderBefore(b, ld);
    LLVMValueRef nl = LLVMBuildLoad2(b, LLVMTypeOf(ld), at, "");
    unsigned a = LLVMGetAlignment(ld), oa = offset_align(off);
    LLVMSetAlignment(nl, a < oa ? a : oa);
    LLVMSetMetadata(nl, inv, LLVMGetMetadata(ld, inv));
    LLVMValueRef p = LLVMGetOperand(ld, 0);
    LLVMReplaceAllUsesWith(ld, nl);
    LLVMInstructionEraseFromParent(ld);
    while (is_address_step(p) && LLVMIsAInstruction(p) && !LLVMGetFirstUse(p)) {
      LLVMValueRef base = LLVMGetOperand(p, 0);
      LLVMInstructionEraseFromParent(p);
      p = base;
    }
  }
  LLVMDisposeBuilder(b);
  free(loads);
  d->plan.const_copy_arg[d->plan.const_copies] = i;
  d->plan.const_copy_bytes[d->plan.const_copies] = (unsigned)end;
  d->plan.const_copies++;
  ks_diag_explain(
      d, pass,
      "%s: %zu loads read constant memory (%s, %lld bytes copied from "
      "%s before each launch)",
      name, moved, sym, (long long)end, name);
  return 0;
}

int ks_pass_const_promote(LLVMModuleRef m, const ks_spec *s, ks_diag *d) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, s->kernel);
  if (!fn || LLVMIsDeclaration(fn))
    return ks_diag_fail(d, KS_ENOKERNEL, "const_promote: no kernel '%s'",
                        s->kernel);
  for (size_t i = 0; i < s->nbakes; i++)
    if (!s->bakes[i].global && bake_one(m, fn, &s->bakes[i], d))
      return 1;
  if (ks_bake_globals(m, fn, s, d) || ks_const_nc(m, fn, d))
    return 1;
  d->plan.const_copies = 0;
  unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);
  for (unsigned i = 0; i < LLVMCountParams(fn); i++) {
    LLVMTypeRef ty = LLVMTypeOf(LLVMGetParam(fn, i));
    if (LLVMGetTypeKind(ty) == LLVMPointerTypeKind &&
        LLVMGetPointerAddressSpace(ty) == 0 && !baked(s, i) &&
        !LLVMGetEnumAttributeAtIndex(fn, i + 1, byval) && cmem_arg(m, fn, i, d))
      return 1;
  }
  return 0;
}
