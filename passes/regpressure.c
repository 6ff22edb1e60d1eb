/*
 * regpressure.c - the registers a kernel needs, estimated from its IR, and
 * the budget its launch bounds give it.
 *
 * The estimate is liveness over the kernel's CFG: a backward dataflow on
 * blocks (a phi's operand is live at the end of its incoming block, not at
 * the start of the phi's), then a walk back through each block, taking the
 * largest weight of the live values at any point (a value being defined
 * counts with those live after it). A value weighs its width in 32-bit
 * registers: i64, double and 64-bit pointers 2, vectors by their bits,
 * predicates (i1) nothing. A GEP with constant indices weighs nothing and
 * its uses are its base's: PTX folds it into the address ([%rd+imm]).
 * The peak is then scaled to what ptxas does with it (see
 * ks_regpressure_estimate): KS_REG_ABI registers for what the IR does not
 * show, 10% for ptxas's earlier loads, and up to 32 registers per thread
 * for loads in flight; calibrated against ptxas -v on the built-ins.
 *
 * The budget: a 64K-register file per SM shared by minctasm blocks of the
 * bounded size (rounded up to whole warps), in the allocation granularity
 * of 8 registers per thread, at most 255 and maxnreg; 255 with no bounds.
 *
 * The pipeline uses both to choose how far to unroll (pipeline.c); the
 * `regpressure` stage itself only estimates the final IR and says so.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/ks_passes.h"

enum {
  KS_REG_ABI = 2,
  KS_REG_FREE = 32,
  REGS_PER_SM = 65536,
  REG_GRANULE = 8,
  REG_CAP = 255
};

/* ---- values ------------------------------------------------------------ */

typedef struct vmap {
  LLVMValueRef *keys; /* open addressing, power-of-two size */
  int *ids;
  size_t cap;
} vmap;

static size_t vhash(LLVMValueRef v, size_t cap) {
  uintptr_t p = (uintptr_t)v;
  return (size_t)((p >> 4) * 0x9E3779B97F4A7C15ull) & (cap - 1);
}

static void vmap_put(vmap *m, LLVMValueRef v, int id) {
  size_t i = vhash(v, m->cap);
  while (m->keys[i])
    i = (i + 1) & (m->cap - 1);
  m->keys[i] = v;
  m->ids[i] = id;
}

static int vmap_get(const vmap *m, LLVMValueRef v) {
  size_t i = vhash(v, m->cap);
  while (m->keys[i]) {
    if (m->keys[i] == v)
      return m->ids[i];
    i = (i + 1) & (m->cap - 1);
  }
  return -1;
}

/* Registers of 32 bits a value of type t takes. */
static unsigned type_regs(LLVMTargetDataRef dl, LLVMTypeRef t) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMIntegerTypeKind: {
    unsigned w = LLVMGetIntTypeWidth(t);
    return w == 1 ? 0 : (w + 31) / 32;
  }
  case LLVMHalfTypeKind:
  case LLVMBFloatTypeKind:
  case LLVMFloatTypeKind:
    return 1;
  case LLVMDoubleTypeKind:
    return 2;
  case LLVMPointerTypeKind:
    return (LLVMPointerSizeForAS(dl, LLVMGetPointerAddressSpace(t)) + 3) / 4;
  case LLVMVectorTypeKind: {
    LLVMTypeRef e = LLVMGetElementType(t);
    if (LLVMGetTypeKind(e) == LLVMIntegerTypeKind &&
        LLVMGetIntTypeWidth(e) == 1)
      return 0;
    unsigned long long bits = LLVMSizeOfTypeInBits(dl, t);
    return (unsigned)((bits + 31) / 32);
  }
  case LLVMStructTypeKind: {
    unsigned n = LLVMCountStructElementTypes(t), r = 0;
    for (unsigned i = 0; i < n; i++)
      r += type_regs(dl, LLVMStructGetTypeAtIndex(t, i));
    return r;
  }
  case LLVMArrayTypeKind:
    return (unsigned)LLVMGetArrayLength2(t) *
           type_regs(dl, LLVMGetElementType(t));
  default:
    return 0;
  }
}

/* Is v a GEP with constant indices (folded into an address)? */
static int folded_gep(LLVMValueRef v) {
  if (!LLVMIsAGetElementPtrInst(v))
    return 0;
  int n = LLVMGetNumOperands(v);
  for (int i = 1; i < n; i++)
    if (!LLVMIsAConstantInt(LLVMGetOperand(v, (unsigned)i)))
      return 0;
  return 1;
}

/* The value a use of v really keeps live: its id, or -1 (a constant). */
static int use_id(const vmap *m, LLVMValueRef v) {
  while (folded_gep(v))
    v = LLVMGetOperand(v, 0);
  return vmap_get(m, v);
}

/* ---- bit sets ---------------------------------------------------------- */

typedef uint64_t word;

static int bit_get(const word *s, int i) {
  return (int)(s[i / 64] >> (i % 64)) & 1;
}
static void bit_set(word *s, int i) { s[i / 64] |= (word)1 << (i % 64); }
static void bit_clear(word *s, int i) { s[i / 64] &= ~((word)1 << (i % 64)); }

/* ---- the estimate ------------------------------------------------------ */

typedef struct live {
  vmap map;
  unsigned *regs; /* per value id */
  int nvals;
  size_t nw;  /* words per set */
  ks_cfg cfg; /* the blocks, numbered in the function's order */
  size_t nblocks;
  word *use, *def, *in, *out; /* nblocks sets each */
} live;

static void live_free(live *L) {
  free(L->map.keys);
  free(L->map.ids);
  free(L->regs);
  ks_cfg_free(&L->cfg);
  free(L->use);
  free(L->def);
  free(L->in);
  free(L->out);
}

static int is_value(LLVMValueRef i) {
  return !folded_gep(i) && LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMVoidTypeKind;
}

/* Numbers the values (arguments, then instructions) and blocks. */
static int number(live *L, LLVMValueRef fn, LLVMTargetDataRef dl) {
  size_t n = LLVMCountParams(fn);
  L->nblocks = LLVMCountBasicBlocks(fn);
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b;
       b = LLVMGetNextBasicBlock(b))
    for (LLVMValueRef i = LLVMGetFirstInstruction(b); i;
         i = LLVMGetNextInstruction(i))
      n++;
  L->map.cap = 16;
  while (L->map.cap < 2 * n + 2)
    L->map.cap *= 2;
  L->map.keys = calloc(L->map.cap, sizeof *L->map.keys);
  L->map.ids = calloc(L->map.cap, sizeof *L->map.ids);
  L->regs = calloc(n + 1, sizeof *L->regs);
  if (!L->map.keys || !L->map.ids || !L->regs || ks_cfg_build(&L->cfg, fn))
    return 1;
  int id = 0;
  for (unsigned a = 0; a < LLVMCountParams(fn); a++) {
    LLVMValueRef p = LLVMGetParam(fn, a);
    L->regs[id] = type_regs(dl, LLVMTypeOf(p));
    vmap_put(&L->map, p, id++);
  }
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b;
       b = LLVMGetNextBasicBlock(b)) {
    for (LLVMValueRef i = LLVMGetFirstInstruction(b); i;
         i = LLVMGetNextInstruction(i))
      if (is_value(i)) {
        L->regs[id] = type_regs(dl, LLVMTypeOf(i));
        vmap_put(&L->map, i, id++);
      }
  }
  L->nvals = id;
  L->nw = ((size_t)id + 63) / 64 + 1;
  size_t words = L->nw * L->nblocks;
  L->use = calloc(words + 1, sizeof(word));
  L->def = calloc(words + 1, sizeof(word));
  L->in = calloc(words + 1, sizeof(word));
  L->out = calloc(words + 1, sizeof(word));
  return !L->use || !L->def || !L->in || !L->out;
}

/* use: values read before any definition in the block (phi operands
 * excluded); def: values defined in it (phis included). */
static void local_sets(live *L) {
  for (size_t bi = 0; bi < L->nblocks; bi++) {
    word *use = L->use + bi * L->nw, *def = L->def + bi * L->nw;
    for (LLVMValueRef i = LLVMGetFirstInstruction(L->cfg.bb[bi]); i;
         i = LLVMGetNextInstruction(i)) {
      if (!LLVMIsAPHINode(i)) {
        int n = LLVMGetNumOperands(i);
        for (int k = 0; k < n; k++) {
          int u = use_id(&L->map, LLVMGetOperand(i, (unsigned)k));
          if (u >= 0 && !bit_get(def, u))
            bit_set(use, u);
        }
      }
      int v = vmap_get(&L->map, i);
      if (v >= 0)
        bit_set(def, v);
    }
  }
}

/* out(B) = U over successors S: (in(S) without S's phis) + S's phi
 * operands from B; in(B) = use(B) + (out(B) - def(B)). To a fixed point. */
static void dataflow(live *L) {
  int changed = 1;
  while (changed) {
    changed = 0;
    for (size_t r = L->nblocks; r-- > 0;) {
      LLVMBasicBlockRef b = L->cfg.bb[r];
      word *out = L->out + r * L->nw, *in = L->in + r * L->nw;
      LLVMValueRef t = LLVMGetBasicBlockTerminator(b);
      unsigned ns = t ? LLVMGetNumSuccessors(t) : 0;
      for (unsigned s = 0; s < ns; s++) {
        LLVMBasicBlockRef sb = LLVMGetSuccessor(t, s);
        unsigned si = ks_cfg_index(&L->cfg, sb);
        if (si == KS_CFG_NONE)
          continue;
        const word *sin = L->in + si * L->nw;
        for (size_t w = 0; w < L->nw; w++)
          out[w] |= sin[w];
        for (LLVMValueRef p = LLVMGetFirstInstruction(sb);
             p && LLVMIsAPHINode(p); p = LLVMGetNextInstruction(p)) {
          int pv = vmap_get(&L->map, p);
          if (pv >= 0 && !bit_get(L->use + si * L->nw, pv))
            bit_clear(out, pv); /* defined at the top of sb */
          unsigned nin = LLVMCountIncoming(p);
          for (unsigned k = 0; k < nin; k++)
            if (LLVMGetIncomingBlock(p, k) == b) {
              int u = use_id(&L->map, LLVMGetIncomingValue(p, k));
              if (u >= 0)
                bit_set(out, u);
            }
        }
      }
      const word *use = L->use + r * L->nw, *def = L->def + r * L->nw;
      for (size_t w = 0; w < L->nw; w++) {
        word nin = use[w] | (out[w] & ~def[w]);
        if (nin != in[w]) {
          in[w] = nin;
          changed = 1;
        }
      }
    }
  }
}

/* The largest live weight inside block bi, walking back from its end. */
static unsigned block_peak(const live *L, size_t bi, word *cur) {
  memcpy(cur, L->out + bi * L->nw, L->nw * sizeof(word));
  unsigned w = 0, peak = 0;
  for (int v = 0; v < L->nvals; v++)
    if (bit_get(cur, v))
      w += L->regs[v];
  peak = w;
  for (LLVMValueRef i = LLVMGetLastInstruction(L->cfg.bb[bi]); i;
       i = LLVMGetPreviousInstruction(i)) {
    int v = vmap_get(&L->map, i);
    if (v >= 0) {
      unsigned at = w + (bit_get(cur, v) ? 0 : L->regs[v]);
      peak = at > peak ? at : peak;
      if (bit_get(cur, v)) {
        bit_clear(cur, v);
        w -= L->regs[v];
      }
    }
    if (LLVMIsAPHINode(i))
      continue;
    int n = LLVMGetNumOperands(i);
    for (int k = 0; k < n; k++) {
      int u = use_id(&L->map, LLVMGetOperand(i, (unsigned)k));
      if (u >= 0 && !bit_get(cur, u)) {
        bit_set(cur, u);
        w += L->regs[u];
      }
    }
    peak = w > peak ? w : peak;
  }
  return peak;
}

int ks_regpressure_estimate(LLVMModuleRef m, LLVMValueRef fn) {
  if (!fn || LLVMIsDeclaration(fn))
    return -1;
  live L = {0};
  int est = -1;
  if (number(&L, fn, LLVMGetModuleDataLayout(m)) == 0) {
    word *cur = calloc(L.nw, sizeof(word));
    if (cur) {
      local_sets(&L);
      dataflow(&L);
      unsigned peak = 0, loads = 0;
      for (size_t bi = 0; bi < L.nblocks; bi++) {
        unsigned p = block_peak(&L, bi, cur), nl = 0;
        peak = p > peak ? p : peak;
        for (LLVMValueRef i = LLVMGetFirstInstruction(L.cfg.bb[bi]); i;
             i = LLVMGetNextInstruction(i))
          nl += LLVMIsALoadInst(i) != NULL || LLVMIsAAtomicRMWInst(i) != NULL;
        loads = nl > loads ? nl : loads;
      }
      /* ptxas schedules loads earlier than the IR has them, which widens
       * the live ranges (10% on the built-ins), and spends the registers
       * that full occupancy leaves free (32 per thread) on loads and
       * atomics in flight (their addresses). */
      unsigned base = peak * 110 / 100 + KS_REG_ABI;
      unsigned fill = base + loads / 4;
      if (fill > KS_REG_FREE)
        fill = KS_REG_FREE;
      est = (int)(fill > base ? fill : base);
      free(cur);
    }
  }
  live_free(&L);
  return est;
}

/* ---- the budget -------------------------------------------------------- */

int ks_regpressure_budget(const ks_spec *s, char *why, size_t cap) {
  unsigned long long threads = 0;
  const char *from = "no launch bounds";
  if (s->block[0]) {
    threads = 1;
    for (int i = 0; i < 3; i++)
      threads *= s->block[i] ? s->block[i] : 1;
    from = "block";
  } else if (s->maxntid) {
    threads = s->maxntid;
    from = "maxntid";
  }
  int budget = REG_CAP;
  if (threads) {
    unsigned long long warps = (threads + 31) / 32;
    unsigned long long per = warps * 32 * (s->minctasm ? s->minctasm : 1);
    unsigned long long b = REGS_PER_SM / per / REG_GRANULE * REG_GRANULE;
    budget = b < REG_CAP ? (int)b : REG_CAP;
  }
  if (s->maxnreg && (int)s->maxnreg < budget) {
    budget = (int)s->maxnreg;
    from = "maxnreg";
  }
  if (why && cap) {
    if (threads && strcmp(from, "maxnreg") != 0)
      snprintf(why, cap, "%s of %llu threads, minctasm %u", from, threads,
               s->minctasm ? s->minctasm : 1);
    else
      snprintf(why, cap, "%s", from);
  }
  return budget;
}

int ks_pass_regpressure(LLVMModuleRef m, const ks_spec *s, ks_diag *d) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, s->kernel);
  if (!fn || LLVMIsDeclaration(fn))
    return ks_diag_fail(d, KS_ENOKERNEL, "regpressure: no kernel '%s'",
                        s->kernel);
  char why[96];
  int est = ks_regpressure_estimate(m, fn);
  if (est < 0)
    return ks_diag_fail(d, KS_ENOMEM, "regpressure: out of memory");
  d->est_regs = est;
  d->reg_budget = ks_regpressure_budget(s, why, sizeof why);
  ks_diag_explain(d, "regpressure",
                  "estimated %d registers per thread; budget %d "
                  "(from %s)%s",
                  est, d->reg_budget, why,
                  est > d->reg_budget ? ": spills likely" : "");
  return 0;
}
