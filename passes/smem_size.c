/*
 * smem_size.c - shared-array sizing, first in smem_promote.
 *
 * A shared array the template declares at a parameter's upper bound
 * (reduce_sum's sh[1024], BLOCK <= 1024) shrinks to the elements its
 * accesses can reach once the values and the block are bound. Each access
 * (load, store, atomic, through GEPs and address-space casts of the array)
 * is bounded by the interval analysis of ranges.c, %tid within the fixed
 * block, refined by the conditions of the branches on the way to its block
 * (ks_range_path_bounds). Every access must be bounded below by 0 and above
 * by the array's length; the array becomes [M x T], M the elements the
 * farthest access touches. The uses of the old array go to the new one:
 * GEPs keep their source type, which only scales their indices.
 *
 * Private arrays (smem_local.c) bound their accesses with the same walk,
 * ks_smem_reach.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/smem_atomics.h"

#define PASS "smem_promote"

ks_smem_kernel ks_smem_kernel_of(LLVMModuleRef m, LLVMValueRef fn) {
  return (ks_smem_kernel){.m = m,
                          .c = LLVMGetModuleContext(m),
                          .fn = fn,
                          .dl = LLVMGetModuleDataLayout(m)};
}

/* With 16 B of padding counted for each array. */
unsigned long long ks_smem_existing(LLVMModuleRef m) {
  LLVMTargetDataRef dl = LLVMGetModuleDataLayout(m);
  unsigned long long total = 0;
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
    if (LLVMGetPointerAddressSpace(LLVMTypeOf(g)) == KS_AS_SHARED &&
        !LLVMIsDeclaration(g))
      total += LLVMABISizeOfType(dl, LLVMGlobalGetValueType(g)) + 16;
  return total;
}

/* The bytes [lo, hi) of the array an access through pointer p of type
 * acc reaches, p derived from the array by the GEP chain from it; 0 when
 * it cannot be bounded. */
static int access_bytes(const ks_smem_kernel *K, ks_ranges *R, LLVMValueRef p,
                        LLVMTypeRef acc, ks_wide *lo, ks_wide *hi) {
  ks_wide a = 0, b = 0;
  while (p && !LLVMIsAGlobalVariable(p) && !LLVMIsAAllocaInst(p)) {
    if (LLVMIsAAddrSpaceCastInst(p) ||
        (LLVMIsAConstantExpr(p) &&
         LLVMGetConstOpcode(p) == LLVMAddrSpaceCast)) {
      p = LLVMGetOperand(p, 0);
      continue;
    }
    int is_gep =
        LLVMIsAGetElementPtrInst(p) ||
        (LLVMIsAConstantExpr(p) && LLVMGetConstOpcode(p) == LLVMGetElementPtr);
    if (!is_gep)
      return 0;
    LLVMTypeRef ty = LLVMGetGEPSourceElementType(p);
    unsigned n = (unsigned)LLVMGetNumOperands(p);
    for (unsigned i = 1; i < n; i++) {
      LLVMValueRef idx = LLVMGetOperand(p, i);
      ks_wide size;
      if (i == 1) {
        size = (ks_wide)LLVMABISizeOfType(K->dl, ty);
      } else if (LLVMGetTypeKind(ty) == LLVMArrayTypeKind) {
        ty = LLVMGetElementType(ty);
        size = (ks_wide)LLVMABISizeOfType(K->dl, ty);
      } else {
        return 0; /* struct fields, vector lanes: not here */
      }
      ks_iv r = ks_range_of(R, idx);
      if (r.lo == ks_iv_smin(ks_range_width(idx)) ||
          r.hi == ks_iv_smax(ks_range_width(idx)))
        return 0;
      a += r.lo * size;
      b += r.hi * size;
    }
    p = LLVMGetOperand(p, 0);
  }
  *lo = a;
  *hi = b + (ks_wide)LLVMABISizeOfType(K->dl, acc);
  return p != NULL;
}

/* Is call llvm.lifetime.start/end of alloca v or, with a constant length,
 * llvm.memset of pointer v? *len: the bytes a memset writes (0 for a
 * lifetime marker; one on a pointer derived from an alloca is no known
 * access, as ks_smem_local drops only the alloca's own). */
int ks_smem_marker_or_memset(LLVMValueRef call, LLVMValueRef v,
                             unsigned long long *len) {
  if (!LLVMIsACallInst(call) || LLVMGetNumArgOperands(call) < 2)
    return 0;
  const char *name = ks_ir_callee_name(call);
  *len = 0;
  if (strncmp(name, "llvm.lifetime.", 14) == 0)
    return LLVMGetOperand(call, 1) == v && LLVMIsAAllocaInst(v);
  if (strncmp(name, "llvm.memset.", 12) != 0 ||
      LLVMGetNumArgOperands(call) != 4 || LLVMGetOperand(call, 0) != v ||
      LLVMGetOperand(call, 1) == v ||
      !LLVMIsAConstantInt(LLVMGetOperand(call, 2)))
    return 0;
  *len = LLVMConstIntGetZExtValue(LLVMGetOperand(call, 2));
  return *len > 0 && *len < (1ull << 32);
}

/* The furthest byte (exclusive) any access of g reaches through value v (g
 * or a pointer derived from it); 0 with *why when one cannot be bounded.
 * Loads, stores, atomics, lifetime markers and memsets of a constant
 * length are the accesses it knows. */
int ks_smem_reach(const ks_smem_kernel *K, ks_ranges *work, LLVMValueRef g,
                  LLVMValueRef v, ks_wide *end, const char **why, int depth) {
  if (depth > 16) {
    *why = "its uses nest too deep";
    return 0;
  }
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    int derive = LLVMIsAGetElementPtrInst(user) ||
                 LLVMIsAAddrSpaceCastInst(user) ||
                 (LLVMIsAConstantExpr(user) &&
                  (LLVMGetConstOpcode(user) == LLVMGetElementPtr ||
                   LLVMGetConstOpcode(user) == LLVMAddrSpaceCast));
    if (derive) {
      if (LLVMGetOperand(user, 0) != v) {
        *why = "its address is used as an index";
        return 0;
      }
      if (!ks_smem_reach(K, work, g, user, end, why, depth + 1))
        return 0;
      continue;
    }
    LLVMTypeRef acc = NULL;
    if (LLVMIsALoadInst(user))
      acc = LLVMTypeOf(user);
    else if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == v)
      acc = LLVMTypeOf(LLVMGetOperand(user, 0));
    else if (LLVMIsAAtomicRMWInst(user) && LLVMGetOperand(user, 0) == v)
      acc = LLVMTypeOf(user);
    unsigned long long len = 0;
    if (!acc && ks_smem_marker_or_memset(user, v, &len)) {
      if (!len)
        continue; /* a lifetime marker */
      acc = LLVMArrayType2(LLVMInt8TypeInContext(K->c), len);
    }
    if (!acc) {
      *why = "it is used other than by loads, stores, atomics and memsets";
      return 0;
    }
    if (LLVMGetBasicBlockParent(LLVMGetInstructionParent(user)) != K->fn) {
      *why = "it is used outside the kernel";
      return 0;
    }
    ks_ranges *R = &work[0];
    R->nm = R->depth = 0;
    ks_range_path_bounds(R, &work[1], LLVMGetInstructionParent(user));
    ks_wide lo = 0, hi = 0;
    if (!access_bytes(K, R, v, acc, &lo, &hi) || lo < 0) {
      *why = "an index is not bounded";
      return 0;
    }
    if (hi > *end)
      *end = hi;
  }
  return 1;
}

/* Is v (a global, or a constant expression of it) used by fn? */
static int used_in(LLVMValueRef fn, LLVMValueRef v, int depth) {
  for (LLVMUseRef u = LLVMGetFirstUse(v); u && depth < 16;
       u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsAInstruction(user)
            ? LLVMGetBasicBlockParent(LLVMGetInstructionParent(user)) == fn
            : LLVMIsAConstantExpr(user) && used_in(fn, user, depth + 1))
      return 1;
  }
  return 0;
}

/* The interval analysis' memo and its scratch for ks_smem_reach(), knowing the
 * real block: after thread coarsening, the launch's divided. NULL: out of
 * memory. */
ks_ranges *ks_smem_reach_work(const ks_spec *s, const ks_diag *d) {
  ks_ranges *work = malloc(2 * sizeof *work);
  if (!work)
    return NULL;
  for (int i = 0; i < 3; i++)
    work[0].block[i] = s->block[i] ? s->block[i] : 1;
  if (d->plan.coarsen_x > 1)
    work[0].block[0] /= d->plan.coarsen_x;
  if (d->plan.coarsen_y > 1)
    work[0].block[1] /= d->plan.coarsen_y;
  memcpy(work[1].block, work[0].block, sizeof work[1].block);
  return work;
}

int ks_smem_size(LLVMModuleRef m, const ks_spec *s, ks_diag *d) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, s->kernel);
  if (!fn || LLVMIsDeclaration(fn) || !s->block[0])
    return 0;
  ks_smem_kernel K = ks_smem_kernel_of(m, fn);
  ks_ranges *work = ks_smem_reach_work(s, d);
  if (!work)
    return ks_diag_fail(d, KS_ENOMEM, "smem_promote: out of memory");
  for (LLVMValueRef g = LLVMGetFirstGlobal(m), next; g; g = next) {
    next = LLVMGetNextGlobal(g);
    LLVMTypeRef ty = LLVMGlobalGetValueType(g);
    if (LLVMGetPointerAddressSpace(LLVMTypeOf(g)) != KS_AS_SHARED ||
        LLVMIsDeclaration(g) || LLVMGetLinkage(g) != LLVMInternalLinkage ||
        LLVMGetTypeKind(ty) != LLVMArrayTypeKind)
      continue;
    LLVMValueRef init = LLVMGetInitializer(g);
    if ((init && !LLVMIsUndef(init)) || !used_in(fn, g, 0))
      continue;
    LLVMTypeRef et = LLVMGetElementType(ty);
    unsigned long long n = LLVMGetArrayLength2(ty),
                       es = LLVMABISizeOfType(K.dl, et);
    ks_wide end = 0;
    const char *why = NULL;
    size_t len = 0;
    const char *name = LLVMGetValueName2(g, &len);
    if (!es || !ks_smem_reach(&K, work, g, g, &end, &why, 0)) {
      ks_diag_explain(d, PASS, "kept %.*s at %llu elements: %s", (int)len, name,
                      n, why ? why : "its elements have no size");
      continue;
    }
    unsigned long long want =
        (unsigned long long)((end + es - 1) / (ks_wide)es);
    if (want >= n || want == 0)
      continue;
    LLVMTypeRef nt = LLVMArrayType2(et, want);
    char nm[128];
    snprintf(nm, sizeof nm, "%.*s", (int)(len < 120 ? len : 120), name);
    LLVMSetValueName2(g, "", 0);
    LLVMValueRef ng = LLVMAddGlobalInAddressSpace(m, nt, nm, KS_AS_SHARED);
    LLVMSetInitializer(ng, LLVMGetUndef(nt));
    LLVMSetLinkage(ng, LLVMInternalLinkage);
    LLVMSetAlignment(ng, LLVMGetAlignment(g));
    LLVMReplaceAllUsesWith(g, ng);
    LLVMDeleteGlobal(g);
    ks_diag_explain(
        d, PASS,
        "sized %s to %llu of its %llu elements (%llu of %llu B): the "
        "furthest any access can reach",
        nm, want, n, want * es, n * es);
  }
  free(work);
  return 0;
}
