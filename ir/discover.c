/*
 * discover.c - kernels and parameters of a template.
 *
 * Kernels are what the NVPTX backend treats as entry points: functions named
 * in !nvvm.annotations with "kernel" = 1, or with the PTX kernel calling
 * convention. Parameters come from the template dialect's markings, clang
 * annotate attributes on the kernel that land in @llvm.global.annotations:
 *   "kspec.param NAME DEFAULT MIN MAX [block_x|block_xy]"
 *   "kspec.doc TEXT"
 * and whether a kernel synchronizes the grid (it reaches a read of the
 * driver's grid workspace, %envreg), which its launches must then be
 * cooperative for.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ks_ir.h"

enum { CC_PTX_KERNEL = 71 };

static unsigned bound_flag(const char *key, unsigned len) {
  static const struct {
    const char *key;
    unsigned flag;
  } keys[] = {{"maxntidx", KS_IR_OWN_MAXNTID},  {"maxntidy", KS_IR_OWN_MAXNTID},
              {"maxntidz", KS_IR_OWN_MAXNTID},  {"reqntidx", KS_IR_OWN_REQNTID},
              {"reqntidy", KS_IR_OWN_REQNTID},  {"reqntidz", KS_IR_OWN_REQNTID},
              {"minctasm", KS_IR_OWN_MINCTASM}, {"maxnreg", KS_IR_OWN_MAXNREG}};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    if (strlen(keys[i].key) == len && memcmp(keys[i].key, key, len) == 0)
      return keys[i].flag;
  return 0;
}

/* The operands of metadata node md, malloc'd (*n of them); NULL when it
 * has none (or memory ran out). A node may have any number: no VLA. */
static LLVMValueRef *md_operands(LLVMValueRef md, unsigned *n) {
  *n = LLVMGetMDNodeNumOperands(md);
  LLVMValueRef *f = *n ? malloc(*n * sizeof *f) : NULL;
  if (f)
    LLVMGetMDNodeOperands(md, f);
  else
    *n = 0;
  return f;
}

/* The entries of !nvvm.annotations, malloc'd (*n of them), or NULL. */
static LLVMValueRef *annotation_entries(LLVMModuleRef m, unsigned *n) {
  *n = LLVMGetNamedMetadataNumOperands(m, "nvvm.annotations");
  LLVMValueRef *ops = *n ? malloc(*n * sizeof *ops) : NULL;
  if (ops)
    LLVMGetNamedMetadataOperands(m, "nvvm.annotations", ops);
  else
    *n = 0;
  return ops;
}

/* Reads fn's entries in !nvvm.annotations: is it a kernel (1 = yes), and
 * which launch bounds does it declare (KS_IR_OWN_*). An entry is the
 * function, then KEY, VALUE pairs (check_annotations has checked them). */
static int scan_annotations(LLVMModuleRef m, LLVMValueRef fn, unsigned *own) {
  unsigned n = 0;
  LLVMValueRef *ops = annotation_entries(m, &n);
  int kernel = 0;
  *own = 0;
  for (unsigned i = 0; i < n; i++) {
    unsigned k = 0;
    LLVMValueRef *f = md_operands(ops[i], &k);
    for (unsigned j = 1; k >= 3 && f[0] == fn && j + 1 < k; j += 2) {
      unsigned len = 0;
      const char *key = f[j] ? LLVMGetMDString(f[j], &len) : NULL;
      if (!key || !f[j + 1] || !LLVMIsAConstantInt(f[j + 1]))
        continue;
      if (len == 6 && memcmp(key, "kernel", 6) == 0)
        kernel |= LLVMConstIntGetZExtValue(f[j + 1]) == 1;
      else
        *own |= bound_flag(key, len);
    }
    free(f);
  }
  free(ops);
  return kernel;
}

/* Launch-bound values a template may declare: at most this. */
static unsigned long long bound_limit(const char *key, unsigned len) {
  if (len == 7 && memcmp(key, "maxnreg", 7) == 0)
    return 255;
  if (len == 8 && memcmp(key, "minctasm", 8) == 0)
    return 32;
  return 1024; /* maxntid, reqntid: threads a block */
}

/* Checks entry i (its k operands f) as the NVPTX backend reads an entry
 * that names a global: the global, then pairs of a string key and an
 * integer value of at most 64 bits (anything else crashes it); launch
 * bounds within what any GPU allows. Entries about no global are skipped,
 * as the backend skips them; an empty one crashes it. */
static ks_status check_entry(LLVMValueRef *f, unsigned k, unsigned i,
                             const char *tname, char *err, size_t cap) {
  if (k == 0)
    return ks_ir_fail(err, cap, KS_ETEMPLATE,
                      "template: %s: !nvvm.annotations entry %u is empty",
                      tname, i);
  if (!f[0] || !LLVMIsAGlobalValue(f[0]))
    return KS_OK;
  for (unsigned j = 1; j < k; j += 2) {
    unsigned len = 0;
    const char *key = f[j] ? LLVMGetMDString(f[j], &len) : NULL;
    LLVMValueRef v = j + 1 < k ? f[j + 1] : NULL;
    if (!key || !v || !LLVMIsAConstantInt(v) ||
        LLVMGetIntTypeWidth(LLVMTypeOf(v)) > 64)
      return ks_ir_fail(err, cap, KS_ETEMPLATE,
                        "template: %s: !nvvm.annotations entry %u is not a "
                        "global followed by \"key\", integer pairs",
                        tname, i);
    unsigned long long x = LLVMConstIntGetZExtValue(v);
    if (bound_flag(key, len) && (x == 0 || x > bound_limit(key, len)))
      return ks_ir_fail(err, cap, KS_ETEMPLATE,
                        "template: %s: !nvvm.annotations entry %u: %.*s=%llu "
                        "outside [1, %llu]",
                        tname, i, (int)len, key, x, bound_limit(key, len));
  }
  return KS_OK;
}

static ks_status check_annotations(LLVMModuleRef m, const char *tname,
                                   char *err, size_t cap) {
  unsigned n = 0;
  LLVMValueRef *ops = annotation_entries(m, &n);
  ks_status s = KS_OK;
  for (unsigned i = 0; i < n && s == KS_OK; i++) {
    unsigned k = 0;
    LLVMValueRef *f = md_operands(ops[i], &k);
    s = check_entry(f, k, i, tname, err, cap);
    free(f);
  }
  free(ops);
  return s;
}

int ks_ir_is_kernel(LLVMModuleRef m, LLVMValueRef fn) {
  unsigned own = 0;
  return LLVMGetFunctionCallConv(fn) == CC_PTX_KERNEL ||
         scan_annotations(m, fn, &own);
}

static int scalar_type(LLVMTypeRef ty, ks_type *out);

/* The type of a marked parameter: the scalars a KS_PARAM marking takes. */
static int arg_type(LLVMValueRef arg, ks_type *out) {
  ks_type t;
  if (!scalar_type(LLVMTypeOf(arg), &t) ||
      (t != KS_TYPE_I32 && t != KS_TYPE_I64 && t != KS_TYPE_F32 &&
       t != KS_TYPE_F64))
    return 0;
  *out = t;
  return 1;
}

int ks_ir_value_fits(ks_type ty, double v) {
  if (!isfinite(v))
    return 0;
  if (ty == KS_TYPE_I32)
    return v == floor(v) && v >= -2147483648.0 && v <= 2147483647.0;
  if (ty == KS_TYPE_I64)
    return v == floor(v) && v >= -9223372036854775808.0 &&
           v < 9223372036854775808.0;
  return 1;
}

void ks_ir_type_range(ks_type ty, ks_ir_sign sign, double *min, double *max) {
  static const struct {
    ks_type ty;
    double lo, hi, uhi; /* signed range, unsigned top */
  } r[] = {
      {KS_TYPE_BOOL, 0, 1, 1},
      {KS_TYPE_I8, -128.0, 127.0, 255.0},
      {KS_TYPE_I16, -32768.0, 32767.0, 65535.0},
      {KS_TYPE_I32, -2147483648.0, 2147483647.0, 4294967295.0},
      {KS_TYPE_I64, -9223372036854775808.0, 9223372036854775807.0,
       18446744073709551615.0},
      {KS_TYPE_F16, -65504.0, 65504.0, 65504.0},
      {KS_TYPE_F32, -3.4028234663852886e38, 3.4028234663852886e38, 0},
      {KS_TYPE_F64, -1.7976931348623157e308, 1.7976931348623157e308, 0},
  };
  for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
    if (r[i].ty == ty) {
      int u = sign == KS_IR_UNSIGNED && r[i].uhi > 0;
      int any = sign == KS_IR_SIGN_UNKNOWN && r[i].uhi > 0;
      *min = u ? 0 : r[i].lo;
      *max = u || any ? r[i].uhi : r[i].hi;
      return;
    }
  *min = *max = 0;
}

/* The scalar type of an IR type: 1 when it is one kspec binds. */
static int scalar_type(LLVMTypeRef ty, ks_type *out) {
  switch (LLVMGetTypeKind(ty)) {
  case LLVMIntegerTypeKind:
    switch (LLVMGetIntTypeWidth(ty)) {
    case 1:
      return *out = KS_TYPE_BOOL, 1;
    case 8:
      return *out = KS_TYPE_I8, 1;
    case 16:
      return *out = KS_TYPE_I16, 1;
    case 32:
      return *out = KS_TYPE_I32, 1;
    case 64:
      return *out = KS_TYPE_I64, 1;
    default:
      return 0;
    }
  case LLVMHalfTypeKind:
    return *out = KS_TYPE_F16, 1;
  case LLVMFloatTypeKind:
    return *out = KS_TYPE_F32, 1;
  case LLVMDoubleTypeKind:
    return *out = KS_TYPE_F64, 1;
  default:
    return 0;
  }
}

static int has_attr(LLVMValueRef fn, unsigned i, const char *name) {
  unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
  return kind && LLVMGetEnumAttributeAtIndex(fn, i + 1, kind) != NULL;
}

void ks_ir_arg_label(ks_ir_arg *a, unsigned i) {
  snprintf(a->label, sizeof a->label, "@%u", i);
}

void ks_ir_arg_describe(LLVMValueRef fn, unsigned i, ks_ir_arg *a) {
  LLVMTypeRef ty = LLVMTypeOf(LLVMGetParam(fn, i));
  LLVMTypeKind tk = LLVMGetTypeKind(ty);
  a->type = KS_TYPE_I32;
  a->sign = KS_IR_SIGNED;
  a->pointer = tk == LLVMPointerTypeKind;
  if (scalar_type(ty, &a->type)) {
    a->kind = KS_IR_ARG_SCALAR;
    /* clang marks bool, unsigned char and unsigned short zeroext, and
     * the signed small integers signext; int and long it leaves alone */
    int integral = a->type != KS_TYPE_F16 && a->type != KS_TYPE_F32 &&
                   a->type != KS_TYPE_F64;
    if (a->type == KS_TYPE_BOOL || (integral && has_attr(fn, i, "zeroext")))
      a->sign = KS_IR_UNSIGNED;
    else if (integral && !has_attr(fn, i, "signext"))
      a->sign = KS_IR_SIGN_UNKNOWN;
  } else if (tk == LLVMPointerTypeKind) {
    a->kind =
        has_attr(fn, i, "byval") ? KS_IR_ARG_AGGREGATE : KS_IR_ARG_POINTER;
  } else if (tk == LLVMStructTypeKind || tk == LLVMArrayTypeKind) {
    a->kind = KS_IR_ARG_AGGREGATE;
  } else {
    a->kind = KS_IR_ARG_OTHER;
  }
}

/* libstdc++'s (and libc++abi's) demangler, linked with LLVM. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
                            int *status);

char *ks_ir_demangle(const char *name) {
  if (strncmp(name, "_Z", 2) != 0)
    return NULL;
  int st = 0;
  char *d = __cxa_demangle(name, NULL, NULL, &st);
  if (st != 0 || !d) {
    free(d);
    return NULL;
  }
  /* A function template's mangling carries its return type: "void
   * scale<float, 4>(float*, int)". A kernel returns void. */
  if (strncmp(d, "void ", 5) == 0 && strchr(d, '<') && strchr(d, '<') > d + 5)
    memmove(d, d + 5, strlen(d + 5) + 1);
  return d;
}

static int parse_num(const char *s, double *out) {
  char *end = NULL;
  if (!s)
    return 0;
  *out = strtod(s, &end);
  return end != s && *end == '\0' && isfinite(*out);
}

static ks_ir_kernel *find_kernel(ks_ir_desc *d, const char *name) {
  for (size_t i = 0; i < d->nkernels; i++)
    if (strcmp(d->kernels[i].name, name) == 0)
      return &d->kernels[i];
  return NULL;
}

static int find_arg(LLVMValueRef fn, const char *name, unsigned *idx) {
  unsigned n = LLVMCountParams(fn);
  for (unsigned i = 0; i < n; i++) {
    size_t len = 0;
    const char *an = LLVMGetValueName2(LLVMGetParam(fn, i), &len);
    if (len == strlen(name) && memcmp(an, name, len) == 0)
      return *idx = i, 1;
  }
  return 0;
}

/* Has fn arguments and none of them a name? clang drops the names of
 * values (arguments included) unless told -fno-discard-value-names. */
static int args_unnamed(LLVMValueRef fn) {
  unsigned n = LLVMCountParams(fn);
  for (unsigned i = 0; i < n; i++) {
    size_t len = 0;
    LLVMGetValueName2(LLVMGetParam(fn, i), &len);
    if (len)
      return 0;
  }
  return n > 0;
}

/* Fills p from the words of one "kspec.param" marking of kernel fn. */
static ks_status parse_param(LLVMValueRef fn, const ks_ir_kernel *k,
                             char *words, ks_ir_param *p, const char *tname,
                             char *err, size_t cap) {
  char *save = NULL;
  char *name = strtok_r(words, " ", &save);
  char *w[4] = {0};
  for (int i = 0; i < 4; i++)
    w[i] = strtok_r(NULL, " ", &save);
  char *extra = strtok_r(NULL, " ", &save);
  if (!name || !parse_num(w[0], &p->def) || !parse_num(w[1], &p->min) ||
      !parse_num(w[2], &p->max) || extra)
    return ks_ir_fail(err, cap, KS_ETEMPLATE,
                      "template: %s: kernel '%s': malformed parameter marking "
                      "(want NAME DEFAULT MIN MAX [block_x|block_xy])",
                      tname, k->name);
  if (!find_arg(fn, name, &p->arg_index))
    return ks_ir_fail(err, cap, KS_ETEMPLATE,
                      "template: %s: kernel '%s': parameter '%s' is not an "
                      "argument of the kernel%s",
                      tname, k->name, name,
                      args_unnamed(fn)
                          ? " (its arguments have no names in the "
                            "IR: compile the template with clang's "
                            "-fno-discard-value-names)"
                          : "");
  if (!arg_type(LLVMGetParam(fn, p->arg_index), &p->type))
    return ks_ir_fail(err, cap, KS_ETEMPLATE,
                      "template: %s: kernel '%s': parameter '%s' must be a "
                      "32/64-bit integer, float or double",
                      tname, k->name, name);
  p->flags = 0;
  if (w[3] && strcmp(w[3], "block_x") == 0)
    p->flags = KS_PARAM_BLOCK_X;
  else if (w[3] && strcmp(w[3], "block_xy") == 0)
    p->flags = KS_PARAM_BLOCK_X | KS_PARAM_BLOCK_Y;
  else if (w[3])
    return ks_ir_fail(err, cap, KS_ETEMPLATE,
                      "template: %s: parameter '%s': unknown flag '%s'", tname,
                      name, w[3]);
  if (!(p->min <= p->def && p->def <= p->max) ||
      !ks_ir_value_fits(p->type, p->min) ||
      !ks_ir_value_fits(p->type, p->max) ||
      !ks_ir_value_fits(p->type, p->def) || (p->flags && p->min < 1))
    return ks_ir_fail(
        err, cap, KS_ETEMPLATE,
        "template: %s: parameter '%s': need MIN <= DEFAULT <= MAX "
        "within its type (got %.15g %.15g %.15g)",
        tname, name, p->def, p->min, p->max);
  for (size_t i = 0; i < k->nparams; i++)
    if (k->params[i].arg_index == p->arg_index)
      return ks_ir_fail(err, cap, KS_ETEMPLATE,
                        "template: %s: parameter '%s' marked twice", tname,
                        name);
  p->name = strdup(name);
  return p->name ? KS_OK : KS_ENOMEM;
}

/* Applies one annotation string to kernel k (function fn). */
static ks_status apply_marking(LLVMValueRef fn, ks_ir_kernel *k,
                               const char *text, size_t len, const char *tname,
                               char *err, size_t cap) {
  static const char param[] = "kspec.param ", doc[] = "kspec.doc ";
  if (len >= sizeof doc - 1 && memcmp(text, doc, sizeof doc - 1) == 0) {
    free(k->doc);
    k->doc = strndup(text + sizeof doc - 1, len - (sizeof doc - 1));
    return k->doc ? KS_OK : KS_ENOMEM;
  }
  if (len < sizeof param - 1 || memcmp(text, param, sizeof param - 1) != 0) {
    if (len > 6 && memcmp(text, "kspec.", 6) == 0)
      return ks_ir_fail(err, cap, KS_ETEMPLATE,
                        "template: %s: kernel '%s': unknown marking '%.*s'",
                        tname, k->name, (int)strcspn(text, " "), text);
    return KS_OK; /* someone else's annotation */
  }
  char *words = strndup(text + sizeof param - 1, len - (sizeof param - 1));
  ks_ir_param *grown = realloc(k->params, (k->nparams + 1) * sizeof *k->params);
  if (!words || !grown) {
    free(words);
    if (grown)
      k->params = grown;
    return ks_ir_fail(err, cap, KS_ENOMEM, "template: out of memory");
  }
  k->params = grown;
  ks_ir_param *p = &k->params[k->nparams];
  memset(p, 0, sizeof *p);
  ks_status s = parse_param(fn, k, words, p, tname, err, cap);
  free(words);
  if (s == KS_OK)
    k->nparams++;
  return s;
}

/* The string of an annotation operand: a global holding a C string. */
static const char *annotation_text(LLVMValueRef v, size_t *len) {
  if (!v || !LLVMIsAGlobalVariable(v) || !LLVMGetInitializer(v))
    return NULL;
  LLVMValueRef init = LLVMGetInitializer(v);
  if (!LLVMIsAConstantDataSequential(init) || !LLVMIsConstantString(init))
    return NULL;
  const char *s = LLVMGetAsString(init, len);
  while (*len && s[*len - 1] == '\0')
    (*len)--;
  return s;
}

static ks_status read_markings(LLVMModuleRef m, ks_ir_desc *d,
                               const char *tname, char *err, size_t cap) {
  LLVMValueRef ga = LLVMGetNamedGlobal(m, "llvm.global.annotations");
  LLVMValueRef init = ga ? LLVMGetInitializer(ga) : NULL;
  if (!init || LLVMIsAConstantAggregateZero(init))
    return KS_OK;
  if (!LLVMIsAConstantArray(init))
    return KS_OK;
  int n = LLVMGetNumOperands(init);
  for (int i = 0; i < n; i++) {
    LLVMValueRef e = LLVMGetOperand(init, i);
    if (!LLVMIsAConstantStruct(e) || LLVMGetNumOperands(e) < 2)
      continue;
    LLVMValueRef fn = LLVMGetOperand(e, 0);
    if (!LLVMIsAFunction(fn))
      continue;
    size_t len = 0, nlen = 0;
    const char *text = annotation_text(LLVMGetOperand(e, 1), &len);
    const char *fname = LLVMGetValueName2(fn, &nlen);
    if (!text)
      continue;
    ks_ir_kernel *k = find_kernel(d, fname);
    if (!k) {
      if (len > 6 && memcmp(text, "kspec.", 6) == 0)
        return ks_ir_fail(err, cap, KS_ETEMPLATE,
                          "template: %s: '%s' has kspec markings but is not a "
                          "kernel",
                          tname, fname);
      continue;
    }
    ks_status s = apply_marking(fn, k, text, len, tname, err, cap);
    if (s != KS_OK)
      return s;
  }
  return KS_OK;
}

/* What a C++ kernel's symbol says of the signedness of its integer
 * arguments the IR says nothing of. */
static void read_signs(ks_ir_kernel *k) {
  signed char sign[256];
  if (!k->display || k->nargs > sizeof sign ||
      !ks_ir_signature_signs(k->display, k->nargs, sign))
    return;
  for (unsigned i = 0; i < k->nargs; i++)
    if (k->args[i].sign == KS_IR_SIGN_UNKNOWN && sign[i] >= 0)
      k->args[i].sign = sign[i] ? KS_IR_UNSIGNED : KS_IR_SIGNED;
}

/* Does the call c read %envreg: the intrinsic, or inline asm naming it
 * (cooperative groups' driver_abi.h)? Else its callee with a body, in
 * *callee. */
static int call_reads_envreg(LLVMValueRef c, LLVMValueRef *callee) {
  static const char sreg[] = "llvm.nvvm.read.ptx.sreg.envreg";
  LLVMValueRef f = LLVMGetCalledValue(c);
  size_t len = 0;
  *callee = NULL;
  if (f && LLVMIsAInlineAsm(f)) {
    const char *a = LLVMGetInlineAsmAsmString(f, &len);
    for (size_t i = 0; a && i + 7 <= len; i++)
      if (memcmp(a + i, "%envreg", 7) == 0)
        return 1;
    return 0;
  }
  if (!f || !LLVMIsAFunction(f))
    return 0;
  const char *name = LLVMGetValueName2(f, &len);
  if (len >= sizeof sreg - 1 && memcmp(name, sreg, sizeof sreg - 1) == 0)
    return 1;
  if (!LLVMIsDeclaration(f))
    *callee = f;
  return 0;
}

/* Whether fn, or a function it calls (directly), reads %envreg. The
 * functions met are kept in a list; templates have few. */
static int reaches_envreg(LLVMValueRef fn) {
  LLVMValueRef *seen = malloc(16 * sizeof *seen);
  size_t n = 0, cap = 16, next = 0;
  int found = 0;
  if (!seen)
    return 1; /* out of memory: the PTX decides at launch */
  seen[n++] = fn;
  while (!found && next < n) {
    LLVMValueRef f = seen[next++];
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b && !found;
         b = LLVMGetNextBasicBlock(b))
      for (LLVMValueRef i = LLVMGetFirstInstruction(b); i && !found;
           i = LLVMGetNextInstruction(i)) {
        LLVMValueRef callee = NULL;
        if (!LLVMIsACallInst(i) && !LLVMIsAInvokeInst(i))
          continue;
        found = call_reads_envreg(i, &callee);
        size_t j = 0;
        while (callee && j < n && seen[j] != callee)
          j++;
        if (!callee || j < n)
          continue;
        if (n == cap) {
          LLVMValueRef *g = realloc(seen, 2 * cap * sizeof *seen);
          if (!g) {
            found = 1;
            break;
          }
          seen = g;
          cap *= 2;
        }
        seen[n++] = callee;
      }
  }
  free(seen);
  return found;
}

static ks_status add_kernel(ks_ir_desc *d, LLVMValueRef fn, unsigned own) {
  ks_ir_kernel *grown =
      realloc(d->kernels, (d->nkernels + 1) * sizeof *d->kernels);
  if (!grown)
    return KS_ENOMEM;
  d->kernels = grown;
  ks_ir_kernel *k = &d->kernels[d->nkernels];
  memset(k, 0, sizeof *k);
  size_t len = 0;
  const char *name = LLVMGetValueName2(fn, &len);
  k->name = strndup(name, len);
  k->display = k->name ? ks_ir_demangle(k->name) : NULL;
  k->nargs = LLVMCountParams(fn);
  k->own_bounds = own;
  k->grid_sync = reaches_envreg(fn);
  d->nkernels++; /* from here on freed by ks_ir_desc_free */
  if (!k->name)
    return KS_ENOMEM;
  k->args = calloc(k->nargs ? k->nargs : 1, sizeof *k->args);
  if (!k->args)
    return KS_ENOMEM;
  for (unsigned i = 0; i < k->nargs; i++) {
    const char *an = LLVMGetValueName2(LLVMGetParam(fn, i), &len);
    ks_ir_arg_describe(fn, i, &k->args[i]);
    if (!(k->args[i].name = strndup(an, len)))
      return KS_ENOMEM;
    ks_ir_arg_label(&k->args[i], i);
  }
  read_signs(k);
  return KS_OK;
}

ks_status ks_ir_discover(LLVMModuleRef m, const char *name, ks_ir_desc *out,
                         char *err, size_t cap) {
  memset(out, 0, sizeof *out);
  ks_status cs = check_annotations(m, name, err, cap);
  if (cs != KS_OK)
    return cs;
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn;
       fn = LLVMGetNextFunction(fn)) {
    unsigned own = 0; /* one scan of nvvm.annotations per function */
    int kernel = scan_annotations(m, fn, &own);
    if (!kernel && LLVMGetFunctionCallConv(fn) != CC_PTX_KERNEL)
      continue;
    size_t len = 0;
    const char *fname = LLVMGetValueName2(fn, &len);
    LLVMTypeRef fty = LLVMGlobalGetValueType(fn);
    const char *why =
        LLVMIsDeclaration(fn) ? "has no body"
        : LLVMGetTypeKind(LLVMGetReturnType(fty)) != LLVMVoidTypeKind
            ? "returns a value (a kernel returns void)"
        : LLVMIsFunctionVarArg(fty) ? "takes variable arguments (...)"
                                    : NULL;
    if (why) {
      ks_ir_desc_free(out);
      return ks_ir_fail(err, cap, KS_ETEMPLATE,
                        "template: %s: kernel '%.*s' %s", name, (int)len, fname,
                        why);
    }
    if (add_kernel(out, fn, own) != KS_OK) {
      ks_ir_desc_free(out);
      return ks_ir_fail(err, cap, KS_ENOMEM, "template: out of memory");
    }
  }
  if (out->nkernels == 0)
    return ks_ir_fail(err, cap, KS_ETEMPLATE,
                      "template: %s: no kernels (no __global__ function)",
                      name);
  ks_status s = read_markings(m, out, name, err, cap);
  if (s != KS_OK)
    ks_ir_desc_free(out);
  return s;
}

void ks_ir_desc_free(ks_ir_desc *d) {
  if (!d)
    return;
  for (size_t i = 0; i < d->nkernels; i++) {
    ks_ir_kernel *k = &d->kernels[i];
    for (size_t j = 0; j < k->nparams; j++)
      free(k->params[j].name);
    free(k->params);
    for (unsigned j = 0; k->args && j < k->nargs; j++)
      free(k->args[j].name);
    free(k->args);
    free(k->name);
    free(k->display);
    free(k->doc);
  }
  free(d->kernels);
  ks_ir_globals_free(d);
  memset(d, 0, sizeof *d);
}
