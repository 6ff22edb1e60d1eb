/*
 * globals.c - a template's module globals: the __constant__ (addrspace 4)
 * and __device__ (addrspace 1) variables a user's kernel reads its tables,
 * filters and counters from. Discovery describes each (name, type as a C
 * reader would write it, bytes, space, whether it has a non-zero
 * initializer, how many scalar numbers it holds) and which kernels write
 * it, so that a bake can be refused before any compile.
 *
 * "Writes" is a question about every path by which the kernel can reach
 * the variable: a store to it or an atomic on it, in the kernel or in a
 * function it calls, directly or through pointers derived from its
 * address; any use the walk cannot follow (the address stored to memory,
 * passed to a call other than memcpy's source, converted to an integer,
 * sitting in another global's initializer) counts as a write, since
 * nothing then says what happens to the memory. What LLVM and clang make
 * for themselves (llvm.*, names starting with "__", private string
 * constants) and shared memory (addrspace 3) are not user globals.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ks_ir.h"

enum { AS_GLOBAL = 1, AS_CONST = 4, TYPE_CAP = 256 };

/* ---- types ----------------------------------------------------------- */

typedef struct text {
  char s[TYPE_CAP];
  size_t n;
} text;

static void add(text *t, const char *s) {
  size_t len = strlen(s);
  if (t->n >= TYPE_CAP)
    return; /* cut already */
  if (t->n + len + 4 > TYPE_CAP) {
    memcpy(t->s + t->n, "...", 4);
    t->n = TYPE_CAP;
    return;
  }
  memcpy(t->s + t->n, s, len + 1);
  t->n += len;
}

static const char *int_name(unsigned w) {
  switch (w) {
  case 1:
    return "bool";
  case 8:
    return "char";
  case 16:
    return "short";
  case 32:
    return "int";
  case 64:
    return "long long";
  default:
    return NULL;
  }
}

/* "struct.coeffs" -> "struct coeffs"; "class.ns::A" -> "class ns::A". */
static void struct_name(text *t, LLVMTypeRef ty) {
  const char *n = LLVMGetStructName(ty);
  char buf[TYPE_CAP];
  const char *dot = n ? strchr(n, '.') : NULL;
  if (dot && (size_t)(dot - n) < 8)
    snprintf(buf, sizeof buf, "%.*s %s", (int)(dot - n), n, dot + 1);
  else
    snprintf(buf, sizeof buf, "%s", n ? n : "struct");
  add(t, buf);
}

static void type_text(text *t, LLVMTypeRef ty, int depth);

/* Fields of a struct, "{float, int, float[4]}"; nested structs by name. */
static void fields_text(text *t, LLVMTypeRef ty, int depth) {
  unsigned n = LLVMCountStructElementTypes(ty);
  add(t, "{");
  for (unsigned i = 0; i < n; i++) {
    if (i)
      add(t, ", ");
    type_text(t, LLVMStructGetTypeAtIndex(ty, i), depth + 1);
  }
  add(t, "}");
}

/* ty as a C declaration's type: "float[3][4]", "unsigned"-less integers
 * (the IR has no signedness), "struct coeffs {float, int, float[4]}". */
static void type_text(text *t, LLVMTypeRef ty, int depth) {
  char buf[64];
  switch (LLVMGetTypeKind(ty)) {
  case LLVMIntegerTypeKind: {
    const char *n = int_name(LLVMGetIntTypeWidth(ty));
    snprintf(buf, sizeof buf, "i%u", LLVMGetIntTypeWidth(ty));
    add(t, n ? n : buf);
    return;
  }
  case LLVMHalfTypeKind:
    add(t, "half");
    return;
  case LLVMBFloatTypeKind:
    add(t, "bfloat16");
    return;
  case LLVMFloatTypeKind:
    add(t, "float");
    return;
  case LLVMDoubleTypeKind:
    add(t, "double");
    return;
  case LLVMPointerTypeKind:
    add(t, "void*");
    return;
  case LLVMArrayTypeKind: {
    LLVMTypeRef e = ty;
    while (LLVMGetTypeKind(e) == LLVMArrayTypeKind)
      e = LLVMGetElementType(e);
    type_text(t, e, depth);
    for (e = ty; LLVMGetTypeKind(e) == LLVMArrayTypeKind;
         e = LLVMGetElementType(e)) {
      snprintf(buf, sizeof buf, "[%llu]",
               (unsigned long long)LLVMGetArrayLength2(e));
      add(t, buf);
    }
    return;
  }
  case LLVMVectorTypeKind:
    snprintf(buf, sizeof buf, "vector(%u) ", LLVMGetVectorSize(ty));
    add(t, buf);
    type_text(t, LLVMGetElementType(ty), depth);
    return;
  case LLVMStructTypeKind:
    if (!LLVMIsLiteralStruct(ty))
      struct_name(t, ty);
    if (LLVMIsLiteralStruct(ty) || depth == 0) {
      if (!LLVMIsLiteralStruct(ty))
        add(t, " ");
      fields_text(t, ty, depth);
    }
    return;
  default:
    add(t, "?");
  }
}

static int is_number(LLVMTypeRef ty) {
  switch (LLVMGetTypeKind(ty)) {
  case LLVMIntegerTypeKind:
    return LLVMGetIntTypeWidth(ty) <= 64;
  case LLVMHalfTypeKind:
  case LLVMBFloatTypeKind:
  case LLVMFloatTypeKind:
  case LLVMDoubleTypeKind:
    return 1;
  default:
    return 0;
  }
}

uint64_t ks_ir_leaf_count(LLVMTypeRef ty) {
  if (is_number(ty))
    return 1;
  if (LLVMGetTypeKind(ty) == LLVMArrayTypeKind) {
    uint64_t e = ks_ir_leaf_count(LLVMGetElementType(ty)),
             n = LLVMGetArrayLength2(ty);
    return n && e > UINT64_MAX / n ? 0 : e * n;
  }
  if (LLVMGetTypeKind(ty) != LLVMStructTypeKind)
    return 0;
  uint64_t sum = 0;
  for (unsigned i = 0; i < LLVMCountStructElementTypes(ty); i++) {
    uint64_t e = ks_ir_leaf_count(LLVMStructGetTypeAtIndex(ty, i));
    if (!e)
      return 0;
    sum += e;
  }
  return sum;
}

/* An aggregate constant's element i; a zero of the element's type where
 * the initializer leaves it undefined (padding). */
static LLVMValueRef element(LLVMValueRef c, unsigned i, LLVMTypeRef ety) {
  LLVMValueRef e = c ? LLVMGetAggregateElement(c, i) : NULL;
  return e && !LLVMIsUndef(e) && !LLVMIsPoison(e) ? e : LLVMConstNull(ety);
}

int64_t ks_ir_leaf(LLVMTargetDataRef dl, LLVMTypeRef ty, uint64_t off,
                   LLVMTypeRef want, LLVMValueRef init, LLVMValueRef *c) {
  int64_t base = 0;
  for (;;) {
    LLVMTypeKind k = LLVMGetTypeKind(ty);
    if (is_number(ty)) {
      if (off != 0 || ty != want)
        return -1;
      if (c)
        *c = init && !LLVMIsUndef(init) ? init : LLVMConstNull(ty);
      return base;
    }
    if (k == LLVMArrayTypeKind) {
      LLVMTypeRef e = LLVMGetElementType(ty);
      uint64_t size = LLVMABISizeOfType(dl, e), i = size ? off / size : 0;
      if (!size || i >= LLVMGetArrayLength2(ty))
        return -1;
      base += (int64_t)(i * ks_ir_leaf_count(e));
      init = init ? element(init, (unsigned)i, e) : NULL;
      off -= i * size;
      ty = e;
    } else if (k == LLVMStructTypeKind && LLVMCountStructElementTypes(ty)) {
      if (off >= LLVMABISizeOfType(dl, ty))
        return -1;
      unsigned i = LLVMElementAtOffset(dl, ty, off);
      for (unsigned j = 0; j < i; j++)
        base += (int64_t)ks_ir_leaf_count(LLVMStructGetTypeAtIndex(ty, j));
      LLVMTypeRef e = LLVMStructGetTypeAtIndex(ty, i);
      init = init ? element(init, i, e) : NULL;
      off -= LLVMOffsetOfElement(dl, ty, i);
      ty = e;
    } else {
      return -1;
    }
  }
}

/* ---- who writes a global ----------------------------------------------- */

/* The module's defined functions, sorted by address for lookups. */
typedef struct fn_table {
  LLVMValueRef *fn;
  size_t n;
} fn_table;

static int by_address(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)*(LLVMValueRef const *)a,
            y = (uintptr_t)*(LLVMValueRef const *)b;
  return (x > y) - (x < y);
}

static long fn_index(const fn_table *t, LLVMValueRef f) {
  LLVMValueRef *hit = bsearch(&f, t->fn, t->n, sizeof *t->fn, by_address);
  return hit ? (long)(hit - t->fn) : -1;
}

/* Marks in reach (t->n bytes) every function kernel k can run: itself and
 * what it calls, directly or not (an indirect call may reach any). */
static void mark(unsigned char *reach, size_t *stack, size_t *top, size_t j) {
  if (!reach[j]) {
    reach[j] = 1;
    stack[(*top)++] = j;
  }
}

static int reach_from(const fn_table *t, LLVMValueRef k, unsigned char *reach) {
  size_t *stack = malloc((t->n + 1) * sizeof *stack), top = 0;
  long ki = fn_index(t, k);
  if (!stack)
    return 1;
  if (ki >= 0) {
    reach[ki] = 1;
    stack[top++] = (size_t)ki;
  }
  while (top) {
    LLVMValueRef f = t->fn[stack[--top]];
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b;
         b = LLVMGetNextBasicBlock(b))
      for (LLVMValueRef i = LLVMGetFirstInstruction(b); i;
           i = LLVMGetNextInstruction(i)) {
        if (!LLVMIsACallInst(i) && !LLVMIsAInvokeInst(i))
          continue;
        LLVMValueRef callee = LLVMGetCalledValue(i);
        int indirect = !LLVMIsAFunction(callee) && !LLVMIsAInlineAsm(callee);
        long to = indirect ? -1 : fn_index(t, callee);
        /* each function is pushed once: the stack holds t->n at most */
        for (size_t j = indirect ? 0 : t->n; j < t->n; j++)
          mark(reach, stack, &top, j); /* may reach any function */
        if (to >= 0)
          mark(reach, stack, &top, (size_t)to);
      }
  }
  free(stack);
  return 0;
}

/* Is the constant user u only an entry of llvm.used / llvm.compiler.used? */
static int only_in_used_list(LLVMValueRef u) {
  for (LLVMUseRef x = LLVMGetFirstUse(u); x; x = LLVMGetNextUse(x)) {
    LLVMValueRef g = LLVMGetUser(x);
    if (!LLVMIsAGlobalVariable(g))
      return 0;
    const char *n = LLVMGetValueName(g);
    if (strcmp(n, "llvm.used") && strcmp(n, "llvm.compiler.used"))
      return 0;
  }
  return 1;
}

/* Does instruction i, a user of pointer p, write through p? *follow is set
 * when i is a pointer derived from p. */
static int writes(LLVMValueRef p, LLVMValueRef i, int *follow) {
  *follow = 0;
  if (LLVMIsALoadInst(i) || LLVMIsAICmpInst(i))
    return 0;
  if (LLVMIsAStoreInst(i) || LLVMIsAAtomicRMWInst(i) ||
      LLVMIsAAtomicCmpXchgInst(i))
    return 1; /* the store's value being p: its address escapes */
  if (LLVMIsACallInst(i)) {
    LLVMValueRef f = LLVMGetCalledValue(i);
    const char *n = LLVMIsAFunction(f) ? LLVMGetValueName(f) : "";
    int copy =
        !strncmp(n, "llvm.memcpy.", 12) || !strncmp(n, "llvm.memmove.", 13);
    if (copy && LLVMGetOperand(i, 0) != p)
      return 0; /* the source of a copy */
    return strncmp(n, "llvm.lifetime.", 14) != 0 &&
           strncmp(n, "llvm.prefetch", 13) != 0;
  }
  if (LLVMIsAGetElementPtrInst(i) || LLVMIsABitCastInst(i) ||
      LLVMIsAAddrSpaceCastInst(i) || LLVMIsAPHINode(i) ||
      LLVMIsASelectInst(i)) {
    *follow = 1;
    return 0;
  }
  return 1; /* ptrtoint, a return, an aggregate: the address escapes */
}

/* A growable array of values. */
typedef struct vlist {
  LLVMValueRef *v;
  size_t n, cap;
} vlist;

static int vpush(vlist *l, LLVMValueRef v) {
  if (!ks_ir_room(&l->v, &l->cap, l->n, sizeof *l->v, 16))
    return 0;
  l->v[l->n++] = v;
  return 1;
}

/* Is the constant user u followed as an address (a GEP or a cast of g)?
 * Otherwise, unless it only lists g in llvm.used, *anywhere is set. */
static int const_user(LLVMValueRef u, int *anywhere) {
  if (LLVMIsAConstantExpr(u)) {
    LLVMOpcode op = LLVMGetConstOpcode(u);
    if (op == LLVMGetElementPtr || op == LLVMBitCast || op == LLVMAddrSpaceCast)
      return 1;
  }
  if (!only_in_used_list(u))
    *anywhere = 1; /* in another global's initializer, or converted */
  return 0;
}

/* Marks in w the functions that may write g; sets *anywhere when a use
 * outside any function may (every kernel then counts as a writer). 1 when
 * memory ran out. */
static int find_writers(LLVMValueRef g, const fn_table *t, unsigned char *w,
                        int *anywhere) {
  vlist work = {0}, joins = {0}; /* joins: phis and selects seen */
  int nomem = !vpush(&work, g);
  while (work.n && !nomem) {
    LLVMValueRef p = work.v[--work.n];
    for (LLVMUseRef u = LLVMGetFirstUse(p); u && !nomem;
         u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      int follow = 0;
      if (!LLVMIsAInstruction(user)) {
        follow = const_user(user, anywhere);
      } else if (writes(p, user, &follow)) {
        long fi = fn_index(
            t, LLVMGetBasicBlockParent(LLVMGetInstructionParent(user)));
        if (fi >= 0)
          w[fi] = 1;
      }
      int join = LLVMIsAPHINode(user) || LLVMIsASelectInst(user);
      if (follow && join && ks_ir_value_in(joins.v, joins.n, user))
        continue; /* a loop of pointers: seen */
      if (follow && ((join && !vpush(&joins, user)) || !vpush(&work, user)))
        nomem = 1;
    }
  }
  free(work.v);
  free(joins.v);
  return nomem;
}

/* ---- discovery ------------------------------------------------------- */

static int user_global(LLVMValueRef g) {
  size_t len = 0;
  const char *n = LLVMGetValueName2(g, &len);
  unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(g));
  if ((as != AS_GLOBAL && as != AS_CONST) || LLVMIsDeclaration(g) ||
      LLVMGetLinkage(g) == LLVMPrivateLinkage || !len)
    return 0;
  return strncmp(n, "llvm.", 5) != 0 && strncmp(n, "__", 2) != 0;
}

static int nonzero_init(LLVMValueRef g) {
  LLVMValueRef c = LLVMGetInitializer(g);
  return c && !LLVMIsNull(c) && !LLVMIsUndef(c) && !LLVMIsPoison(c);
}

/* g's description without its writers; 1 when memory ran out. */
static int describe(LLVMTargetDataRef dl, LLVMValueRef g, ks_ir_global *out) {
  size_t len = 0;
  const char *n = LLVMGetValueName2(g, &len);
  LLVMTypeRef ty = LLVMGlobalGetValueType(g);
  text t = {.n = 0};
  t.s[0] = '\0';
  type_text(&t, ty, 0);
  out->name = strndup(n, len);
  out->type = strdup(t.s);
  out->bytes = LLVMABISizeOfType(dl, ty);
  out->constant = LLVMGetPointerAddressSpace(LLVMTypeOf(g)) == AS_CONST;
  out->has_init = nonzero_init(g);
  out->leaves = ks_ir_leaf_count(ty);
  return !out->name || !out->type;
}

/* Kernel i's reach (t->n bytes each) for every kernel of d. */
static unsigned char *reach_all(LLVMModuleRef m, const ks_ir_desc *d,
                                const fn_table *t) {
  unsigned char *r = calloc(d->nkernels * t->n + 1, 1);
  for (size_t i = 0; r && i < d->nkernels; i++) {
    LLVMValueRef k = LLVMGetNamedFunction(m, d->kernels[i].name);
    if (k && reach_from(t, k, r + i * t->n)) {
      free(r);
      return NULL;
    }
  }
  return r;
}

/* g's writers from the functions that may write it (w) and each
 * kernel's reach. */
static int set_writers(ks_ir_global *g, const ks_ir_desc *d, const fn_table *t,
                       const unsigned char *reach, const unsigned char *w,
                       int anywhere) {
  g->writers = calloc(d->nkernels ? d->nkernels : 1, sizeof *g->writers);
  if (!g->writers)
    return 1;
  for (size_t i = 0; i < d->nkernels; i++) {
    int hit = anywhere;
    for (size_t j = 0; j < t->n && !hit; j++)
      hit = w[j] && reach[i * t->n + j];
    if (hit)
      g->writers[g->nwriters++] = (uint32_t)i;
  }
  return 0;
}

static fn_table functions(LLVMModuleRef m) {
  fn_table t = {0};
  size_t cap = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    cap += !LLVMIsDeclaration(f);
  t.fn = malloc((cap ? cap : 1) * sizeof *t.fn);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f && t.fn;
       f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f))
      t.fn[t.n++] = f;
  if (t.fn)
    qsort(t.fn, t.n, sizeof *t.fn, by_address);
  return t;
}

/* Adds g to d with its writers; 1 when memory ran out. */
static int add_global(LLVMModuleRef m, ks_ir_desc *d, const fn_table *t,
                      const unsigned char *reach, LLVMValueRef g) {
  ks_ir_global *grown =
      realloc(d->globals, (d->nglobals + 1) * sizeof *d->globals);
  if (!grown)
    return 1;
  d->globals = grown;
  ks_ir_global *o = &d->globals[d->nglobals++]; /* freed with d from here */
  memset(o, 0, sizeof *o);
  unsigned char *w = calloc(t->n + 1, 1);
  int anywhere = 0;
  int bad = !w || describe(LLVMGetModuleDataLayout(m), g, o) ||
            find_writers(g, t, w, &anywhere) ||
            set_writers(o, d, t, reach, w, anywhere);
  free(w);
  return bad;
}

ks_status ks_ir_globals(LLVMModuleRef m, const char *name, ks_ir_desc *d,
                        char *err, size_t cap) {
  ks_ir_globals_free(d);
  fn_table t = functions(m);
  unsigned char *reach = t.fn ? reach_all(m, d, &t) : NULL;
  int bad = !reach;
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g && !bad;
       g = LLVMGetNextGlobal(g))
    if (user_global(g))
      bad = add_global(m, d, &t, reach, g);
  free(reach);
  free(t.fn);
  if (!bad)
    return KS_OK;
  ks_ir_globals_free(d);
  return ks_ir_fail(err, cap, KS_ENOMEM, "template: %s: out of memory", name);
}

void ks_ir_globals_free(ks_ir_desc *d) {
  for (size_t i = 0; i < d->nglobals; i++) {
    free(d->globals[i].name);
    free(d->globals[i].type);
    free(d->globals[i].writers);
  }
  free(d->globals);
  d->globals = NULL;
  d->nglobals = 0;
}

const ks_ir_global *ks_ir_global_find(const ks_ir_desc *d, const char *name) {
  for (size_t i = 0; name && i < d->nglobals; i++)
    if (strcmp(d->globals[i].name, name) == 0)
      return &d->globals[i];
  return NULL;
}

int ks_ir_global_written_by(const ks_ir_global *g, size_t kernel) {
  for (uint32_t i = 0; i < g->nwriters; i++)
    if (g->writers[i] == kernel)
      return 1;
  return 0;
}
