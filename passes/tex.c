/*
 * tex.c - the tex stage: the dialect's sampling functions (kspec_device.h's
 * ks_sample1d/2d/3d, each one call of an out-of-line __ks_tex<D>d_<type>)
 * are inlined as software, the index arithmetic, boundary rule and
 * interpolation in code. It runs right after bind, so that a filter or a
 * size bound by the request is a constant in what it inlines, and before
 * canonicalize, which folds it. A module that calls no sampling function
 * is only looked at, not changed.
 */
#include <string.h>

#include "passes/ks_passes.h"

static const char tex_prefix[] = "__ks_tex";

int ks_tex_is_sampler(LLVMValueRef fn) {
  size_t len = 0;
  const char *name = LLVMGetValueName2(fn, &len);
  return len > sizeof tex_prefix - 1 &&
         strncmp(name, tex_prefix, sizeof tex_prefix - 1) == 0;
}

static unsigned attr_kind(const char *name) {
  return LLVMGetEnumAttributeKindForName(name, strlen(name));
}

/* Marks every defined sampling function of m always-inline; returns how
 * many calls they have. */
static unsigned mark_inline(LLVMModuleRef m) {
  LLVMContextRef lc = LLVMGetModuleContext(m);
  unsigned noinline = attr_kind("noinline"), always = attr_kind("alwaysinline");
  unsigned n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && ks_tex_is_sampler(f)) {
      LLVMRemoveEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, noinline);
      LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                              LLVMCreateEnumAttribute(lc, always, 0));
      for (LLVMUseRef u = LLVMGetFirstUse(f); u; u = LLVMGetNextUse(u))
        n++;
    }
  return n;
}

int ks_pass_tex(ks_stage_ctx *c) {
  unsigned n = mark_inline(c->m);
  if (!n)
    return 0;
  ks_diag_explain(c->diag, c->name, "%u sampling call%s inlined as software", n,
                  n == 1 ? "" : "s");
  return ks_pipeline_llvm(c, "always-inline");
}
