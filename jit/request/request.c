/*
 * request.c - a specialization request checked against its template and
 * the context's target (request.h's ks_request): the kernel, each binding's
 * syntax, type and range, launch bounds, shared-memory spilling, passes
 * switched off and baked buffers. Every check happens here, before any
 * LLVM work, so bad input costs microseconds and never reaches LLVM.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/request/request.h"

enum { MAX_BAKE_VALUES = 65536 };

/* A parameter as a binding sees it: the argument's marking, or its type's
 * range when it has none. */
typedef struct param {
  const char *name; /* the marking's or argument's name, else "@N" */
  ks_type type;
  ks_ir_sign sign;
  unsigned arg_index, flags;
  double min, max;
  int marked;
} param;

static void param_of(const ks_ir_kernel *k, unsigned a, param *p) {
  const ks_ir_arg *x = &k->args[a];
  const ks_ir_param *m = ks_jit_marking(k, a);
  *p = (param){.name = x->name[0] ? x->name : x->label,
               .type = x->type,
               .sign = x->sign,
               .arg_index = a};
  ks_ir_type_range(x->type, x->sign, &p->min, &p->max);
  if (m) {
    p->name = m->name;
    p->marked = 1;
    p->flags = m->flags;
    p->min = m->min;
    p->max = m->max;
  }
}

/* Text for an integer: signed, or up to 2^64 - 1 for a 64-bit argument
 * that may be unsigned (held as its bit pattern); "true" and "false" for
 * a bool. */
static const char *parse_int(const param *p, const char *s, int64_t *i,
                             double *out) {
  char *end = NULL;
  errno = 0;
  if (p->type == KS_TYPE_BOOL &&
      (strcmp(s, "true") == 0 || strcmp(s, "false") == 0)) {
    *i = s[0] == 't';
    *out = (double)*i;
    return s + strlen(s);
  }
  if (p->sign != KS_IR_SIGNED && p->type == KS_TYPE_I64 && s[0] != '-') {
    unsigned long long u = strtoull(s, &end, 10);
    *i = (int64_t)u;
    *out = (double)u;
  } else {
    long long v = strtoll(s, &end, 10);
    *i = v;
    *out = (double)v;
  }
  return end;
}

static ks_status out_of_range(const ks_template *t, const param *p,
                              const char *text) {
  char range[96];
  ks_jit_range_text(p->type, p->sign, p->marked, p->min, p->max, range,
                    sizeof range);
  return ks_jit_fail(KS_ERANGE, "bind: %s: %s=%s out of range %s", t->name,
                     p->name, text, range);
}

/* Converts one binding to a number, checking its syntax, type and range.
 * Integers are kept exactly in *i (a double cannot hold every int64). */
static ks_status binding_number(const ks_template *t, const param *p,
                                const ks_binding *b, double *out, int64_t *i) {
  int integral = ks_req_integral(p->type);
  int exact = 0; /* *i holds the value exactly */
  char text[64];
  if (b->kind == KS_VALUE_INT) {
    *i = b->v.i;
    *out = (double)b->v.i;
    exact = 1;
  } else if (b->kind == KS_VALUE_REAL) {
    *out = b->v.f;
  } else if (b->kind == KS_VALUE_TEXT && b->v.s) {
    const char *end = NULL;
    errno = 0;
    if (integral) {
      end = parse_int(p, b->v.s, i, out);
      exact = 1;
    } else {
      char *e = NULL;
      *out = strtod(b->v.s, &e);
      end = e;
    }
    /* too large for the type (a real's underflow is a small value) */
    if (end != b->v.s && *end == '\0' && errno == ERANGE &&
        (integral || isinf(*out)))
      return out_of_range(t, p, b->v.s);
    if (end == b->v.s || *end != '\0' || isspace((unsigned char)b->v.s[0]))
      return ks_jit_fail(KS_EPARAM, "bind: %s: %s='%s' is not %s", t->name,
                         p->name, b->v.s, integral ? "an integer" : "a number");
  } else {
    return ks_jit_fail(KS_EPARAM, "bind: %s: %s has no value", t->name,
                       p->name);
  }
  if (!isfinite(*out) || (integral && *out != floor(*out)))
    return ks_jit_fail(KS_EPARAM, "bind: %s: %s=%g is not %s", t->name, p->name,
                       *out, integral ? "an integer" : "finite");
  int negative = exact ? *i < 0 : *out < 0;
  int u64 = p->sign != KS_IR_SIGNED && p->type == KS_TYPE_I64 && exact &&
            b->kind == KS_VALUE_TEXT && b->v.s[0] != '-';
  if (u64)
    negative = 0; /* above 2^63 - 1, held as its bit pattern */
  if (*out < p->min || *out > p->max || (p->min >= 0 && negative)) {
    if (u64)
      snprintf(text, sizeof text, "%llu", (unsigned long long)*i);
    else if (exact)
      snprintf(text, sizeof text, "%lld", (long long)*i);
    else
      snprintf(text, sizeof text, "%.17g", *out);
    return out_of_range(t, p, text);
  }
  /* A real bound to a 64-bit argument: its range's top (2^63 - 1 or
   * 2^64 - 1) is no double and rounds up to 2^63 or 2^64, which the check
   * above lets through and no conversion can hold. The limits are taken
   * as exclusive: nothing reaches 2^64, and 2^63 only a range above it. */
  if (integral && !exact && p->type == KS_TYPE_I64 &&
      (*out >= 0x1p64 || (*out >= 0x1p63 && p->max <= 0x1p63))) {
    snprintf(text, sizeof text, "%.17g", *out);
    return out_of_range(t, p, text);
  }
  if (integral && !exact) {
    /* a real with an integral value within the range: an int64 unless
     * above it, in an unsigned 64-bit argument */
    if (*out >= 9223372036854775808.0)
      *i = (int64_t)(uint64_t)*out;
    else
      *i = (int64_t)*out;
  }
  if (!integral)
    *i = 0;
  return KS_OK;
}

/* Records that a parameter fixes block component c. */
static ks_status fix_block(ks_request *r, int c, unsigned v,
                           const char *pname) {
  if (r->spec.block[c] && r->spec.block[c] != v)
    return ks_jit_fail(KS_EBOUNDS,
                       "bind: %s=%u fixes block.%c, but the request asks "
                       "for %u",
                       pname, v, "xyz"[c], r -> spec.block[c]);
  r->spec.block[c] = v;
  return KS_OK;
}

/* The spelling of binding b, for messages: its name or "@N". */
static const char *spelling(const ks_binding *b, char *buf, size_t cap) {
  if (b->name)
    return b->name;
  snprintf(buf, cap, "@%d", b->arg);
  return buf;
}

static ks_status bind_one(const ks_template *t, const ks_ir_kernel *k,
                          const ks_binding *b, size_t at,
                          const ks_spec_req *req, ks_request *r) {
  unsigned a = 0;
  ks_status s = ks_jit_arg_of(t, k, b->name, b->arg, &a);
  if (s != KS_OK)
    return s;
  param p;
  param_of(k, a, &p);
  for (size_t i = 0; i < r->nvalues; i++) {
    if (r->values[i].arg_index != a)
      continue;
    char x[24], y[24];
    const char *one = spelling(&req->bindings[r->spelled[i]], x, sizeof x);
    const char *two = spelling(b, y, sizeof y);
    if (strcmp(one, two) == 0)
      return ks_jit_fail(KS_EPARAM, "bind: %s: %s bound twice", t->name,
                         p.name);
    return ks_jit_fail(KS_EPARAM,
                       "bind: %s: %s bound twice (as '%s' and as '%s', the "
                       "same argument %s)",
                       t->name, p.name, one, two, k->args[a].label);
  }
  if (r->nvalues == KS_REQ_MAX_VALUES)
    return ks_jit_fail(KS_EPARAM, "bind: more than %d bindings",
                       KS_REQ_MAX_VALUES);
  double v = 0;
  int64_t iv = 0;
  s = binding_number(t, &p, b, &v, &iv);
  if (s != KS_OK)
    return s;
  r->spelled[r->nvalues] = at;
  ks_spec_value *sv = &r->values[r->nvalues++];
  *sv = (ks_spec_value){.arg_index = a, .type = p.type};
  sv->i = iv;
  sv->f = v;
  if (p.flags & KS_PARAM_BLOCK_X)
    s = fix_block(r, 0, (unsigned)v, p.name);
  if (s == KS_OK && (p.flags & KS_PARAM_BLOCK_Y))
    s = fix_block(r, 1, (unsigned)v, p.name);
  return s;
}

/* Resolves the names of optional passes to switch off into spec.disabled. */
static ks_status disable_passes(const ks_spec_req *req, ks_request *r) {
  if (req->nno_pass && !req->no_pass)
    return ks_jit_fail(KS_EINVAL, "specialize: no_pass is NULL");
  for (size_t i = 0; i < req->nno_pass; i++) {
    const char *name = req->no_pass[i] ? req->no_pass[i] : "(null)";
    size_t j = 0;
    while (j < ks_pipeline_stage_count() &&
           !(ks_pipeline_stage_optional(j) &&
             strcmp(ks_pipeline_stage_name(j), name) == 0))
      j++;
    if (j == ks_pipeline_stage_count()) {
      char list[256] = "";
      size_t used = 0;
      for (size_t k = 0; k < ks_pipeline_stage_count(); k++)
        if (ks_pipeline_stage_optional(k) && used < sizeof list - 1)
          used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
                                   used ? ", " : "", ks_pipeline_stage_name(k));
      return ks_jit_fail(KS_EINVAL,
                         "specialize: '%s' is not a pass that can be switched "
                         "off (those are: %s)",
                         name, used ? list : "none");
    }
    r->spec.disabled |= 1u << j;
  }
  return KS_OK;
}

/* A bake of module global g (no argument has its name): one the kernel
 * does not write, holding numbers only, with as many values as it holds
 * or none (its initializer, which must not be all zero). */
static ks_status bake_global(const ks_template *t, const ks_request *r,
                             const ks_ir_global *g, const ks_bake *b) {
  const ks_ir_kernel *k = &t->desc.kernels[r->kernel];
  if (ks_ir_global_written_by(g, (size_t)r->kernel))
    return ks_jit_fail(KS_EPARAM,
                       "bake: %s: kernel '%s' writes global '%s' (a store, "
                       "an atomic or its address passed on): only a global "
                       "it only reads can be baked",
                       t->name, k->name, g->name);
  if (!g->leaves)
    return ks_jit_fail(KS_EPARAM,
                       "bake: %s: global '%s' (%s) holds more than numbers: "
                       "it cannot be baked",
                       t->name, g->name, g->type);
  if ((b->n || b->values) && b->n != g->leaves)
    return ks_jit_fail(KS_EPARAM,
                       "bake: %s: global '%s' (%s) holds %llu values; the "
                       "bake gives %zu (give them all, or none to bake its "
                       "initializer)",
                       t->name, g->name, g->type, (unsigned long long)g->leaves,
                       b->n);
  /* clang gives a __constant__ without an initializer zeros, and the
   * host sets it (cudaMemcpyToSymbol): zeros would be a guess */
  if (!b->n && !b->values && !g->has_init)
    return ks_jit_fail(KS_EPARAM,
                       "bake: %s: global '%s' (%s) has no initializer (all "
                       "zero: the host sets it): give its values",
                       t->name, g->name, g->type);
  for (size_t j = 0; j < r->nbakes; j++)
    if (r->bakes[j].global && strcmp(r->bakes[j].global, g->name) == 0)
      return ks_jit_fail(KS_EPARAM, "bake: %s: %s baked twice", t->name,
                         g->name);
  return KS_OK;
}

/* The argument of k named name, or k->nargs. */
static unsigned arg_named(const ks_ir_kernel *k, const char *name) {
  unsigned a = 0;
  while (a < k->nargs && (!name[0] || strcmp(k->args[a].name, name) != 0))
    a++;
  return a;
}

static ks_status no_bake_target(const ks_template *t, const ks_ir_kernel *k,
                                const char *name) {
  int named = 0;
  for (unsigned j = 0; j < k->nargs; j++)
    named |= k->args[j].name[0] != '\0';
  return ks_jit_fail(
      KS_EPARAM,
      "bake: %s: kernel '%s' has no argument '%s'%s, and the template no "
      "global of that name",
      t->name, k->name, name,
      k->nargs && !named ? " (its arguments have no names in the IR: "
                           "compile it with clang's "
                           "-fno-discard-value-names)"
                         : "");
}

/* Checks each bake: a pointer argument of the kernel or a global it only
 * reads, named once, with finite values. */
static ks_status check_bakes(const ks_template *t, const ks_ir_kernel *k,
                             const ks_spec_req *req, ks_request *r) {
  if (req->nbakes && !req->bakes)
    return ks_jit_fail(KS_EINVAL, "bake: bakes is NULL");
  if (req->nbakes > KS_REQ_MAX_BAKES)
    return ks_jit_fail(KS_EPARAM, "bake: more than %d baked buffers",
                       KS_REQ_MAX_BAKES);
  for (size_t i = 0; i < req->nbakes; i++) {
    const ks_bake *b = &req->bakes[i];
    const char *name = b->arg ? b->arg : "(null)";
    unsigned a = arg_named(k, name);
    const ks_ir_global *g =
        a == k->nargs ? ks_ir_global_find(&t->desc, name) : NULL;
    if (a == k->nargs && !g)
      return no_bake_target(t, k, name);
    if (g && bake_global(t, r, g, b) != KS_OK)
      return KS_EPARAM;
    if (!g && !k->args[a].pointer)
      return ks_jit_fail(KS_EPARAM,
                         "bake: %s: argument '%s' is not a buffer (bind "
                         "scalars with -D)",
                         t->name, name);
    if ((!g || b->n) && (b->n == 0 || !b->values || b->n > MAX_BAKE_VALUES))
      return ks_jit_fail(KS_EPARAM, "bake: %s: %s needs 1 to %d values",
                         t->name, name, MAX_BAKE_VALUES);
    for (size_t j = 0; j < b->n; j++)
      if (!isfinite(b->values[j]))
        return ks_jit_fail(KS_EPARAM, "bake: %s: %s[%zu] is not finite",
                           t->name, name, j);
    for (size_t j = 0; !g && j < r->nbakes; j++)
      if (!r->bakes[j].global && r->bakes[j].arg_index == a)
        return ks_jit_fail(KS_EPARAM, "bake: %s: %s baked twice", t->name,
                           name);
    r->bakes[r->nbakes++] = (ks_spec_bake){.arg_index = g ? 0 : a,
                                           .values = b->n ? b->values : NULL,
                                           .n = b->n,
                                           .global = g ? g->name : NULL};
  }
  r->spec.bakes = r->bakes;
  r->spec.nbakes = r->nbakes;
  return KS_OK;
}

/* The argument name or "@N" names (k->nargs: none). */
static unsigned arg_named_or_at(const ks_ir_kernel *k, const char *name) {
  char *end = NULL;
  long at = name[0] == '@' && name[1] ? strtol(name + 1, &end, 10) : -1;
  if (end && !*end)
    return at >= 0 && at < (long)k->nargs ? (unsigned)at : k->nargs;
  return arg_named(k, name);
}

/* Checks each --tex argument: a pointer argument of the kernel among its
 * first 64, by name or position ("@N", as the tuner names it); what the
 * IR says of its reads is the tex stage's to judge. */
static ks_status check_tex(const ks_template *t, const ks_ir_kernel *k,
                           const ks_spec_req *req, ks_request *r) {
  if (req->ntex && !req->tex)
    return ks_jit_fail(KS_EINVAL, "tex: tex is NULL");
  for (size_t i = 0; i < req->ntex; i++) {
    const char *name = req->tex[i] ? req->tex[i] : "(null)";
    unsigned a = arg_named_or_at(k, name);
    if (a == k->nargs)
      return ks_jit_fail(KS_EPARAM, "tex: %s: kernel '%s' has no argument '%s'",
                         t->name, k->name, name);
    if (!k->args[a].pointer || a >= 64)
      return ks_jit_fail(
          KS_EPARAM,
          "tex: %s: argument '%s' is not a buffer%s: only an "
          "array read through ks_sample1d/2d/3d can be a texture",
          t->name, name, a >= 64 ? " among the first 64" : "");
    r->spec.tex |= 1ull << a;
  }
  return KS_OK;
}

/* Launch bounds against the target's limits (the device's when known). */
static ks_status check_bounds(ks_ctx *ctx, const ks_spec *sp) {
  const ks_arch *a = ctx->arch;
  unsigned max_threads = a->max_threads_block;
  unsigned max_dim[3] = {max_threads, max_threads, a->max_block_z};
  unsigned long long threads = 1;
  for (int i = 0; i < 3; i++) {
    if (sp->block[i] > max_dim[i])
      return ks_jit_fail(KS_EBOUNDS, "bounds: block.%c=%u over the %s limit %u",
                         "xyz"[i], sp -> block[i], a -> name, max_dim[i]);
    threads *= sp->block[i] ? sp->block[i] : 1;
  }
  if ((sp->block[1] || sp->block[2]) && !sp->block[0])
    return ks_jit_fail(KS_EBOUNDS, "bounds: block.y/z given without block.x");
  if (threads > max_threads)
    return ks_jit_fail(KS_EBOUNDS,
                       "bounds: block of %llu threads over the %s limit %u",
                       threads, a->name, max_threads);
  if (sp->maxntid && threads > sp->maxntid)
    return ks_jit_fail(KS_EBOUNDS,
                       "bounds: block of %llu threads exceeds "
                       "maxntid %u",
                       threads, sp->maxntid);
  if (sp->maxntid > max_threads)
    return ks_jit_fail(KS_EBOUNDS, "bounds: maxntid=%u over the %s limit %u",
                       sp->maxntid, a->name, max_threads);
  if (sp->minctasm > a->max_blocks_sm)
    return ks_jit_fail(KS_EBOUNDS,
                       "bounds: minctasm=%u over the %s limit of %u resident "
                       "blocks per SM",
                       sp->minctasm, a->name, a->max_blocks_sm);
  if (sp->maxnreg && (sp->maxnreg < 16 || sp->maxnreg > a->max_regs_thread))
    return ks_jit_fail(KS_EBOUNDS, "bounds: maxnreg=%u outside [16, %u]",
                       sp->maxnreg, a->max_regs_thread);
  return KS_OK;
}

/* Shared-memory spilling's needs that are known before compiling: ptxas
 * takes the pragma in PTX ISA 9.0 (CUDA 13) for sm_75 and later, and sizes
 * the spill area for the largest block the kernel may run with, so a
 * kernel without launch bounds would reserve it for 1024 threads. */
static ks_status check_smem_spill(const ks_ctx *ctx, const ks_template *t,
                                  const ks_ir_kernel *k, const ks_spec *sp) {
  const ks_arch *a = ctx->arch;
  if (a->sm < 75)
    return ks_jit_fail(KS_EPARAM,
                       "smem spill: --smem-spill needs sm_75 or later (PTX "
                       "ISA 9.0), not %s",
                       a->name);
  if (ctx->load_isa && ctx->load_isa < 90) {
    if (ctx->load_pinned)
      return ks_jit_fail(KS_EPARAM,
                         "smem spill: --smem-spill needs PTX ISA 9.0 (CUDA 13 "
                         "driver); --ptx-isa %u pins PTX ISA %u.%u (use "
                         "--ptx-isa 90 or leave it out)",
                         ctx->load_isa, ctx->load_isa / 10, ctx->load_isa % 10);
    return ks_jit_fail(KS_EPARAM,
                       "smem spill: --smem-spill needs PTX ISA 9.0 (CUDA 13 "
                       "driver); the driver (CUDA %d.%d) accepts PTX ISA "
                       "%u.%u",
                       ctx->dev.driver_version / 1000,
                       ctx->dev.driver_version % 1000 / 10, ctx->load_isa / 10,
                       ctx->load_isa % 10);
  }
  if (!sp->block[0] && !sp->maxntid &&
      !(k->own_bounds & (KS_IR_OWN_MAXNTID | KS_IR_OWN_REQNTID)))
    return ks_jit_fail(KS_EPARAM,
                       "smem spill: %s: --smem-spill needs launch bounds "
                       "(--block or --maxntid): ptxas sizes the spill area "
                       "for the largest block the kernel may run with",
                       t->name);
  return KS_OK;
}

ks_status ks_req_make(ks_ctx *ctx, const ks_template *t, const ks_spec_req *req,
                      ks_request *r) {
  memset(r, 0, sizeof *r);
  r->kernel = ks_jit_kernel_index(t, req->kernel);
  if (r->kernel < 0)
    return KS_ENOKERNEL;
  const ks_ir_kernel *k = &t->desc.kernels[r->kernel];
  if (req->nbindings && !req->bindings)
    return ks_jit_fail(KS_EINVAL, "bind: bindings is NULL");
  memcpy(r->spec.block, req->bounds.block, sizeof r->spec.block);
  for (size_t i = 0; i < req->nbindings; i++) {
    ks_status s = bind_one(t, k, &req->bindings[i], i, req, r);
    if (s != KS_OK)
      return s;
  }
  if (r->spec.block[0]) /* a fixed block has y and z too: 1 unless given */
    for (int i = 1; i < 3; i++)
      if (!r->spec.block[i])
        r->spec.block[i] = 1;
  r->spec.kernel = k->name;
  r->spec.values = r->values;
  r->spec.nvalues = r->nvalues;
  r->spec.maxntid = req->bounds.maxntid;
  r->spec.minctasm = req->bounds.minctasm;
  r->spec.maxnreg = req->bounds.maxnreg;
  r->spec.cpu = ctx->arch->name;
  r->spec.features = ctx->features;
  r->spec.dump_stage = req->dump_stage;
  r->spec.codegen_lowers = !ks_jit_llvm_options();
  r->spec.devlib = &ks_jit_devlib;
  /* fast math has the other three: one key however it is spelled */
  r->spec.fp = req->fp & KS_FP_FAST_MATH ? KS_FP_ALL : req->fp;
  if (req->fp & ~(unsigned)KS_FP_ALL)
    return ks_jit_fail(KS_EPARAM,
                       "fp: %s: unknown floating-point mode bits 0x%x (the "
                       "KS_FP_* of kspec.h)",
                       t->name, req->fp & ~(unsigned)KS_FP_ALL);
  r->smem_spill = req->smem_spill != 0;
  /* bounds the kernel declares itself are reconciled by the bind pass */
  ks_status s = KS_OK;
  if (r->smem_spill)
    s = check_smem_spill(ctx, t, k, &r->spec);
  if (s == KS_OK)
    s = disable_passes(req, r);
  if (s == KS_OK)
    s = check_bakes(t, k, req, r);
  if (s == KS_OK)
    s = check_tex(t, k, req, r);
  if (s != KS_OK)
    return s;
  if (req->dump_stage) {
    size_t i = 0;
    while (i < ks_pipeline_stage_count() &&
           strcmp(ks_pipeline_stage_name(i), req->dump_stage) != 0)
      i++;
    if (i == ks_pipeline_stage_count())
      return ks_jit_fail(KS_EINVAL,
                         "specialize: unknown stage '%s' (see `kspec ir "
                         "--help`)",
                         req->dump_stage);
  }
  return check_bounds(ctx, &r->spec);
}

ks_status ks_binding_parse(const char *text, ks_binding *out, char *name_buf,
                           size_t name_cap) {
  const char *eq = text ? strchr(text, '=') : NULL;
  if (!eq || eq == text || !out || !name_buf)
    return ks_jit_fail(KS_EPARAM, "bind: '%s' is not NAME=VALUE",
                       text ? text : "(null)");
  size_t n = (size_t)(eq - text);
  if (n >= name_cap)
    return ks_jit_fail(KS_EPARAM, "bind: parameter name too long in '%s'",
                       text);
  if (eq[1] == '\0')
    return ks_jit_fail(KS_EPARAM, "bind: '%s' has no value", text);
  memcpy(name_buf, text, n);
  name_buf[n] = '\0';
  *out = (ks_binding){.name = name_buf, .kind = KS_VALUE_TEXT, .v.s = eq + 1};
  return KS_OK;
}
