/*
 * tex.c - the tex stage: the dialect's sampling functions (kspec_device.h's
 * ks_sample1d/2d/3d, each one call of an out-of-line __ks_tex<D>d_<type>)
 * are inlined as software, the index arithmetic, boundary rule and
 * interpolation in code. It runs right after bind, so that a filter or a
 * size bound by the request is a constant in what it inlines, and before
 * canonicalize, which folds it. A module that calls no sampling function
 * is only looked at, not changed.
 *
 * With --tex ARG (ks_spec.tex), every sampling of pointer argument ARG
 * becomes a hardware texture fetch: the kernel gets a hidden i64
 * parameter, the texture object, after its own (ks_launch_plan.tex_*
 * says how ks_launch makes it from the launch's arguments), and each call
 * becomes a call of ks.tex.N, inlined like the rest: where the object is
 * not 0, llvm.nvvm.tex.unified.2d (a 1-D texture is one row) or .3d (over
 * a CUDA array that ks_launch copies the data into before each launch);
 * wrap and mirror with normalized coordinates, the only ones the hardware
 * wraps; else the software sampling, which a launch falls back to when it
 * can make no texture object. Only where it is the same sampling everywhere:
 * every use of ARG a sampling call of one function with the same sizes,
 * filter and mode, each size an argument or a constant, the filter and
 * mode constants (bound), and a format the hardware filters that way;
 * otherwise the request fails, naming why.
 */
#include <stdio.h>
#include <stdlib.h>
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

/* ---- hardware textures ---------------------------------------------------
 */

enum { NEAREST = 0, LINEAR = 1, NORMALIZED = 2 };     /* kspec_device.h's */
enum { CLAMP = 0, WRAP = 1, MIRROR = 2, BORDER = 3 }; /* KS_CLAMP, ... */

static const char *const formats[] = {"f32", "f16", "u8", "s8", "u16", "s16"};

/* What every sampling of one argument shares. */
typedef struct tex_use {
  unsigned arg;
  LLVMValueRef fn;       /* the sampling function */
  unsigned dims, format; /* 1, 2 or 3; KS_TEX_* */
  unsigned filter, mode;
  LLVMValueRef size[4]; /* the operands after img: w (, h (, d), pitch) */
  unsigned calls;
} tex_use;

static int refuse(ks_stage_ctx *c, LLVMValueRef arg, const char *fmt,
                  const char *what) {
  char name[64], msg[512];
  ks_diag_arg_name(arg, name, sizeof name);
  snprintf(msg, sizeof msg, fmt, what);
  return ks_diag_fail(c->diag, KS_EPASS, "tex: %s: --tex %s: %s",
                      c->spec->kernel, name, msg);
}

/* Does pointer v (argument or derived from it) reach a store, an atomic or
 * a call other than a sampling, as the address written? */
static int written(LLVMValueRef v, int depth) {
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef i = LLVMGetUser(u);
    if (LLVMIsAStoreInst(i) && LLVMGetOperand(i, 1) == v)
      return 1;
    if (LLVMIsAAtomicRMWInst(i) || LLVMIsAAtomicCmpXchgInst(i))
      return 1;
    if (depth < 8 &&
        (LLVMIsAGetElementPtrInst(i) || LLVMIsACastInst(i) ||
         LLVMIsASelectInst(i) || LLVMIsAPHINode(i)) &&
        written(i, depth + 1))
      return 1;
  }
  return 0;
}

/* The sampling function fn's dimension and format from its name
 * (__ks_tex2d_f32); 0 when it is not one kspec knows. */
static int sampler_kind(LLVMValueRef fn, unsigned *dims, unsigned *format) {
  size_t len = 0;
  const char *n = LLVMGetValueName2(fn, &len);
  if (len < 13 || n[8] < '1' || n[8] > '3' || n[9] != 'd' || n[10] != '_')
    return 0;
  *dims = (unsigned)(n[8] - '0');
  for (unsigned f = 0; f < sizeof formats / sizeof *formats; f++)
    if (strcmp(n + 11, formats[f]) == 0) {
      *format = f;
      return 1;
    }
  return 0;
}

static int const_operand(LLVMValueRef v, unsigned *out) {
  if (!LLVMIsAConstantInt(v))
    return 0;
  long long x = LLVMConstIntGetSExtValue(v);
  if (x < 0 || x > 3)
    return 0;
  *out = (unsigned)x;
  return 1;
}

/* One sampling call of argument t->arg into t (the first sets it): 0, or
 * the refusal. */
static int take_call(ks_stage_ctx *c, LLVMValueRef arg, LLVMValueRef call,
                     tex_use *t) {
  LLVMValueRef fn = LLVMGetCalledValue(call);
  unsigned dims = 0, format = 0, nsz, filter, mode;
  if (!sampler_kind(fn, &dims, &format))
    return refuse(c, arg, "%s", "an unknown sampling function reads it");
  nsz = dims == 1 ? 1 : dims + 1; /* the sizes after img */
  unsigned nops = (unsigned)LLVMGetNumArgOperands(call);
  if (!const_operand(LLVMGetOperand(call, nops - 2), &filter) ||
      !const_operand(LLVMGetOperand(call, nops - 1), &mode))
    return refuse(c, arg, "%s",
                  "its filter or boundary mode is not known at "
                  "specialization (bind it with -D, or write a constant)");
  if (format >= 2 && !(filter & NORMALIZED) && (filter & LINEAR))
    return refuse(c, arg, "%s",
                  "a format the hardware cannot sample: linear filtering of "
                  "integers read as their values (read them KS_NORMALIZED, "
                  "or leave --tex out)");
  for (unsigned k = 0; k < nsz; k++) {
    LLVMValueRef v = LLVMGetOperand(call, 1 + k);
    if (!LLVMIsAArgument(v) && !LLVMIsAConstantInt(v))
      return refuse(c, arg, "%s",
                    "its sizes must be kernel arguments or constants, which "
                    "ks_launch makes the texture object from");
  }
  if (!t->calls) {
    *t = (tex_use){.arg = t->arg,
                   .fn = fn,
                   .dims = dims,
                   .format = format,
                   .filter = filter,
                   .mode = mode};
    for (unsigned k = 0; k < nsz; k++)
      t->size[k] = LLVMGetOperand(call, 1 + k);
  } else {
    int same = fn == t->fn && filter == t->filter && mode == t->mode;
    for (unsigned k = 0; k < nsz; k++)
      same &= LLVMGetOperand(call, 1 + k) == t->size[k];
    if (!same)
      return refuse(c, arg, "%s",
                    "it is sampled with different sizes, filters, modes or "
                    "types, and one texture object has one of each");
  }
  t->calls++;
  return 0;
}

/* Every use of argument t->arg of kernel fn: a sampling call with it as
 * the array. 0, or the refusal. */
static int find_uses(ks_stage_ctx *c, LLVMValueRef fn, tex_use *t) {
  LLVMValueRef arg = LLVMGetParam(fn, t->arg);
  if (written(arg, 0))
    return refuse(c, arg, "%s",
                  "the kernel writes it, and a texture is read-only");
  for (LLVMUseRef u = LLVMGetFirstUse(arg); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef i = LLVMGetUser(u);
    LLVMValueRef callee = LLVMIsACallInst(i) ? LLVMGetCalledValue(i) : NULL;
    if (!callee || !LLVMIsAFunction(callee) || !ks_tex_is_sampler(callee) ||
        LLVMGetOperand(i, 0) != arg)
      return refuse(c, arg, "%s",
                    "the kernel reads it other than through the sampling "
                    "functions (ks_sample1d/2d/3d)");
    if (take_call(c, arg, i, t))
      return 1;
  }
  if (!t->calls)
    return refuse(c, arg, "%s",
                  "no sampling function (ks_sample1d/2d/3d) reads it");
  return 0;
}

/* Replaces fn by a copy with n trailing i64 parameters (the texture
 * objects); the blocks move over. NULL when out of memory. */
static LLVMValueRef add_params(LLVMModuleRef m, LLVMValueRef old, unsigned n) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(LLVMGetModuleContext(m));
  LLVMTypeRef types[KS_TEX_MAX];
  char buf[KS_TEX_MAX][16];
  const char *names[KS_TEX_MAX];
  for (unsigned i = 0; i < n && i < KS_TEX_MAX; i++) {
    types[i] = i64;
    snprintf(buf[i], sizeof buf[i], "ks.tex%u", i);
    names[i] = buf[i];
  }
  return n <= KS_TEX_MAX ? ks_ir_add_params(old, types, names, n) : NULL;
}

static LLVMValueRef intrinsic(LLVMModuleRef m, const char *name) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  return id ? LLVMGetIntrinsicDeclaration(m, id, NULL, 0) : NULL;
}

/* The function ks.tex.N(sampling's parameters..., i64 tex) that calls of
 * t's sampling become: the hardware fetch where tex is not 0, else the
 * software sampling. */
static LLVMValueRef fetch_fn(LLVMModuleRef m, const tex_use *t, unsigned n) {
  LLVMContextRef lc = LLVMGetModuleContext(m);
  LLVMTypeRef sft = LLVMGlobalGetValueType(t->fn);
  unsigned np = LLVMCountParamTypes(sft);
  LLVMTypeRef pt[16], f32 = LLVMFloatTypeInContext(lc),
                      i32 = LLVMInt32TypeInContext(lc);
  if (np + 1 > 16)
    return NULL;
  LLVMGetParamTypes(sft, pt);
  pt[np] = LLVMInt64TypeInContext(lc);
  char name[32];
  snprintf(name, sizeof name, "ks.tex.%u", n);
  LLVMValueRef f =
      LLVMAddFunction(m, name, LLVMFunctionType(f32, pt, np + 1, 0));
  LLVMSetLinkage(f, LLVMInternalLinkage);
  LLVMAddAttributeAtIndex(
      f, LLVMAttributeFunctionIndex,
      LLVMCreateEnumAttribute(lc, attr_kind("alwaysinline"), 0));
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(lc, f, "entry");
  LLVMBasicBlockRef hw = LLVMAppendBasicBlockInContext(lc, f, "hw");
  LLVMBasicBlockRef sw = LLVMAppendBasicBlockInContext(lc, f, "sw");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(lc);
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMValueRef tex = LLVMGetParam(f, np);
  LLVMBuildCondBr(
      b, LLVMBuildICmp(b, LLVMIntNE, tex, LLVMConstInt(pt[np], 0, 0), "has"),
      hw, sw);
  /* software: the sampling function as it is */
  LLVMPositionBuilderAtEnd(b, sw);
  LLVMValueRef args[16];
  for (unsigned k = 0; k < np; k++)
    args[k] = LLVMGetParam(f, k);
  LLVMBuildRet(b, LLVMBuildCall2(b, sft, t->fn, args, np, ""));
  /* hardware: (x, y (, z)), normalized for wrap and mirror */
  LLVMPositionBuilderAtEnd(b, hw);
  unsigned xi = t->dims == 1 ? 2 : t->dims + 2; /* after img and the sizes */
  unsigned nc = t->dims == 3 ? 3 : 2;           /* a 1-D texture is a row */
  LLVMValueRef targs[4] = {tex, LLVMGetParam(f, xi), LLVMConstReal(f32, 0.5),
                           NULL};
  for (unsigned k = 1; k < t->dims; k++)
    targs[1 + k] = LLVMGetParam(f, xi + k);
  if (t->mode == WRAP || t->mode == MIRROR)
    for (unsigned k = 0; k < t->dims; k++)
      targs[1 + k] = LLVMBuildFDiv(
          b, targs[1 + k], LLVMBuildSIToFP(b, LLVMGetParam(f, 1 + k), f32, ""),
          "u");
  int ints = t->format >= 2 && !(t->filter & NORMALIZED);
  int sign = t->format == 3 || t->format == 5;
  char iname[48];
  snprintf(iname, sizeof iname, "llvm.nvvm.tex.unified.%ud.v4%s.f32", nc,
           !ints  ? "f32"
           : sign ? "s32"
                  : "u32");
  LLVMValueRef in = intrinsic(m, iname);
  if (!in) {
    LLVMDisposeBuilder(b);
    return NULL;
  }
  LLVMValueRef r =
      LLVMBuildCall2(b, LLVMGlobalGetValueType(in), in, targs, nc + 1, "texel");
  LLVMValueRef v = LLVMBuildExtractValue(b, r, 0, "");
  if (ints)
    v = sign ? LLVMBuildSIToFP(b, v, f32, "") : LLVMBuildUIToFP(b, v, f32, "");
  LLVMBuildRet(b, v);
  LLVMDisposeBuilder(b);
  (void)i32;
  return f;
}

/* Where a size operand comes from, for the launch plan. */
static void plan_size(ks_launch_plan *p, unsigned j, LLVMValueRef v) {
  if (!v) {
    p->tex_size_value[j] = 1;
    return;
  }
  if (LLVMIsAArgument(v))
    p->tex_size_arg[j] = ks_ir_param_index(v) + 1;
  else {
    long long x = LLVMConstIntGetSExtValue(v);
    p->tex_size_value[j] = x<0 ? 0 : x>(1 << 30) ? 1u << 30 : (unsigned)x;
  }
}

/* The sampling's operand that is size k of the plan (width, height,
 * depth, pitch), NULL for 1: a 1-D texture is one row of pitch w, a 2-D
 * one a single slice. */
static LLVMValueRef plan_operand(const tex_use *t, unsigned k) {
  if (t->dims == 1)
    return k == 0 || k == 3 ? t->size[0] : NULL;
  if (t->dims == 2)
    return k == 2 ? NULL : t->size[k == 3 ? 2 : k];
  return t->size[k];
}

/* Each call of t's sampling becomes a call of fetch with the texture
 * object tex appended. */
static void redirect(LLVMContextRef lc, const tex_use *t, LLVMValueRef arg,
                     LLVMValueRef fetch, LLVMValueRef tex) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(lc);
  LLVMUseRef u = LLVMGetFirstUse(arg);
  while (u) {
    LLVMValueRef call = LLVMGetUser(u);
    u = LLVMGetNextUse(u);
    while (u && LLVMGetUser(u) == call)
      u = LLVMGetNextUse(u);
    unsigned n = (unsigned)LLVMGetNumArgOperands(call);
    LLVMValueRef args[16];
    for (unsigned k = 0; k < n && k < 15; k++)
      args[k] = LLVMGetOperand(call, k);
    args[n] = tex;
    LLVMPositionBuilderBefore(b, call);
    LLVMValueRef nc = LLVMBuildCall2(b, LLVMGlobalGetValueType(fetch), fetch,
                                     args, n + 1, "");
    LLVMReplaceAllUsesWith(call, nc);
    LLVMInstructionEraseFromParent(call);
  }
  LLVMDisposeBuilder(b);
  (void)t;
}

static int hardware(ks_stage_ctx *c) {
  LLVMValueRef fn = LLVMGetNamedFunction(c->m, c->spec->kernel);
  if (!fn)
    return ks_diag_fail(c->diag, KS_ENOKERNEL, "tex: no kernel '%s'",
                        c->spec->kernel);
  /* a bound filter or size left as an instruction of constants */
  if (ks_pipeline_llvm(c, "function(instsimplify)"))
    return 1;
  tex_use t[KS_TEX_MAX];
  unsigned n = 0;
  for (unsigned a = 0; a < 64 && a < LLVMCountParams(fn); a++) {
    if (!(c->spec->tex >> a & 1))
      continue;
    if (n == KS_TEX_MAX)
      return ks_diag_fail(c->diag, KS_EPASS,
                          "tex: %s: more than %d --tex arguments",
                          c->spec->kernel, KS_TEX_MAX);
    t[n] = (tex_use){.arg = a};
    if (find_uses(c, fn, &t[n]))
      return 1;
    n++;
  }
  if (!n)
    return 0;
  ks_launch_plan *p = &c->diag->plan;
  for (unsigned i = 0; i < n; i++) /* the sizes are the old kernel's */
    for (unsigned k = 0; k < 4; k++)
      plan_size(p, 4 * i + k, plan_operand(&t[i], k));
  if (!(fn = add_params(c->m, fn, n)))
    return ks_diag_fail(c->diag, KS_ENOMEM, "tex: out of memory");
  unsigned k0 = LLVMCountParams(fn) - n;
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef fetch = fetch_fn(c->m, &t[i], i);
    if (!fetch)
      return ks_diag_fail(c->diag, KS_EPASS,
                          "tex: %s: no texture intrinsic in this LLVM",
                          c->spec->kernel);
    LLVMValueRef arg = LLVMGetParam(fn, t[i].arg);
    redirect(LLVMGetModuleContext(c->m), &t[i], arg, fetch,
             LLVMGetParam(fn, k0 + i));
    p->tex_arg[i] = t[i].arg;
    p->tex_dims[i] = t[i].dims;
    p->tex_format[i] = t[i].format;
    p->tex_filter[i] = t[i].filter;
    p->tex_mode[i] = t[i].mode;
    static const char *const modes[] = {"clamp", "wrap", "mirror", "border"};
    char name[64];
    ks_diag_explain(c->diag, c->name,
                    "%s: %u sampling%s by hardware texture fetch (%uD %s, "
                    "%s%s, %s), the texture object hidden argument %u; "
                    "software where a launch makes none%s",
                    ks_diag_arg_name(arg, name, sizeof name), t[i].calls,
                    t[i].calls == 1 ? "" : "s", t[i].dims, formats[t[i].format],
                    t[i].filter & LINEAR ? "linear" : "nearest",
                    t[i].filter & NORMALIZED ? " normalized" : "",
                    modes[t[i].mode], k0 + i,
                    t[i].dims == 3 ? "; over a CUDA 3-D array into which "
                                     "each launch first copies the whole "
                                     "array (w * h * d texels)"
                                   : "");
  }
  p->texs = n;
  return 0;
}

int ks_pass_tex(ks_stage_ctx *c) {
  if (c->spec->tex && hardware(c))
    return 1;
  unsigned n = mark_inline(c->m);
  if (!n)
    return 0;
  ks_diag_explain(c->diag, c->name, "%u sampling call%s inlined as software", n,
                  n == 1 ? "" : "s");
  return ks_pipeline_llvm(c, "always-inline");
}
