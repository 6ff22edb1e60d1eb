/*
 * math_outline.c - libdevice's functions called out of line: the kernel
 * keeps a call, and their PTX, compiled once, is spliced into the
 * kernel's (jit/codegen/mathptx.c).
 *
 * Inlined, the ~70 instructions three math functions leave after folding
 * go through canonicalize, optimize and codegen in every specialization,
 * the larger part of what such a specialization costs over one without
 * math (BENCHMARKS.md, "The device library"). Yet what they compute
 * depends only on the kernel's target and floating-point modes, which the
 * math stage run ahead of bind already fixed (ks_pipeline_math_ahead): so
 * that stage's module is split in two. The kernel's (ks_math_split's k)
 * calls declarations of the functions, marked with the memory effects
 * LLVM infers for their bodies (none: so kspec's passes and LLVM's treat
 * the calls as the arithmetic they are, ld.global.nc and all); the bodies
 * (ks_math_split's *bodies) become a module of their own, each function
 * with the library's helpers inlined, out of which codegen makes the PTX
 * of the functions a specialization calls, once; spliced in, each call is
 * replaced by the function's body (jit/codegen/ptxinline.c).
 *
 * A call with an argument that is or bind makes constant keeps the
 * inlined form (ks_math_outline_folds): LLVM folds expf(constant) only
 * where it sees the body. Not split either: a module whose library
 * functions take or return pointers or aggregates (sincosf's results
 * through pointers would stay in local memory), write memory, need a
 * stack frame or call a function (sinf's slow path: ptxas would keep the
 * call), are reached other than by direct calls, or share a global with
 * the kernel (the PTX would define it twice).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/ks_passes.h"

/* The named metadata listing the functions called out of line (read by
 * ks_ir_outlined). */
static const char outlined_md[] = "kspec.outlined";
enum { MAX_ENTRIES = 64 };

/* The function that holds instruction i. */
static LLVMValueRef fn_of(LLVMValueRef i) {
  return LLVMGetBasicBlockParent(LLVMGetInstructionParent(i));
}

/* A scalar type a function may pass or return by value in registers. */
static int scalar(LLVMTypeRef t) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMHalfTypeKind:
  case LLVMBFloatTypeKind:
  case LLVMFloatTypeKind:
  case LLVMDoubleTypeKind:
  case LLVMIntegerTypeKind:
    return 1;
  default:
    return 0;
  }
}

static int scalar_signature(LLVMValueRef f) {
  LLVMTypeRef ft = LLVMGlobalGetValueType(f);
  unsigned n = LLVMCountParamTypes(ft);
  LLVMTypeRef p[16];
  if (LLVMIsFunctionVarArg(ft) || n > 16 || !scalar(LLVMGetReturnType(ft)))
    return 0;
  LLVMGetParamTypes(ft, p);
  for (unsigned i = 0; i < n; i++)
    if (!scalar(p[i]))
      return 0;
  return 1;
}

/* Who uses v, through constant expressions: bit 1 a library function,
 * bit 2 anything else (another function, a global's initializer). */
static int users_of(LLVMValueRef v, unsigned depth) {
  int who = 0;
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsAInstruction(user))
      who |= ks_math_libdevice_fn(fn_of(user)) ? 1 : 2;
    else if (LLVMIsAConstantExpr(user) && depth < 8)
      who |= users_of(user, depth + 1);
    else
      who |= 2;
  }
  return who;
}

/* The library functions called from outside the library into e (n at
 * most cap): 0, or 1 when m is not to be split. */
static int entries(LLVMModuleRef m, LLVMValueRef *e, size_t cap, size_t *n) {
  *n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f;
       f = LLVMGetNextFunction(f)) {
    if (!ks_math_libdevice_fn(f))
      continue;
    int outside = 0;
    for (LLVMUseRef u = LLVMGetFirstUse(f); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef call = LLVMGetUser(u);
      if (!LLVMIsACallInst(call) || LLVMGetCalledValue(call) != f)
        return 1; /* address taken, or passed as an argument */
      outside |= !ks_math_libdevice_fn(fn_of(call));
    }
    if (!outside)
      continue;
    if (*n == cap || !scalar_signature(f))
      return 1;
    e[(*n)++] = f;
  }
  return *n == 0;
}

/* Deletes f, whatever still refers to it (dead code, metadata) given
 * poison instead. */
static void erase(LLVMValueRef f, int function) {
  LLVMReplaceAllUsesWith(f, LLVMGetPoison(LLVMTypeOf(f)));
  if (function)
    LLVMDeleteFunction(f);
  else
    LLVMDeleteGlobal(f);
}

/* In b (a copy of the split module): only the library's functions and
 * the globals they use are left. */
static void keep_library(LLVMModuleRef b) {
  LLVMValueRef next;
  for (LLVMValueRef f = LLVMGetFirstFunction(b); f; f = next) {
    next = LLVMGetNextFunction(f);
    if (!LLVMIsDeclaration(f) && !ks_math_libdevice_fn(f))
      erase(f, 1);
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(b); g; g = next) {
    next = LLVMGetNextGlobal(g);
    if (users_of(g, 0) != 1)
      erase(g, 0);
  }
}

/* Is the memory(...) attribute of f one without writes (and there)? */
static int reads_only(LLVMValueRef f) {
  unsigned mem = LLVMGetEnumAttributeKindForName("memory", 6);
  LLVMAttributeRef a =
      LLVMGetEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, mem);
  /* 2 bits (ref, mod) per location: no mod bit, no write */
  return a && (LLVMGetEnumAttributeValue(a) & 0x2a) == 0;
}

/* Is f straight code: no alloca (after SROA), no call but of intrinsics
 * and inline asm? Its PTX then has no stack frame and no call, which
 * jit/codegen/ptxinline.c needs to inline it where it is called (ptxas
 * would not: a CALL each). */
static int straight(LLVMValueRef f) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      if (LLVMIsAAllocaInst(i))
        return 0;
      if (!LLVMIsACallInst(i))
        continue;
      LLVMValueRef callee = LLVMGetCalledValue(i);
      if (!LLVMIsAInlineAsm(callee) &&
          !(LLVMIsAFunction(callee) && LLVMGetIntrinsicID(callee)))
        return 0;
    }
  return 1;
}

/* The bodies of e[0..n) in their own module, from a copy of m: the
 * library's helpers inlined into them, their attributes inferred, each
 * internal and out of line; NULL when out of memory, when LLVM's passes
 * fail or when a function may write memory or is not straight code. */
static LLVMModuleRef bodies_of(ks_stage_ctx *c, LLVMValueRef *e, size_t n) {
  LLVMModuleRef b = LLVMCloneModule(c->m);
  if (!b)
    return NULL;
  LLVMValueRef *be = malloc(n * sizeof *be);
  ks_stage_ctx bc = *c;
  bc.m = b;
  keep_library(b);
  for (size_t i = 0; be && i < n; i++) {
    be[i] = LLVMGetNamedFunction(b, LLVMGetValueName2(e[i], &(size_t){0}));
    LLVMSetLinkage(be[i], LLVMExternalLinkage); /* not dead once inlined */
  }
  int bad = !be ||
            ks_pipeline_llvm(&bc, "always-inline,globaldce,function(sroa)") ||
            ks_pipeline_llvm(&bc, "cgscc(function-attrs)");
  unsigned inl = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
  for (size_t i = 0; !bad && i < n; i++) {
    bad = !reads_only(be[i]) || !straight(be[i]);
    LLVMSetLinkage(be[i], LLVMInternalLinkage);
    LLVMRemoveEnumAttributeAtIndex(be[i], LLVMAttributeFunctionIndex, inl);
  }
  free(be);
  if (bad) {
    LLVMDisposeModule(b);
    c->diag->status = KS_OK; /* not split: the inlined form stays */
    c->diag->msg[0] = '\0';
    return NULL;
  }
  return b;
}

/* A declaration in m of body's name and type, with the attributes LLVM
 * inferred for body that tell what a call does. */
static LLVMValueRef declare_like(LLVMModuleRef m, LLVMValueRef body,
                                 const char *name) {
  static const char *const kinds[] = {"memory", "nounwind", "willreturn",
                                      "nosync", "nofree"};
  LLVMValueRef d = LLVMAddFunction(m, name, LLVMGlobalGetValueType(body));
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
    LLVMAttributeRef a = LLVMGetEnumAttributeAtIndex(
        body, LLVMAttributeFunctionIndex,
        LLVMGetEnumAttributeKindForName(kinds[k], strlen(kinds[k])));
    if (a)
      LLVMAddAttributeAtIndex(d, LLVMAttributeFunctionIndex, a);
  }
  return d;
}

static void note_outlined(LLVMModuleRef m, const char *name) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMMetadataRef s = LLVMMDStringInContext2(c, name, strlen(name));
  LLVMAddNamedMetadataOperand(
      m, outlined_md, LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, &s, 1)));
}

/* c->m's calls into the library call declarations of e[0..n) instead,
 * whose bodies are in b; the library's code and globals leave c->m. */
static void call_out(LLVMModuleRef m, LLVMModuleRef b, LLVMValueRef *e,
                     size_t n) {
  LLVMValueRef next;
  /* the globals first, while the library's functions have their names */
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = next) {
    next = LLVMGetNextGlobal(g);
    if (users_of(g, 0) == 1)
      erase(g, 0);
  }
  for (size_t i = 0; i < n; i++) {
    char name[128];
    size_t len = 0;
    const char *s = LLVMGetValueName2(e[i], &len);
    snprintf(name, sizeof name, "%.*s", (int)len, s);
    LLVMSetValueName2(e[i], "", 0); /* the declaration takes the name */
    LLVMValueRef d = declare_like(m, LLVMGetNamedFunction(b, name), name);
    LLVMUseRef un;
    for (LLVMUseRef u = LLVMGetFirstUse(e[i]); u; u = un) {
      un = LLVMGetNextUse(u);
      LLVMValueRef call = LLVMGetUser(u);
      if (!ks_math_libdevice_fn(fn_of(call)))
        LLVMSetOperand(call, (unsigned)LLVMGetNumOperands(call) - 1, d);
    }
    note_outlined(m, name);
  }
  for (size_t i = 0; i < n; i++)
    erase(e[i], 1); /* nameless now: not found below */
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = next) {
    next = LLVMGetNextFunction(f);
    if (ks_math_libdevice_fn(f))
      erase(f, 1);
  }
  /* what only the library called (intrinsics, __nvvm_reflect), which
   * every specialization would copy */
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = next) {
    next = LLVMGetNextFunction(f);
    if (LLVMIsDeclaration(f) && !LLVMGetFirstUse(f))
      LLVMDeleteFunction(f);
  }
}

int ks_math_split(ks_stage_ctx *c, LLVMModuleRef *bodies) {
  LLVMValueRef e[MAX_ENTRIES];
  size_t n = 0;
  *bodies = NULL;
  if (entries(c->m, e, MAX_ENTRIES, &n))
    return 0;
  for (LLVMValueRef g = LLVMGetFirstGlobal(c->m); g; g = LLVMGetNextGlobal(g))
    if (users_of(g, 0) == 3)
      return 0; /* the kernel's and the library's: PTX would define it twice */
  LLVMModuleRef b = bodies_of(c, e, n);
  if (!b)
    return c->diag->status ? -1 : 0;
  char list[1024];
  size_t used = 0;
  for (size_t i = 0; i < n && used < sizeof list; i++)
    used +=
        (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
                         LLVMGetValueName2(e[i], &(size_t){0}));
  call_out(c->m, b, e, n);
  *bodies = b;
  ks_diag_explain(c->diag, c->name,
                  "libdevice functions called out of line: %s (their PTX "
                  "compiled once for the kernel, target and modes; inlined "
                  "where bind makes an argument constant)",
                  list);
  return 1;
}

/* ---- after bind ----------------------------------------------------------
 */

/* Is argument a of fn one the request binds? */
static int bound(LLVMValueRef fn, LLVMValueRef a, const ks_spec *s) {
  for (size_t i = 0; i < s->nvalues; i++)
    if (s->values[i].arg_index < LLVMCountParams(fn) &&
        LLVMGetParam(fn, s->values[i].arg_index) == a)
      return 1;
  return 0;
}

/* Will v be a constant once bind has run and instcombine folded it: a
 * constant, a bound argument, or arithmetic, a comparison, a select or
 * an intrinsic call of such (depth levels at most). */
static int folds(LLVMValueRef fn, LLVMValueRef v, const ks_spec *s,
                 unsigned depth) {
  if (LLVMIsAConstant(v))
    return 1;
  if (LLVMIsAArgument(v))
    return bound(fn, v, s);
  if (!LLVMIsAInstruction(v) || depth > 12)
    return 0;
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  int n = LLVMGetNumOperands(v);
  if (op == LLVMCall) {
    LLVMValueRef callee = LLVMGetCalledValue(v);
    if (!callee || !LLVMIsAFunction(callee) || !LLVMGetIntrinsicID(callee) ||
        n < 2)
      return 0;
    n--; /* the callee */
  } else if (!((op >= LLVMAdd && op <= LLVMXor) || op == LLVMFNeg ||
               (op >= LLVMTrunc && op <= LLVMAddrSpaceCast) || op == LLVMICmp ||
               op == LLVMFCmp || op == LLVMSelect)) {
    return 0;
  }
  for (int i = 0; i < n; i++)
    if (!folds(fn, LLVMGetOperand(v, (unsigned)i), s, depth + 1))
      return 0;
  return 1;
}

int ks_math_outline_folds(LLVMModuleRef m, const ks_spec *s) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, s->kernel);
  if (!fn || s->nbakes)
    return 1; /* baked loads fold too: kept inlined */
  unsigned n = LLVMGetNamedMetadataNumOperands(m, outlined_md);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); n && f;
       f = LLVMGetNextFunction(f)) {
    if (!LLVMIsDeclaration(f) || !ks_ir_outlined(m, f))
      continue;
    for (LLVMUseRef u = LLVMGetFirstUse(f); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef call = LLVMGetUser(u);
      if (!LLVMIsACallInst(call))
        continue;
      LLVMValueRef caller = fn_of(call);
      unsigned na = (unsigned)LLVMGetNumArgOperands(call), k = 0;
      while (k < na && !folds(caller, LLVMGetOperand(call, k), s, 0))
        k++;
      /* one constant argument is enough for LLVM to fold part of the body
       * (powf's special cases of a constant exponent); a helper's argument
       * is bound where the kernel passes it: kept inlined, both */
      if (k < na || caller != fn)
        return 1;
    }
  }
  return 0;
}

void ks_math_bodies_keep(LLVMModuleRef b, const char *const *names, size_t n) {
  /* functions not named that nothing calls, until none is left: the other
   * entries, then helpers only they called */
  for (int again = 1; again;) {
    again = 0;
    LLVMValueRef next;
    for (LLVMValueRef f = LLVMGetFirstFunction(b); f; f = next) {
      next = LLVMGetNextFunction(f);
      size_t len = 0, i = 0;
      const char *name = LLVMGetValueName2(f, &len);
      while (i < n && (strlen(names[i]) != len || memcmp(names[i], name, len)))
        i++;
      if (!LLVMIsDeclaration(f) && i == n && !LLVMGetFirstUse(f)) {
        LLVMDeleteFunction(f);
        again = 1;
      }
    }
  }
  LLVMValueRef next;
  for (LLVMValueRef g = LLVMGetFirstGlobal(b); g; g = next) {
    next = LLVMGetNextGlobal(g);
    if (users_of(g, 0) != 1)
      erase(g, 0);
  }
}

void ks_math_bodies_linkage(LLVMModuleRef b, LLVMLinkage l) {
  for (LLVMValueRef f = LLVMGetFirstFunction(b); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f))
      LLVMSetLinkage(f, l);
}
