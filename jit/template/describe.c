/*
 * describe.c - what a loaded template says of itself: its kernels, found by
 * symbol, by demangled C++ name or by an unambiguous prefix of it, and
 * their parameters, which are all of their scalar arguments: the marked
 * ones (KS_PARAM) with a default and a range of their own, the others
 * with their type's range.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/ks_jit.h"

size_t ks_template_kernel_count(const ks_template *t) {
  return t ? t->desc.nkernels : 0;
}

const char *ks_template_kernel_name(const ks_template *t, size_t i) {
  return t && i < t->desc.nkernels ? t->desc.kernels[i].name : NULL;
}

const char *ks_template_kernel_display(const ks_template *t, size_t i) {
  if (!t || i >= t->desc.nkernels)
    return NULL;
  const ks_ir_kernel *k = &t->desc.kernels[i];
  return k->display ? k->display : k->name;
}

const char *ks_template_kernel_doc(const ks_template *t, size_t i) {
  if (!t || i >= t->desc.nkernels)
    return NULL;
  return t->desc.kernels[i].doc ? t->desc.kernels[i].doc : "";
}

int ks_template_kernel_cooperative(const ks_template *t, size_t i) {
  return t && i < t->desc.nkernels && t->desc.kernels[i].grid_sync;
}

/* ---- kernels by name ------------------------------------------------------
 *
 * A C++ kernel's symbol is mangled ("_Z5scaleIfLi4EEvPT_i"); people write
 * "scale<float, 4>", "scale<float,4>" or "scale". Names are compared in
 * place, whatever their length, with the blanks after commas and between
 * two closing brackets ("> >", ">>") skipped on both sides; a name without
 * an argument list is compared with the demangled name up to its own list,
 * and a prefix may leave out a leading "(anonymous namespace)::".
 */

static const char anon_ns[] = "(anonymous namespace)::";
enum { ANON_LEN = sizeof anon_ns - 1 };
#define NO_MATCH ((size_t)-1)

/* Where s's comparison goes on after character i - 1 (prev): past the
 * blanks that follow a comma or that separate two '>'. */
static size_t skip_blanks(const char *s, size_t i, size_t end, char prev) {
  size_t k = i;
  while (k < end && s[k] == ' ')
    k++;
  if (prev == ',' || (prev == '>' && k < end && s[k] == '>'))
    return k;
  return i;
}

/* Matches all of q against the start of d[0, end): where in d the match
 * ends, or NO_MATCH. */
static size_t name_prefix(const char *d, size_t end, const char *q) {
  size_t i = 0, j = 0;
  while (q[j]) {
    if (i >= end || d[i] != q[j])
      return NO_MATCH;
    char c = q[j];
    i = skip_blanks(d, i + 1, end, c);
    j = skip_blanks(q, j + 1, (size_t)-1, c);
  }
  return i;
}

/* Where the argument list of a demangled name begins: the '(' that the
 * final ')' closes (a name may begin with "(anonymous namespace)", an
 * operator() has its own, an argument type may hold parentheses). */
static size_t name_part(const char *d) {
  size_t n = strlen(d);
  if (n == 0 || d[n - 1] != ')')
    return n;
  int depth = 0;
  for (size_t i = n; i-- > 0;) {
    if (d[i] == ')')
      depth++;
    else if (d[i] == '(' && --depth == 0)
      return i;
  }
  return n;
}

/* How kernel k matches q: 3 its symbol or whole demangled name, 2 its name
 * without the argument list, 1 a prefix of that ending where a template
 * list or the argument list begins (or the name without the argument list
 * less its anonymous namespace), 0 another prefix, -1 not at all. */
static int match(const ks_ir_kernel *k, const char *q) {
  if (strcmp(k->name, q) == 0)
    return 3;
  if (!k->display)
    return strncmp(k->name, q, strlen(q)) == 0 ? 0 : -1;
  const char *d = k->display;
  size_t dl = strlen(d), np = name_part(d);
  if (name_prefix(d, dl, q) == dl)
    return 3;
  size_t at = name_prefix(d, np, q);
  if (at == np)
    return 2;
  if (at == NO_MATCH && strncmp(d, anon_ns, ANON_LEN) == 0) {
    d += ANON_LEN;
    np -= ANON_LEN;
    at = name_prefix(d, np, q);
    if (at == np)
      return 1;
  }
  if (at == NO_MATCH)
    return -1;
  return d[at] == '<' ? 1 : 0;
}

static ks_status no_kernel(const ks_template *t, const char *name,
                           const long *cand, size_t n) {
  char list[512] = "";
  size_t used = 0;
  size_t total = n ? n : t->desc.nkernels;
  for (size_t i = 0; i < total && used < sizeof list - 1; i++) {
    size_t ki = n ? (size_t)cand[i] : i;
    used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
                             i ? ", " : "", ks_template_kernel_display(t, ki));
  }
  if (n)
    return ks_jit_fail(KS_ENOKERNEL,
                       "specialize: %s: kernel name '%s' is ambiguous: %s",
                       t->name, name, list);
  return ks_jit_fail(KS_ENOKERNEL,
                     "specialize: %s has no kernel '%s' (kernels: %s)", t->name,
                     name, list);
}

long ks_jit_kernel_index(const ks_template *t, const char *name) {
  if (!name) {
    if (t->desc.nkernels == 1)
      return 0;
    ks_jit_fail(KS_ENOKERNEL,
                "specialize: %s has %zu kernels; name one (--kernel)", t->name,
                t->desc.nkernels);
    return -1;
  }
  for (size_t i = 0; i < t->desc.nkernels; i++)
    if (strcmp(t->desc.kernels[i].name, name) == 0)
      return (long)i;
  /* the candidates of the best kind of match */
  long cand[16];
  size_t n = 0;
  int best = -1;
  for (size_t i = 0; i < t->desc.nkernels; i++) {
    int m = name[0] ? match(&t->desc.kernels[i], name) : -1;
    if (m < 0 || m < best)
      continue;
    if (m > best)
      n = 0, best = m;
    if (n < sizeof cand / sizeof cand[0])
      cand[n++] = (long)i;
  }
  if (n == 1)
    return cand[0];
  no_kernel(t, name, cand, n);
  return -1;
}

/* ---- parameters ---------------------------------------------------------- */

const ks_ir_param *ks_jit_marking(const ks_ir_kernel *k, unsigned arg) {
  for (size_t i = 0; i < k->nparams; i++)
    if (k->params[i].arg_index == arg)
      return &k->params[i];
  return NULL;
}

/* Argument position of unmarked parameter number i, or -1. */
static long unmarked_arg(const ks_ir_kernel *k, size_t i) {
  for (unsigned a = 0; a < k->nargs; a++)
    if (k->args[a].kind == KS_IR_ARG_SCALAR && !ks_jit_marking(k, a) &&
        i-- == 0)
      return a;
  return -1;
}

size_t ks_template_param_count(const ks_template *t, size_t kernel) {
  if (!t || kernel >= t->desc.nkernels)
    return 0;
  const ks_ir_kernel *k = &t->desc.kernels[kernel];
  size_t n = k->nparams;
  for (unsigned a = 0; a < k->nargs; a++)
    n += k->args[a].kind == KS_IR_ARG_SCALAR && !ks_jit_marking(k, a);
  return n;
}

/* The public form of an argument's signedness. */
static void sign_info(const ks_ir_arg *a, ks_param_info *out) {
  out->is_unsigned = a->sign == KS_IR_UNSIGNED;
  out->sign_unknown = a->sign == KS_IR_SIGN_UNKNOWN;
}

static ks_status param_info(const ks_template *t, size_t kernel, size_t i,
                            ks_param_info *out) {
  if (!t || kernel >= t->desc.nkernels ||
      i >= ks_template_param_count(t, kernel))
    return ks_jit_fail(KS_EINVAL, "template: no parameter %zu of kernel %zu", i,
                       kernel);
  const ks_ir_kernel *k = &t->desc.kernels[kernel];
  if (i < k->nparams) {
    const ks_ir_param *p = &k->params[i];
    *out = (ks_param_info){.name = p->name,
                           .kernel = k->name,
                           .type = p->type,
                           .arg_index = p->arg_index,
                           .flags = p->flags,
                           .def = p->def,
                           .min = p->min,
                           .max = p->max,
                           .marked = 1};
    sign_info(&k->args[p->arg_index], out);
    return KS_OK;
  }
  const ks_ir_arg *a = &k->args[unmarked_arg(k, i - k->nparams)];
  *out = (ks_param_info){.name = a->name[0] ? a->name : a->label,
                         .kernel = k->name,
                         .type = a->type,
                         .arg_index = (unsigned)(a - k->args)};
  sign_info(a, out);
  ks_ir_type_range(a->type, a->sign, &out->min, &out->max);
  return KS_OK;
}

ks_status ks_template_param(const ks_template *t, size_t kernel, size_t i,
                            ks_param_info *out) {
  ks_status s = KS_OUT_CHECK(out, "template", ks_param_info);
  ks_param_info full;
  if (s == KS_OK)
    s = param_info(t, kernel, i, &full);
  if (s == KS_OK)
    ks_jit_out_put(out, &full, sizeof full);
  return s;
}

void ks_jit_range_text(ks_type ty, ks_ir_sign sign, int marked, double min,
                       double max, char *buf, size_t cap) {
  static const struct {
    ks_type ty;
    unsigned bits;
  } ints[] = {{KS_TYPE_BOOL, 1},
              {KS_TYPE_I8, 8},
              {KS_TYPE_I16, 16},
              {KS_TYPE_I32, 32},
              {KS_TYPE_I64, 64}};
  for (size_t i = 0; !marked && i < sizeof ints / sizeof ints[0]; i++) {
    if (ints[i].ty != ty)
      continue;
    /* exactly: a double rounds 2^63 - 1 */
    unsigned b = ints[i].bits;
    unsigned long long top = b == 64 ? ~0ull : (1ull << b) - 1;
    if (sign == KS_IR_UNSIGNED || b == 1)
      snprintf(buf, cap, "[0, %llu]", top);
    else
      snprintf(buf, cap, "[%lld, %llu]", -(long long)(top >> 1) - 1,
               sign == KS_IR_SIGN_UNKNOWN ? top : top >> 1);
    return;
  }
  snprintf(buf, cap, "[%.15g, %.15g]", min, max);
}

const char *ks_type_name(ks_type ty) {
  static const char *const names[] = {"int32", "int64", "float", "double",
                                      "int8",  "int16", "half",  "bool"};
  return (unsigned)ty < sizeof names / sizeof names[0] ? names[ty] : "?";
}

/* ---- arguments by name or position --------------------------------------- */

/* A kernel as messages name it. */
static const char *shown(const ks_ir_kernel *k) {
  return k->display ? k->display : k->name;
}

/* "@3" -> 3; -1 when s is not '@' and digits. */
static long position(const char *s) {
  if (s[0] != '@' || s[1] < '0' || s[1] > '9')
    return -1;
  long v = 0;
  for (const char *p = s + 1; *p; p++) {
    if (*p < '0' || *p > '9' || v > 100000)
      return -1;
    v = v * 10 + (*p - '0');
  }
  return v;
}

static int all_unnamed(const ks_ir_kernel *k) {
  for (unsigned a = 0; a < k->nargs; a++)
    if (k->args[a].name[0])
      return 0;
  return k->nargs > 0;
}

static ks_status unknown_arg(const ks_template *t, const ks_ir_kernel *k,
                             const char *name) {
  char list[256] = "";
  size_t used = 0;
  for (unsigned a = 0; a < k->nargs && used < sizeof list - 1; a++)
    if (k->args[a].kind == KS_IR_ARG_SCALAR)
      used += (size_t)snprintf(
          list + used, sizeof list - used, "%s%s", used ? ", " : "",
          k->args[a].name[0] ? k->args[a].name : k->args[a].label);
  return ks_jit_fail(KS_EPARAM,
                     "bind: %s: kernel '%s' has no parameter '%s' "
                     "(parameters: %s)",
                     t->name, shown(k), name, used ? list : "none");
}

/* Argument a, if a number can be bound to it. */
static ks_status scalar_arg(const ks_template *t, const ks_ir_kernel *k,
                            unsigned a, unsigned *arg) {
  const ks_ir_arg *x = &k->args[a];
  char what[96];
  if (x->name[0])
    snprintf(what, sizeof what, "'%s' (%s)", x->name, x->label);
  else
    snprintf(what, sizeof what, "%s", x->label);
  switch (x->kind) {
  case KS_IR_ARG_SCALAR:
    *arg = a;
    return KS_OK;
  case KS_IR_ARG_POINTER:
    return ks_jit_fail(KS_EPARAM,
                       "bind: %s: argument %s of kernel '%s' is a pointer: "
                       "it takes no number (give a read-only buffer's "
                       "contents with --bake, ks_bake)",
                       t->name, what, shown(k));
  case KS_IR_ARG_AGGREGATE:
    return ks_jit_fail(KS_EPARAM,
                       "bind: %s: argument %s of kernel '%s' is a struct "
                       "passed by value: it takes no number",
                       t->name, what, shown(k));
  default:
    return ks_jit_fail(KS_EPARAM,
                       "bind: %s: argument %s of kernel '%s' is not a scalar "
                       "kspec binds (integer, half, float, double)",
                       t->name, what, shown(k));
  }
}

ks_status ks_jit_arg_of(const ks_template *t, const ks_ir_kernel *k,
                        const char *name, int pos, unsigned *arg) {
  char spelled[24];
  if (name && name[0] == '@') {
    long p = position(name);
    if (p < 0)
      return ks_jit_fail(KS_EPARAM,
                         "bind: %s: '%s' is not a position (@0, @1, ...)",
                         t->name, name);
    pos = p > 100000 ? 100000 : (int)p;
  } else if (name) {
    pos = -1;
    for (unsigned a = 0; a < k->nargs && pos < 0; a++)
      if (name[0] && strcmp(k->args[a].name, name) == 0)
        pos = (int)a;
    if (pos >= 0)
      return scalar_arg(t, k, (unsigned)pos, arg);
    if (all_unnamed(k))
      return ks_jit_fail(KS_EPARAM,
                         "bind: %s: kernel '%s' has no argument names in its "
                         "IR, so '%s' cannot be found: compile it with "
                         "clang's -fno-discard-value-names, or bind by "
                         "position (@0..@%u)",
                         t->name, shown(k), name, k->nargs - 1);
    return unknown_arg(t, k, name);
  }
  snprintf(spelled, sizeof spelled, "@%d", pos);
  if (pos < 0 || (unsigned)pos >= k->nargs)
    return ks_jit_fail(KS_EPARAM,
                       "bind: %s: position %s is out of range: kernel '%s' "
                       "has %u argument%s%s",
                       t->name, spelled, shown(k), k->nargs,
                       k->nargs == 1 ? "" : "s",
                       k->nargs ? "" : " (none to bind)");
  return scalar_arg(t, k, (unsigned)pos, arg);
}

ks_status ks_jit_arg_at(const ks_template *t, long ki, const char *name,
                        int pos, unsigned *arg) {
  return ks_jit_arg_of(t, &t->desc.kernels[ki], name, pos, arg);
}

ks_status ks_jit_buffer_at(const ks_template *t, long ki, const char *name,
                           unsigned *arg) {
  const ks_ir_kernel *k = &t->desc.kernels[ki];
  char *end = NULL;
  long at = name[0] == '@' ? strtol(name + 1, &end, 10) : -1;
  for (unsigned a = 0; a < k->nargs; a++)
    if ((end && !*end && name[1] ? at == (long)a
                                 : strcmp(k->args[a].name, name) == 0) &&
        k->args[a].pointer) {
      *arg = a;
      return KS_OK;
    }
  return ks_jit_fail(KS_EPARAM, "kernel '%s' has no buffer argument '%s'",
                     k->name, name);
}

void ks_jit_template_hash(const ks_template *t, uint64_t hash[2]) {
  hash[0] = t->hash[0];
  hash[1] = t->hash[1];
}
