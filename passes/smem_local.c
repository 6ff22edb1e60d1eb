/*
 * smem_local.c - private arrays to shared memory, last in smem_promote.
 *
 * A private array that full unrolling did not make constant-indexed (SROA
 * leaves it an alloca: its index is data, say count[x & 15]++) lives in
 * local memory, off the chip and behind the L1. With a block of at most B
 * threads it becomes a slice of one shared array of B slices:
 *
 *   %a = alloca [N x T]   ->   %a = addrspacecast (gep i8, @ks_local_a,
 *                                                   ltid * STRIDE) to ptr
 *
 * ltid the thread's linear index in the real block (or, with no fixed block
 * but maxntid, in the launch's: B = maxntid). STRIDE is the array's
 * bytes rounded up to its alignment (at least 4) and then to an odd number
 * of those units, so that the threads of a warp reading the same element
 * hit distinct banks. Only the thread's own slice is ever touched, so no
 * barrier is needed and the kernel's meaning is kept, under these checks:
 *  - the alloca is static (entry block, constant count) in the generic
 *    address space;
 *  - every use is a load, store or atomic through GEPs and casts of it, a
 *    lifetime marker or a memset of a constant length (ks_smem_reach of
 *    smem_size.c: the pointer escapes nowhere, no other thread can learn
 *    it);
 *  - every access is bounded within the array by the interval analysis
 *    (%tid within the block, path conditions): a slice cannot spill into
 *    the next thread's;
 *  - all the slices fit with the shared memory already there in
 *    KS_SMEM_CAP.
 * The unroll stage ends with SROA, so arrays that unrolling made
 * constant-indexed are registers by now.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/smem_atomics.h"

#define PASS "smem_promote"

/* Why alloca a stays in local memory, or NULL; *bytes: its size. */
static const char *local_check(const ks_smem_kernel *K, ks_ranges *work,
                               LLVMValueRef a, unsigned long long *bytes) {
  LLVMValueRef count = LLVMGetOperand(a, 0);
  if (LLVMGetInstructionParent(a) != LLVMGetEntryBasicBlock(K->fn) ||
      !LLVMIsAConstantInt(count))
    return "its size is not constant (a dynamic alloca)";
  if (LLVMGetPointerAddressSpace(LLVMTypeOf(a)) != 0)
    return "it is not in the generic address space";
  unsigned long long es = LLVMABISizeOfType(K->dl, LLVMGetAllocatedType(a)),
                     n = LLVMConstIntGetZExtValue(count);
  if (es == 0 || n == 0 || es > KS_SMEM_CAP || n > KS_SMEM_CAP / es)
    return "its size is 0 or over the shared-memory budget";
  *bytes = es * n;
  ks_wide end = 0;
  const char *why = NULL;
  if (!ks_smem_reach(K, work, a, a, &end, &why, 0))
    return why;
  if (end > (ks_wide)*bytes)
    return "an access may reach past its end";
  return NULL;
}

int ks_smem_local(LLVMModuleRef m, const ks_spec *s, ks_diag *d) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, s->kernel);
  if (!fn || LLVMIsDeclaration(fn))
    return 0;
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
  int any = 0;
  for (LLVMValueRef i = LLVMGetFirstInstruction(entry); i && !any;
       i = LLVMGetNextInstruction(i))
    any = LLVMIsAAllocaInst(i) != NULL;
  if (!any)
    return 0;
  ks_smem_kernel K = ks_smem_kernel_of(m, fn);
  ks_ranges *work = ks_smem_reach_work(s, d);
  if (!work)
    return ks_diag_fail(d, KS_ENOMEM, "smem_promote: out of memory");
  /* a fixed block, or at most maxntid threads of a block not fixed */
  unsigned long long nthreads =
      1ull * work[0].block[0] * work[0].block[1] * work[0].block[2];
  if (!s->block[0]) {
    memset(work[0].block, 0, sizeof work[0].block); /* %tid unknown */
    memset(work[1].block, 0, sizeof work[1].block);
    nthreads = s->maxntid;
  }
  LLVMBuilderRef b = NULL;
  LLVMValueRef ltid = NULL;
  unsigned n = 0;
  for (LLVMValueRef a = LLVMGetFirstInstruction(entry), next; a; a = next) {
    next = LLVMGetNextInstruction(a);
    if (!LLVMIsAAllocaInst(a))
      continue;
    char name[64];
    size_t len = 0;
    const char *nm = LLVMGetValueName2(a, &len);
    if (len)
      snprintf(name, sizeof name, "%%%.*s", (int)(len < 48 ? len : 48), nm);
    else
      snprintf(name, sizeof name, "private array %u", n);
    n++;
    unsigned long long bytes = 0;
    const char *why = NULL;
    if (!nthreads)
      why = "the block's threads are not bounded (--block or --maxntid)";
    else
      why = local_check(&K, work, a, &bytes);
    unsigned unit = LLVMGetAlignment(a) > 4 ? LLVMGetAlignment(a) : 4;
    unsigned long long units = (bytes + unit - 1) / unit;
    units += units % 2 == 0; /* odd: a warp's same element in distinct banks */
    unsigned long long stride = units * unit, total = stride * nthreads;
    if (!why && ks_smem_existing(m) + total > KS_SMEM_CAP)
      why = "its slices for the block would not fit in the shared-memory "
            "budget";
    if (why) {
      ks_diag_explain(d, PASS, "kept %s in local memory: %s", name, why);
      continue;
    }
    if (!b) {
      b = LLVMCreateBuilderInContext(K.c);
      LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(entry));
      ltid = ks_smem_linear_tid(m, b, work[0].block);
    }
    char gname[80];
    snprintf(gname, sizeof gname, "ks_local_%u", n - 1);
    LLVMTypeRef gt = LLVMArrayType2(LLVMInt8TypeInContext(K.c), total);
    LLVMValueRef g = LLVMAddGlobalInAddressSpace(m, gt, gname, KS_AS_SHARED);
    LLVMSetInitializer(g, LLVMGetUndef(gt));
    LLVMSetLinkage(g, LLVMInternalLinkage);
    LLVMSetAlignment(g, unit);
    /* lifetime markers mean nothing on shared memory: dropped */
    for (LLVMUseRef u = LLVMGetFirstUse(a), un; u; u = un) {
      un = LLVMGetNextUse(u);
      unsigned long long mlen = 0;
      LLVMValueRef user = LLVMGetUser(u);
      if (ks_smem_marker_or_memset(user, a, &mlen) && !mlen)
        LLVMInstructionEraseFromParent(user);
    }
    LLVMPositionBuilderBefore(b, a);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(K.c);
    LLVMValueRef off =
        LLVMBuildNUWMul(b, ltid, LLVMConstInt(i32, stride, 0), "");
    LLVMValueRef p =
        LLVMBuildInBoundsGEP2(b, LLVMInt8TypeInContext(K.c), g, &off, 1, "");
    char keep[64];
    snprintf(keep, sizeof keep, "%.*s", (int)(len < 63 ? len : 63), nm);
    LLVMSetValueName2(a, "", 0);
    p = LLVMBuildAddrSpaceCast(b, p, LLVMTypeOf(a), keep);
    LLVMReplaceAllUsesWith(a, p);
    LLVMInstructionEraseFromParent(a);
    ks_diag_explain(
        d, PASS,
        "moved %s from local to shared memory: %llu B per thread in "
        "slices of %llu B x %llu threads = %llu B",
        name, bytes, stride, nthreads, total);
  }
  if (b)
    LLVMDisposeBuilder(b);
  free(work);
  return 0;
}
