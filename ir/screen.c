/*
 * screen.c - rejects, before the passes and codegen, IR that LLVM cannot
 * compile for NVPTX without ending the process.
 *
 * LLVM's NVPTX backend ends the process (report_fatal_error, or a crash in
 * a build without assertions) on much that the verifier accepts: types it
 * has no registers for, address spaces it does not have, fences, atomic
 * loads with ordering, static initializers PTX cannot express, operations
 * it has no instruction for (llvm.sin.f32 without fast-math flags,
 * llvm.pow), and some of it already in its IR passes (NVVMReflect on a
 * non-constant argument). Two screens keep that away:
 *  - ks_ir_screen_module, on a template when it is loaded: what no binding
 *    can remove (types, address spaces, globals, constructors, symbol
 *    names, __nvvm_reflect calls);
 *  - ks_ir_screen, on the module codegen will see: the same, plus calls,
 *    instructions and allocas that binding and optimization may have
 *    folded away.
 * llvm.nvvm.* intrinsics differ per architecture and PTX ISA; those known
 * to select everywhere (sm_60 and PTX ISA 6.0 on) pass, and any other asks
 * the caller to run codegen where a crash cannot take the process down; so
 * does inline asm, unless its operands are plain registers their types
 * fit (libdevice's are: asm_vouched).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ks_ir.h"

enum { MAX_TYPE_DEPTH = 64, MAX_CONST_DEPTH = 32 };

/* The screen's state: where messages go and what it is checking for. */
typedef struct screen {
  const char *tname;
  char *err;
  size_t cap;
  int codegen;  /* the module codegen will see (else a template as loaded) */
  unsigned ptx; /* the PTX ISA codegen emits (x10), when codegen */
  int isolate;  /* out: an llvm.nvvm.* intrinsic not known to select */
  char why[96]; /* what type_problem found */
  /* Types already found good (LLVM's types are unique per context), by a
   * hash of their address: most operands repeat a few types. */
  LLVMTypeRef good[64];
} screen;

/* ---- intrinsics ---------------------------------------------------------- */

/* Intrinsic name prefixes the NVPTX backend selects or expands for any
 * operand type it is given by clang or the optimizer (not llvm.stacksave
 * or llvm.stackrestore, which llc-19 dies on; not
 * llvm.threadlocal.address, NVPTX having no thread-local storage). The one
 * list of both screens: screen_backend.c adds no intrinsic of its own. */
static const char *const allowed[] = {
    "llvm.memcpy.",
    "llvm.memmove.",
    "llvm.memset.",
    "llvm.lifetime.",
    "llvm.assume",
    "llvm.expect",
    "llvm.fma.",
    "llvm.fmuladd.",
    "llvm.sqrt.",
    "llvm.fabs.",
    "llvm.minnum.",
    "llvm.maxnum.",
    "llvm.minimum.",
    "llvm.maximum.",
    "llvm.floor.",
    "llvm.ceil.",
    "llvm.trunc.",
    "llvm.rint.",
    "llvm.nearbyint.",
    "llvm.roundeven.",
    "llvm.copysign.",
    "llvm.ctpop.",
    "llvm.ctlz.",
    "llvm.cttz.",
    "llvm.bswap.",
    "llvm.bitreverse.",
    "llvm.fshl.",
    "llvm.fshr.",
    "llvm.abs.",
    "llvm.smin.",
    "llvm.smax.",
    "llvm.umin.",
    "llvm.umax.",
    "llvm.sadd.",
    "llvm.uadd.",
    "llvm.ssub.",
    "llvm.usub.",
    "llvm.smul.with.",
    "llvm.umul.with.",
    "llvm.vector.reduce.",
    "llvm.trap",
    "llvm.debugtrap",
    "llvm.ubsantrap",
    "llvm.ptrmask.",
    "llvm.annotation.",
    "llvm.var.annotation",
    "llvm.ptr.annotation.",
    "llvm.dbg.",
    "llvm.invariant.",
    "llvm.launder.invariant.",
    "llvm.strip.invariant.",
    "llvm.experimental.noalias.scope.decl",
    "llvm.is.constant.",
    "llvm.objectsize.",
    "llvm.prefetch",
    "llvm.donothing",
    "llvm.va_start",
    "llvm.va_end",
    "llvm.va_copy",
};

/* llvm.nvvm.* intrinsics (the name after "llvm.nvvm.") that select on
 * every architecture kspec targets (sm_60 on) at every PTX ISA it emits
 * (6.0 on). A name matches an entry it starts with; an entry ending in '$'
 * must match whole. Others (tensor cores, clusters, cp.async, redux,
 * match, the pre-sm_70 shfl and vote, ...) need a later sm, a later ISA or
 * an earlier sm, which only codegen knows; redux.sync is told apart by the
 * target-cpu bind gives every function (redux_ok). */
static const char *const nvvm_everywhere[] = {
    "read.ptx.sreg.tid.",
    "read.ptx.sreg.ntid.",
    "read.ptx.sreg.ctaid.",
    "read.ptx.sreg.nctaid.",
    "read.ptx.sreg.warpsize",
    "read.ptx.sreg.laneid",
    "read.ptx.sreg.warpid",
    "read.ptx.sreg.nwarpid",
    "read.ptx.sreg.smid",
    "read.ptx.sreg.nsmid",
    "read.ptx.sreg.gridid",
    "read.ptx.sreg.lanemask.",
    "read.ptx.sreg.clock",
    "read.ptx.sreg.globaltimer",
    "read.ptx.sreg.envreg", /* the grid workspace: ks_grid_sync() */
    "barrier0",
    "bar.sync$",
    "barrier.sync",
    "bar.warp.sync$",
    "membar.cta$",
    "membar.gl$",
    "membar.sys$",
    "shfl.sync.",
    "vote.all.sync$",
    "vote.any.sync$",
    "vote.uni.sync$",
    "vote.ballot.sync$",
    "mul24.i$",
    "mul24.ui$",
    "mulhi.i$",
    "mulhi.ui$",
    "mulhi.ll$",
    "mulhi.ull$",
    "sad.i$",
    "sad.ui$",
    "prmt$",
    "bitcast.f2i$",
    "bitcast.i2f$",
    "bitcast.ll2d$",
    "bitcast.d2ll$",
    "isspacep.global$",
    "isspacep.shared$",
    "isspacep.local$",
    "isspacep.const$",
    "tex.unified.2d.v4f32.f32$",
    "tex.unified.2d.v4s32.f32$",
    "tex.unified.2d.v4u32.f32$",
};

/* Floating-point operations of llvm.nvvm.*: STEM.f, STEM.ftz.f, STEM.d. */
static const char *const nvvm_float_stems[] = {
    "fma.rn",        "fma.rz",       "fma.rm",     "fma.rp",     "add.rn",
    "add.rz",        "add.rm",       "add.rp",     "mul.rn",     "mul.rz",
    "mul.rm",        "mul.rp",       "div.rn",     "div.rz",     "div.rm",
    "div.rp",        "rcp.rn",       "rcp.rz",     "rcp.rm",     "rcp.rp",
    "sqrt.rn",       "sqrt.rz",      "sqrt.rm",    "sqrt.rp",    "sqrt",
    "sqrt.approx",   "rsqrt.approx", "sin.approx", "cos.approx", "ex2.approx",
    "lg2.approx",    "div.approx",   "fmin",       "fmax",       "fabs",
    "saturate",      "floor",        "ceil",       "trunc",      "round",
    "rcp.approx.ftz"};

/* Conversions of llvm.nvvm.*: PREFIX followed by a rounding mode. */
static const char *const nvvm_cvt_prefixes[] = {
    "f2i.",   "f2ui.",  "d2i.",  "d2ui.",  "f2ll.",  "f2ull.", "d2ll.",
    "d2ull.", "i2f.",   "ui2f.", "ll2f.",  "ull2f.", "i2d.",   "ui2d.",
    "ll2d.",  "ull2d.", "d2f.",  "f2h.rn", "d2i.lo", "d2i.hi", "lohi.i2d"};

static int starts(const char *s, size_t len, const char *p) {
  size_t l = strlen(p);
  return len >= l && memcmp(s, p, l) == 0;
}

static int listed(const char *name, size_t len, const char *const *list,
                  size_t n, int prefix) {
  for (size_t i = 0; i < n; i++) {
    size_t l = strlen(list[i]);
    if (prefix ? len >= l && memcmp(name, list[i], l) == 0
               : len == l && memcmp(name, list[i], l) == 0)
      return 1;
  }
  return 0;
}

static int nvvm_float_op(const char *s, size_t len) {
  static const char *const ends[] = {".ftz.f", ".f", ".d"};
  for (size_t e = 0; e < 3; e++) {
    size_t el = strlen(ends[e]);
    if (len <= el || memcmp(s + len - el, ends[e], el) != 0)
      continue;
    if (listed(s, len - el, nvvm_float_stems,
               sizeof nvvm_float_stems / sizeof *nvvm_float_stems, 0))
      return 1;
  }
  return 0;
}

/* A type ldg/ldu/atomic intrinsics take on every target: a scalar of 8 to
 * 64 bits or a vector of 2 or 4 of them, 128 bits at most. */
static int plain_access_type(LLVMTypeRef ty) {
  unsigned n = 1;
  if (LLVMGetTypeKind(ty) == LLVMVectorTypeKind) {
    n = LLVMGetVectorSize(ty);
    ty = LLVMGetElementType(ty);
    if (n != 2 && n != 4)
      return 0;
  }
  unsigned bits = 0;
  switch (LLVMGetTypeKind(ty)) {
  case LLVMIntegerTypeKind:
    bits = LLVMGetIntTypeWidth(ty);
    break;
  case LLVMHalfTypeKind:
    bits = 16;
    break;
  case LLVMFloatTypeKind:
    bits = 32;
    break;
  case LLVMDoubleTypeKind:
  case LLVMPointerTypeKind:
    bits = 64;
    break;
  default:
    return 0;
  }
  return (bits == 8 || bits == 16 || bits == 32 || bits == 64) &&
         n * bits <= (n == 1 ? 64u : 128u);
}

/* Does llvm.nvvm.REST (called as call) select on every target? */
static int nvvm_everywhere_ok(const char *rest, size_t len, LLVMValueRef call) {
  for (size_t i = 0; i < sizeof nvvm_everywhere / sizeof *nvvm_everywhere;
       i++) {
    const char *e = nvvm_everywhere[i];
    size_t l = strlen(e);
    if (e[l - 1] == '$' ? len == l - 1 && memcmp(rest, e, l - 1) == 0
                        : len >= l && memcmp(rest, e, l) == 0)
      return 1;
  }
  if (nvvm_float_op(rest, len) ||
      listed(rest, len, nvvm_cvt_prefixes,
             sizeof nvvm_cvt_prefixes / sizeof *nvvm_cvt_prefixes, 1))
    return 1;
  if (starts(rest, len, "ldg.global.") || starts(rest, len, "ldu.global."))
    return plain_access_type(LLVMTypeOf(call));
  if (starts(rest, len, "atomic.")) { /* scalars; inc and dec 32-bit only */
    LLVMTypeRef ty = LLVMTypeOf(call);
    int narrow = starts(rest, len, "atomic.inc.") ||
                 starts(rest, len, "atomic.dec.") ||
                 starts(rest, len, "atomic.load.");
    return LLVMGetTypeKind(ty) != LLVMVectorTypeKind && plain_access_type(ty) &&
           (!narrow || LLVMGetTypeKind(ty) != LLVMIntegerTypeKind ||
            LLVMGetIntTypeWidth(ty) == 32);
  }
  return 0;
}

/* Does redux.sync (rest: the name after "llvm.nvvm.") select for the
 * caller's target? It needs sm_80 and PTX ISA 7.0; the bind stage gives
 * every function of the module codegen sees the request's target-cpu
 * ("sm_90"), which is what codegen targets (the shfl stage emits it there). */
static int redux_ok(const screen *sc, const char *rest, size_t len,
                    LLVMValueRef caller) {
  static const char *const ops[] = {"add",  "min", "max", "umin",
                                    "umax", "and", "or",  "xor"};
  if (!sc->codegen || sc->ptx < 70 || !starts(rest, len, "redux.sync.") ||
      !listed(rest + 11, len - 11, ops, sizeof ops / sizeof *ops, 0))
    return 0;
  unsigned alen = 0, sm = 0;
  LLVMAttributeRef a = LLVMGetStringAttributeAtIndex(
      caller, LLVMAttributeFunctionIndex, "target-cpu", 10);
  const char *cpu = a ? LLVMGetStringAttributeValue(a, &alen) : NULL;
  char buf[16];
  if (!cpu || alen == 0 || alen >= sizeof buf)
    return 0;
  memcpy(buf, cpu, alen);
  buf[alen] = '\0';
  return sscanf(buf, "sm_%u", &sm) == 1 && sm >= 80;
}

/* ---- messages ------------------------------------------------------------ */

static ks_status reject(screen *sc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static ks_status reject(screen *sc, const char *fmt, ...) {
  char what[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return ks_ir_fail(sc->err, sc->cap, KS_ECODEGEN, "codegen: %s: %s", sc->tname,
                    what);
}

/* A value's name for messages (at most 64 bytes of it). */
static const char *name_of(LLVMValueRef v, int *len) {
  size_t n = 0;
  const char *s = LLVMGetValueName2(v, &n);
  *len = n > 64 ? 64 : (int)n;
  return n ? s : "(unnamed)";
}

/* ---- types ----------------------------------------------------------------
 */

/* The address spaces of NVPTX: generic, global, shared, constant, local
 * and kernel parameters. */
static int nvptx_space(unsigned as) {
  return as == 0 || as == 1 || as == 3 || as == 4 || as == 5 || as == 101;
}

static int type_problem_walk(screen *sc, LLVMTypeRef ty, unsigned depth);

/* 1 (and sc->why) if the backend cannot handle ty or a type in it. */
static int type_problem(screen *sc, LLVMTypeRef ty, unsigned depth) {
  size_t h = ((uintptr_t)ty >> 4) % (sizeof sc->good / sizeof *sc->good);
  if (sc->good[h] == ty)
    return 0;
  int bad = type_problem_walk(sc, ty, depth);
  if (!bad)
    sc->good[h] = ty;
  return bad;
}

static int type_problem_walk(screen *sc, LLVMTypeRef ty, unsigned depth) {
  static const struct {
    LLVMTypeKind kind;
    const char *what;
  } bad[] = {{LLVMFP128TypeKind, "type fp128"},
             {LLVMX86_FP80TypeKind, "type x86_fp80"},
             {LLVMPPC_FP128TypeKind, "type ppc_fp128"},
             {LLVMX86_MMXTypeKind, "type x86_mmx"},
             {LLVMX86_AMXTypeKind, "type x86_amx"},
             {LLVMScalableVectorTypeKind, "a scalable vector type"},
             {LLVMTargetExtTypeKind, "a target extension type"}};
  if (depth > MAX_TYPE_DEPTH) {
    snprintf(sc->why, sizeof sc->why, "a type nested over %d levels deep",
             MAX_TYPE_DEPTH);
    return 1;
  }
  LLVMTypeKind k = LLVMGetTypeKind(ty);
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    if (k == bad[i].kind) {
      snprintf(sc->why, sizeof sc->why, "%s", bad[i].what);
      return 1;
    }
  if (k == LLVMPointerTypeKind &&
      !nvptx_space(LLVMGetPointerAddressSpace(ty))) {
    snprintf(sc->why, sizeof sc->why,
             "a pointer to address space %u (NVPTX has 0, 1, 3, 4, 5, 101)",
             LLVMGetPointerAddressSpace(ty));
    return 1;
  }
  if (k == LLVMVectorTypeKind || k == LLVMArrayTypeKind)
    return type_problem(sc, LLVMGetElementType(ty), depth + 1);
  if (k == LLVMStructTypeKind) {
    unsigned n = LLVMCountStructElementTypes(ty);
    for (unsigned i = 0; i < n; i++)
      if (type_problem(sc, LLVMStructGetTypeAtIndex(ty, i), depth + 1))
        return 1;
  }
  return 0;
}

/* Checks the return and argument types of fn. */
static ks_status check_signature(screen *sc, LLVMValueRef fn) {
  int nl = 0;
  const char *name = name_of(fn, &nl);
  LLVMTypeRef fty = LLVMGlobalGetValueType(fn);
  int bad = type_problem(sc, LLVMGetReturnType(fty), 0);
  unsigned n = LLVMCountParamTypes(fty);
  LLVMTypeRef *params = n ? malloc(n * sizeof *params) : NULL;
  if (params)
    LLVMGetParamTypes(fty, params);
  for (unsigned i = 0; i < n && params && !bad; i++)
    bad = type_problem(sc, params[i], 0);
  free(params);
  if (bad)
    return reject(sc,
                  "'%.*s' takes or returns %s, which the NVPTX backend "
                  "cannot compile",
                  nl, name, sc->why);
  return KS_OK;
}

/* ---- globals --------------------------------------------------------------
 */

/* Can PTX name v as it is (LLVM renames local symbols itself)? */
static ks_status check_symbol(screen *sc, LLVMValueRef v) {
  size_t len = 0;
  const char *s = LLVMGetValueName2(v, &len);
  LLVMLinkage l = LLVMGetLinkage(v);
  if (!len || l == LLVMInternalLinkage || l == LLVMPrivateLinkage ||
      starts(s, len, "llvm."))
    return KS_OK;
  int ok = !(s[0] >= '0' && s[0] <= '9');
  for (size_t i = 0; i < len && ok; i++)
    ok = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
         (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '$';
  if (ok)
    return KS_OK;
  return reject(sc,
                "symbol '%.*s' is not a PTX identifier (letters, digits, _ "
                "and $, not starting with a digit)",
                len > 64 ? 64 : (int)len, s);
}

/* Constant expressions NVPTX writes into a static initializer; the others
 * end the process ("Unsupported expression in static initializer"). */
static int initializer_ok(LLVMValueRef c, unsigned depth) {
  if (depth > MAX_CONST_DEPTH)
    return 0;
  if (LLVMIsAConstantExpr(c)) {
    switch (LLVMGetConstOpcode(c)) {
    case LLVMGetElementPtr:
    case LLVMTrunc:
    case LLVMBitCast:
    case LLVMIntToPtr:
    case LLVMPtrToInt:
    case LLVMAdd:
      break;
    case LLVMAddrSpaceCast:
      if (LLVMGetPointerAddressSpace(LLVMTypeOf(c)) == 0)
        break;
      return 0;
    default:
      return 0;
    }
  } else if (LLVMIsAGlobalValue(c) || !LLVMIsAConstant(c) ||
             LLVMIsAConstantDataSequential(c) || LLVMIsAConstantInt(c) ||
             LLVMIsAConstantFP(c)) {
    return 1; /* nothing below a global or a leaf */
  }
  int n = LLVMGetNumOperands(c);
  for (int i = 0; i < n; i++)
    if (!initializer_ok(LLVMGetOperand(c, i), depth + 1))
      return 0;
  return 1;
}

static ks_status check_global(screen *sc, LLVMValueRef g) {
  int nl = 0;
  const char *name = name_of(g, &nl);
  unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(g));
  LLVMValueRef init = LLVMGetInitializer(g);
  if (!nvptx_space(as) || as == 101)
    return reject(sc,
                  "variable '%.*s' is in address space %u, not one of "
                  "NVPTX's (0 generic, 1 global, 3 shared, 4 constant)",
                  nl, name, as);
  if (as == 5)
    return reject(sc,
                  "variable '%.*s' is a module-scope local "
                  "(addrspace 5) variable, which PTX does not allow",
                  nl, name);
  if (LLVMIsThreadLocal(g))
    return reject(sc,
                  "variable '%.*s' is thread_local; NVPTX has no "
                  "thread-local storage",
                  nl, name);
  if (type_problem(sc, LLVMGlobalGetValueType(g), 0))
    return reject(sc,
                  "variable '%.*s' has %s, which the NVPTX backend "
                  "cannot compile",
                  nl, name, sc->why);
  if (init && as == 3 && !LLVMIsNull(init) && !LLVMIsUndef(init))
    return reject(sc,
                  "shared variable '%.*s' has an initial value; shared "
                  "memory cannot be initialized (store it in the kernel)",
                  nl, name);
  if (init && !starts(name, (size_t)nl, "llvm.") && !initializer_ok(init, 0))
    return reject(sc,
                  "the initial value of '%.*s' is a constant expression "
                  "PTX cannot write",
                  nl, name);
  return check_symbol(sc, g);
}

/* llvm.global_ctors / llvm.global_dtors with entries: the NVPTX backend
 * has no way to run them. */
static ks_status check_structors(screen *sc, LLVMModuleRef m) {
  static const char *const names[] = {"llvm.global_ctors", "llvm.global_dtors"};
  for (int i = 0; i < 2; i++) {
    LLVMValueRef g = LLVMGetNamedGlobal(m, names[i]);
    LLVMValueRef init = g ? LLVMGetInitializer(g) : NULL;
    if (init && LLVMGetTypeKind(LLVMTypeOf(init)) == LLVMArrayTypeKind &&
        LLVMGetArrayLength2(LLVMTypeOf(init)) > 0)
      return reject(sc,
                    "the module has global %s (@%s), which the NVPTX "
                    "backend does not support",
                    i ? "destructors" : "constructors", names[i]);
  }
  return KS_OK;
}

/* ---- instructions ---------------------------------------------------------
 */

/* __nvvm_reflect("NAME") as NVVMReflect reads it: one argument, a global
 * holding a C string (through pointer casts), an integer result; anything
 * else crashes that pass. */
static ks_status check_reflect(screen *sc, LLVMValueRef call, LLVMValueRef fn) {
  int nl = 0;
  const char *name = name_of(fn, &nl);
  LLVMValueRef s =
      LLVMGetNumArgOperands(call) == 1 ? LLVMGetOperand(call, 0) : NULL;
  for (int i = 0; i < 8 && s; i++) { /* as stripPointerCasts */
    LLVMOpcode op = LLVMIsAConstantExpr(s)  ? LLVMGetConstOpcode(s)
                    : LLVMIsAInstruction(s) ? LLVMGetInstructionOpcode(s)
                                            : LLVMRet;
    if (op != LLVMAddrSpaceCast && op != LLVMBitCast)
      break;
    s = LLVMGetOperand(s, 0);
  }
  LLVMValueRef init =
      s && LLVMIsAGlobalVariable(s) ? LLVMGetInitializer(s) : NULL;
  size_t len = 0;
  const char *text =
      init && LLVMIsAConstantDataSequential(init) && LLVMIsConstantString(init)
          ? LLVMGetAsString(init, &len)
          : NULL;
  if (text && len && text[len - 1] == '\0' && strlen(text) == len - 1 &&
      LLVMGetTypeKind(LLVMTypeOf(call)) == LLVMIntegerTypeKind)
    return KS_OK;
  return reject(sc,
                "'%.*s' calls __nvvm_reflect with something other than "
                "a constant string",
                nl, name);
}

/* Checks one call to a declaration (codegen screen). */
static ks_status check_callee(screen *sc, LLVMValueRef call,
                              LLVMValueRef callee, LLVMValueRef caller) {
  size_t len = 0;
  int cl = 0;
  const char *name = LLVMGetValueName2(callee, &len);
  const char *cname = name_of(caller, &cl);
  if (LLVMGetIntrinsicID(callee)) {
    if (listed(name, len, allowed, sizeof allowed / sizeof *allowed, 1))
      return KS_OK;
    if (starts(name, len, "llvm.nvvm.")) {
      if (!nvvm_everywhere_ok(name + 10, len - 10, call) &&
          !redux_ok(sc, name + 10, len - 10, caller))
        sc->isolate = 1;
      return KS_OK;
    }
    int math =
        starts(name, len, "llvm.sin.") || starts(name, len, "llvm.cos.") ||
        starts(name, len, "llvm.tan.") || starts(name, len, "llvm.exp") ||
        starts(name, len, "llvm.log") || starts(name, len, "llvm.pow");
    return reject(sc,
                  "'%.*s' calls %.*s, which the NVPTX backend cannot "
                  "compile%s",
                  cl, cname, (int)len, name,
                  math ? " (libdevice has no form of this one: a vector, or "
                         "an operand type it lacks)"
                       : "");
  }
  if (starts(name, len, "llvm."))
    return reject(sc,
                  "'%.*s' calls %.*s, which is not an intrinsic this "
                  "LLVM knows",
                  cl, cname, (int)len, name);
  static const char *const runtime[] = {"vprintf", "malloc", "free",
                                        "__assertfail"};
  if (listed(name, len, runtime, sizeof runtime / sizeof *runtime, 0) ||
      ks_ir_outlined(LLVMGetGlobalParent(callee), callee))
    return KS_OK; /* the runtime, or PTX spliced in after codegen */
  return reject(sc,
                "'%.*s' calls external function '%.*s', which nothing "
                "provides (neither the module nor libdevice)",
                cl, cname, (int)len, name);
}

/* A block address among v's operands, within a few levels of constants. */
static int has_blockaddress(LLVMValueRef v, unsigned depth) {
  if (LLVMIsABlockAddress(v))
    return 1;
  if (depth > 4 || !LLVMIsAConstantExpr(v))
    return 0;
  int n = LLVMGetNumOperands(v);
  for (int i = 0; i < n; i++)
    if (has_blockaddress(LLVMGetOperand(v, i), depth + 1))
      return 1;
  return 0;
}

/* Integer width of a cast's integer side (the element's for vectors). */
static unsigned int_width(LLVMTypeRef ty) {
  if (LLVMGetTypeKind(ty) == LLVMVectorTypeKind)
    ty = LLVMGetElementType(ty);
  return LLVMGetTypeKind(ty) == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(ty)
                                                    : 0;
}

/* What codegen cannot select in instruction i, or NULL. */
static const char *inst_problem(LLVMValueRef i, int in_entry) {
  LLVMOpcode op = LLVMGetInstructionOpcode(i);
  switch (op) {
  case LLVMFence:
    return "a fence instruction, which LLVM 19's NVPTX backend cannot select "
           "(use __threadfence(): llvm.nvvm.membar.*)";
  case LLVMLoad:
  case LLVMStore:
    if (LLVMGetOrdering(i) > LLVMAtomicOrderingMonotonic)
      return "an atomic load or store ordered stronger than monotonic, which "
             "LLVM 19's NVPTX backend cannot select (use a relaxed access "
             "and llvm.nvvm.membar.*)";
    break;
  case LLVMFPToSI:
  case LLVMFPToUI:
    if (int_width(LLVMTypeOf(i)) > 64)
      return "a conversion from floating point to an integer wider than 64 "
             "bits, which needs a library the NVPTX backend does not have";
    break;
  case LLVMSIToFP:
  case LLVMUIToFP:
    if (int_width(LLVMTypeOf(LLVMGetOperand(i, 0))) > 64)
      return "a conversion to floating point from an integer wider than 64 "
             "bits, which needs a library the NVPTX backend does not have";
    break;
  case LLVMAlloca:
    if (!LLVMIsAConstant(LLVMGetOperand(i, 0)) || !in_entry)
      return "an alloca of a run-time size (or outside the entry block), "
             "which the NVPTX backend turns into invalid PTX";
    break;
  case LLVMVAArg: /* the backend cannot split a vector or an aggregate */
    switch (LLVMGetTypeKind(LLVMTypeOf(i))) {
    case LLVMIntegerTypeKind:
    case LLVMHalfTypeKind:
    case LLVMBFloatTypeKind:
    case LLVMFloatTypeKind:
    case LLVMDoubleTypeKind:
    case LLVMPointerTypeKind:
      break;
    default:
      return "a va_arg of a vector or an aggregate, which the NVPTX backend "
             "cannot compile";
    }
    break;
  case LLVMIndirectBr:
    return "an indirectbr, which the NVPTX backend cannot compile";
  default:
    break;
  }
  return NULL;
}

/* What i's type, operands or allocation hold that LLVM cannot take. One
 * pass over the operands: this runs on every instruction of a compile. */
enum { OP_OK, OP_TYPE, OP_RESERVED, OP_BLOCKADDRESS };
static int operand_problem(screen *sc, LLVMValueRef i, LLVMValueRef *what) {
  if (type_problem(sc, LLVMTypeOf(i), 0) ||
      (LLVMIsAAllocaInst(i) && type_problem(sc, LLVMGetAllocatedType(i), 0)))
    return OP_TYPE; /* sc->why says which */
  int n = LLVMGetNumOperands(i);
  for (int k = 0; k < n; k++) {
    LLVMValueRef o = LLVMGetOperand(i, k);
    if (!o)
      continue;
    if (type_problem(sc, LLVMTypeOf(o), 0))
      return OP_TYPE;
    if (!LLVMIsAConstant(o))
      continue;
    /* LLVM's passes assume no code uses the variables it reserves for
     * itself (llvm.global.annotations, llvm.used, ...), and crash */
    size_t len = 0;
    const char *name =
        LLVMIsAGlobalVariable(o) ? LLVMGetValueName2(o, &len) : NULL;
    if (name && starts(name, len, "llvm.")) {
      *what = o;
      return OP_RESERVED;
    }
    if (sc->codegen && has_blockaddress(o, 0))
      return OP_BLOCKADDRESS;
  }
  return OP_OK;
}

/* The one-line refusal of operand_problem's answer op for i in fn. */
static ks_status operand_reject(screen *sc, int op, LLVMValueRef fn,
                                LLVMValueRef what) {
  int nl = 0, wl = 0;
  const char *name = name_of(fn, &nl);
  if (op == OP_TYPE)
    return reject(sc, "'%.*s' uses %s, which the NVPTX backend cannot compile",
                  nl, name, sc->why);
  if (op == OP_RESERVED) {
    const char *w = name_of(what, &wl);
    return reject(sc, "'%.*s' uses @%.*s, a variable reserved for LLVM", nl,
                  name, wl, w);
  }
  return reject(sc,
                "'%.*s' has a block address (blockaddress), which the "
                "NVPTX backend cannot compile",
                nl, name);
}

/* Does a constraint letter of NVPTX's register classes (h r l f d) fit
 * ty, or 'n' (an immediate) the operand? */
static int asm_fits(char c, LLVMTypeRef ty, LLVMValueRef operand) {
  LLVMTypeKind k = LLVMGetTypeKind(ty);
  unsigned bits = k == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(ty) : 0;
  switch (c) {
  case 'h':
    return bits == 16;
  case 'r':
    return bits == 32;
  case 'l':
    return bits == 64;
  case 'f':
    return k == LLVMFloatTypeKind;
  case 'd':
    return k == LLVMDoubleTypeKind;
  case 'n':
    return operand && LLVMIsAConstantInt(operand) && (bits == 32 || bits == 64);
  default:
    return 0;
  }
}

/* Output o's type of inline asm returning ret (nret outputs), or NULL. */
static LLVMTypeRef asm_out_type(LLVMTypeRef ret, unsigned nret, unsigned o) {
  if (o >= nret)
    return NULL;
  return nret == 1 && LLVMGetTypeKind(ret) != LLVMStructTypeKind
             ? ret
             : LLVMStructGetTypeAtIndex(ret, o);
}

/* Does every $N of asm text a name one of its n operands ($$ is a '$';
 * ${N:modifier} is not taken)? */
static int asm_refs_ok(const char *a, size_t len, unsigned n) {
  for (size_t i = 0; i < len; i++) {
    if (a[i] != '$')
      continue;
    if (i + 1 < len && a[i + 1] == '$') {
      i++;
      continue;
    }
    unsigned v = 0;
    size_t d = i + 1;
    while (d < len && a[d] >= '0' && a[d] <= '9' && v < 1000)
      v = v * 10 + (unsigned)(a[d++] - '0');
    if (d == i + 1 || v >= n)
      return 0;
    i = d - 1;
  }
  return 1;
}

/* Inline asm whose every operand is one register of the class its type
 * belongs to (as libdevice's is: "=f,f", "=r,=r,r,r,r"), an immediate,
 * or tied to an output of its type, clobbering memory at most: codegen
 * takes it on any sm (the text goes to ptxas as it is). Other constraints
 * may not fit their operands, which ends the process in codegen. */
static int asm_vouched(LLVMValueRef call, LLVMValueRef asmv) {
  size_t len = 0;
  const char *c = LLVMGetInlineAsmConstraintString(asmv, &len);
  LLVMTypeRef ret = LLVMGetReturnType(LLVMGetInlineAsmFunctionType(asmv));
  LLVMTypeKind rk = LLVMGetTypeKind(ret);
  unsigned nret = rk == LLVMVoidTypeKind     ? 0
                  : rk == LLVMStructTypeKind ? LLVMCountStructElementTypes(ret)
                                             : 1;
  unsigned nout = 0, nin = 0, nargs = (unsigned)LLVMGetNumArgOperands(call);
  for (size_t at = 0; at < len;) {
    size_t end = at;
    while (end < len && c[end] != ',')
      end++;
    const char *t = c + at;
    size_t tl = end - at;
    at = end + 1;
    if (tl == 9 && memcmp(t, "~{memory}", 9) == 0)
      continue;
    if (tl == 2 && t[0] == '=') { /* an output, before any input */
      LLVMTypeRef ty = asm_out_type(ret, nret, nout++);
      if (nin || !ty || !asm_fits(t[1], ty, NULL))
        return 0;
      continue;
    }
    if (tl != 1 || nin >= nargs)
      return 0;
    LLVMValueRef arg = LLVMGetOperand(call, nin++);
    if (t[0] >= '0' && t[0] <= '9') { /* tied to an output */
      unsigned o = (unsigned)(t[0] - '0');
      if (o >= nout || asm_out_type(ret, nret, o) != LLVMTypeOf(arg))
        return 0;
    } else if (!asm_fits(t[0], LLVMTypeOf(arg), arg)) {
      return 0;
    }
  }
  size_t alen = 0;
  const char *a = LLVMGetInlineAsmAsmString(asmv, &alen);
  return nout == nret && nin == nargs && asm_refs_ok(a, alen, nout + nin);
}

static ks_status check_call(screen *sc, LLVMValueRef i, LLVMValueRef fn) {
  LLVMValueRef callee = LLVMGetCalledValue(i);
  /* A constraint the operand's type does not fit ends the process in
   * codegen, and which fit depends on the sm. */
  if (callee && LLVMIsAInlineAsm(callee) && !asm_vouched(i, callee))
    sc->isolate = 1;
  if (!callee || !LLVMIsAFunction(callee))
    return KS_OK;
  size_t len = 0;
  const char *name = LLVMGetValueName2(callee, &len);
  if ((len == 14 && memcmp(name, "__nvvm_reflect", 14) == 0) ||
      (len == 17 && memcmp(name, "llvm.nvvm.reflect", 17) == 0))
    return check_reflect(sc, i, fn);
  if (sc->codegen && LLVMIsDeclaration(callee))
    return check_callee(sc, i, callee, fn);
  return KS_OK;
}

static ks_status check_body(screen *sc, LLVMValueRef fn) {
  int nl = 0;
  const char *name = name_of(fn, &nl);
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
  for (LLVMBasicBlockRef bb = entry; bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      LLVMValueRef what = NULL;
      int op = operand_problem(sc, i, &what);
      if (op != OP_OK)
        return operand_reject(sc, op, fn, what);
      const char *why = sc->codegen ? inst_problem(i, bb == entry) : NULL;
      if (why)
        return reject(sc, "'%.*s' has %s", nl, name, why);
      if (LLVMIsACallInst(i) || LLVMIsAInvokeInst(i) || LLVMIsACallBrInst(i)) {
        ks_status s = check_call(sc, i, fn);
        if (s != KS_OK)
          return s;
      }
    }
  return KS_OK;
}

static ks_status check_function(screen *sc, LLVMValueRef fn) {
  int nl = 0;
  const char *name = name_of(fn, &nl);
  int body = !LLVMIsDeclaration(fn);
  if (LLVMGetIntrinsicID(fn) || (!body && !LLVMGetFirstUse(fn)))
    return KS_OK;
  if (LLVMHasPrefixData(fn) || LLVMHasPrologueData(fn))
    return reject(sc,
                  "function '%.*s' has prefix or prologue data, which "
                  "the NVPTX backend does not support",
                  nl, name);
  unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(fn));
  if (as != 0)
    return reject(sc,
                  "function '%.*s' is in address space %u; NVPTX "
                  "functions are in address space 0",
                  nl, name, as);
  ks_status s = check_symbol(sc, fn);
  if (s == KS_OK)
    s = check_signature(sc, fn);
  if (s == KS_OK && body)
    s = check_body(sc, fn);
  return s;
}

static int weak_linkage(LLVMValueRef g) {
  LLVMLinkage l = LLVMGetLinkage(g);
  return l == LLVMWeakAnyLinkage || l == LLVMWeakODRLinkage ||
         l == LLVMLinkOnceAnyLinkage || l == LLVMLinkOnceODRLinkage ||
         l == LLVMExternalWeakLinkage || l == LLVMCommonLinkage;
}

/* NVPTX writes an alias as .alias (PTX ISA 6.3 on) of a function with a
 * body that is no kernel, neither of them weak; anything else ends the
 * process. */
static ks_status check_alias(screen *sc, LLVMModuleRef m, LLVMValueRef a) {
  int nl = 0;
  const char *name = name_of(a, &nl);
  LLVMValueRef f = LLVMAliasGetAliasee(a);
  for (int i = 0; i < 16 && f && LLVMIsAGlobalAlias(f); i++)
    f = LLVMAliasGetAliasee(f);
  if (!f || !LLVMIsAFunction(f) || LLVMIsDeclaration(f) ||
      ks_ir_is_kernel(m, f) || weak_linkage(a) || weak_linkage(f))
    return reject(sc,
                  "alias '%.*s' is not of a function with a body that "
                  "is no kernel, or is weak; NVPTX has no other aliases",
                  nl, name);
  if (sc->codegen && sc->ptx < 63)
    return reject(sc,
                  "alias '%.*s' needs PTX ISA 6.3 (.alias); this "
                  "compile emits %u.%u",
                  nl, name, sc->ptx / 10, sc->ptx % 10);
  return check_symbol(sc, a);
}

static ks_status run(screen *sc, LLVMModuleRef m) {
  ks_status s = check_structors(sc, m);
  if (s == KS_OK && LLVMGetFirstGlobalIFunc(m)) {
    int nl = 0;
    const char *name = name_of(LLVMGetFirstGlobalIFunc(m), &nl);
    s = reject(sc, "'%.*s' is an ifunc, which NVPTX does not have", nl, name);
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g && s == KS_OK;
       g = LLVMGetNextGlobal(g))
    s = check_global(sc, g);
  for (LLVMValueRef a = LLVMGetFirstGlobalAlias(m); a && s == KS_OK;
       a = LLVMGetNextGlobalAlias(a))
    s = check_alias(sc, m, a);
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn && s == KS_OK;
       fn = LLVMGetNextFunction(fn))
    s = check_function(sc, fn);
  return s;
}

ks_status ks_ir_screen_module(LLVMModuleRef m, const char *tname, char *err,
                              size_t cap) {
  screen sc = {.tname = tname, .err = err, .cap = cap};
  return run(&sc, m);
}

ks_status ks_ir_screen(LLVMModuleRef m, const char *tname, unsigned ptx,
                       int *isolate, char *err, size_t cap) {
  screen sc = {
      .tname = tname, .err = err, .cap = cap, .codegen = 1, .ptx = ptx};
  ks_status s = run(&sc, m);
  if (isolate)
    *isolate = s == KS_OK && sc.isolate;
  return s;
}
