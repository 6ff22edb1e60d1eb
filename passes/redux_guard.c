/*
 * redux_guard.c - the toolchain guard for warp reductions (redux.sync).
 *
 * llvm.nvvm.redux.sync.<op>(i32 %value, i32 %mask) takes the value first.
 * CUDA's own headers write __reduce_<op>_sync(mask, value) as
 * __nvvm_redux_sync_<op>(mask, value), nvcc's order; clang before 20 maps
 * that builtin onto the intrinsic as it stands, so a kernel compiled by
 * clang 19 against CUDA's headers reduces its mask over the lanes named by
 * its data (llvm/llvm-project#131415), and the GPU stops it with an
 * illegal instruction. The fix upstream is in clang 20.
 *
 * The swap shows once the call's operands are folded (after inlining and
 * canonicalization): the value operand is the typical mask, all lanes
 * (-1, __activemask(), or a ballot of `true`), and the mask operand is
 * not (data, or a constant such as the 1 of __reduce_add_sync(mask, 1),
 * which counts lanes). In IR whose llvm.ident names no clang newer than 19,
 * where every such call through CUDA's headers is swapped, the operands are put
 * back and the explanation says so: refusing would leave every cooperative
 * groups reduction that clang 19 compiles unusable, and a correct kernel
 * that really reduces the constant -1 over a data-dependent set of lanes
 * is not something those toolchains can express through the headers. IR
 * from any other producer (no llvm.ident, or clang 20 and later) with the
 * same shape is refused: the swap cannot be told from intent there, and a
 * guess would be a wrong kernel.
 *
 * kspec's dialect (kspec_device.h) calls the intrinsic in its own order,
 * through a declaration and under [[clang::nomerge]], so its calls carry
 * the call-site attribute nomerge, which a builtin call (all CUDA's headers
 * make) never has: such a call is in order by construction, and is left
 * alone even when its value is all lanes (__reduce_and_sync(m, ~0u)).
 */
#include <stdlib.h>
#include <string.h>

#include "passes/ks_passes.h"

static const char redux[] = "llvm.nvvm.redux.sync.";

/* Is v a value that names every lane a mask would: the constant -1,
 * llvm.nvvm.activemask, or a ballot of true? */
static int all_lanes(LLVMValueRef v) {
  if (LLVMIsAConstantInt(v))
    return LLVMConstIntGetSExtValue(v) == -1;
  if (!LLVMIsACallInst(v))
    return 0;
  const char *callee = ks_ir_callee_name(v);
  if (strcmp(callee, "llvm.nvvm.activemask") == 0)
    return 1;
  if (strcmp(callee, "llvm.nvvm.vote.ballot.sync") != 0)
    return 0;
  LLVMValueRef pred = LLVMGetOperand(v, 1);
  return LLVMIsAConstantInt(pred) && LLVMConstIntGetZExtValue(pred) == 1;
}

/* The major version of the newest clang named in m's llvm.ident, 0 when
 * none is named. The newest: clang links libdevice into CUDA code, and
 * libdevice names the clang 3.8 that built it; and of several frontends,
 * one of 20 or later makes the swap a guess. */
static unsigned clang_major(LLVMModuleRef m) {
  unsigned n = LLVMGetNamedMetadataNumOperands(m, "llvm.ident");
  if (n == 0 || n > 64)
    return 0;
  LLVMValueRef ops[64];
  LLVMGetNamedMetadataOperands(m, "llvm.ident", ops);
  unsigned newest = 0;
  for (unsigned i = 0; i < n; i++) {
    if (LLVMGetMDNodeNumOperands(ops[i]) != 1)
      continue;
    LLVMValueRef s;
    LLVMGetMDNodeOperands(ops[i], &s);
    unsigned len = 0;
    const char *text = s ? LLVMGetMDString(s, &len) : NULL;
    char buf[256];
    if (!text || len >= sizeof buf)
      continue;
    memcpy(buf, text, len);
    buf[len] = '\0';
    const char *v = strstr(buf, "clang version ");
    unsigned major = v ? (unsigned)strtoul(v + 14, NULL, 10) : 0;
    if (major > newest)
      newest = major;
  }
  return newest;
}

/* Was call made by kspec's dialect (the call-site attribute nomerge)? */
static int from_dialect(LLVMValueRef call) {
  unsigned kind = LLVMGetEnumAttributeKindForName("nomerge", 7);
  return kind && LLVMGetCallSiteEnumAttribute(call, LLVMAttributeFunctionIndex,
                                              kind) != NULL;
}

/* Checks, and under clang < 20 repairs, one call of llvm.nvvm.redux.sync.*:
 * 0, or 1 with d's failure. */
static int guard_call(LLVMValueRef call, const char *op, unsigned clang,
                      const ks_spec *s, ks_diag *d) {
  if (from_dialect(call))
    return 0;
  LLVMValueRef value = LLVMGetOperand(call, 0);
  LLVMValueRef mask = LLVMGetOperand(call, 1);
  if (!all_lanes(value) || all_lanes(mask))
    return 0;
  if (clang && clang < 20) {
    LLVMSetOperand(call, 0, mask);
    LLVMSetOperand(call, 1, value);
    ks_diag_explain(d, "toolchain",
                    "redux.sync.%s: mask and value put back in order (clang %u "
                    "swaps them in CUDA's __reduce_%s_sync, "
                    "llvm/llvm-project#131415; fixed in clang 20)",
                    op, clang, op);
    return 0;
  }
  return ks_diag_fail(
      d, KS_ECODEGEN,
      "toolchain: kernel '%s': llvm.nvvm.redux.sync.%s reduces an all-lanes "
      "value over a mask that is not: the mask and value look swapped, as "
      "clang before 20 swaps them in CUDA's __reduce_%s_sync "
      "(llvm/llvm-project#131415); compile with clang >= 20 or call the "
      "builtin with (value, mask)",
      s->kernel, op, op);
}

int ks_pass_redux_guard(LLVMModuleRef m, const ks_spec *s, ks_diag *d) {
  unsigned clang = 0;
  int known = 0;
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn;
       fn = LLVMGetNextFunction(fn)) {
    size_t len = 0;
    const char *name = LLVMGetValueName2(fn, &len);
    if (len <= sizeof redux - 1 || strncmp(name, redux, sizeof redux - 1))
      continue;
    const char *op = name + sizeof redux - 1;
    for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef call = LLVMGetUser(u);
      if (!LLVMIsACallInst(call) || LLVMGetCalledValue(call) != fn ||
          LLVMGetNumArgOperands(call) != 2)
        continue;
      if (!known) {
        clang = clang_major(m);
        known = 1;
      }
      if (guard_call(call, op, clang, s, d))
        return 1;
    }
  }
  return 0;
}
