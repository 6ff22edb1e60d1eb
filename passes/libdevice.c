/*
 * libdevice.c - the libdevice stage: the device library's functions linked
 * into the module that calls them.
 *
 * Math in CUDA code reaches the IR two ways: as calls to libdevice's
 * __nv_* functions (CUDA's headers, and kspec_device.h, call those), and
 * as LLVM's math intrinsics (clang emits llvm.exp.f32 for __builtin_expf),
 * most of which the NVPTX backend of LLVM 19 cannot select. The intrinsics
 * are first turned into calls of their libdevice functions (the half and
 * bfloat forms through float, as CUDA's headers compute them; a float
 * call marked afn into the __nv_fast_* form where libdevice has one); then
 * the __nv_* functions the module declares are linked from the device
 * library with what they call (spec->devlib: jit/codegen/libdevice.c),
 * and only those. Their fast forms come too, where libdevice has them, so
 * that a request for fast math (the math stage) can switch to them without
 * linking again.
 *
 * The stage runs before bind, so once per prepared template: what is linked
 * depends on the template alone, and the request's modes (arch, flush to
 * zero, precision) are answered by the math stage after bind, through
 * libdevice's __nvvm_reflect queries. Until then the linked functions stay
 * out of line, internal (no other module sees them), and the named
 * metadata kspec.libdevice lists them for the math stage's explanation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/ks_passes.h"

/* An intrinsic (name prefix, with the dot before its overload) and its
 * libdevice functions for float and double. */
typedef struct mapping {
  const char *intrinsic, *f32, *f64;
} mapping;

static const mapping maps[] = {
    {"llvm.exp.", "__nv_expf", "__nv_exp"},
    {"llvm.exp2.", "__nv_exp2f", "__nv_exp2"},
    {"llvm.exp10.", "__nv_exp10f", "__nv_exp10"},
    {"llvm.log.", "__nv_logf", "__nv_log"},
    {"llvm.log2.", "__nv_log2f", "__nv_log2"},
    {"llvm.log10.", "__nv_log10f", "__nv_log10"},
    {"llvm.pow.", "__nv_powf", "__nv_pow"},
    {"llvm.powi.", "__nv_powif", "__nv_powi"},
    {"llvm.sin.", "__nv_sinf", "__nv_sin"},
    {"llvm.cos.", "__nv_cosf", "__nv_cos"},
    {"llvm.tan.", "__nv_tanf", "__nv_tan"},
    {"llvm.round.", "__nv_roundf", "__nv_round"},
    {"llvm.ldexp.", "__nv_ldexpf", "__nv_ldexp"},
};
enum { NMAPS = sizeof maps / sizeof maps[0] };

/* libdevice's float functions and their fast forms (what nvcc's
 * --use_fast_math makes of them). */
static const char *const fast[][2] = {
    {"__nv_expf", "__nv_fast_expf"},
    {"__nv_exp10f", "__nv_fast_exp10f"},
    {"__nv_logf", "__nv_fast_logf"},
    {"__nv_log2f", "__nv_fast_log2f"},
    {"__nv_log10f", "__nv_fast_log10f"},
    {"__nv_sinf", "__nv_fast_sinf"},
    {"__nv_cosf", "__nv_fast_cosf"},
    {"__nv_tanf", "__nv_fast_tanf"},
    {"__nv_powf", "__nv_fast_powf"},
    {"__nv_sincosf", "__nv_fast_sincosf"},
    {"__nv_fdividef", "__nv_fast_fdividef"},
};
enum { NFAST = sizeof fast / sizeof fast[0] };

const char *ks_libdevice_fast_form(const char *name) {
  for (size_t i = 0; i < NFAST; i++)
    if (strcmp(fast[i][0], name) == 0)
      return fast[i][1];
  return NULL;
}

static int starts(const char *s, size_t len, const char *p) {
  size_t n = strlen(p);
  return len >= n && memcmp(s, p, n) == 0;
}

/* The mapping of intrinsic declaration fn, or NULL: a scalar half, bfloat,
 * float or double form of one in maps. */
static const mapping *mapping_of(LLVMValueRef fn) {
  size_t len = 0;
  const char *name = LLVMGetValueName2(fn, &len);
  if (!starts(name, len, "llvm.") || !LLVMGetIntrinsicID(fn))
    return NULL;
  switch (LLVMGetTypeKind(LLVMGetReturnType(LLVMGlobalGetValueType(fn)))) {
  case LLVMHalfTypeKind:
  case LLVMBFloatTypeKind:
  case LLVMFloatTypeKind:
  case LLVMDoubleTypeKind:
    break;
  default:
    return NULL;
  }
  for (size_t i = 0; i < NMAPS; i++)
    if (starts(name, len, maps[i].intrinsic))
      return &maps[i];
  return NULL;
}

static int is_libdevice_name(const char *name, size_t len) {
  return starts(name, len, "__nv_");
}

int ks_libdevice_needed(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f;
       f = LLVMGetNextFunction(f)) {
    size_t len = 0;
    const char *name = LLVMGetValueName2(f, &len);
    if (LLVMIsDeclaration(f) && LLVMGetFirstUse(f) &&
        (is_libdevice_name(name, len) || mapping_of(f)))
      return 1;
  }
  return 0;
}

/* ---- intrinsics to libdevice calls ----------------------------------------
 */

/* What the stage did, for kspec.libdevice. */
enum { MAX_NAMES = 128, NAME_CAP = 64 };
typedef struct linked {
  char names[MAX_NAMES][NAME_CAP]; /* declared __nv_* functions */
  size_t n;
  char opt[MAX_NAMES][NAME_CAP]; /* their fast forms */
  size_t nopt;
  char maps[MAX_NAMES][2 * NAME_CAP]; /* "llvm.exp.f32 __nv_expf" */
  size_t nmaps;
} linked;

/* The function name of type ty in m, declared when missing; NULL when m
 * has something else of that name. */
static LLVMValueRef declared(LLVMModuleRef m, const char *name,
                             LLVMTypeRef ty) {
  LLVMValueRef f = LLVMGetNamedFunction(m, name);
  if (!f)
    return LLVMAddFunction(m, name, ty);
  return LLVMGlobalGetValueType(f) == ty ? f : NULL;
}

/* Replaces call (to an intrinsic of mapping mp) by a call of its libdevice
 * function; 0 when it was left as it was (an operand libdevice has no
 * form for, or a clashing declaration: the codegen screen says so). */
static int map_call(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef call,
                    const mapping *mp, const char **used) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef rt = LLVMTypeOf(call);
  int dbl = LLVMGetTypeKind(rt) == LLVMDoubleTypeKind;
  int narrow = !dbl && LLVMGetTypeKind(rt) != LLVMFloatTypeKind;
  LLVMTypeRef ft = dbl ? LLVMDoubleTypeInContext(c) : LLVMFloatTypeInContext(c);
  unsigned n = (unsigned)LLVMGetNumArgOperands(call);
  LLVMValueRef args[2];
  LLVMTypeRef params[2];
  if (n == 0 || n > 2)
    return 0;
  LLVMPositionBuilderBefore(b, call);
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef a = LLVMGetOperand(call, i);
    LLVMTypeRef at = LLVMTypeOf(a);
    if (at == rt) {
      args[i] = narrow ? LLVMBuildFPExt(b, a, ft, "") : a;
      params[i] = ft;
    } else if (LLVMGetTypeKind(at) == LLVMIntegerTypeKind &&
               LLVMGetIntTypeWidth(at) == 32) {
      args[i] = a, params[i] = at; /* powi's and ldexp's exponent */
    } else {
      return 0;
    }
  }
  const char *name = dbl ? mp->f64 : mp->f32;
  const char *quick = dbl ? NULL : ks_libdevice_fast_form(name);
  if (quick && LLVMCanValueUseFastMathFlags(call) &&
      (LLVMGetFastMathFlags(call) & LLVMFastMathApproxFunc))
    name = quick;
  LLVMTypeRef fnty = LLVMFunctionType(ft, params, n, 0);
  LLVMValueRef f = declared(m, name, fnty);
  if (!f)
    return 0;
  LLVMValueRef r = LLVMBuildCall2(b, fnty, f, args, n, "");
  if (narrow)
    r = LLVMBuildFPTrunc(b, r, rt, "");
  LLVMReplaceAllUsesWith(call, r);
  LLVMInstructionEraseFromParent(call);
  *used = name;
  return 1;
}

/* Every call of a mapped intrinsic becomes a libdevice call. */
static void map_intrinsics(LLVMModuleRef m, linked *l) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
  LLVMValueRef next;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = next) {
    next = LLVMGetNextFunction(f);
    const mapping *mp = LLVMIsDeclaration(f) ? mapping_of(f) : NULL;
    const char *used = NULL;
    LLVMUseRef un;
    for (LLVMUseRef u = mp ? LLVMGetFirstUse(f) : NULL; u; u = un) {
      un = LLVMGetNextUse(u);
      LLVMValueRef call = LLVMGetUser(u);
      if (LLVMIsACallInst(call) && LLVMGetCalledValue(call) == f)
        map_call(m, b, call, mp, &used);
    }
    if (used && l->nmaps < MAX_NAMES)
      snprintf(l->maps[l->nmaps++], sizeof l->maps[0], "%s %s",
               LLVMGetValueName2(f, &(size_t){0}), used);
    if (mp && !LLVMGetFirstUse(f))
      LLVMDeleteFunction(f);
  }
  LLVMDisposeBuilder(b);
}

/* The __nv_* functions m declares and calls into l, and their fast forms
 * (optional). 0, or 1 when there are more than MAX_NAMES. */
static int collect(LLVMModuleRef m, linked *l) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f;
       f = LLVMGetNextFunction(f)) {
    size_t len = 0;
    const char *name = LLVMGetValueName2(f, &len);
    if (!LLVMIsDeclaration(f) || !LLVMGetFirstUse(f) ||
        !is_libdevice_name(name, len))
      continue;
    if (l->n == MAX_NAMES || len >= NAME_CAP)
      return 1;
    snprintf(l->names[l->n++], NAME_CAP, "%s", name);
    const char *quick = ks_libdevice_fast_form(name);
    if (quick && !LLVMGetNamedFunction(m, quick))
      snprintf(l->opt[l->nopt++], NAME_CAP, "%s", quick);
  }
  /* declared, so that linking takes them (by the function's own type) */
  for (size_t i = 0; i < l->nopt; i++)
    for (size_t j = 0; j < l->n; j++) {
      const char *quick = ks_libdevice_fast_form(l->names[j]);
      if (quick && strcmp(quick, l->opt[i]) == 0)
        LLVMAddFunction(
            m, l->opt[i],
            LLVMGlobalGetValueType(LLVMGetNamedFunction(m, l->names[j])));
    }
  return 0;
}

/* The fast forms the library did not have stay declarations: gone. */
static void drop_missing(LLVMModuleRef m, const linked *l) {
  for (size_t i = 0; i < l->nopt; i++) {
    LLVMValueRef f = LLVMGetNamedFunction(m, l->opt[i]);
    if (f && LLVMIsDeclaration(f) && !LLVMGetFirstUse(f))
      LLVMDeleteFunction(f);
  }
}

/* ---- linking ------------------------------------------------------------ */

/* The module's globals and functions of linkonce_odr linkage (the
 * template's own, before the link), growable. */
typedef struct gvset {
  LLVMValueRef *v;
  size_t n, cap;
  int nomem;
} gvset;

static void gv_add(gvset *s, LLVMValueRef v) {
  if (s->nomem || !ks_ir_room(&s->v, &s->cap, s->n, sizeof *s->v, 32))
    s->nomem = 1;
  else
    s->v[s->n++] = v;
}

static int gv_has(const gvset *s, LLVMValueRef v) {
  for (size_t i = 0; i < s->n; i++)
    if (s->v[i] == v)
      return 1;
  return 0;
}

static void linkonce_of(LLVMModuleRef m, gvset *s) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (LLVMGetLinkage(f) == LLVMLinkOnceODRLinkage)
      gv_add(s, f);
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
    if (LLVMGetLinkage(g) == LLVMLinkOnceODRLinkage)
      gv_add(s, g);
}

/* What the link brought (linkonce_odr, not in before) becomes internal:
 * the module is the only one to use it. */
static void internalize(LLVMModuleRef m, const gvset *before) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (LLVMGetLinkage(f) == LLVMLinkOnceODRLinkage && !gv_has(before, f)) {
      LLVMSetLinkage(f, LLVMInternalLinkage);
      LLVMSetVisibility(f, LLVMDefaultVisibility);
    }
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
    if (LLVMGetLinkage(g) == LLVMLinkOnceODRLinkage && !gv_has(before, g)) {
      LLVMSetLinkage(g, LLVMInternalLinkage);
      LLVMSetVisibility(g, LLVMDefaultVisibility);
    }
}

static void note(LLVMModuleRef m, const char *text) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMMetadataRef s = LLVMMDStringInContext2(c, text, strlen(text));
  LLVMAddNamedMetadataOperand(
      m, "kspec.libdevice",
      LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, &s, 1)));
}

/* kspec.libdevice: "libdevice PATH", "fn NAME" per function linked,
 * "map INTRINSIC NAME" per intrinsic mapped. */
static void record(LLVMModuleRef m, const ks_devlib *lib, const linked *l) {
  char line[4200];
  snprintf(line, sizeof line, "libdevice %s", lib->path());
  note(m, line);
  for (size_t i = 0; i < l->n; i++) {
    snprintf(line, sizeof line, "fn %s", l->names[i]);
    note(m, line);
  }
  for (size_t i = 0; i < l->nmaps; i++) {
    snprintf(line, sizeof line, "map %s", l->maps[i]);
    note(m, line);
  }
}

int ks_pass_libdevice(ks_stage_ctx *c) {
  const ks_devlib *lib = c->spec->devlib;
  if (!lib || !ks_libdevice_needed(c->m))
    return 0; /* nothing to link: the stage costs this scan */
  linked *l = calloc(1, sizeof *l);
  if (!l)
    return ks_diag_fail(c->diag, KS_ENOMEM, "libdevice: out of memory");
  map_intrinsics(c->m, l);
  if (collect(c->m, l)) {
    free(l);
    return ks_diag_fail(c->diag, KS_ECODEGEN,
                        "libdevice: calls more than %d libdevice functions",
                        MAX_NAMES);
  }
  const char *names[MAX_NAMES], *opt[MAX_NAMES];
  for (size_t i = 0; i < l->n; i++)
    names[i] = l->names[i];
  for (size_t i = 0; i < l->nopt; i++)
    opt[i] = l->opt[i];
  gvset before = {0};
  linkonce_of(c->m, &before);
  char err[1024] = "";
  int rc = before.nomem ? KS_ENOMEM : 0;
  if (!rc && l->n)
    rc = lib->link(c->m, names, l->n, opt, l->nopt, err, sizeof err);
  if (rc) {
    ks_diag_fail(c->diag, rc, "libdevice: %s", err[0] ? err : "out of memory");
  } else if (l->n) {
    drop_missing(c->m, l);
    internalize(c->m, &before);
    record(c->m, lib, l);
  }
  free(before.v);
  free(l);
  return rc != 0;
}
