/*
 * lower.c - the lowering NVPTX's codegen does to a module before
 * instruction selection, done here so that codegen can start at
 * nvptx-lower-unreachable (jit/codegen/target.c) and skip its straight-line
 * scalar passes where they find nothing to do.
 *
 * NVPTX's codegen (LLVM 19) runs these IR passes before
 * nvptx-lower-unreachable:
 *   pre-isel-intrinsic-lowering, expand-large-div-rem,
 *   expand-large-fp-convert   LLVM passes, run by the pipeline where the
 *                             module has what they expand
 *   nvvm-reflect              the optimize stage runs it
 *   nvptx-image-optimizer     folds llvm.nvvm.istypep.* (OpenCL image
 *                             types; not made by CUDA compilers): not done
 *   nvptx-assign-valid-global-names, nvptx-lower-args, nvptx-lower-alloca,
 *   nvptx-atomic-lower        this file (ks_lower_names, ks_lower_args,
 *                             ks_lower_allocas, ks_lower_local_atomics)
 *   generic-to-nvvm, sroa, infer-address-spaces  LLVM passes
 *   separate-const-offset-from-gep, speculative-execution, slsr,
 *   early-cse, nary-reassociate, early-cse  LLVM passes, run by the
 *                             pipeline only where the kernel has a loop
 *                             (slsr and nary-reassociate only where
 *                             straight.c finds them a candidate)
 *   atomic-expand, expand-variadics, lower-constant-intrinsics  LLVM
 *                             passes, run by the pipeline where the module
 *                             has atomics, variadic functions or
 *                             llvm.is.constant / llvm.objectsize
 *   nvptx-lower-ctor-dtor     not needed: the screen refuses constructors
 *   merge-icmps, expand-memcmp, constant hoisting, partially-inline-
 *   libcalls, early-cse, sroa and the rest  optimizations that changed no
 *                             byte of PTX over tools/ptx_identity.sh's
 *                             grid, or lowerings of what the screen
 *                             refuses (masked and vector-predicated
 *                             intrinsics, TLS); vector reductions,
 *                             codegen's instruction selection expands
 *                             itself
 * LLVM 19 registers its four NVPTX passes for codegen's own pipeline only,
 * so they are written again here, as LLVM does them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ks_ir.h"
#include "passes/ks_passes.h"

enum { AS_GENERIC = 0, AS_GLOBAL = 1, AS_LOCAL = 5, AS_PARAM = 101 };

static int is_local_linkage(LLVMValueRef g) {
  LLVMLinkage l = LLVMGetLinkage(g);
  return l == LLVMInternalLinkage || l == LLVMPrivateLinkage;
}

/* '.' and '@' are not allowed in PTX identifiers: each becomes "_$_"
 * (nvptx-assign-valid-global-names; LLVM makes a clashing name unique). */
static int clean_name(LLVMValueRef g) {
  size_t n = 0;
  const char *name = LLVMGetValueName2(g, &n);
  size_t bad = 0;
  for (size_t i = 0; i < n; i++)
    bad += name[i] == '.' || name[i] == '@';
  if (!bad)
    return 0;
  char *s = malloc(n + 2 * bad + 1);
  if (!s)
    return 1;
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (name[i] == '.' || name[i] == '@') {
      memcpy(s + k, "_$_", 3);
      k += 3;
    } else {
      s[k++] = name[i];
    }
  LLVMSetValueName2(g, s, k);
  free(s);
  return 0;
}

int ks_lower_names(LLVMModuleRef m) {
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
    if (is_local_linkage(g) && clean_name(g))
      return 1;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (is_local_linkage(f) && clean_name(f))
      return 1;
  return 0;
}

/* v's name, cut to fit buf, for the values made in its place. */
static void name_of(LLVMValueRef v, char buf[64]) {
  size_t n = 0;
  const char *name = LLVMGetValueName2(v, &n);
  snprintf(buf, 64, "%.*s", (int)(n < 63 ? n : 63), name);
}

/* A pointer known to point to global memory is cast to the global space
 * and back, right after it is made (at the entry for an argument), and the
 * round trip replaces it everywhere else: infer-address-spaces then makes
 * its loads and stores global ones. */
static void mark_global(LLVMContextRef c, LLVMBuilderRef b, LLVMValueRef fn,
                        LLVMValueRef p) {
  LLVMTypeRef t = LLVMTypeOf(p);
  if (LLVMGetTypeKind(t) != LLVMPointerTypeKind ||
      LLVMGetPointerAddressSpace(t) != AS_GENERIC || !LLVMGetFirstUse(p))
    return; /* (an unused pointer's casts would be dead) */
  LLVMValueRef at = LLVMIsAArgument(p)
                        ? LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(fn))
                        : LLVMGetNextInstruction(p);
  if (!at)
    return;
  char buf[64];
  name_of(p, buf);
  LLVMPositionBuilderBefore(b, at);
  LLVMValueRef g =
      LLVMBuildAddrSpaceCast(b, p, LLVMPointerTypeInContext(c, AS_GLOBAL), buf);
  LLVMValueRef back = LLVMBuildAddrSpaceCast(b, g, t, buf);
  LLVMReplaceAllUsesWith(p, back);
  LLVMSetOperand(g, 0, p);
}

/* v's users, when every one is an inttoptr, point to global memory. */
static int int_to_ptr(LLVMContextRef c, LLVMBuilderRef b, LLVMValueRef fn,
                      LLVMValueRef v) {
  size_t n = 0;
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u), n++)
    if (!LLVMIsAIntToPtrInst(LLVMGetUser(u)))
      return 0;
  if (n == 0)
    return 0;
  LLVMValueRef *users = malloc(n * sizeof *users);
  if (!users)
    return 1;
  n = 0;
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u))
    users[n++] = LLVMGetUser(u);
  for (size_t i = 0; i < n; i++)
    mark_global(c, b, fn, users[i]);
  free(users);
  return 0;
}

static LLVMAttributeRef param_attr(LLVMValueRef fn, unsigned i,
                                   const char *kind) {
  unsigned k = LLVMGetEnumAttributeKindForName(kind, strlen(kind));
  return LLVMGetEnumAttributeAtIndex(fn, i + 1, k);
}

/* A byval parameter that may be written or have its address taken (and
 * any of a device function's) is copied to a local at the entry, and the
 * copy replaces it; SROA takes the copy apart where it can. */
static void copy_byval(LLVMModuleRef m, LLVMContextRef c, LLVMBuilderRef b,
                       LLVMValueRef fn, unsigned i) {
  LLVMValueRef arg = LLVMGetParam(fn, i);
  LLVMTypeRef ty = LLVMGetTypeAttributeValue(param_attr(fn, i, "byval"));
  LLVMAttributeRef al = param_attr(fn, i, "align");
  unsigned align =
      al ? (unsigned)LLVMGetEnumAttributeValue(al)
         : LLVMPreferredAlignmentOfType(LLVMGetModuleDataLayout(m), ty);
  LLVMPositionBuilderBefore(
      b, LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(fn)));
  char buf[64];
  name_of(arg, buf);
  LLVMValueRef copy = LLVMBuildAlloca(b, ty, buf);
  LLVMSetAlignment(copy, align);
  LLVMReplaceAllUsesWith(arg, copy);
  LLVMValueRef in = LLVMBuildAddrSpaceCast(
      b, arg, LLVMPointerTypeInContext(c, AS_PARAM), buf);
  LLVMValueRef v = LLVMBuildLoad2(b, ty, in, buf);
  LLVMSetAlignment(v, align);
  LLVMSetAlignment(LLVMBuildStore(b, v, copy), align);
}

static int is_byval(LLVMValueRef fn, unsigned i) {
  return LLVMGetTypeKind(LLVMTypeOf(LLVMGetParam(fn, i))) ==
             LLVMPointerTypeKind &&
         param_attr(fn, i, "byval") != NULL;
}

static int is_param_space(LLVMValueRef v) {
  LLVMTypeRef t = LLVMTypeOf(v);
  return LLVMGetTypeKind(t) == LLVMPointerTypeKind &&
         LLVMGetPointerAddressSpace(t) == AS_PARAM;
}

/* Whether p is only read: every use, through GEPs and bitcasts, a load
 * that is not atomic, or a cast to the parameter space (nvptx-lower-args'
 * load chain). */
static int only_read(LLVMValueRef p, int depth) {
  if (depth > 16)
    return 0;
  for (LLVMUseRef u = LLVMGetFirstUse(p); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef in = LLVMGetUser(u);
    if (LLVMIsALoadInst(in)) {
      if (LLVMGetOrdering(in) != LLVMAtomicOrderingNotAtomic)
        return 0;
    } else if (LLVMIsAAddrSpaceCastInst(in)) {
      if (!is_param_space(in))
        return 0;
    } else if ((LLVMIsAGetElementPtrInst(in) && LLVMGetOperand(in, 0) == p) ||
               LLVMIsABitCastInst(in)) {
      if (!only_read(in, depth + 1))
        return 0;
    } else {
      return 0;
    }
  }
  return 1;
}

/* old's first use other than by skip (p's own cast), or NULL. */
static LLVMUseRef use_but(LLVMValueRef old, LLVMValueRef skip) {
  LLVMUseRef u = LLVMGetFirstUse(old);
  while (u && LLVMGetUser(u) == skip)
    u = LLVMGetNextUse(u);
  return u;
}

/* Rewrites old's uses (only_read's chain) onto p, old in the parameter
 * space: GEPs made again on p, loads reading p, casts dropped. */
static int onto_param(LLVMBuilderRef b, LLVMValueRef old, LLVMValueRef p) {
  LLVMUseRef u;
  while ((u = use_but(old, p))) {
    LLVMValueRef in = LLVMGetUser(u), q = p;
    if (LLVMIsALoadInst(in)) {
      LLVMSetOperand(in, 0, p);
      continue;
    }
    if (LLVMIsAGetElementPtrInst(in)) {
      unsigned n = (unsigned)LLVMGetNumOperands(in) - 1;
      LLVMValueRef *idx = malloc((n ? n : 1) * sizeof *idx);
      if (!idx)
        return 1;
      for (unsigned k = 0; k < n; k++)
        idx[k] = LLVMGetOperand(in, k + 1);
      char buf[64];
      name_of(in, buf);
      LLVMPositionBuilderBefore(b, in);
      LLVMTypeRef ty = LLVMGetGEPSourceElementType(in);
      q = LLVMIsInBounds(in) ? LLVMBuildInBoundsGEP2(b, ty, p, idx, n, buf)
                             : LLVMBuildGEP2(b, ty, p, idx, n, buf);
      free(idx);
    }
    if (LLVMIsAAddrSpaceCastInst(in))
      LLVMReplaceAllUsesWith(in, p);
    else if (onto_param(b, in, q))
      return 1;
    LLVMInstructionEraseFromParent(in);
  }
  return 0;
}

/* A kernel's byval parameter that is only read is read where it is, in
 * the parameter space, with no copy. */
static int read_in_place(LLVMContextRef c, LLVMBuilderRef b, LLVMValueRef fn,
                         unsigned i) {
  LLVMValueRef arg = LLVMGetParam(fn, i);
  char buf[64];
  name_of(arg, buf);
  LLVMPositionBuilderBefore(
      b, LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(fn)));
  LLVMValueRef p = LLVMBuildAddrSpaceCast(
      b, arg, LLVMPointerTypeInContext(c, AS_PARAM), buf);
  return onto_param(b, arg, p);
}

/* The object a pointer is into: through GEPs and casts, as far as LLVM's
 * getUnderlyingObject looks (6 steps). */
static LLVMValueRef underlying(LLVMValueRef p) {
  for (int i = 0; i < 6; i++) {
    LLVMOpcode op = LLVMIsAInstruction(p)    ? LLVMGetInstructionOpcode(p)
                    : LLVMIsAConstantExpr(p) ? LLVMGetConstOpcode(p)
                                             : LLVMRet;
    if (op != LLVMGetElementPtr && op != LLVMBitCast && op != LLVMAddrSpaceCast)
      return p;
    p = LLVMGetOperand(p, 0);
  }
  return p;
}

static int lower_kernel_args(LLVMModuleRef m, LLVMContextRef c,
                             LLVMBuilderRef b, LLVMValueRef fn, int *copied) {
  unsigned np = LLVMCountParams(fn);
  int any_byval = 0;
  for (unsigned i = 0; i < np; i++)
    any_byval |= is_byval(fn, i);
  /* pointers read out of a byval parameter point to global memory */
  if (any_byval)
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in;
           in = LLVMGetNextInstruction(in)) {
        if (!LLVMIsALoadInst(in))
          continue;
        LLVMTypeKind k = LLVMGetTypeKind(LLVMTypeOf(in));
        if (k != LLVMPointerTypeKind && k != LLVMIntegerTypeKind)
          continue;
        LLVMValueRef o = underlying(LLVMGetOperand(in, 0));
        if (!LLVMIsAArgument(o) || !is_byval(fn, ks_ir_param_index(o)))
          continue;
        if (k == LLVMPointerTypeKind)
          mark_global(c, b, fn, in);
        else if (int_to_ptr(c, b, fn, in))
          return 1;
      }
  for (unsigned i = 0; i < np; i++) {
    LLVMValueRef a = LLVMGetParam(fn, i);
    LLVMTypeKind k = LLVMGetTypeKind(LLVMTypeOf(a));
    if (k == LLVMPointerTypeKind && is_byval(fn, i) && only_read(a, 0)) {
      if (read_in_place(c, b, fn, i))
        return 1;
    } else if (k == LLVMPointerTypeKind && is_byval(fn, i)) {
      copy_byval(m, c, b, fn, i);
      *copied = 1;
    } else if (k == LLVMPointerTypeKind) {
      mark_global(c, b, fn, a);
    } else if (k == LLVMIntegerTypeKind && int_to_ptr(c, b, fn, a)) {
      return 1;
    }
  }
  return 0;
}

int ks_lower_args(LLVMModuleRef m, int *copied) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  int bad = 0;
  *copied = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f && !bad;
       f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f) || !LLVMGetEntryBasicBlock(f))
      continue;
    if (ks_ir_is_kernel(m, f)) {
      bad = lower_kernel_args(m, c, b, f, copied);
      continue;
    }
    for (unsigned i = 0; i < LLVMCountParams(f); i++)
      if (is_byval(f, i)) {
        copy_byval(m, c, b, f, i);
        *copied = 1;
      }
  }
  LLVMDisposeBuilder(b);
  return bad;
}

int ks_lower_has_allocas(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in;
           in = LLVMGetNextInstruction(in))
        if (LLVMIsAAllocaInst(in))
          return 1;
  return 0;
}

/* Each alloca is cast to the local space and back, and its loads, stores,
 * GEPs and bitcasts take the round trip (nvptx-lower-alloca), for
 * infer-address-spaces to make them local. */
static int lower_alloca(LLVMContextRef c, LLVMBuilderRef b, LLVMValueRef a) {
  LLVMTypeRef t = LLVMTypeOf(a);
  if (LLVMGetPointerAddressSpace(t) != AS_GENERIC)
    return 0;
  size_t n = 0;
  for (LLVMUseRef u = LLVMGetFirstUse(a); u; u = LLVMGetNextUse(u))
    n++;
  LLVMValueRef *users = malloc((n ? n : 1) * sizeof *users);
  if (!users)
    return 1;
  n = 0;
  for (LLVMUseRef u = LLVMGetFirstUse(a); u; u = LLVMGetNextUse(u))
    users[n++] = LLVMGetUser(u);
  LLVMPositionBuilderBefore(b, LLVMGetNextInstruction(a));
  LLVMValueRef local =
      LLVMBuildAddrSpaceCast(b, a, LLVMPointerTypeInContext(c, AS_LOCAL), "");
  LLVMValueRef gen = LLVMBuildAddrSpaceCast(b, local, t, "");
  for (size_t i = 0; i < n; i++) {
    LLVMValueRef u = users[i];
    if (LLVMIsALoadInst(u) && !LLVMGetVolatile(u) && LLVMGetOperand(u, 0) == a)
      LLVMSetOperand(u, 0, gen);
    else if (LLVMIsAStoreInst(u) && !LLVMGetVolatile(u) &&
             LLVMGetOperand(u, 1) == a)
      LLVMSetOperand(u, 1, gen);
    else if ((LLVMIsAGetElementPtrInst(u) || LLVMIsABitCastInst(u)) &&
             LLVMGetOperand(u, 0) == a)
      LLVMSetOperand(u, 0, gen);
  }
  free(users);
  return 0;
}

/* What each_inst calls on an instruction: 0 to go on. */
typedef int (*inst_fn)(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef in,
                       ks_diag *d);

/* Calls fn on every instruction of m in order, with a builder of m's
 * context, until one returns non-zero, and returns that. fn may erase the
 * instruction; what it adds after it is not visited. */
static int each_inst(LLVMModuleRef m, ks_diag *d, inst_fn fn) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
  int r = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f && !r;
       f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb && !r;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef in = LLVMGetFirstInstruction(bb), next; in && !r;
           in = next) {
        next = LLVMGetNextInstruction(in);
        r = fn(m, b, in, d);
      }
  LLVMDisposeBuilder(b);
  return r;
}

static int alloca_inst(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef in,
                       ks_diag *d) {
  (void)d;
  return LLVMIsAAllocaInst(in) ? lower_alloca(LLVMGetModuleContext(m), b, in)
                               : 0;
}

int ks_lower_allocas(LLVMModuleRef m) {
  return each_inst(m, NULL, alloca_inst);
}

/* The value an atomicrmw stores, from the old one and its operand;
 * NULL for an operation not written here. */
static LLVMValueRef rmw_value(LLVMModuleRef m, LLVMBuilderRef b,
                              LLVMAtomicRMWBinOp op, LLVMValueRef old,
                              LLVMValueRef v) {
  LLVMTypeRef t = LLVMTypeOf(old);
  switch (op) {
  case LLVMAtomicRMWBinOpXchg:
    return v;
  case LLVMAtomicRMWBinOpAdd:
    return LLVMBuildAdd(b, old, v, "");
  case LLVMAtomicRMWBinOpSub:
    return LLVMBuildSub(b, old, v, "");
  case LLVMAtomicRMWBinOpAnd:
    return LLVMBuildAnd(b, old, v, "");
  case LLVMAtomicRMWBinOpNand:
    return LLVMBuildNot(b, LLVMBuildAnd(b, old, v, ""), "");
  case LLVMAtomicRMWBinOpOr:
    return LLVMBuildOr(b, old, v, "");
  case LLVMAtomicRMWBinOpXor:
    return LLVMBuildXor(b, old, v, "");
  case LLVMAtomicRMWBinOpMax:
  case LLVMAtomicRMWBinOpMin:
  case LLVMAtomicRMWBinOpUMax:
  case LLVMAtomicRMWBinOpUMin: {
    LLVMIntPredicate p = op == LLVMAtomicRMWBinOpMax    ? LLVMIntSGT
                         : op == LLVMAtomicRMWBinOpMin  ? LLVMIntSLE
                         : op == LLVMAtomicRMWBinOpUMax ? LLVMIntUGT
                                                        : LLVMIntULE;
    return LLVMBuildSelect(b, LLVMBuildICmp(b, p, old, v, ""), old, v, "");
  }
  case LLVMAtomicRMWBinOpFAdd:
    return LLVMBuildFAdd(b, old, v, "");
  case LLVMAtomicRMWBinOpFSub:
    return LLVMBuildFSub(b, old, v, "");
  case LLVMAtomicRMWBinOpFMax:
  case LLVMAtomicRMWBinOpFMin: {
    const char *n =
        op == LLVMAtomicRMWBinOpFMax ? "llvm.maxnum" : "llvm.minnum";
    LLVMValueRef args[2] = {old, v};
    return ks_ir_call_overloaded(m, b, n, &t, 1, args, 2);
  }
  case LLVMAtomicRMWBinOpUIncWrap: /* old >= v ? 0 : old + 1 */
    return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntUGE, old, v, ""),
                           LLVMConstNull(t),
                           LLVMBuildAdd(b, old, LLVMConstInt(t, 1, 0), ""), "");
  case LLVMAtomicRMWBinOpUDecWrap: /* old == 0 || old > v ? v : old - 1 */
    return LLVMBuildSelect(
        b,
        LLVMBuildOr(b, LLVMBuildICmp(b, LLVMIntEQ, old, LLVMConstNull(t), ""),
                    LLVMBuildICmp(b, LLVMIntUGT, old, v, ""), ""),
        v, LLVMBuildSub(b, old, LLVMConstInt(t, 1, 0), ""), "");
  default:
    return NULL;
  }
}

/* An atomicrmw on local memory (only this thread sees it) becomes a load,
 * the operation and a store (nvptx-atomic-lower); run after
 * infer-address-spaces, which finds them. Returns 1 and says why for an
 * operation it does not know. */
static int local_atomic(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef in,
                        ks_diag *d) {
  if (!LLVMIsAAtomicRMWInst(in) ||
      LLVMGetPointerAddressSpace(LLVMTypeOf(LLVMGetOperand(in, 0))) != AS_LOCAL)
    return 0;
  LLVMValueRef p = LLVMGetOperand(in, 0), v = LLVMGetOperand(in, 1);
  LLVMPositionBuilderBefore(b, in);
  LLVMValueRef old = LLVMBuildLoad2(b, LLVMTypeOf(in), p, "");
  LLVMSetAlignment(old, LLVMGetAlignment(in));
  LLVMValueRef nv = rmw_value(m, b, LLVMGetAtomicRMWBinOp(in), old, v);
  if (!nv) {
    LLVMInstructionEraseFromParent(old);
    return ks_diag_fail(d, KS_EPASS,
                        "lower: an atomic operation on local memory "
                        "that kspec cannot lower");
  }
  LLVMSetAlignment(LLVMBuildStore(b, nv, p), LLVMGetAlignment(in));
  LLVMReplaceAllUsesWith(in, old);
  LLVMInstructionEraseFromParent(in);
  return 0;
}

int ks_lower_local_atomics(LLVMModuleRef m, ks_diag *d) {
  return each_inst(m, d, local_atomic);
}

/* What the module needs of LLVM's own lowering passes. */
int ks_lower_needs(LLVMModuleRef m) {
  /* atomics the backend screen refuses (fences, loads and stores
   * stronger than monotonic) are left as they are, for it to name them,
   * rather than expanded into what it would name instead */
  int need = 0, atomics = 0, refused = 0;
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
    size_t n = 0;
    const char *name = LLVMGetValueName2(g, &n);
    if (LLVMGetPointerAddressSpace(LLVMTypeOf(g)) == AS_GENERIC &&
        !(n >= 5 && memcmp(name, "llvm.", 5) == 0))
      need |= KS_LOWER_GENERIC;
  }
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f;
       f = LLVMGetNextFunction(f)) {
    size_t n = 0;
    const char *name = LLVMGetValueName2(f, &n);
    if (LLVMGetFirstUse(f) &&
        (LLVMIsFunctionVarArg(LLVMGlobalGetValueType(f)) ||
         (n >= 8 && memcmp(name, "llvm.va_", 8) == 0)))
      need |= KS_LOWER_VARIADIC;
    if (LLVMGetFirstUse(f) &&
        ((n >= 16 && memcmp(name, "llvm.is.constant", 16) == 0) ||
         (n >= 15 && memcmp(name, "llvm.objectsize", 15) == 0)))
      need |= KS_LOWER_CONSTANTS;
    if (LLVMIsDeclaration(f)) {
      static const char *const pre[] = {"llvm.mem", "llvm.objc",
                                        "llvm.load.relative"};
      for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
        if (n >= strlen(pre[i]) && memcmp(name, pre[i], strlen(pre[i])) == 0)
          need |= KS_LOWER_INTRINSICS;
      if (n >= 4 && memcmp(name, "objc", 4) == 0)
        need |= KS_LOWER_INTRINSICS;
      continue;
    }
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in;
           in = LLVMGetNextInstruction(in)) {
        LLVMOpcode op = LLVMGetInstructionOpcode(in);
        if (op == LLVMAtomicRMW || op == LLVMAtomicCmpXchg)
          atomics = 1;
        if (op == LLVMLoad || op == LLVMStore) {
          LLVMAtomicOrdering o = LLVMGetOrdering(in);
          atomics |= o != LLVMAtomicOrderingNotAtomic;
          refused |= o > LLVMAtomicOrderingMonotonic;
        }
        refused |= op == LLVMFence;
        LLVMTypeRef t = NULL;
        if (op == LLVMSDiv || op == LLVMUDiv || op == LLVMSRem ||
            op == LLVMURem || op == LLVMFPToSI || op == LLVMFPToUI)
          t = LLVMTypeOf(in);
        else if (op == LLVMSIToFP || op == LLVMUIToFP)
          t = LLVMTypeOf(LLVMGetOperand(in, 0));
        if (t && LLVMGetTypeKind(t) == LLVMVectorTypeKind)
          t = LLVMGetElementType(t);
        if (t && LLVMGetTypeKind(t) == LLVMIntegerTypeKind &&
            LLVMGetIntTypeWidth(t) > 64)
          need |= KS_LOWER_WIDE;
      }
  }
  return need | (atomics && !refused ? KS_LOWER_ATOMICS : 0);
}

/* ---- the stage ------------------------------------------------------------
 *
 * What NVPTX's codegen did to the module before instruction selection,
 * which jit/codegen/target.c has codegen skip (it starts at
 * nvptx-lower-unreachable), in codegen's order: LLVM's intrinsic and wide
 * division expansions where the module has them, PTX-valid local names,
 * generic globals moved to the global space, kernel arguments lowered, SROA
 * and the local space for allocas, address-space inference, atomics on
 * local memory lowered, then atomic-expand, expand-variadics and
 * lower-constant-intrinsics where the module has what they expand (see the
 * top of this file for what else is skipped).
 *
 * Codegen's straight-line passes (separate-const-offset-from-gep ..
 * nary-reassociate, with their early-cse) run only where a loop is left or
 * straight.c finds strength to reduce: only kernels with a loop had SASS
 * they shortened; without one they found nothing that ptxas does not, and
 * their ScalarEvolution cost up to a sixth of a specialization. Where they
 * run, slsr and nary-reassociate (and the early-cse after
 * nary-reassociate) run only where straight.c's screens find a candidate
 * for them, which their ScalarEvolution would look for in vain otherwise.
 * The transpose's store exchange (smem_store.c) builds its slots
 * strength-reduced, and slsr's screen tells a base that moves with a loop
 * from one that does not: slsr is not run there either. (Measured:
 * BENCHMARKS.md, "Why the pipeline is as it is".)
 */
#define STRAIGHT_LINE "separate-const-offset-from-gep,speculative-execution"
#define SPLIT_GEP "separate-const-offset-from-gep,early-cse"

/* The rest of codegen's straight-line passes, after STRAIGHT_LINE: slsr
 * where it has a candidate, early-cse, then nary-reassociate and early-cse
 * where nary-reassociate has one. nary-reassociate's screen looks at the
 * module before slsr first: where it finds a candidate there, all run at
 * once; else it looks again after slsr and early-cse, which may make
 * one. */
static int straight_rest(ks_stage_ctx *c) {
  int slsr = ks_lower_slsr(c->m);
  if (!slsr)
    ks_diag_explain(c->diag, c->name,
                    "no candidate for straight-line strength reduction: slsr "
                    "not run");
  const char *first = slsr ? "slsr,early-cse" : "early-cse";
  char passes[128];
  if (ks_lower_nary(c->m)) {
    snprintf(passes, sizeof passes, "function(%s,nary-reassociate,early-cse)",
             first);
    return ks_pipeline_llvm_unnamed(c, passes);
  }
  snprintf(passes, sizeof passes, "function(%s)", first);
  if (ks_pipeline_llvm_unnamed(c, passes))
    return 1;
  if (!ks_lower_nary(c->m)) {
    ks_diag_explain(
        c->diag, c->name,
        "no candidate for n-ary reassociation: nary-reassociate not "
        "run");
    return 0;
  }
  return ks_pipeline_llvm_unnamed(c, "function(nary-reassociate,early-cse)");
}

/* atomic-expand, expand-variadics and lower-constant-intrinsics, those of
 * `need` (KS_LOWER_* bits). */
static int expand(ks_stage_ctx *c, int need) {
  if (!(need & (KS_LOWER_ATOMICS | KS_LOWER_VARIADIC | KS_LOWER_CONSTANTS)))
    return 0;
  char passes[256];
  snprintf(passes, sizeof passes, "%s%s%s%s",
           need & KS_LOWER_ATOMICS ? "function(atomic-expand)," : "",
           need & KS_LOWER_VARIADIC ? "expand-variadics," : "",
           need & KS_LOWER_CONSTANTS ? "function(lower-constant-intrinsics),"
                                     : "",
           need & KS_LOWER_VARIADIC ? "function(early-cse,sroa)," : "");
  passes[strlen(passes) - 1] = '\0'; /* the last comma */
  return ks_pipeline_llvm_unnamed(c, passes);
}

/* The first part: up to and with the allocas moved to the local space;
 * *allocas says whether the module has any. */
static int lower_front(ks_stage_ctx *c, int need, int *allocas) {
  LLVMModuleRef m = c->m;
  int copied = 0;
  if ((need & KS_LOWER_INTRINSICS) &&
      ks_pipeline_llvm_unnamed(c, "pre-isel-intrinsic-lowering"))
    return 1;
  if ((need & KS_LOWER_WIDE) &&
      ks_pipeline_llvm_unnamed(
          c, "function(expand-large-div-rem,expand-large-fp-convert)"))
    return 1;
  if (ks_lower_names(m))
    return ks_diag_fail(c->diag, KS_ENOMEM, "lower: out of memory");
  if ((need & KS_LOWER_GENERIC) &&
      ks_pipeline_llvm_unnamed(c, "generic-to-nvvm"))
    return 1;
  if (ks_lower_args(m, &copied))
    return ks_diag_fail(c->diag, KS_ENOMEM, "lower: out of memory");
  *allocas = ks_lower_has_allocas(m);
  if (*allocas &&
      (ks_pipeline_llvm_unnamed(c, "function(sroa)") || ks_lower_allocas(m)))
    return c->diag->status
               ? 1
               : ks_diag_fail(c->diag, KS_ENOMEM, "lower: out of memory");
  return 0;
}

int ks_pass_lower(ks_stage_ctx *c) {
  if (c->spec->codegen_lowers) {
    ks_diag_explain(c->diag, c->name,
                    "not run: codegen lowers the module itself");
    return ks_loops_latch_next(c->m, c->spec, c->diag);
  }
  int need = ks_lower_needs(c->m), allocas = 0;
  if (lower_front(c, need, &allocas))
    return 1;
  int sl = ks_lower_straight_line(c->m);
  const char *group = NULL;
  int full = ks_pipeline_loops_left(c->m) || (sl & KS_LOWER_STRENGTH);
  if (full)
    group = STRAIGHT_LINE;
  else if (sl & KS_LOWER_SPLIT_GEP)
    group = SPLIT_GEP;
  else
    ks_diag_explain(c->diag, c->name,
                    "no loop, no strength to reduce: codegen's straight-line "
                    "passes not run");
  char passes[256];
  snprintf(passes, sizeof passes, "function(infer-address-spaces%s%s)",
           group && !allocas ? "," : "", group && !allocas ? group : "");
  if (ks_pipeline_llvm_unnamed(c, passes))
    return 1;
  snprintf(passes, sizeof passes, "function(%s)", group ? group : "");
  if (allocas && (ks_lower_local_atomics(c->m, c->diag) ||
                  (group && ks_pipeline_llvm_unnamed(c, passes))))
    return 1;
  if (full && straight_rest(c))
    return 1;
  return expand(c, need) ||
         (full && ks_loops_latch_next(c->m, c->spec, c->diag));
}
