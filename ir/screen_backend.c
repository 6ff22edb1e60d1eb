/*
 * screen_backend.c - the second screen before codegen (after screen.c's).
 *
 * LLVM 19's NVPTX backend ends the process (report_fatal_error, or a
 * crash) on a good deal of IR that the verifier accepts; kspec must never
 * let it. Codegen therefore only sees modules that pass both screens. The
 * two were written apart (this one from fuzzing, screen.c from the
 * malformed-input corpus) and overlap; each rule here is one llc-19 died
 * on. Its rules are what llc-19 was seen to die on, for sm_60 and sm_90 (the
 * fuzzer of tests/fuzz found the first: a fence):
 *  - calls: no llvm.nvvm.* intrinsic on integers wider than 64 bits
 *    (which intrinsics and functions may be called at all is screen.c's
 *    list, checked first);
 *  - instructions: fences; atomic loads and stores stronger than
 *    monotonic; read-modify-write atomics outside the generic, global,
 *    shared and local spaces; address-space casts other than between the
 *    generic space and the global, shared, constant or local one (and a
 *    byval parameter's to the parameter space, as the lower stage reads
 *    it);
 *    conversions between floating point and integers wider than 64 bits;
 *    indirectbr;
 *  - types, wherever they appear: fp128, x86_fp80, ppc_fp128, x86 and
 *    target extension types, scalable vectors, integers wider than 64 bits
 *    other than a scalar i128, vectors of more than 1024 elements, and
 *    empty aggregates as parameters;
 *  - globals: thread-local ones, ifuncs, static constructors
 *    and destructors, spaces PTX has no directive for, initial values in
 *    shared or local memory (other than zero), initializers NVPTX cannot
 *    print (arithmetic on addresses), and names with characters a PTX
 *    symbol cannot hold;
 *  - inline asm (screen_asm.c).
 * What passes may still fail in ptxas or the driver, which report errors.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Target.h>

#include "ir/ks_ir.h"

enum {
  MAX_DEPTH = 64,    /* nesting of types and constants */
  BUDGET = 4000000,  /* type and constant nodes visited, at most */
  MAX_VECTOR = 1024, /* elements of a vector */
  AS_GENERIC = 0,
  AS_GLOBAL = 1,
  AS_SHARED = 3,
  AS_CONST = 4,
  AS_LOCAL = 5,
  AS_PARAM = 101,
};

/* The screen's state: where it is, for messages, and what is left of its
 * budget (bitcode can share types and constants into a DAG whose walk
 * would never end). */
typedef struct screen {
  const char *tname;
  unsigned sm;
  LLVMValueRef fn; /* the function being screened, or NULL */
  long budget;
  char *err;
  size_t cap;
} screen;

/* KS_ECODEGEN with "codegen: TEMPLATE: 'FUNCTION' WHAT, which the NVPTX
 * backend cannot compile" (no function outside one). */
static ks_status reject(screen *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static ks_status reject(screen *s, const char *fmt, ...) {
  char what[384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  size_t len = 0;
  const char *fn = s->fn ? LLVMGetValueName2(s->fn, &len) : NULL;
  static const char tail[] = ", which the NVPTX backend cannot compile";
  if (fn)
    return ks_ir_fail(s->err, s->cap, KS_ECODEGEN, "codegen: %s: '%.*s' %s%s",
                      s->tname, (int)(len > 64 ? 64 : len), fn, what, tail);
  return ks_ir_fail(s->err, s->cap, KS_ECODEGEN, "codegen: %s: %s%s", s->tname,
                    what, tail);
}

/* ---- types ---------------------------------------------------------------
 */

/* What is wrong with ty ("fp128", ...), or NULL. in_vector: ty is a
 * vector's element. */
static const char *bad_type(screen *s, LLVMTypeRef ty, int in_vector,
                            int depth) {
  if (--s->budget < 0 || depth > MAX_DEPTH)
    return "types nested too deep";
  switch (LLVMGetTypeKind(ty)) {
  case LLVMIntegerTypeKind: {
    unsigned w = LLVMGetIntTypeWidth(ty);
    if (w <= 64 || (w == 128 && !in_vector))
      return NULL;
    return in_vector ? "a vector of integers wider than 64 bits"
                     : "an integer wider than 64 bits (other than i128)";
  }
  case LLVMX86_FP80TypeKind:
  case LLVMFP128TypeKind:
  case LLVMPPC_FP128TypeKind:
    return "a floating-point type wider than double";
  case LLVMX86_MMXTypeKind:
  case LLVMX86_AMXTypeKind:
    return "an x86 type";
  case LLVMTargetExtTypeKind:
    return "a target extension type";
  case LLVMScalableVectorTypeKind:
    return "a scalable vector";
  case LLVMVectorTypeKind:
    if (LLVMGetVectorSize(ty) > MAX_VECTOR)
      return "a vector of more than 1024 elements";
    return bad_type(s, LLVMGetElementType(ty), 1, depth + 1);
  case LLVMArrayTypeKind:
    return bad_type(s, LLVMGetElementType(ty), 0, depth + 1);
  case LLVMStructTypeKind:
    for (unsigned i = 0, n = LLVMCountStructElementTypes(ty); i < n; i++) {
      const char *why =
          bad_type(s, LLVMStructGetTypeAtIndex(ty, i), 0, depth + 1);
      if (why)
        return why;
    }
    return NULL;
  case LLVMFunctionTypeKind: {
    unsigned n = LLVMCountParamTypes(ty);
    const char *why = bad_type(s, LLVMGetReturnType(ty), 0, depth + 1);
    LLVMTypeRef *p = why || !n ? NULL : malloc(n * sizeof *p);
    if (p)
      LLVMGetParamTypes(ty, p);
    else if (!why && n)
      return "a function type (out of memory)";
    for (unsigned i = 0; !why && i < n; i++)
      why = bad_type(s, p[i], 0, depth + 1);
    free(p);
    return why;
  }
  default: /* void, label, metadata, token, half, bfloat, float, double, ptr */
    return NULL;
  }
}

static ks_status check_type(screen *s, LLVMTypeRef ty) {
  const char *why = bad_type(s, ty, 0, 0);
  if (!why)
    return KS_OK;
  char *text = LLVMPrintTypeToString(ty);
  ks_status st = reject(s, "uses %s ('%.40s')", why, text);
  LLVMDisposeMessage(text);
  return st;
}

/* The address space of a pointer or of a vector of pointers. */
static unsigned space_of(LLVMTypeRef ty) {
  if (LLVMGetTypeKind(ty) == LLVMVectorTypeKind)
    ty = LLVMGetElementType(ty);
  return LLVMGetTypeKind(ty) == LLVMPointerTypeKind
             ? LLVMGetPointerAddressSpace(ty)
             : AS_GENERIC;
}

/* The width of an integer or of a vector's integer elements; 0 else. */
static unsigned int_width(LLVMTypeRef ty) {
  if (LLVMGetTypeKind(ty) == LLVMVectorTypeKind)
    ty = LLVMGetElementType(ty);
  return LLVMGetTypeKind(ty) == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(ty)
                                                    : 0;
}

static int specific_space(unsigned as) {
  return as == AS_GLOBAL || as == AS_SHARED || as == AS_CONST || as == AS_LOCAL;
}

/* Casts and conversions, as instructions or constant expressions. */
static ks_status check_cast(screen *s, LLVMOpcode op, LLVMTypeRef from,
                            LLVMTypeRef to) {
  if (op == LLVMAddrSpaceCast) {
    unsigned a = space_of(from), b = space_of(to);
    if (!((a == AS_GENERIC && specific_space(b)) ||
          (b == AS_GENERIC && specific_space(a))))
      return reject(s, "casts address space %u to %u", a, b);
  }
  if ((op == LLVMFPToSI || op == LLVMFPToUI) && int_width(to) > 64)
    return reject(s, "converts floating point to i%u", int_width(to));
  if ((op == LLVMSIToFP || op == LLVMUIToFP) && int_width(from) > 64)
    return reject(s, "converts i%u to floating point", int_width(from));
  return KS_OK;
}

/* A byval parameter's address cast to the parameter space: the lower
 * stage's own reads of a parameter in place (as NVPTX's lower-args). */
static int byval_to_param(LLVMValueRef i) {
  LLVMValueRef a = LLVMGetOperand(i, 0);
  if (!LLVMIsAArgument(a) || space_of(LLVMTypeOf(i)) != AS_PARAM ||
      space_of(LLVMTypeOf(a)) != AS_GENERIC)
    return 0;
  LLVMValueRef fn = LLVMGetParamParent(a);
  unsigned k = LLVMGetEnumAttributeKindForName("byval", 5), n = 0;
  for (LLVMValueRef p = LLVMGetFirstParam(fn); p && p != a;
       p = LLVMGetNextParam(p))
    n++;
  return LLVMGetEnumAttributeAtIndex(fn, n + 1, k) != NULL;
}

/* ---- constants -----------------------------------------------------------
 */

/* The constant expressions inside c (an operand): casts and types. */
static ks_status check_const(screen *s, LLVMValueRef c, int depth) {
  if (--s->budget < 0 || depth > MAX_DEPTH)
    return reject(s, "uses constants nested too deep");
  if (LLVMIsAGlobalValue(c) || LLVMIsABlockAddress(c))
    return KS_OK;
  ks_status st = check_type(s, LLVMTypeOf(c));
  if (st == KS_OK && LLVMIsAConstantExpr(c) && LLVMGetNumOperands(c) > 0)
    st = check_cast(s, LLVMGetConstOpcode(c), LLVMTypeOf(LLVMGetOperand(c, 0)),
                    LLVMTypeOf(c));
  if (!LLVMIsAConstantExpr(c) && !LLVMIsAConstantArray(c) &&
      !LLVMIsAConstantStruct(c) && !LLVMIsAConstantVector(c))
    return st;
  for (int i = 0, n = LLVMGetNumOperands(c); st == KS_OK && i < n; i++)
    st = check_const(s, LLVMGetOperand(c, i), depth + 1);
  return st;
}

/* Can NVPTX print initializer c of a global? Plain data, references to
 * globals, addresses inside them and casts of those; no arithmetic. */
static ks_status check_init(screen *s, LLVMValueRef c, int depth) {
  if (--s->budget < 0 || depth > MAX_DEPTH)
    return reject(s, "an initializer nested too deep");
  if (LLVMIsAConstantInt(c) || LLVMIsAConstantFP(c) ||
      LLVMIsAConstantPointerNull(c) || LLVMIsUndef(c) ||
      LLVMIsAConstantAggregateZero(c) || LLVMIsAConstantDataSequential(c) ||
      LLVMIsAGlobalVariable(c) || LLVMIsAFunction(c) || LLVMIsABlockAddress(c))
    return KS_OK;
  int walk = LLVMIsAConstantArray(c) || LLVMIsAConstantStruct(c) ||
             LLVMIsAConstantVector(c);
  if (LLVMIsAConstantExpr(c)) {
    LLVMOpcode op = LLVMGetConstOpcode(c);
    walk = op == LLVMGetElementPtr || op == LLVMAddrSpaceCast ||
           op == LLVMPtrToInt || op == LLVMIntToPtr || op == LLVMBitCast;
    if (!walk)
      return reject(s, "an initializer computes with addresses");
    ks_status st =
        check_cast(s, op, LLVMTypeOf(LLVMGetOperand(c, 0)), LLVMTypeOf(c));
    if (st != KS_OK)
      return st;
  }
  if (!walk)
    return reject(s, "an initializer of a kind NVPTX cannot print");
  for (int i = 0, n = LLVMGetNumOperands(c); i < n; i++) {
    ks_status st = check_init(s, LLVMGetOperand(c, i), depth + 1);
    if (st != KS_OK)
      return st;
  }
  return KS_OK;
}

/* ---- globals -------------------------------------------------------------
 */

/* PTX symbols hold letters, digits, '_', '$', and NVPTX renames '.', '@'. */
static int name_ok(const char *n, size_t len) {
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)n[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '.' ||
          c == '@'))
      return 0;
  }
  return 1;
}

static ks_status check_name(screen *s, LLVMValueRef g) {
  size_t len = 0;
  const char *n = LLVMGetValueName2(g, &len);
  if (name_ok(n, len))
    return KS_OK;
  return reject(s, "the name '%.*s' (PTX names hold letters, digits, _ $)",
                (int)(len > 64 ? 64 : len), n);
}

/* llvm.global_ctors and llvm.global_dtors with entries: NVPTX has no
 * static constructors. */
static int has_entries(LLVMModuleRef m, const char *name) {
  LLVMValueRef g = LLVMGetNamedGlobal(m, name);
  LLVMValueRef init = g ? LLVMGetInitializer(g) : NULL;
  return init && !LLVMIsAConstantAggregateZero(init) &&
         LLVMGetNumOperands(init) > 0;
}

static ks_status check_global(screen *s, LLVMValueRef g) {
  unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(g));
  LLVMValueRef init = LLVMGetInitializer(g);
  ks_status st = check_name(s, g);
  if (st != KS_OK)
    return st;
  size_t len = 0;
  const char *n = LLVMGetValueName2(g, &len);
  int shown = (int)(len > 64 ? 64 : len);
  if (LLVMIsThreadLocal(g))
    return reject(s, "the thread-local global '%.*s'", shown, n);
  if (as != AS_GENERIC && !specific_space(as))
    return reject(s, "the global '%.*s' in address space %u", shown, n, as);
  if (init && (as == AS_SHARED || as == AS_LOCAL) && !LLVMIsUndef(init) &&
      !LLVMIsNull(init))
    return reject(s,
                  "an initial value for '%.*s' in address space %u (shared "
                  "and local memory start undefined)",
                  shown, n, as);
  st = check_type(s, LLVMGlobalGetValueType(g));
  if (st == KS_OK && init && strncmp(n, "llvm.", 5) != 0)
    st = check_init(s, init, 0);
  return st;
}

static ks_status check_module(screen *s, LLVMModuleRef m) {
  /* aliases: screen.c (PTX ISA 6.3 and later print them) */
  if (LLVMGetFirstGlobalIFunc(m))
    return reject(s, "ifuncs");
  if (has_entries(m, "llvm.global_ctors") ||
      has_entries(m, "llvm.global_dtors"))
    return reject(s, "static constructors or destructors");
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
    ks_status st = check_global(s, g);
    if (st != KS_OK)
      return st;
  }
  return KS_OK;
}

/* ---- functions and instructions ------------------------------------------
 */

/* Checks one called intrinsic. Which intrinsics and external functions
 * may be called at all is screen.c's list, checked first; what it lets
 * through but the backend dies on is an llvm.nvvm.* intrinsic on integers
 * wider than 64 bits. */
static ks_status check_callee(screen *s, LLVMValueRef call,
                              LLVMValueRef callee) {
  size_t len = 0;
  const char *name = LLVMGetValueName2(callee, &len);
  if (!LLVMGetIntrinsicID(callee) || len < 10 ||
      memcmp(name, "llvm.nvvm.", 10) != 0)
    return KS_OK;
  LLVMTypeRef fty = LLVMGetCalledFunctionType(call);
  unsigned np = LLVMCountParamTypes(fty);
  LLVMTypeRef *p = malloc((np ? np : 1) * sizeof *p);
  int wide = int_width(LLVMGetReturnType(fty)) > 64;
  if (p)
    LLVMGetParamTypes(fty, p);
  for (unsigned i = 0; p && !wide && i < np; i++)
    wide = int_width(p[i]) > 64;
  free(p);
  if (wide)
    return reject(s, "calls %.*s on integers wider than 64 bits", (int)len,
                  name);
  return KS_OK;
}

static ks_status check_call(screen *s, LLVMValueRef i) {
  LLVMValueRef callee = LLVMGetCalledValue(i);
  ks_status st = check_type(s, LLVMGetCalledFunctionType(i));
  if (st != KS_OK || !callee)
    return st;
  if (LLVMIsAInlineAsm(callee)) {
    char why[256];
    if (ks_ir_screen_asm(callee, s->sm, why, sizeof why) != 0)
      return reject(s, "has inline asm with %s", why);
    return KS_OK;
  }
  if (LLVMIsAFunction(callee) && LLVMIsDeclaration(callee))
    return check_callee(s, i, callee);
  return KS_OK;
}

static const char *ordering_name(LLVMAtomicOrdering o) {
  switch (o) {
  case LLVMAtomicOrderingAcquire:
    return "acquire";
  case LLVMAtomicOrderingRelease:
    return "release";
  case LLVMAtomicOrderingAcquireRelease:
    return "acq_rel";
  default:
    return "seq_cst";
  }
}

/* The rules of particular instructions. */
static ks_status check_opcode(screen *s, LLVMValueRef i) {
  LLVMOpcode op = LLVMGetInstructionOpcode(i);
  switch (op) {
  case LLVMFence:
    return reject(s, "has a fence (use __threadfence(): llvm.nvvm.membar.*)");
  case LLVMIndirectBr:
    return reject(s, "has an indirectbr");
  case LLVMLoad:
  case LLVMStore:
    if (LLVMGetOrdering(i) > LLVMAtomicOrderingMonotonic)
      return reject(s, "has an atomic %s with %s ordering",
                    op == LLVMLoad ? "load" : "store",
                    ordering_name(LLVMGetOrdering(i)));
    return KS_OK;
  case LLVMAtomicRMW:
  case LLVMAtomicCmpXchg: {
    unsigned as = space_of(LLVMTypeOf(LLVMGetOperand(i, 0)));
    if (as != AS_GENERIC && as != AS_GLOBAL && as != AS_SHARED &&
        as != AS_LOCAL)
      return reject(s, "has an atomic in address space %u", as);
    return KS_OK;
  }
  case LLVMAlloca:
    return check_type(s, LLVMGetAllocatedType(i));
  case LLVMGetElementPtr:
    return check_type(s, LLVMGetGEPSourceElementType(i));
  case LLVMCall:
  case LLVMInvoke:
  case LLVMCallBr:
    return check_call(s, i);
  case LLVMAddrSpaceCast:
    if (byval_to_param(i))
      return KS_OK;
    /* fall through */
  case LLVMFPToSI:
  case LLVMFPToUI:
  case LLVMSIToFP:
  case LLVMUIToFP:
    return check_cast(s, op, LLVMTypeOf(LLVMGetOperand(i, 0)), LLVMTypeOf(i));
  default:
    return KS_OK;
  }
}

static ks_status check_instruction(screen *s, LLVMValueRef i) {
  ks_status st = check_opcode(s, i);
  if (st == KS_OK)
    st = check_type(s, LLVMTypeOf(i));
  for (int k = 0, n = LLVMGetNumOperands(i); st == KS_OK && k < n; k++) {
    LLVMValueRef v = LLVMGetOperand(i, k);
    if (!v || LLVMValueIsBasicBlock(v) ||
        LLVMGetValueKind(v) == LLVMMetadataAsValueValueKind)
      continue;
    st = check_type(s, LLVMTypeOf(v));
    if (st == KS_OK && LLVMIsAConstant(v))
      st = check_const(s, v, 0);
  }
  return st;
}

/* A function's name and signature: no empty aggregates as parameters. */
static ks_status check_signature(screen *s, LLVMModuleRef m, LLVMValueRef fn) {
  ks_status st = check_name(s, fn);
  if (st == KS_OK && !LLVMGetIntrinsicID(fn))
    st = check_type(s, LLVMGlobalGetValueType(fn));
  LLVMTargetDataRef dl = LLVMGetModuleDataLayout(m);
  for (LLVMValueRef p = LLVMGetFirstParam(fn); st == KS_OK && p;
       p = LLVMGetNextParam(p)) {
    LLVMTypeRef ty = LLVMTypeOf(p);
    LLVMTypeKind k = LLVMGetTypeKind(ty);
    if ((k == LLVMStructTypeKind || k == LLVMArrayTypeKind) &&
        LLVMTypeIsSized(ty) && LLVMABISizeOfType(dl, ty) == 0)
      st = reject(s, "takes an empty aggregate as a parameter");
  }
  return st;
}

static ks_status check_function(screen *s, LLVMModuleRef m, LLVMValueRef fn) {
  s->fn = fn;
  ks_status st = check_signature(s, m, fn);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); st == KS_OK && bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); st == KS_OK && i;
         i = LLVMGetNextInstruction(i))
      st = check_instruction(s, i);
  s->fn = NULL;
  return st;
}

ks_status ks_ir_screen_backend(LLVMModuleRef m, unsigned sm, const char *tname,
                               char *err, size_t cap) {
  screen s = {
      .tname = tname, .sm = sm, .budget = BUDGET, .err = err, .cap = cap};
  ks_status st = check_module(&s, m);
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); st == KS_OK && fn;
       fn = LLVMGetNextFunction(fn))
    st = check_function(&s, m, fn);
  return st;
}
