/*
 * smem_atomics.c - atomic privatization, in smem_promote after shared-array
 * sizing (smem_size.c).
 *
 * A kernel pointer argument P that the kernel only ever updates by integer
 * `atomicrmw add/sub` (results unused) at element indices whose range is
 * bounded once values are bound (a histogram's bins) gets a per-block copy
 * in shared memory:
 *
 *   entry: for (j = tid; j < N; j += nthreads) smem[j] = 0;  barrier
 *   body:  atomicrmw add P[e]  ->  atomicrmw add smem[(e - LO) / G]
 *   exit:  barrier;  for (j = tid; j < N; j += nthreads)
 *            if (smem[j] != 0) atomicrmw add P[LO + j * G], smem[j]
 *
 * With a fixed block of W > 1 warps and the budget for it, the copy is W
 * copies, one per warp (warp = linear tid / 32 updates smem[warp * N +
 * (e - LO) / G]), and the merge adds the W copies of a bin before its one
 * global atomic: the warps of a block no longer contend for a bin (the
 * histogram's time, BENCHMARKS.md).
 *
 * where every index e the kernel can use lies in [LO, LO + (N-1) * G] and is
 * LO modulo G. Every `ret` becomes a branch to the exit, so threads that
 * finish early still take part in both barriers and the merge.
 *
 * Why this preserves the kernel's meaning:
 *  - P is touched only by these atomics, whose results nobody reads, so the
 *    only observable effect on P is the sum added to each element by the
 *    end of the kernel. Integer addition modulo 2^w is associative and
 *    commutative, so one add of a block's partial sum per element equals
 *    the block's individual adds. (Floating-point adds would be
 *    re-associated and round differently: declined.)
 *  - No other access may reach P's memory: P or every other accessed
 *    pointer must be `noalias` (__restrict__), or point to shared, constant
 *    or private memory. Otherwise a load of an aliasing buffer could see a
 *    different value than before.
 *  - The barriers must be reached by every thread of the block. The entry
 *    barrier comes before any branch. The exit barrier is the one place all
 *    returns lead to; this is only sound when the kernel has no barrier or
 *    other convergent operation of its own, since a thread that returned
 *    early would now wait at our barrier while the others wait at theirs.
 *    So any convergent call (barriers, warp shuffles, votes), call of a
 *    non-intrinsic function or inline assembly declines the pass.
 *  - Orderings: the shared and the merge atomics are monotonic. Nothing in
 *    the kernel can observe P, so the ordering of its updates relative to
 *    other memory operations is not observable either; the barriers order
 *    the zeroing, the shared updates and the merge's reads within the block.
 *
 * The index range comes from the interval analysis of ranges.c over the
 * index expression (with a congruence, so hist[16 * v] needs 256 elements,
 * not 4081), which respects the wrap-around of LLVM integers.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/smem_atomics.h"

#define PASS "smem_promote"

enum {
  SMEM_STATIC_LIMIT = 48 * 1024, /* static shared memory of one block */
  MAX_TERMS = 16,                /* variable GEP indices on one address */
};

/* ---- candidates ---------------------------------------------------------- */

/* An address P + (c + sum idx[i] * scale[i]) bytes. */
typedef struct addr {
  LLVMValueRef idx[MAX_TERMS];
  ks_wide scale[MAX_TERMS];
  unsigned n;
  ks_wide c;
} addr;

typedef struct cand {
  LLVMValueRef arg;
  unsigned index; /* of arg */
  char name[64];
  LLVMValueRef *atomics;
  size_t n, cap;
  LLVMTypeRef ty; /* the atomics' integer type */
  unsigned size;  /* its bytes */
  ks_wide lo, g;  /* byte b of P lives at smem[(b - lo) / g] */
  unsigned align; /* the least alignment of the atomics */
  unsigned long long elems;
  unsigned copies;    /* one per warp of a fixed block, else 1 */
  LLVMValueRef smem;  /* [copies * elems x ty] addrspace(3) */
  char why[256];      /* non-empty: declined, and why */
  LLVMValueRef guard; /* the run-time alias check it needs, or NULL */
  char checked[320];  /* what the check compares, for the explanation */
} cand;

typedef struct ctx {
  LLVMModuleRef m;
  LLVMContextRef c;
  LLVMValueRef fn;
  LLVMBuilderRef b;
  LLVMTargetDataRef dl;
  const ks_spec *s;
  ks_diag *d;
  cand *cands;
  unsigned ncands;
  LLVMValueRef ltid, nthreads; /* i32, computed in the new entry block */
  int oom;                     /* transform ran out of memory */
  ks_alias *alias;             /* the run-time alias check, when one is built */
  LLVMBasicBlockRef stop; /* the original body's blocks end here (NULL: all) */
} ctx;

/* The context of a pass over fn, a kernel of m. */
static ctx ctx_of(LLVMModuleRef m, LLVMValueRef fn, const ks_spec *s,
                  ks_diag *d) {
  return (ctx){.m = m,
               .c = LLVMGetModuleContext(m),
               .fn = fn,
               .dl = LLVMGetModuleDataLayout(m),
               .s = s,
               .d = d};
}

static void decline(cand *k, const char *fmt, const char *what) {
  if (!k->why[0])
    snprintf(k->why, sizeof k->why, fmt, what);
}

static int push_atomic(cand *k, LLVMValueRef a) {
  if (!ks_ir_room(&k->atomics, &k->cap, k->n, sizeof *k->atomics, 16))
    return 1;
  k->atomics[k->n++] = a;
  return 0;
}

/* Checks one atomicrmw that updates memory through P. */
static void check_atomic(cand *k, LLVMValueRef a) {
  LLVMAtomicRMWBinOp op = LLVMGetAtomicRMWBinOp(a);
  LLVMTypeRef t = LLVMTypeOf(a);
  if (op == LLVMAtomicRMWBinOpFAdd || op == LLVMAtomicRMWBinOpFSub)
    decline(k, "%s", "floating-point atomics would be re-associated");
  else if (op != LLVMAtomicRMWBinOpAdd && op != LLVMAtomicRMWBinOpSub)
    decline(k, "%s", "an atomic other than add/sub updates it");
  else if (LLVMGetVolatile(a))
    decline(k, "%s", "a volatile atomic updates it");
  else if (LLVMGetFirstUse(a))
    decline(k, "%s", "the result of an atomic on it is used");
  else if (LLVMGetTypeKind(t) != LLVMIntegerTypeKind ||
           (LLVMGetIntTypeWidth(t) != 32 && LLVMGetIntTypeWidth(t) != 64))
    decline(k, "%s", "its atomics are not on 32- or 64-bit integers");
  else if (k->ty && k->ty != t)
    decline(k, "%s", "its atomics are on different types");
  k->ty = t;
  unsigned al = LLVMGetAlignment(a);
  k->align = k->align && k->align < al ? k->align : al;
}

static const char *use_kind(LLVMValueRef u) {
  if (LLVMIsALoadInst(u))
    return "loaded";
  if (LLVMIsAStoreInst(u))
    return "stored to or stored";
  if (LLVMIsACallInst(u))
    return "passed to a call";
  if (LLVMIsAAtomicCmpXchgInst(u))
    return "updated by cmpxchg";
  if (LLVMIsAPHINode(u) || LLVMIsASelectInst(u))
    return "merged with other pointers";
  return "used otherwise than by atomic adds";
}

/* Walks every use of v (P or a pointer derived from it). */
static int walk_uses(cand *k, LLVMValueRef v) {
  for (LLVMUseRef use = LLVMGetFirstUse(v); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef u = LLVMGetUser(use);
    if (LLVMIsAGetElementPtrInst(u) && LLVMGetOperand(u, 0) == v &&
        LLVMGetTypeKind(LLVMTypeOf(u)) == LLVMPointerTypeKind) {
      if (walk_uses(k, u))
        return 1;
    } else if (LLVMIsAAddrSpaceCastInst(u) || LLVMIsABitCastInst(u)) {
      unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(u));
      if (LLVMGetTypeKind(LLVMTypeOf(u)) != LLVMPointerTypeKind ||
          (as != 0 && as != KS_AS_GLOBAL))
        decline(k, "it is %s", "cast to a non-global address space");
      else if (walk_uses(k, u))
        return 1;
    } else if (LLVMIsAAtomicRMWInst(u) && LLVMGetOperand(u, 0) == v &&
               LLVMGetOperand(u, 1) != v) {
      check_atomic(k, u);
      if (push_atomic(k, u))
        return 1;
    } else {
      decline(k, "it is %s", use_kind(u));
    }
  }
  return 0;
}

/* ---- the kernel as a whole ----------------------------------------------- */

static int has_attr(LLVMValueRef fn, unsigned idx, const char *name) {
  unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
  return LLVMGetEnumAttributeAtIndex(fn, idx, kind) != NULL;
}

/* Why the kernel's shape forbids funnelling its returns, or NULL. */
static const char *kernel_shape(LLVMValueRef fn, char *buf, size_t cap) {
  unsigned conv = LLVMGetEnumAttributeKindForName("convergent", 10);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      LLVMOpcode opc = LLVMGetInstructionOpcode(i);
      if (opc == LLVMInvoke || opc == LLVMCallBr || opc == LLVMIndirectBr)
        return "the kernel has invoke, callbr or indirectbr";
      if (opc == LLVMRet && LLVMGetNumOperands(i) != 0)
        return "the kernel returns a value";
      if (opc != LLVMCall)
        continue;
      LLVMValueRef callee = LLVMGetCalledValue(i);
      if (!callee || !LLVMIsAFunction(callee))
        return "the kernel has inline assembly or an indirect call";
      size_t len = 0;
      const char *name = LLVMGetValueName2(callee, &len);
      if (!LLVMGetIntrinsicID(callee)) {
        snprintf(buf, cap, "the kernel still calls %.100s", name);
        return buf;
      }
      if (ks_ir_is_barrier(i) ||
          LLVMGetEnumAttributeAtIndex(callee, LLVMAttributeFunctionIndex,
                                      conv) ||
          LLVMGetCallSiteEnumAttribute(i, LLVMAttributeFunctionIndex, conv)) {
        snprintf(buf, cap,
                 "the kernel has a barrier or warp-synchronous operation "
                 "(%.100s), which threads returning early would no longer "
                 "skip",
                 name);
        return buf;
      }
    }
  }
  return NULL;
}

/* Can an access through pointer p reach the memory of argument P? */
static int may_alias(LLVMValueRef fn, LLVMValueRef p, LLVMValueRef P) {
  unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(p));
  if (as == KS_AS_SHARED || as == KS_AS_CONST || as == KS_AS_LOCAL)
    return 0;
  LLVMValueRef base = ks_ir_base_of(p);
  if (base == P || LLVMIsAAllocaInst(base))
    return 0; /* P's own uses were checked already */
  if (LLVMIsAGlobalVariable(base)) {
    unsigned gas = LLVMGetPointerAddressSpace(LLVMTypeOf(base));
    return !(gas == KS_AS_SHARED || gas == KS_AS_CONST ||
             LLVMIsGlobalConstant(base));
  }
  if (LLVMIsAArgument(base)) {
    for (unsigned i = 0; i < LLVMCountParams(fn); i++)
      if (LLVMGetParam(fn, i) == base)
        return !has_attr(fn, i + 1, "noalias");
  }
  return 1;
}

static int is_pointer(LLVMValueRef v) {
  return LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMPointerTypeKind;
}

/* The pointers memory access i goes through (at most 8), in p. */
static unsigned accessed(LLVMValueRef i, LLVMValueRef p[8]) {
  unsigned n = 0;
  if (LLVMIsALoadInst(i) || LLVMIsAAtomicRMWInst(i) ||
      LLVMIsAAtomicCmpXchgInst(i))
    p[n++] = LLVMGetOperand(i, 0);
  else if (LLVMIsAStoreInst(i))
    p[n++] = LLVMGetOperand(i, 1);
  else if (LLVMIsACallInst(i))
    for (unsigned a = 0; a < LLVMGetNumArgOperands(i) && n < 8; a++)
      if (is_pointer(LLVMGetOperand(i, a)))
        p[n++] = LLVMGetOperand(i, a);
  return n;
}

/* Does any memory access other than P's own atomics may reach P's memory?
 * Names the first such pointer's base in buf. */
static int other_access(LLVMValueRef fn, LLVMValueRef P, char *buf,
                        size_t cap) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      LLVMValueRef p[8];
      unsigned n = accessed(i, p);
      for (unsigned k = 0; k < n; k++)
        if (may_alias(fn, p[k], P)) {
          size_t len = 0;
          const char *name = LLVMGetValueName2(ks_ir_base_of(p[k]), &len);
          snprintf(buf, cap, "%.60s", len ? name : "another pointer");
          return 1;
        }
    }
  return 0;
}

/* ---- element indices --------------------------------------------------- */

/* Adds GEP g's offset in bytes to a. */
static const char *gep_terms(ctx *C, LLVMValueRef g, addr *a) {
  LLVMTypeRef t = LLVMGetGEPSourceElementType(g);
  unsigned n = (unsigned)LLVMGetNumOperands(g);
  for (unsigned i = 1; i < n; i++) {
    LLVMValueRef idx = LLVMGetOperand(g, i);
    ks_wide c, stride;
    unsigned w = ks_range_width(idx);
    if (w == 0 || w > 64)
      return "an index is not a scalar integer of 64 bits or less";
    if (i > 1 && LLVMGetTypeKind(t) == LLVMStructTypeKind) {
      if (!ks_range_const(idx, 0, &c))
        return "a struct field index is not constant";
      a->c += (ks_wide)LLVMOffsetOfElement(C->dl, t, (unsigned)c);
      t = LLVMStructGetTypeAtIndex(t, (unsigned)c);
      continue;
    }
    if (i > 1) {
      if (LLVMGetTypeKind(t) != LLVMArrayTypeKind)
        return "it is indexed into a vector";
      t = LLVMGetElementType(t);
    }
    stride = (ks_wide)LLVMABISizeOfType(C->dl, t);
    if (ks_range_const(idx, 0, &c)) {
      a->c += c * stride;
    } else {
      if (a->n == MAX_TERMS)
        return "its address has too many terms";
      a->idx[a->n] = idx;
      a->scale[a->n++] = stride;
    }
  }
  return NULL;
}

/* The atomic's address as P + bytes. */
static const char *address(ctx *C, cand *k, LLVMValueRef atomic, addr *a) {
  memset(a, 0, sizeof *a);
  LLVMValueRef p = LLVMGetOperand(atomic, 0);
  while (p != k->arg) {
    if (LLVMIsAGetElementPtrInst(p)) {
      const char *why = gep_terms(C, p, a);
      if (why)
        return why;
    }
    p = LLVMGetOperand(p, 0); /* GEP or cast, as walk_uses saw */
  }
  return NULL;
}

/* The byte offsets an address can take. */
static ks_iv addr_range(ks_ranges *R, const addr *a) {
  ks_iv e = ks_iv_single(a->c);
  for (unsigned i = 0; i < a->n; i++) {
    ks_iv x =
        ks_iv_mul(64, ks_range_of(R, a->idx[i]), ks_iv_single(a->scale[i]), 0);
    e = ks_iv_make(64, e.lo + x.lo, e.hi + x.hi, ks_iv_join_g(e, x), e.r + x.r,
                   0);
  }
  return e;
}

/* Bounds the indices of all of k's atomics; declines when it cannot. */
static void bound(ctx *C, cand *k, ks_ranges *R) {
  ks_iv all = {0};
  for (size_t i = 0; i < k->n && !k->why[0]; i++) {
    addr a;
    const char *why = address(C, k, k->atomics[i], &a);
    if (why) {
      decline(k, "%s", why);
      break;
    }
    ks_iv e = addr_range(R, &a);
    all = i ? ks_iv_join(64, all, e) : e;
  }
  if (k->why[0])
    return;
  if (all.lo == ks_iv_smin(64) || all.hi == ks_iv_smax(64)) {
    decline(k, "%s", "its index is not bounded");
    return;
  }
  /* Distinct offsets a multiple of the size apart: whole, disjoint
   * elements. */
  k->g = all.g ? all.g : k->size;
  if (k->g % k->size) {
    decline(k, "%s", "its atomics' addresses are not whole elements apart");
    return;
  }
  k->lo = all.lo;
  k->elems = (unsigned long long)((all.hi - all.lo) / k->g + 1);
}

/* ---- the run-time alias check -------------------------------------------- */

/* What the check of one candidate compares, per base pointer. */
typedef struct seen_base {
  LLVMValueRef base;
  unsigned n;
  int known;
  ks_wide lo, hi;
  uint64_t leaves;
} seen_base;

static void note_base(seen_base *sb, unsigned *nb, LLVMValueRef base,
                      const ks_alias_bytes *by) {
  unsigned i = 0;
  while (i < *nb && sb[i].base != base)
    i++;
  if (i == *nb) {
    if (*nb == 4)
      return;
    sb[(*nb)++] = (seen_base){base, 0, by->known, by->lo, by->hi, 0};
  }
  seen_base *e = &sb[i];
  e->known &= by->known;
  e->leaves |= by->leaves;
  e->lo = by->lo < e->lo ? by->lo : e->lo;
  e->hi = by->hi > e->hi ? by->hi : e->hi;
  e->n++;
}

/* "(bounds from n and %nctaid.x at launch)": what a check reads. */
static void leaves_text(LLVMValueRef fn, uint64_t leaves, char *buf,
                        size_t cap) {
  static const char *dims[6] = {"%ntid.x",   "%ntid.y",   "%ntid.z",
                                "%nctaid.x", "%nctaid.y", "%nctaid.z"};
  size_t at = (size_t)snprintf(buf, cap, "(bounds from");
  unsigned n = 0;
  for (unsigned i = 0; i < 38 && at < cap; i++) {
    if (!(leaves & (1ull << i)))
      continue;
    char name[48];
    size_t len = 0;
    const char *s =
        i < 32 ? LLVMGetValueName2(LLVMGetParam(fn, i), &len) : dims[i - 32];
    if (i < 32 && !len)
      snprintf(name, sizeof name, "@%u", i);
    else
      snprintf(name, sizeof name, "%.40s", s);
    at += (size_t)snprintf(buf + at, cap - at, "%s %s", n++ ? "," : "", name);
  }
  if (at < cap)
    snprintf(buf + at, cap - at, "%s)", n ? " at launch" : " constants");
}

static void describe_check(ctx *C, cand *k, const seen_base *sb, unsigned nb,
                           ks_wide lo, ks_wide hi) {
  size_t at =
      (size_t)snprintf(k->checked, sizeof k->checked, "%s + [%lld, %lld)",
                       k->name, (long long)lo, (long long)hi);
  for (unsigned i = 0; i < nb && at < sizeof k->checked; i++) {
    size_t len = 0;
    const char *name = LLVMGetValueName2(sb[i].base, &len);
    char bytes[96];
    leaves_text(C->fn, sb[i].leaves, bytes, sizeof bytes);
    if (sb[i].known)
      snprintf(bytes, sizeof bytes, "[%lld, %lld)", (long long)sb[i].lo,
               (long long)sb[i].hi);
    at += (size_t)snprintf(
        k->checked + at, sizeof k->checked - at, "%s%.40s + %s (%u access%s)",
        i + 1 == nb ? " and " : ", ", len ? name : "another pointer", bytes,
        sb[i].n, sb[i].n == 1 ? "" : "es");
  }
}

/* Builds k's run-time check: every access that may reach P's memory stays
 * outside the bytes its atomics update. 0 when one cannot be bounded. */
static int guard(ctx *C, cand *k) {
  if (!C->alias && !(C->alias = ks_alias_create(C->m, C->fn, C->s->block)))
    return 0;
  ks_wide lo = k->lo, hi = k->lo + (ks_wide)(k->elems - 1) * k->g + k->size;
  if (lo < -((ks_wide)1 << 40) || hi > ((ks_wide)1 << 40))
    return 0; /* the check's i64 arithmetic keeps within 2^40 */
  seen_base sb[4];
  unsigned nb = 0;
  LLVMValueRef all = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(C->fn); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    if (bb == ks_alias_block(C->alias))
      continue;
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      LLVMValueRef p[8];
      unsigned n = accessed(i, p);
      for (unsigned j = 0; j < n; j++) {
        if (!may_alias(C->fn, p[j], k->arg))
          continue;
        ks_alias_bytes by;
        LLVMValueRef ok =
            LLVMIsACallInst(i)
                ? NULL
                : ks_alias_disjoint(C->alias, i, k->arg, lo, hi, &by);
        if (!ok)
          return 0;
        all = ks_alias_and(C->alias, all, ok);
        note_base(sb, &nb, ks_ir_base_of(p[j]), &by);
      }
    }
  }
  k->guard = all;
  describe_check(C, k, sb, nb, lo, hi);
  return all != NULL;
}

/* ---- the transformation ------------------------------------------------ */

static LLVMValueRef i32c(ctx *C, unsigned long long v) {
  return LLVMConstInt(LLVMInt32TypeInContext(C->c), v, 0);
}

static LLVMValueRef i64c(ctx *C, ks_wide v) {
  return LLVMConstInt(LLVMInt64TypeInContext(C->c), (unsigned long long)v, 1);
}

/* Block dimension i: the fixed size, or a read of %ntid. */
static LLVMValueRef ntid(ctx *C, int i) {
  static const char *names[3] = {"llvm.nvvm.read.ptx.sreg.ntid.x",
                                 "llvm.nvvm.read.ptx.sreg.ntid.y",
                                 "llvm.nvvm.read.ptx.sreg.ntid.z"};
  if (C->s->block[0])
    return i32c(C, C->s->block[i] ? C->s->block[i] : 1);
  return ks_ir_call_intrinsic(C->m, C->b, names[i], NULL, 0);
}

/* The thread's linear index in a block of dims r (i32), at b; r[0] == 0:
 * the block is not fixed, its dims are read from %ntid. Private arrays
 * (smem_local.c) index their slices with it too. */
LLVMValueRef ks_smem_linear_tid(LLVMModuleRef m, LLVMBuilderRef b,
                                const unsigned r[3]) {
  static const char *tid[3] = {"llvm.nvvm.read.ptx.sreg.tid.x",
                               "llvm.nvvm.read.ptx.sreg.tid.y",
                               "llvm.nvvm.read.ptx.sreg.tid.z"};
  static const char *ntid[2] = {"llvm.nvvm.read.ptx.sreg.ntid.x",
                                "llvm.nvvm.read.ptx.sreg.ntid.y"};
  LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetModuleContext(m));
  LLVMValueRef t = ks_ir_call_intrinsic(m, b, tid[0], NULL, 0);
  int fixed = r[0] != 0;
  if (!fixed || r[1] > 1 || r[2] > 1) { /* tid.x + nx * (tid.y + ny * tid.z) */
    LLVMValueRef nx = fixed ? LLVMConstInt(i32, r[0], 0)
                            : ks_ir_call_intrinsic(m, b, ntid[0], NULL, 0);
    LLVMValueRef ny = NULL, z = NULL;
    if (!fixed || r[2] > 1) {
      ny = fixed ? LLVMConstInt(i32, r[1], 0)
                 : ks_ir_call_intrinsic(m, b, ntid[1], NULL, 0);
      z = ks_ir_call_intrinsic(m, b, tid[2], NULL, 0);
    }
    LLVMValueRef y = ks_ir_call_intrinsic(m, b, tid[1], NULL, 0);
    if (z) {
      z = LLVMBuildNUWMul(b, ny, z, "");
      y = LLVMBuildNUWAdd(b, y, z, "");
    }
    y = LLVMBuildNUWMul(b, nx, y, "");
    t = LLVMBuildNUWAdd(b, t, y, "ks.ltid");
  }
  return t;
}

/* The thread's linear index in its block and the block's thread count. */
static void thread_ids(ctx *C) {
  LLVMBuilderRef b = C->b;
  LLVMValueRef nx = ntid(C, 0), ny = ntid(C, 1), nz = ntid(C, 2);
  unsigned r[3] = {0, 0, 0};
  for (int i = 0; C->s->block[0] && i < 3; i++)
    r[i] = C->s->block[i] ? C->s->block[i] : 1;
  C->ltid = ks_smem_linear_tid(C->m, b, r);
  C->nthreads =
      LLVMBuildNUWMul(b, LLVMBuildNUWMul(b, nx, ny, ""), nz, "ks.nthreads");
}

/* for (j = ltid; j < n; j += nthreads): opens the loop at the builder's
 * block, leaves the builder in the body and returns j. */
typedef struct loop {
  LLVMBasicBlockRef head, body, after;
  LLVMValueRef j;
} loop;

static void loop_open(ctx *C, loop *l, unsigned long long n,
                      LLVMBasicBlockRef before, const char *name) {
  char buf[64];
  snprintf(buf, sizeof buf, "%s.body", name);
  l->head = LLVMGetInsertBlock(C->b);
  l->body = before ? LLVMInsertBasicBlockInContext(C->c, before, buf)
                   : LLVMAppendBasicBlockInContext(C->c, C->fn, buf);
  snprintf(buf, sizeof buf, "%s.done", name);
  l->after = before ? LLVMInsertBasicBlockInContext(C->c, before, buf)
                    : LLVMAppendBasicBlockInContext(C->c, C->fn, buf);
  LLVMValueRef in = LLVMBuildICmp(C->b, LLVMIntULT, C->ltid, i32c(C, n), "");
  LLVMBuildCondBr(C->b, in, l->body, l->after);
  LLVMPositionBuilderAtEnd(C->b, l->body);
  l->j = LLVMBuildPhi(C->b, LLVMInt32TypeInContext(C->c), "j");
  LLVMAddIncoming(l->j, &C->ltid, &l->head, 1);
}

static void loop_close(ctx *C, loop *l, unsigned long long n) {
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(C->b);
  /* j < n (a shared array's elements) and nthreads <= 1024: no wrap, signed
   * or unsigned (flags that spare ScalarEvolution proving it) */
  LLVMValueRef next = LLVMBuildNUWAdd(C->b, l->j, C->nthreads, "j.next");
  LLVMSetNSW(next, 1);
  LLVMValueRef more = LLVMBuildICmp(C->b, LLVMIntULT, next, i32c(C, n), "");
  LLVMValueRef br = LLVMBuildCondBr(C->b, more, l->body, l->after);
  LLVMAddIncoming(l->j, &next, &latch, 1);
  /* a step the launch tells: nothing for LLVM's loop-unroll to do (it
   * would only put the loop in its canonical form, a cost), ptxas unrolls
   * it as it sees fit; with the block known, a constant trip count that
   * the optimize stage unrolls fully */
  if (!LLVMIsAConstantInt(C->nthreads) && ks_loops_keep_rolled_here(br))
    C->oom = 1;
  LLVMPositionBuilderAtEnd(C->b, l->after);
}

/* &smem[j64], as a GEP of the element type with one index: codegen's
 * straight-line strength reduction asks ScalarEvolution for the address
 * once per index of every GEP it meets, and the array type's leading 0
 * would be a second, for each of the unrolled atomics (BENCHMARKS.md). */
static LLVMValueRef smem_at(ctx *C, cand *k, LLVMValueRef j64) {
  LLVMTypeRef et = LLVMGetElementType(LLVMGlobalGetValueType(k->smem));
  return LLVMBuildInBoundsGEP2(C->b, et, k->smem, &j64, 1, "");
}

static void emit_init(ctx *C, cand *k, LLVMBasicBlockRef before) {
  loop l;
  unsigned long long n = k->elems * k->copies;
  loop_open(C, &l, n, before, "ks.init");
  LLVMValueRef j64 = LLVMBuildZExt(C->b, l.j, LLVMInt64TypeInContext(C->c), "");
  LLVMValueRef st =
      LLVMBuildStore(C->b, LLVMConstInt(k->ty, 0, 0), smem_at(C, k, j64));
  LLVMSetAlignment(st, k->size);
  loop_close(C, &l, n);
}

static void emit_merge(ctx *C, cand *k) {
  loop l;
  loop_open(C, &l, k->elems, NULL, "ks.merge");
  LLVMTypeRef i64 = LLVMInt64TypeInContext(C->c);
  LLVMValueRef j64 = LLVMBuildZExt(C->b, l.j, i64, "");
  LLVMValueRef v = LLVMBuildLoad2(C->b, k->ty, smem_at(C, k, j64), "part");
  LLVMSetAlignment(v, k->size);
  for (unsigned c = 1; c < k->copies; c++) { /* the other warps' copies */
    LLVMValueRef at =
        LLVMBuildAdd(C->b, j64, i64c(C, (ks_wide)(c * k->elems)), "");
    LLVMValueRef w = LLVMBuildLoad2(C->b, k->ty, smem_at(C, k, at), "part");
    LLVMSetAlignment(w, k->size);
    v = LLVMBuildAdd(C->b, v, w, "");
  }
  LLVMBasicBlockRef add =
      LLVMInsertBasicBlockInContext(C->c, l.after, "ks.add");
  LLVMBasicBlockRef next =
      LLVMInsertBasicBlockInContext(C->c, l.after, "ks.merge.next");
  LLVMValueRef nz =
      LLVMBuildICmp(C->b, LLVMIntNE, v, LLVMConstInt(k->ty, 0, 0), "");
  LLVMBuildCondBr(C->b, nz, add, next);
  LLVMPositionBuilderAtEnd(C->b, add);
  LLVMValueRef e = LLVMBuildAdd(
      C->b, LLVMBuildMul(C->b, j64, i64c(C, k->g), ""), i64c(C, k->lo), "");
  LLVMValueRef p =
      LLVMBuildGEP2(C->b, LLVMInt8TypeInContext(C->c), k->arg, &e, 1, "");
  LLVMValueRef a = LLVMBuildAtomicRMW(C->b, LLVMAtomicRMWBinOpAdd, p, v,
                                      LLVMAtomicOrderingMonotonic, 0);
  LLVMSetAlignment(a, k->align);
  LLVMBuildBr(C->b, next);
  LLVMPositionBuilderAtEnd(C->b, next);
  loop_close(C, &l, k->elems);
}

/* The byte offset of an address, as an i64 built before the atomic. */
static LLVMValueRef emit_index(ctx *C, const addr *a) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(C->c);
  LLVMValueRef e = i64c(C, a->c);
  for (unsigned i = 0; i < a->n; i++) {
    LLVMValueRef x = a->idx[i];
    if (ks_range_width(x) < 64)
      x = LLVMBuildSExt(C->b, x, i64, "");
    if (a->scale[i] != 1)
      x = LLVMBuildMul(C->b, x, i64c(C, a->scale[i]), "");
    e = LLVMBuildAdd(C->b, e, x, "");
  }
  return e;
}

static void rewrite_atomic(ctx *C, cand *k, LLVMValueRef atomic) {
  addr a;
  address(C, k, atomic, &a); /* succeeded in bound() */
  LLVMPositionBuilderBefore(C->b, atomic);
  LLVMValueRef e = LLVMBuildSub(C->b, emit_index(C, &a), i64c(C, k->lo), "");
  /* exact: e is lo modulo g (a shift, once simplified) */
  e = LLVMBuildExactUDiv(C->b, e, i64c(C, k->g), "");
  if (k->copies > 1) { /* the warp's copy: + (ltid / 32) * elems */
    LLVMValueRef w = LLVMBuildLShr(C->b, C->ltid, i32c(C, 5), "");
    w = LLVMBuildZExt(C->b, w, LLVMInt64TypeInContext(C->c), "");
    e = LLVMBuildAdd(C->b, e,
                     LLVMBuildMul(C->b, w, i64c(C, (ks_wide)k->elems), ""), "");
  }
  LLVMValueRef p = smem_at(C, k, e);
  LLVMValueRef n = LLVMBuildAtomicRMW(C->b, LLVMGetAtomicRMWBinOp(atomic), p,
                                      LLVMGetOperand(atomic, 1),
                                      LLVMAtomicOrderingMonotonic, 0);
  LLVMSetAlignment(n, k->size);
  LLVMInstructionEraseFromParent(atomic);
}

static LLVMValueRef add_smem(ctx *C, cand *k) {
  char name[96];
  ks_ir_arg_symbol(k->arg, "ks_smem_", name, sizeof name);
  LLVMTypeRef at = LLVMArrayType2(k->ty, k->elems * k->copies);
  LLVMValueRef g = LLVMAddGlobalInAddressSpace(C->m, at, name, KS_AS_SHARED);
  /* NVPTX cannot initialize shared memory: the kernel zeroes it. */
  LLVMSetInitializer(g, LLVMGetUndef(at));
  LLVMSetLinkage(g, LLVMInternalLinkage);
  LLVMSetAlignment(g, 16);
  return g;
}

/* A new first block with the allocas, the thread ids, the zeroing and the
 * barrier; every ret becomes a branch to one exit that merges. */
static void transform(ctx *C) {
  LLVMBasicBlockRef old = LLVMGetEntryBasicBlock(C->fn);
  LLVMBasicBlockRef entry =
      LLVMInsertBasicBlockInContext(C->c, old, "ks.entry");
  LLVMPositionBuilderAtEnd(C->b, entry);
  for (LLVMValueRef i = LLVMGetFirstInstruction(old), next; i; i = next) {
    next = LLVMGetNextInstruction(i);
    if (LLVMIsAAllocaInst(i) && LLVMIsAConstant(LLVMGetOperand(i, 0))) {
      LLVMInstructionRemoveFromParent(i);
      LLVMInsertIntoBuilder(C->b, i);
    }
  }
  thread_ids(C);
  for (unsigned i = 0; i < C->ncands; i++)
    if (!C->cands[i].why[0]) {
      C->cands[i].smem = add_smem(C, &C->cands[i]);
      emit_init(C, &C->cands[i], old);
    }
  ks_ir_call_intrinsic(C->m, C->b, "llvm.nvvm.barrier0", NULL, 0);
  LLVMBuildBr(C->b, old);

  LLVMBasicBlockRef exit =
      LLVMAppendBasicBlockInContext(C->c, C->fn, "ks.exit");
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(C->fn); bb != C->stop;
       bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
    if (t && LLVMGetInstructionOpcode(t) == LLVMRet) {
      LLVMPositionBuilderBefore(C->b, t);
      LLVMBuildBr(C->b, exit);
      LLVMInstructionEraseFromParent(t);
    }
  }
  LLVMPositionBuilderAtEnd(C->b, exit);
  ks_ir_call_intrinsic(C->m, C->b, "llvm.nvvm.barrier0", NULL, 0);
  for (unsigned i = 0; i < C->ncands; i++)
    if (!C->cands[i].why[0])
      emit_merge(C, &C->cands[i]);
  LLVMBuildRetVoid(C->b);

  for (unsigned i = 0; i < C->ncands; i++)
    for (size_t j = 0; j < C->cands[i].n && !C->cands[i].why[0]; j++)
      rewrite_atomic(C, &C->cands[i], C->cands[i].atomics[j]);
}

/* ---- the pass ------------------------------------------------------------ */

/* The transformation, under the run-time check ok where there is one: the
 * original body is copied first (the version that runs where ok is false),
 * the transformation changes the blocks before the check's, and the check
 * becomes the entry. */
static int version(ctx *C, LLVMValueRef ok) {
  LLVMBasicBlockRef slow = NULL;
  if (ok) {
    C->stop = ks_alias_block(C->alias);
    slow = ks_ir_clone_blocks(C->fn, C->stop);
    if (!slow)
      return ks_diag_fail(C->d, KS_ENOMEM, "smem_promote: out of memory");
  }
  C->b = LLVMCreateBuilderInContext(C->c);
  transform(C);
  LLVMDisposeBuilder(C->b);
  if (ok)
    ks_alias_version(C->alias, ok, LLVMGetEntryBasicBlock(C->fn), slow);
  return 0;
}

/* Finds the pointer arguments updated by atomics and checks their uses. */
static int find_candidates(ctx *C) {
  unsigned np = LLVMCountParams(C->fn);
  C->cands = calloc(np ? np : 1, sizeof *C->cands);
  if (!C->cands)
    return 1;
  for (unsigned i = 0; i < np; i++) {
    cand *k = &C->cands[C->ncands];
    LLVMValueRef p = LLVMGetParam(C->fn, i);
    if (!is_pointer(p))
      continue;
    memset(k, 0, sizeof *k);
    k->arg = p;
    k->index = i;
    size_t len = 0;
    const char *name = LLVMGetValueName2(p, &len);
    if (len)
      snprintf(k->name, sizeof k->name, "%.60s", name);
    else
      snprintf(k->name, sizeof k->name, "arg%u", i);
    if (walk_uses(k, p))
      return 1;
    if (k->n == 0) {
      free(k->atomics);
      continue;
    }
    k->size = k->ty ? (unsigned)LLVMABISizeOfType(C->dl, k->ty) : 0;
    C->ncands++;
  }
  return 0;
}

/* A single counter (one element, so one address for every thread) that
 * each thread updates at most once: ptxas already makes a warp's updates
 * of one address one atomic (VOTE.ANY, POPC, RED: the generic kernel's
 * SASS), so a block's copy would save only an atomic per warp, for two
 * barriers and the zeroing and merge of every block (clamp_report, half
 * its threads counting: 1.21x the generic's time on the H100). A counter
 * updated in a loop is each thread's many atomics, which the copy keeps in
 * shared memory: it stays a candidate. */
#define ONE_COUNTER                                                            \
  "a single counter that each thread updates at most once: ptxas already "     \
  "makes a warp's updates one atomic, and a block's copy would cost two "      \
  "barriers to save one atomic per warp"

/* Does fn have a loop (a back edge)? An unknown answer (out of memory)
 * says yes: the candidate is then kept as before. */
static int has_loop(LLVMValueRef fn) {
  ks_cfg g = {0};
  int yes = ks_cfg_build(&g, fn) || g.nback > 0;
  ks_cfg_free(&g);
  return yes;
}

/* Kernel-ks_wide and per-candidate checks, then the shared-memory budget. */
static void check_candidates(ctx *C) {
  char buf[256];
  const char *shape = kernel_shape(C->fn, buf, sizeof buf);
  ks_ranges *R = calloc(1, sizeof *R);
  unsigned long long budget = KS_SMEM_CAP, have = ks_smem_existing(C->m);
  if (have + budget > SMEM_STATIC_LIMIT)
    budget = have >= SMEM_STATIC_LIMIT ? 0 : SMEM_STATIC_LIMIT - have;
  for (unsigned i = 0; i < C->ncands; i++) {
    cand *k = &C->cands[i];
    char other[64];
    if (shape)
      decline(k, "%s", shape);
    /* the shared copy is set up and merged by the real block's threads,
     * counted from the launch's block: not after thread coarsening */
    if (C->d->plan.coarsen_x > 1 || C->d->plan.coarsen_y > 1)
      decline(k, "%s", "the threads were coarsened");
    if (!R)
      decline(k, "%s", "out of memory");
    char overlap[256] = "";
    if (!k->why[0] && !has_attr(C->fn, k->index + 1, "noalias") &&
        other_access(C->fn, k->arg, other, sizeof other))
      snprintf(overlap, sizeof overlap,
               "it may overlap %s, which the kernel also accesses (mark "
               "the pointers __restrict__)",
               other);
    if (!k->why[0])
      bound(C, k, R);
    if (!k->why[0] && k->elems > (1ull << 31))
      decline(k, "%s", "its index is not bounded");
    if (!k->why[0] && k->elems == 1 && !has_loop(C->fn)) {
      decline(k, "%s", ONE_COUNTER);
      overlap[0] = '\0'; /* no check would make it pay */
    }
    /* where only the overlap stands in the way, a run-time check of it;
     * else the decline as without one */
    if (overlap[0] && (k->why[0] || !guard(C, k))) {
      k->why[0] = '\0';
      k->guard = NULL;
      decline(k, "%s", overlap);
    }
    unsigned long long bytes = k->elems * k->size;
    if (!k->why[0] && bytes > budget) {
      snprintf(buf, sizeof buf,
               "its index spans %llu elements x %u B = %llu B of shared "
               "memory, over the %llu B left for it",
               k->elems, k->size, bytes, budget);
      decline(k, "%s", buf);
    }
    if (!k->why[0])
      budget -= bytes;
  }
  /* One copy per warp where the block is fixed and the budget allows:
   * the warps of a block then update different copies of a bin (CUB's
   * and the hand-written histogram's layout); the merge sums them. */
  unsigned threads =
      C->s->block[0] ? C->s->block[0] * (C->s->block[1] ? C->s->block[1] : 1) *
                           (C->s->block[2] ? C->s->block[2] : 1)
                     : 0;
  unsigned warps = (threads + 31) / 32;
  for (unsigned i = 0; i < C->ncands; i++) {
    cand *k = &C->cands[i];
    k->copies = 1;
    unsigned long long more = k->elems * k->size * (warps - 1ull);
    if (!k->why[0] && warps > 1 && warps <= 32 && more <= budget) {
      k->copies = warps;
      budget -= more;
    }
  }
  free(R);
}

static void explain(ctx *C) {
  for (unsigned i = 0; i < C->ncands; i++) {
    cand *k = &C->cands[i];
    if (k->why[0]) {
      ks_diag_explain(C->d, PASS, "declined %s: %s", k->name, k->why);
      continue;
    }
    char where[96] = "";
    if (k->lo != 0 || k->g != k->size)
      snprintf(where, sizeof where, " (bytes %lld + %lld j of %s)",
               (long long)k->lo, (long long)k->g, k->name);
    char copies[64] = "";
    if (k->copies > 1)
      snprintf(copies, sizeof copies, " x %u copies (one per warp)", k->copies);
    ks_diag_explain(
        C->d, PASS,
        "promoted %s: %llu bins x %u B%s = %llu B of shared memory%s, "
        "merged with one atomic per non-zero bin",
        k->name, k->elems, k->size, copies, k->elems * k->size * k->copies,
        where);
    if (k->guard)
      ks_diag_explain(C->d, PASS,
                      "alias check for %s: the promoted kernel runs where %s "
                      "do not overlap (checked at the kernel's entry, the "
                      "same in every thread), the original kernel otherwise",
                      k->name, k->checked);
  }
}

int ks_smem_atomics(LLVMModuleRef m, const ks_spec *s, ks_diag *d) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, s->kernel);
  if (!fn || LLVMIsDeclaration(fn))
    return ks_diag_fail(d, KS_ENOKERNEL, "smem_promote: no kernel '%s'",
                        s->kernel);
  ctx C = ctx_of(m, fn, s, d);
  int rc = 0;
  if (find_candidates(&C)) {
    rc = ks_diag_fail(d, KS_ENOMEM, "smem_promote: out of memory");
    goto done;
  }
  check_candidates(&C);
  int any = 0;
  LLVMValueRef ok = NULL;
  for (unsigned i = 0; i < C.ncands; i++) {
    any |= !C.cands[i].why[0];
    if (!C.cands[i].why[0] && C.cands[i].guard)
      ok = ks_alias_and(C.alias, ok, C.cands[i].guard);
  }
  if (any && (rc = version(&C, ok)) == 0) {
    if (C.oom) {
      rc = ks_diag_fail(d, KS_ENOMEM, "smem_promote: out of memory");
      goto done;
    }
  }
  if (!rc)
    explain(&C);
done:
  ks_alias_destroy(C.alias);
  for (unsigned i = 0; C.cands && i < C.ncands; i++)
    free(C.cands[i].atomics);
  free(C.cands);
  return rc;
}
