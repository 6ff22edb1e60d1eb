/*
 * smem_store.c - store exchange, the third part of smem_promote: in a 2-D
 * block, a kernel whose threads each write one element at an address
 * contiguous along y but not along x (a transpose's out[x*rows + y]) writes
 * through a shared tile, so that each warp's stores land side by side in
 * memory.
 *
 * What is transformed. Kernel K with a fixed block T x N (x 1), whose only
 * write to memory is one store S of a value V (1 to 8 bytes) at address
 * P(tx, ty), executed at most once per thread (the control-flow graph has
 * no cycle), with nothing that reads memory after it. window_expr.c shows
 * P(tx, ty+1) = P(tx, ty) + size from normal forms; P(tx+1, ty) is not
 * P(tx, ty) + size (else the stores are contiguous already). The forms
 * read an extension of an nsw/nuw add or product (clang's int indices,
 * out[x*h + y]) as the operation on extended operands: they only choose
 * the candidate, which the proof below does not need. The block's sizes
 * are what it needs fixed; the image's (rows, cols) may stay arguments.
 *
 * The exchange. Thread (a, b) writes V to its slot of a tile, b * pitch +
 * a, and a flag there that says it did (cleared by the thread at entry).
 * Then, at the kernel's single return, after a barrier, the thread of
 * linear id L = ty*T + tx does what thread (A, B) = (L / N, L % N) would
 * have done: if (A, B)'s flag is set, it stores (A, B)'s element at P(A, B),
 * an address recomputed from a clone of P's expression at those
 * coordinates. Consecutive lanes take consecutive B, along which P is
 * contiguous: a warp writes runs of N elements (in a square block,
 * (A, B) is the mirror thread (ty, tx) and a warp writes one run of T).
 * The pitch (T + 1 when square) spreads the row writes and the column
 * reads over the banks. A non-square block whose runs are under a 32-byte
 * sector gains too little for the barrier: declined.
 *
 * Why the result is the same. Every store the original makes is made, with
 * the same value at the same address (the clone is P's expression without
 * poison flags, evaluated at the coordinates of the thread that computed P,
 * which did not produce poison there: it stored). No store is added: a
 * flag is set only where S ran. Only the thread that makes a store changes
 * and the time: later, after a barrier. The original has no other write and
 * no read after S, so no read of the kernel can tell (a read of another
 * thread racing with S saw an unordered store in the original too). The
 * barrier is reached by every thread: the graph has no cycle, one return,
 * no unreachable block, and the kernel has no call that could exit, no
 * barrier or shared memory of its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Target.h>

#include "passes/ks_passes.h"

#define PASS "smem_promote"

enum {
  MAX_BLOCKS = 1024,    /* basic blocks of a kernel this pass looks at */
  MAX_EXCHANGE = 24576, /* bytes of shared memory for tile and flags */
  SECTOR = 32,          /* bytes of the memory system's smallest access */
  BANKS = 32            /* of shared memory, 4 bytes wide */
};

typedef struct xctx {
  LLVMModuleRef m;
  LLVMValueRef fn;
  ks_diag *d;
  unsigned t;     /* the block is t x ny */
  unsigned ny;    /* t for a square block */
  unsigned pitch; /* of the tile's rows, in elements */
  LLVMValueRef store, ret;
  LLVMTypeRef ty;
  unsigned size;
  char what[64]; /* the stored-to argument, for messages */
} xctx;

static int is_sreg(const char *n) {
  return !strncmp(n, "llvm.nvvm.read.ptx.sreg.", 24);
}

static unsigned addrspace_of(LLVMValueRef p) {
  return ks_ir_addrspace(p); /* clang's constant addrspacecasts seen through */
}

/* Why an instruction rules the exchange out, or NULL. */
static const char *hazard(LLVMValueRef i, char *buf, size_t cap) {
  switch (LLVMGetInstructionOpcode(i)) {
  case LLVMStore:
    return addrspace_of(LLVMGetOperand(i, 1)) == 3 ? "it uses shared memory"
                                                   : NULL;
  case LLVMLoad:
    if (addrspace_of(LLVMGetOperand(i, 0)) == 3)
      return "it uses shared memory";
    if (LLVMGetVolatile(i) || LLVMGetOrdering(i) != LLVMAtomicOrderingNotAtomic)
      return "an ordered or volatile load";
    return NULL;
  case LLVMAtomicRMW:
  case LLVMAtomicCmpXchg:
    return "it has atomics";
  case LLVMFence:
    return "it has a fence";
  case LLVMVAArg:
  case LLVMInvoke:
  case LLVMCallBr:
  case LLVMUnreachable:
  case LLVMIndirectBr:
    return "its control flow may leave early";
  case LLVMCall: {
    const char *n = ks_ir_callee_name(i);
    if (ks_ir_is_barrier(i))
      return "it has barriers";
    if (is_sreg(n) || ks_ir_pure_call(i))
      return NULL;
    snprintf(buf, cap, "it calls %.100s", n[0] ? n : "inline asm or a pointer");
    return buf;
  }
  default:
    return NULL;
  }
}

/* Finds the stores to global memory (the last in c->store) and the return;
 * the first reason the kernel rules the exchange out, or NULL. */
static const char *scan(xctx *c, int *nstores, char *buf, size_t cap) {
  const char *why = NULL;
  int nret = 0;
  *nstores = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(c->fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      const char *w = why ? NULL : hazard(i, buf, cap);
      if (w)
        why = w;
      if (LLVMIsAStoreInst(i) && addrspace_of(LLVMGetOperand(i, 1)) != 3) {
        (*nstores)++;
        c->store = i;
      }
      if (LLVMIsAReturnInst(i)) {
        nret++;
        c->ret = i;
      }
    }
  if (!why && nret != 1)
    why = "it has several returns";
  return why;
}

/* Does the graph have a cycle, or a load after the store? 0: neither. */
static const char *check_cfg(xctx *c) {
  LLVMBasicBlockRef bbs[MAX_BLOCKS];
  int state[MAX_BLOCKS] = {0}; /* 3: reached from the store */
  int n = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(c->fn); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    if (n == MAX_BLOCKS)
      return "too many basic blocks";
    bbs[n++] = bb;
  }
  /* a back edge of the walk from the entry (ir/cfg.c) is a cycle */
  ks_cfg g;
  if (ks_cfg_build(&g, c->fn))
    return "out of memory";
  unsigned cyclic = g.nback;
  ks_cfg_free(&g);
  if (cyclic)
    return "the store may run in a loop";
  /* nothing may read memory after the store: the rest of its block, then
   * every block reachable from it (marked 3) */
  LLVMBasicBlockRef sb = LLVMGetInstructionParent(c->store);
  for (LLVMValueRef i = LLVMGetNextInstruction(c->store); i;
       i = LLVMGetNextInstruction(i))
    if (LLVMIsALoadInst(i))
      return "a load after the store";
  int work[MAX_BLOCKS], nw = 0;
  for (int v = 0; v < n; v++)
    if (bbs[v] == sb)
      work[nw++] = v;
  while (nw) {
    LLVMValueRef term = LLVMGetBasicBlockTerminator(bbs[work[--nw]]);
    for (unsigned k = 0; term && k < LLVMGetNumSuccessors(term); k++) {
      LLVMBasicBlockRef s = LLVMGetSuccessor(term, k);
      int w = 0;
      while (w < n && bbs[w] != s)
        w++;
      if (w == n || state[w] == 3)
        continue;
      if (bbs[w] == sb)
        return "the store may run in a loop";
      state[w] = 3;
      work[nw++] = w;
      for (LLVMValueRef i = LLVMGetFirstInstruction(s); i;
           i = LLVMGetNextInstruction(i))
        if (LLVMIsALoadInst(i))
          return "a load after the store";
    }
  }
  return NULL;
}

static const char *what_of(LLVMValueRef p, char *buf, size_t cap) {
  LLVMValueRef base = ks_ir_base_of(p);
  size_t len = 0;
  const char *n = LLVMGetValueName2(base, &len);
  if (LLVMIsAArgument(base) && len)
    snprintf(buf, cap, "%.60s", n);
  else
    snprintf(buf, cap, "the store");
  return buf;
}

/* ---- the transformation ----------------------------------------------- */

/* Virtual rows per real thread: 4 where the block is large enough that a
 * thread's one load leaves the memory system idle (t >= 16), and the
 * kernel reads no block size that would then change. */
static unsigned rows_per_thread(const xctx *c) {
  if (c->t != c->ny || c->t < 16 || c->t % 4)
    return 1;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(c->fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (LLVMIsACallInst(i) &&
          !strncmp(ks_ir_callee_name(i), "llvm.nvvm.read.ptx.sreg.ntid.", 29))
        return 1;
  return 4;
}

/* Shared memory's cycles for one warp's access of 4-byte words: the most
 * distinct words any of the 32 banks holds among them. */
static unsigned warp_cycles(const unsigned *slot, unsigned n, unsigned size) {
  unsigned words[BANKS][64], nw[BANKS] = {0}, most = 0;
  for (unsigned l = 0; l < n; l++)
    for (unsigned w = slot[l] * size / 4; w <= (slot[l] * size + size - 1) / 4;
         w++) {
      unsigned k = w % BANKS, j = 0;
      while (j < nw[k] && words[k][j] != w)
        j++;
      if (j == nw[k] && nw[k] < 64)
        words[k][nw[k]++] = w;
      if (nw[k] > most)
        most = nw[k];
    }
  return most;
}

/* The pitch of the tile's rows (slot of thread (a, b): b * pitch + a). A
 * square block's t + 1 makes both the row writes and the column reads hit
 * 32 banks. Otherwise the pitch from t to t + 32 with the fewest cycles
 * over the block's warps: their writes (thread (a, b) at its own slot) and
 * reads (linear id L reads thread (L / ny, L % ny)'s), of the tile and of
 * the flags. */
static unsigned pick_pitch(unsigned t, unsigned ny, unsigned size) {
  if (t == ny)
    return t + 1;
  unsigned best = t, least = ~0u, n = t * ny;
  for (unsigned p = t; p <= t + BANKS; p++) {
    unsigned cycles = 0;
    for (unsigned w0 = 0; w0 < n; w0 += 32) {
      unsigned wr[32], rd[32], k = 0;
      for (unsigned l = w0; l < n && l < w0 + 32; l++, k++) {
        wr[k] = l / t * p + l % t;
        rd[k] = l % ny * p + l / ny;
      }
      cycles += warp_cycles(wr, k, size) + warp_cycles(rd, k, size) +
                warp_cycles(wr, k, 4) + warp_cycles(rd, k, 4);
    }
    if (cycles < least) {
      least = cycles;
      best = p;
    }
  }
  return best;
}

static LLVMValueRef shared_array(LLVMModuleRef m, LLVMTypeRef elem, unsigned n,
                                 const char *name) {
  LLVMTypeRef t = LLVMArrayType2(elem, n);
  LLVMValueRef g = LLVMAddGlobalInAddressSpace(m, t, name, 3);
  LLVMSetInitializer(g, LLVMGetUndef(t));
  LLVMSetLinkage(g, LLVMInternalLinkage);
  LLVMSetAlignment(g, 16);
  return g;
}

static LLVMValueRef elem_ptr(LLVMBuilderRef b, LLVMValueRef arr,
                             LLVMTypeRef elem, LLVMValueRef idx) {
  return LLVMBuildGEP2(b, elem, arr, &idx, 1, "");
}

/* k > 1: the real block is t x t/k, and real thread (a, b) runs the
 * virtual threads (a, b + j*t/k), j < k, one after another (the kernel's
 * body becomes a loop), then makes their mirrors' stores. */
static int transform(xctx *c, ks_wx *x, unsigned k) {
  LLVMContextRef lc = LLVMGetModuleContext(c->m);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(lc);
  unsigned t = c->t, n = c->ny * c->pitch, rows = t / k;
  LLVMValueRef tile = shared_array(c->m, c->ty, n, "ks_exchange_tile");
  LLVMValueRef flag = shared_array(c->m, i32, n, "ks_exchange_flag");
  LLVMValueRef zero = LLVMConstInt(i32, 0, 0), one = LLVMConstInt(i32, 1, 0);
  LLVMValueRef pitch = LLVMConstInt(i32, c->pitch, 0);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(lc);

  /* a new entry: the allocas, the real coordinates */
  LLVMBasicBlockRef body = LLVMGetEntryBasicBlock(c->fn);
  LLVMBasicBlockRef first =
      LLVMInsertBasicBlockInContext(lc, body, "ks.exchange.entry");
  LLVMPositionBuilderAtEnd(b, first);
  for (LLVMValueRef i = LLVMGetFirstInstruction(body), next; i; i = next) {
    next = LLVMGetNextInstruction(i);
    if (LLVMIsAAllocaInst(i)) {
      LLVMInstructionRemoveFromParent(i);
      LLVMInsertIntoBuilder(b, i);
    }
  }
  LLVMValueRef tx =
      ks_ir_call_intrinsic(c->m, b, "llvm.nvvm.read.ptx.sreg.tid.x", NULL, 0);
  LLVMValueRef ty =
      ks_ir_call_intrinsic(c->m, b, "llvm.nvvm.read.ptx.sreg.tid.y", NULL, 0);
  /* the slot of virtual row 0; row j's is j * rows * pitch further,
   * strength-reduced here: built as (ty + j*rows) * pitch + tx, the
   * unrolled rows left slsr a product to rewrite, the one reason for
   * running it (and its ScalarEvolution) on the transpose; ptxas makes the
   * same machine code of either form */
  LLVMValueRef own0 =
      LLVMBuildAdd(b, LLVMBuildMul(b, ty, pitch, ""), tx, "ks.exchange.own0");
  LLVMBuildBr(b, body);

  /* the body: virtual row vy = ty + j*rows; its slot; its flag cleared */
  LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(body));
  LLVMValueRef j = NULL, vy = ty;
  if (k > 1) {
    j = LLVMBuildPhi(b, i32, "ks.exchange.j");
    LLVMAddIncoming(j, &zero, &first, 1);
    vy = LLVMBuildAdd(b, ty, LLVMBuildMul(b, j, LLVMConstInt(i32, rows, 0), ""),
                      "ks.exchange.y");
  }
  LLVMValueRef own =
      k > 1 ? LLVMBuildAdd(
                  b, own0,
                  LLVMBuildMul(b, j, LLVMConstInt(i32, rows * c->pitch, 0), ""),
                  "ks.exchange.own")
            : own0;
  LLVMBuildStore(b, zero, elem_ptr(b, flag, i32, own));
  /* the store: into the tile, and the flag set */
  LLVMValueRef v = LLVMGetOperand(c->store, 0);
  LLVMValueRef p = LLVMGetOperand(c->store, 1);
  unsigned align = LLVMGetAlignment(c->store);
  LLVMPositionBuilderBefore(b, c->store);
  LLVMBuildStore(b, v, elem_ptr(b, tile, c->ty, own));
  LLVMBuildStore(b, one, elem_ptr(b, flag, i32, own));

  /* the return: the next virtual row, or the barrier and the mirrors'
   * stores */
  LLVMBasicBlockRef last = LLVMGetInstructionParent(c->ret);
  LLVMBasicBlockRef xb =
      LLVMAppendBasicBlockInContext(lc, c->fn, "ks.exchange");
  LLVMPositionBuilderBefore(b, c->ret);
  if (k > 1) {
    LLVMValueRef j1 = LLVMBuildAdd(b, j, one, "");
    LLVMAddIncoming(j, &j1, &last, 1);
    LLVMBuildCondBr(
        b, LLVMBuildICmp(b, LLVMIntULT, j1, LLVMConstInt(i32, k, 0), ""), body,
        xb);
  } else {
    LLVMBuildBr(b, xb);
  }
  LLVMInstructionEraseFromParent(c->ret);
  LLVMPositionBuilderAtEnd(b, xb);
  ks_ir_call_intrinsic(c->m, b, "llvm.nvvm.barrier0", NULL, 0);
  /* the mirrors' stores: a loop over the rows, kept rolled (stores do not
   * wait for each other, and one copy keeps codegen short) */
  LLVMBasicBlockRef mh = xb, ml = NULL;
  LLVMValueRef r = NULL, my = ty;
  if (k > 1) {
    mh = LLVMAppendBasicBlockInContext(lc, c->fn, "ks.exchange.row");
    LLVMBuildBr(b, mh);
    LLVMPositionBuilderAtEnd(b, mh);
    r = LLVMBuildPhi(b, i32, "ks.exchange.r");
    LLVMAddIncoming(r, &zero, &xb, 1);
    /* virtual thread (tx, my) stores for its mirror (my, tx) */
    my = LLVMBuildAdd(b, ty, LLVMBuildMul(b, r, LLVMConstInt(i32, rows, 0), ""),
                      "ks.exchange.my");
  }
  /* the thread (ma, mb) whose store this one makes: in a square block the
   * mirror (my, tx); else the one at the same place of the block's stores
   * in address order, y fastest: linear id ty*t + tx is (ma*ny + mb) */
  LLVMValueRef ma = my, mb = tx;
  if (c->ny != t) {
    LLVMValueRef lin = LLVMBuildAdd(
        b, LLVMBuildMul(b, ty, LLVMConstInt(i32, t, 0), ""), tx, "");
    LLVMValueRef ny = LLVMConstInt(i32, c->ny, 0);
    ma = LLVMBuildUDiv(b, lin, ny, "ks.exchange.a");
    mb = LLVMBuildURem(b, lin, ny, "ks.exchange.b");
  }
  LLVMValueRef other =
      LLVMBuildAdd(b, LLVMBuildMul(b, mb, pitch, ""), ma, "ks.exchange.other");
  LLVMValueRef f = LLVMBuildLoad2(b, i32, elem_ptr(b, flag, i32, other), "");
  LLVMBasicBlockRef st =
      LLVMAppendBasicBlockInContext(lc, c->fn, "ks.exchange.store");
  LLVMBasicBlockRef after =
      LLVMAppendBasicBlockInContext(lc, c->fn, "ks.exchange.next");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, f, zero, ""), st, after);
  LLVMPositionBuilderAtEnd(b, st);
  LLVMValueRef val =
      LLVMBuildLoad2(b, c->ty, elem_ptr(b, tile, c->ty, other), "");
  LLVMValueRef tid[3] = {ma, mb, zero};
  LLVMValueRef q = ks_wx_clone(x, b, p, tid);
  int ok = q != NULL;
  if (ok)
    LLVMSetAlignment(LLVMBuildStore(b, val, q), align);
  LLVMBuildBr(b, after);
  LLVMPositionBuilderAtEnd(b, after);
  if (k > 1) {
    ml = after;
    LLVMValueRef r1 = LLVMBuildAdd(b, r, one, "");
    LLVMAddIncoming(r, &r1, &ml, 1);
    LLVMBasicBlockRef done =
        LLVMAppendBasicBlockInContext(lc, c->fn, "ks.exchange.done");
    LLVMValueRef br = LLVMBuildCondBr(
        b, LLVMBuildICmp(b, LLVMIntULT, r1, LLVMConstInt(i32, k, 0), ""), mh,
        done);
    if (ks_loops_keep_rolled(br))
      ok = 0;
    LLVMPositionBuilderAtEnd(b, done);
  }
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  /* after the clones, which read the original coordinates */
  if (ok && k > 1) /* the body reads the virtual row */
    for (LLVMBasicBlockRef bb = body; bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
        next = LLVMGetNextInstruction(i);
        if (i != ty && LLVMIsACallInst(i) &&
            !strcmp(ks_ir_callee_name(i), "llvm.nvvm.read.ptx.sreg.tid.y")) {
          LLVMReplaceAllUsesWith(i, vy);
          LLVMInstructionEraseFromParent(i);
        }
      }

  if (!ok)
    return ks_diag_fail(c->d, KS_EPASS,
                        PASS ": store exchange could not rebuild an address");
  LLVMInstructionEraseFromParent(c->store);
  if (k > 1) {
    if (ks_ir_set_reqntid(c->m, c->fn, 1, rows))
      return ks_diag_fail(c->d, KS_ENOMEM, PASS ": out of memory");
    c->d->plan.coarsen_y = k;
    ks_diag_explain(
        c->d, PASS,
        "exchanged %s: stores of a %ux%u block go through a shared tile "
        "(%u bytes), each warp writing contiguous memory; each thread "
        "runs %u rows (real block %ux%u)",
        c->what, t, c->ny, n * (c->size + 4), k, t, rows);
  } else if (c->ny == t) {
    ks_diag_explain(
        c->d, PASS,
        "exchanged %s: stores of a %ux%u block go through a shared tile "
        "(%u bytes), each warp writing contiguous memory",
        c->what, t, t, n * (c->size + 4));
  } else {
    ks_diag_explain(
        c->d, PASS,
        "exchanged %s: stores of a %ux%u block go through a shared tile "
        "(%u bytes), each warp writing runs of %u contiguous bytes",
        c->what, t, c->ny, n * (c->size + 4), c->ny * c->size);
  }
  return 0;
}

int ks_smem_store(LLVMModuleRef m, const ks_spec *s, ks_diag *d) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, s->kernel);
  /* only 2-D blocks are candidates: say nothing about others */
  if (!fn || LLVMIsDeclaration(fn) || !s->block[0] || s->block[1] < 2)
    return 0;
  xctx c = {.m = m, .fn = fn, .d = d, .t = s->block[0], .ny = s->block[1]};
  int nstores = 0;
  char buf[160];
  const char *why = scan(&c, &nstores, buf, sizeof buf);
  if (nstores != 1)
    return 0; /* nothing to exchange, or more than this pass handles */
  what_of(LLVMGetOperand(c.store, 1), c.what, sizeof c.what);
  LLVMValueRef p = LLVMGetOperand(c.store, 1);
  c.ty = LLVMTypeOf(LLVMGetOperand(c.store, 0));
  LLVMTypeKind k = LLVMGetTypeKind(c.ty);
  c.size = (unsigned)LLVMABISizeOfType(LLVMGetModuleDataLayout(m), c.ty);
  unsigned block[3] = {s->block[0], s->block[1], s->block[2] ? s->block[2] : 1};
  ks_wx *x = ks_wx_create(m, block);
  if (!x)
    return ks_diag_fail(d, KS_ENOMEM, PASS ": out of memory");
  ks_wx_set_range(x, 0, block[0]);
  ks_wx_set_range(x, 1, block[1]);
  /* the forms only choose the candidates; the stores are rebuilt from
   * clones, evaluated where the original stored (no poison there) */
  ks_wx_assume_nowrap(x);
  /* is it a candidate: contiguous along y, not along x? */
  int nf = ks_wx_norm(x, p, -1, 0);
  int64_t cy = 0, cx = 0;
  unsigned tz = 0;
  int along_y =
      nf >= 0 && ks_wx_tid_linear(x, nf, 1, &cy, &tz) && cy == (int64_t)c.size;
  int along_x =
      nf >= 0 && ks_wx_tid_linear(x, nf, 0, &cx, &tz) && cx == (int64_t)c.size;
  int rc = 0;
  if (!along_y || along_x)
    goto out; /* not strided the way an exchange fixes */
  c.pitch = pick_pitch(block[0], block[1], c.size);
  unsigned need = block[1] * c.pitch * (c.size + 4);
  unsigned have = ks_ir_shared_globals(m);
  if (block[2] != 1) {
    ks_diag_explain(d, PASS,
                    "declined exchange of %s: block %ux%ux%u is not 2-D",
                    c.what, block[0], block[1], block[2]);
  } else if (block[0] != block[1] && block[1] * c.size < SECTOR) {
    ks_diag_explain(d, PASS,
                    "declined exchange of %s: a %u-row block stores runs of "
                    "%u bytes, under a %u-byte sector",
                    c.what, block[1], block[1] * c.size, SECTOR);
  } else if (d->plan.coarsen_x > 1 || d->plan.coarsen_y > 1) {
    ks_diag_explain(d, PASS, "declined exchange of %s: coarsened by %u", c.what,
                    d->plan.coarsen_x > 1 ? d->plan.coarsen_x
                                          : d->plan.coarsen_y);
  } else if (why) {
    ks_diag_explain(d, PASS, "declined exchange of %s: %s", c.what, why);
  } else if (LLVMGetVolatile(c.store) ||
             LLVMGetOrdering(c.store) != LLVMAtomicOrderingNotAtomic) {
    ks_diag_explain(d, PASS,
                    "declined exchange of %s: an ordered or volatile store",
                    c.what);
  } else if ((k != LLVMIntegerTypeKind && k != LLVMFloatTypeKind &&
              k != LLVMDoubleTypeKind && k != LLVMHalfTypeKind &&
              k != LLVMBFloatTypeKind) ||
             c.size == 0 || c.size > 8) {
    ks_diag_explain(d, PASS,
                    "declined exchange of %s: stores of %u-byte values", c.what,
                    c.size);
  } else if (LLVMGetTypeKind(LLVMGetReturnType(LLVMGlobalGetValueType(fn))) !=
             LLVMVoidTypeKind) {
    ks_diag_explain(d, PASS, "declined exchange of %s: not a void kernel",
                    c.what);
  } else if ((why = check_cfg(&c)) != NULL) {
    ks_diag_explain(d, PASS, "declined exchange of %s: %s", c.what, why);
  } else if (have + need > MAX_EXCHANGE) {
    ks_diag_explain(
        d, PASS, "declined exchange of %s: %u bytes of shared memory over %u",
        c.what, need, MAX_EXCHANGE - have);
  } else {
    rc = transform(&c, x, rows_per_thread(&c));
  }
out:
  ks_wx_destroy(x);
  return rc;
}
