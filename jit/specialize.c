/*
 * specialize.c - ks_specialize: check the request, look it up in the cache,
 * otherwise parse the template into a fresh LLVM context, run the pipeline
 * (passes/pipeline.c) and emit PTX with the NVPTX backend.
 *
 * Every check on names, values and bounds happens before any LLVM work, so
 * bad input costs microseconds and never reaches LLVM.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define XXH_INLINE_ALL /* header-only: no run-time dependency */
#include <xxhash.h>

#include "jit/ks_jit.h"

enum { MAX_VALUES = 64, MAX_BAKES = 16, MAX_BAKE_VALUES = 65536 };

/* A checked request: what the pipeline and the cache key are made of. */
typedef struct request {
  long kernel;
  ks_spec_value values[MAX_VALUES];
  size_t spelled[MAX_VALUES]; /* the binding each value came from */
  size_t nvalues;
  ks_spec_bake bakes[MAX_BAKES]; /* values point into the caller's request */
  size_t nbakes;
  ks_spec spec;
  unsigned smem_spill; /* ks_spec_req.smem_spill, 0 or 1 */
} request;

static int is_integral(ks_type ty) {
  return ty != KS_TYPE_F16 && ty != KS_TYPE_F32 && ty != KS_TYPE_F64;
}

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
  int integral = is_integral(p->type);
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
static ks_status fix_block(request *r, int c, unsigned v, const char *pname) {
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
                          const ks_spec_req *req, request *r) {
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
  if (r->nvalues == MAX_VALUES)
    return ks_jit_fail(KS_EPARAM, "bind: more than %d bindings", MAX_VALUES);
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
static ks_status disable_passes(const ks_spec_req *req, request *r) {
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
static ks_status bake_global(const ks_template *t, const request *r,
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
                             const ks_spec_req *req, request *r) {
  if (req->nbakes && !req->bakes)
    return ks_jit_fail(KS_EINVAL, "bake: bakes is NULL");
  if (req->nbakes > MAX_BAKES)
    return ks_jit_fail(KS_EPARAM, "bake: more than %d baked buffers",
                       MAX_BAKES);
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

static ks_status make_request(ks_ctx *ctx, const ks_template *t,
                              const ks_spec_req *req, request *r) {
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
  r->smem_spill = req->smem_spill != 0;
  /* bounds the kernel declares itself are reconciled by the bind pass */
  ks_status s = KS_OK;
  if (r->smem_spill)
    s = check_smem_spill(ctx, t, k, &r->spec);
  if (s == KS_OK)
    s = disable_passes(req, r);
  if (s == KS_OK)
    s = check_bakes(t, k, req, r);
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

static int by_arg(const void *a, const void *b) {
  const ks_spec_value *x = a, *y = b;
  return (x->arg_index > y->arg_index) - (x->arg_index < y->arg_index);
}

/* Arguments by position, then globals by name. */
static int bake_by_arg(const void *a, const void *b) {
  const ks_spec_bake *x = a, *y = b;
  if (x->global || y->global)
    return !x->global ? -1 : !y->global ? 1 : strcmp(x->global, y->global);
  return (x->arg_index > y->arg_index) - (x->arg_index < y->arg_index);
}

/* The cache key: a hash of everything that can change the output. */
static void request_key(const ks_ctx *ctx, const ks_template *t, request *r,
                        uint64_t key[2]) {
  XXH3_state_t st;
  unsigned llvm[3];
  LLVMGetVersion(&llvm[0], &llvm[1], &llvm[2]);
  qsort(r->values, r->nvalues, sizeof r->values[0], by_arg);
  XXH3_128bits_reset(&st);
  XXH3_128bits_update(&st, "kspec-key-1", 11);
  XXH3_128bits_update(&st, t->hash, sizeof t->hash);
  XXH3_128bits_update(&st, r->spec.kernel, strlen(r->spec.kernel) + 1);
  for (size_t i = 0; i < r->nvalues; i++) {
    const ks_spec_value *v = &r->values[i];
    uint64_t rec[3] = {v->arg_index, (uint64_t)v->type, 0};
    if (!is_integral(v->type))
      memcpy(&rec[2], &v->f, sizeof v->f);
    else
      rec[2] = (uint64_t)v->i;
    XXH3_128bits_update(&st, rec, sizeof rec);
  }
  qsort(r->bakes, r->nbakes, sizeof r->bakes[0], bake_by_arg);
  for (size_t i = 0; i < r->nbakes; i++) {
    uint64_t rec[2] = {r->bakes[i].arg_index, r->bakes[i].n};
    const char *g = r->bakes[i].global; /* n 0: its initializer */
    XXH3_128bits_update(&st, g ? "gbake" : "bake", g ? 5 : 4);
    if (g)
      XXH3_128bits_update(&st, g, strlen(g) + 1);
    XXH3_128bits_update(&st, rec, sizeof rec);
    XXH3_128bits_update(&st, r->bakes[i].values,
                        r->bakes[i].n * sizeof r->bakes[i].values[0]);
  }
  unsigned nums[] = {r->spec.block[0], r->spec.block[1],
                     r->spec.block[2], r->spec.maxntid,
                     r->spec.minctasm, r->spec.maxnreg,
                     ctx->ptx_isa,     KS_PIPELINE_VERSION,
                     llvm[0],          llvm[1],
                     llvm[2],          r->spec.disabled,
                     r->smem_spill,    (unsigned)r->spec.codegen_lowers};
  XXH3_128bits_update(&st, nums, sizeof nums);
  XXH3_128bits_update(&st, ctx->arch->name, strlen(ctx->arch->name) + 1);
  size_t idn = 0; /* the code that compiles: a rebuilt library misses */
  const unsigned char *id = ks_jit_build_id(&idn);
  XXH3_128bits_update(&st, id, idn);
  if (r->spec.dump_stage)
    XXH3_128bits_update(&st, r->spec.dump_stage, strlen(r->spec.dump_stage));
  XXH128_hash_t h = XXH3_128bits_digest(&st);
  key[0] = h.low64;
  key[1] = h.high64;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static ks_status emit_ptx(LLVMTargetMachineRef tm, LLVMModuleRef m,
                          const char *diag, ks_kernel *k) {
  char *msg = NULL;
  LLVMMemoryBufferRef buf = NULL;
  if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMAssemblyFile, &msg,
                                          &buf)) {
    ks_status s = ks_jit_fail(KS_ECODEGEN, "codegen: %s: %s", k->name,
                              msg ? msg : "failed");
    LLVMDisposeMessage(msg);
    return s;
  }
  if (diag[0]) {
    LLVMDisposeMemoryBuffer(buf);
    return ks_jit_fail(KS_ECODEGEN, "codegen: %s: %s", k->name, diag);
  }
  size_t n = LLVMGetBufferSize(buf);
  k->ptx = malloc(n + 1);
  if (k->ptx) {
    memcpy(k->ptx, LLVMGetBufferStart(buf), n);
    k->ptx[n] = '\0';
    k->ptx_len = n;
  }
  LLVMDisposeMemoryBuffer(buf);
  return k->ptx ? KS_OK : ks_jit_fail(KS_ENOMEM, "codegen: out of memory");
}

/* Appends where the compile time went to the kernel's explanation. */
static void explain_times(const ks_diag *d, double codegen_ms, int isolated,
                          ks_kernel *k) {
  char line[512];
  size_t used = 0;
  for (size_t i = 0; i < ks_pipeline_stage_count() && used < sizeof line; i++)
    if (d->stage_ms[i] >= 0.05)
      used += (size_t)snprintf(line + used, sizeof line - used, "%s %.1f, ",
                               ks_pipeline_stage_name(i), d->stage_ms[i]);
  if (used < sizeof line)
    snprintf(line + used, sizeof line - used, "codegen %.1f ms%s", codegen_ms,
             isolated ? " (in a child process: inline asm or llvm.nvvm.* "
                        "intrinsics the screen cannot vouch for)"
                      : "");
  size_t old = k->explain ? strlen(k->explain) : 0;
  char *p = realloc(k->explain, old + strlen(line) + 8);
  if (!p)
    return;
  memcpy(p + old, "time: ", 6);
  strcpy(p + old + 6, line);
  strcat(p, "\n");
  k->explain = p;
}

/* Static shared and constant memory against the target's limits: ptxas
 * refuses a kernel over them. */
static ks_status check_memory(const ks_ctx *ctx, const ks_template *t,
                              LLVMModuleRef m, ks_kernel *k) {
  const ks_arch *a = ctx->arch;
  LLVMValueRef fn = LLVMGetNamedFunction(m, k->name);
  unsigned long long smem = fn ? ks_ir_shared_bytes(m, fn) : 0;
  unsigned long long cmem = ks_ir_const_bytes(m);
  k->info.smem_bytes = smem > UINT32_MAX ? UINT32_MAX : (unsigned)smem;
  if (smem > a->smem_block)
    return ks_jit_fail(KS_EBOUNDS,
                       "bounds: %s: kernel '%s' needs %llu bytes of static "
                       "shared memory, over the %s limit of %u a block",
                       t->name, k->name, smem, a->name, a->smem_block);
  if (cmem > 65536)
    return ks_jit_fail(KS_EBOUNDS,
                       "bounds: %s: %llu bytes of constant memory, over the "
                       "65536 a module may have",
                       t->name, cmem);
  return KS_OK;
}

/* The module to specialize, in *m: a copy of the prepared template
 * (ks_pipeline_prepare) from tp, preparing it first in a context fresh from
 * the pool; *prepared is 1 then. With a dump of a stage that preparing
 * runs, the template parsed afresh instead (*prepared 0), for the whole
 * pipeline. d gets the preparing stages' times and failure. */
static ks_status start(const ks_template *t, const request *r,
                       LLVMTargetMachineRef tm, ks_jit_tpl *tp,
                       LLVMModuleRef *m, int *prepared, ks_diag *d) {
  size_t cap = 0;
  char *err = ks_jit_errbuf(&cap);
  int whole = ks_pipeline_prepared_stage(r->spec.dump_stage);
  *m = NULL;
  *prepared = !whole;
  if (tp->prepared && !whole) {
    *m = LLVMCloneModule(tp->prepared);
    return *m ? KS_OK : ks_jit_fail(KS_ENOMEM, "specialize: out of memory");
  }
  LLVMModuleRef p = NULL;
  ks_status s = ks_ir_parse(tp->c, t->bitcode, t->len, t->name, &p, err, cap);
  if (s != KS_OK)
    return s;
  LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
  LLVMSetModuleDataLayout(p, dl);
  LLVMDisposeTargetData(dl);
  LLVMSetTarget(p, "nvptx64-nvidia-cuda");
  if (whole) {
    *m = p;
    return KS_OK;
  }
  if (ks_pipeline_prepare(p, tm, d)) {
    LLVMDisposeModule(p);
    return KS_EPASS; /* d says why */
  }
  tp->prepared = p;
  *m = LLVMCloneModule(p);
  return *m ? KS_OK : ks_jit_fail(KS_ENOMEM, "specialize: out of memory");
}

/* Runs the pipeline and codegen on a private copy of the template. */
static ks_status compile(ks_ctx *ctx, const ks_template *t, const request *r,
                         ks_kernel *k) {
  size_t cap = 0;
  char *err = ks_jit_errbuf(&cap);
  ks_diag d = {0};
  LLVMModuleRef m = NULL;
  ks_jit_tm jtm = {0};
  ks_jit_tpl tp = {0};
  int prepared = 0, emitted = 0;
  ks_status s = ks_jit_tm_get(ctx->arch, ctx->ptx_isa, &jtm);
  if (s == KS_OK)
    s = ks_jit_tpl_get(t, ctx->arch, ctx->ptx_isa, &tp);
  if (s == KS_OK)
    s = start(t, r, jtm.tm, &tp, &m, &prepared, &d);
  if (s == KS_OK && ks_bake_global_init(m, &r->spec, &d))
    s = KS_EPARAM; /* before any pass: whatever is switched off */
  if (s == KS_OK &&
      (prepared ? ks_pipeline_run_prepared(&m, jtm.tm, &r->spec, &d)
                : ks_pipeline_run(&m, jtm.tm, &r->spec, &d)))
    s = KS_EPASS;
  if (s != KS_OK && d.msg[0]) {
    /* "stage: what" -> "stage: template: what" */
    int n = (int)strcspn(d.msg, ":");
    s = ks_jit_fail(d.status, "%.*s: %s%s", n, d.msg, t->name, d.msg + n);
    goto done;
  }
  if (s != KS_OK)
    goto done;
  const char *diag = tp.diag;
  if (diag[0]) {
    s = ks_jit_fail(KS_EPASS, "optimize: %s: %s", t->name, diag);
    goto done;
  }
  k->ir = d.dump;
  d.dump = NULL; /* owned by the kernel now */
  k->ir_len = k->ir ? strlen(k->ir) : 0;
  k->explain = d.explain ? d.explain : strdup("");
  d.explain = NULL;
  k->info.est_regs = d.est_regs;
  ks_jit_set_plan(&k->info, &d.plan);
  int isolate = 0;
  s = ks_ir_screen(m, t->name, ctx->ptx_isa, &isolate, err, cap);
  if (s == KS_OK)
    s = ks_ir_screen_backend(m, ctx->arch->sm, t->name, err, cap);
  if (s == KS_OK)
    s = check_memory(ctx, t, m, k);
  if (s == KS_OK) {
    double t0 = now_ms();
    s = isolate ? ks_jit_emit_isolated(jtm.tm, m, diag, t->name, k->name,
                                       &k->ptx, &k->ptx_len)
                : emit_ptx(jtm.tm, m, diag, k);
    emitted = !isolate && s == KS_OK;
    if (s == KS_OK && r->smem_spill)
      s = ks_jit_ptx_smem_spill(&k->ptx, &k->ptx_len, k->name);
    explain_times(&d, now_ms() - t0, isolate, k);
  }
done:
  free(d.dump);
  free(d.explain);
  if (m && !emitted) /* NVPTX's annotation cache: see ir/edit.c */
    ks_ir_forget_annotations(m, jtm.tm);
  ks_jit_tm_put(ctx->arch, ctx->ptx_isa, jtm, s == KS_OK);
  if (m)
    LLVMDisposeModule(m);
  ks_jit_tpl_put(&tp, s == KS_OK);
  return s;
}

static ks_kernel *kernel_new(ks_ctx *ctx, const ks_template *t,
                             const request *r, const uint64_t key[2]) {
  ks_kernel *k = calloc(1, sizeof *k);
  if (!k || !(k->name = strdup(r->spec.kernel))) {
    free(k);
    return NULL;
  }
  k->ctx = ctx;
  memcpy(k->key, key, sizeof k->key);
  pthread_mutex_init(&k->load_lock, NULL);
  pthread_mutex_init(&k->launch_lock, NULL);
  memcpy(k->info.reqntid, r->spec.block, sizeof k->info.reqntid);
  if (r->spec.block[0])
    for (int i = 1; i < 3; i++)
      if (!k->info.reqntid[i])
        k->info.reqntid[i] = 1;
  ks_jit_set_plan(&k->info, &(ks_launch_plan){0});
  k->nargs = t->desc.kernels[r->kernel].nargs;
  k->info.maxntid = r->spec.maxntid;
  k->info.minctasm = r->spec.minctasm;
  k->info.maxnreg = r->spec.maxnreg;
  return k;
}

/* Appends a line to the key's components text (cap bytes at buf). */
static void line(char *buf, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void line(char *buf, size_t cap, const char *fmt, ...) {
  size_t used = strlen(buf);
  if (used + 1 >= cap)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf + used, cap - used, fmt, ap);
  va_end(ap);
}

/* The key's components as "what value" lines, for saying which of them
 * differs when a request misses (kspec --why-miss). The key itself hashes
 * the same inputs in binary. */
static void key_text(const ks_ctx *ctx, const ks_template *t, const request *r,
                     char *buf, size_t cap) {
  const ks_ir_kernel *k = &t->desc.kernels[r->kernel];
  unsigned llvm[3];
  LLVMGetVersion(&llvm[0], &llvm[1], &llvm[2]);
  buf[0] = '\0';
  line(buf, cap, "template %s %016llx%016llx\nkernel %s\n", t->name,
       (unsigned long long)t->hash[1], (unsigned long long)t->hash[0], k->name);
  for (size_t i = 0; i < r->nvalues; i++) {
    /* by the argument's name whichever way the request named it: one
     * key, one text */
    const ks_spec_value *v = &r->values[i];
    const ks_ir_arg *a = &k->args[v->arg_index];
    const ks_ir_param *m = ks_jit_marking(k, v->arg_index);
    const char *name = m ? m->name : a->name[0] ? a->name : a->label;
    if (!is_integral(v->type))
      line(buf, cap, "%s %.17g\n", name, v->f);
    else if (a->sign == KS_IR_UNSIGNED) /* 2^63 and up: not negative */
      line(buf, cap, "%s %llu\n", name, (unsigned long long)v->i);
    else
      line(buf, cap, "%s %lld\n", name, (long long)v->i);
  }
  for (size_t i = 0; i < r->nbakes; i++) {
    const ks_spec_bake *b = &r->bakes[i];
    if (b->global && !b->n)
      line(buf, cap, "bake-global:%s initializer\n", b->global);
    else
      line(
          buf, cap, "%s:%s %zu values %016llx\n",
          b->global ? "bake-global" : "bake",
          b->global ? b->global : k->args[b->arg_index].name, b->n,
          (unsigned long long)XXH3_64bits(b->values, b->n * sizeof *b->values));
  }
  line(buf, cap, "block %u,%u,%u\nmaxntid %u\nminctasm %u\nmaxnreg %u\n",
       r->spec.block[0], r->spec.block[1], r->spec.block[2], r->spec.maxntid,
       r->spec.minctasm, r->spec.maxnreg);
  line(buf, cap, "smem_spill %u\nno_pass", r->smem_spill);
  for (size_t i = 0; i < ks_pipeline_stage_count(); i++)
    if (r->spec.disabled & (1u << i))
      line(buf, cap, " %s", ks_pipeline_stage_name(i));
  line(buf, cap,
       "\narch %s\nptx_isa %u\npipeline %u\nllvm %u.%u.%u\ncodegen %s\n",
       ctx->arch->name, ctx->ptx_isa, KS_PIPELINE_VERSION, llvm[0], llvm[1],
       llvm[2], r->spec.codegen_lowers ? "all of LLVM's" : "from lower");
  size_t idn = 0;
  const unsigned char *id = ks_jit_build_id(&idn);
  line(buf, cap, "build ");
  for (size_t i = 0; i < idn; i++)
    line(buf, cap, "%02x", id[i]);
  line(buf, cap, "\n");
}

/* A claimed key: from the disk cache, else compiled (and stored there). */
static ks_status build(ks_ctx *ctx, const ks_template *t, const request *r,
                       const uint64_t key[2], ks_kernel **out) {
  *out = NULL;
  double t0 = now_ms();
  ks_kernel *k = kernel_new(ctx, t, r, key);
  if (!k)
    return ks_jit_fail(KS_ENOMEM, "specialize: out of memory");
  /* the IR of a stage is not stored: such requests always compile */
  int disk = ks_disk_usable(ctx->disk) && !r->spec.dump_stage;
  if (disk && ks_disk_get(ctx, ctx->disk, k)) {
    ks_jit_ptx_launch_needs(k);
    ks_cache_count(ctx->cache, KS_CTR_DISK_HITS, 1);
    ks_cache_count(ctx->cache, KS_CTR_SAVED_NS,
                   (uint64_t)(k->info.compile_ms * 1e6));
    *out = k;
    return KS_OK;
  }
  ks_cache_count(ctx->cache, KS_CTR_MISSES, 1);
  ks_status s = compile(ctx, t, r, k);
  k->info.compile_ms = now_ms() - t0;
  ks_cache_count(ctx->cache, KS_CTR_COMPILES, 1);
  ks_cache_count(ctx->cache, KS_CTR_COMPILE_NS,
                 (uint64_t)(k->info.compile_ms * 1e6));
  if (s != KS_OK) {
    ks_kernel_free(k, NULL);
    return s;
  }
  ks_jit_ptx_launch_needs(k);
  if (disk) {
    char why[2048];
    key_text(ctx, t, r, why, sizeof why);
    ks_disk_put(ctx, ctx->disk, k, why);
  }
  *out = k;
  return KS_OK;
}

ks_status ks_specialize(ks_ctx *ctx, const ks_template *t,
                        const ks_spec_req *req, ks_kernel **out) {
  ks_jit_clear();
  if (!ctx || !t || !req || !out)
    return ks_jit_fail(KS_EINVAL, "specialize: NULL argument");
  *out = NULL;
  request r;
  ks_status s = make_request(ctx, t, req, &r);
  if (s != KS_OK)
    return s;
  uint64_t key[2];
  request_key(ctx, t, &r, key);
  ks_kernel *k = NULL;
  int claimed = 0;
  s = ks_cache_acquire(ctx->cache, key, &k, &claimed);
  if (s == KS_OK && claimed) {
    s = build(ctx, t, &r, key, &k);
    ks_cache_finish(ctx->cache, key, k, s);
    if (s == KS_OK)
      ks_record_request(ctx, t, req);
  }
  *out = k;
  return s;
}

/* ---- why a request misses the disk cache ----------------------------------
 */

/* Line key's value in a components text ("FILTER_LEN 32" -> "32"), or
 * NULL; *len gets its length. */
static const char *find_line(const char *text, const char *key, size_t klen,
                             size_t *len) {
  for (const char *p = text; *p;) {
    size_t n = strcspn(p, "\n"), k = strcspn(p, " \n");
    if (k == klen && memcmp(p, key, klen) == 0) {
      const char *v = p + k + (p[k] == ' ');
      *len = (size_t)(p + n - v);
      return v;
    }
    p += n + (p[n] == '\n');
  }
  return NULL;
}

/* One difference, in words, appended to diff. */
static void describe(char *diff, size_t cap, const char *key, size_t klen,
                     const char *want, size_t wl, const char *have, size_t hl) {
  const char *sep = diff[0] ? ", " : "";
  int kl = (int)klen, w = (int)wl, h = (int)hl;
  if (want && !wl) /* "no_pass" with nothing after it */
    want = "none", w = 4;
  if (have && !hl)
    have = "none", h = 4;
  if (!have)
    line(diff, cap, "%s%.*s %.*s (the entry has none)", sep, kl, key, w, want);
  else if (!want)
    line(diff, cap, "%s%.*s unset (the entry has %.*s)", sep, kl, key, h, have);
  else if (klen == 8 && memcmp(key, "template", 8) == 0 &&
           strcspn(want, " ") == strcspn(have, " ") &&
           memcmp(want, have, strcspn(want, " ")) == 0)
    line(diff, cap, "%stemplate %.*s changed", sep, (int)strcspn(want, " "),
         want);
  else if (klen == 5 && memcmp(key, "build", 5) == 0)
    line(diff, cap, "%skspec was rebuilt (build id differs)", sep);
  else
    line(diff, cap, "%s%.*s %.*s != %.*s", sep, kl, key, w, want, h, have);
}

/* How many lines of want and have differ; described in diff. */
static int compare(const char *want, const char *have, char *diff, size_t cap) {
  int n = 0;
  diff[0] = '\0';
  for (int pass = 0; pass < 2; pass++) {
    const char *a = pass ? have : want, *b = pass ? want : have;
    for (const char *p = a; *p;) {
      size_t len = strcspn(p, "\n"), k = strcspn(p, " \n"), bl = 0;
      const char *v = p + k + (p[k] == ' ');
      size_t vl = (size_t)(p + len - v);
      const char *bv = find_line(b, p, k, &bl);
      if (pass == 0 && (!bv || bl != vl || memcmp(v, bv, vl) != 0)) {
        n++;
        describe(diff, cap, p, k, v, vl, bv, bl);
      } else if (pass == 1 && !bv) {
        n++;
        describe(diff, cap, p, k, NULL, 0, v, vl);
      }
      p += len + (p[len] == '\n');
    }
  }
  return n;
}

typedef struct nearest {
  const char *want;
  int best; /* differences from the nearest entry so far; -1: none seen */
  unsigned long entries;
  char diff[1024];
} nearest;

static void consider(void *arg, const char *have) {
  nearest *nr = arg;
  char diff[1024];
  int n = compare(nr->want, have, diff, sizeof diff);
  nr->entries++;
  if (nr->best < 0 || n < nr->best) {
    nr->best = n;
    memcpy(nr->diff, diff, sizeof diff);
  }
}

ks_status ks_cache_why_miss(ks_ctx *ctx, const ks_template *t,
                            const ks_spec_req *req, char *buf, size_t cap) {
  ks_jit_clear();
  if (!ctx || !t || !req || !buf || !cap)
    return ks_jit_fail(KS_EINVAL, "cache: NULL argument");
  ks_disk *d = ks_cache_disk_for(ctx);
  if (!d)
    return KS_EINVAL;
  request r;
  ks_status s = make_request(ctx, t, req, &r);
  if (s != KS_OK)
    return s;
  uint64_t key[2];
  char why[128], want[2048];
  request_key(ctx, t, &r, key);
  ks_disk_entry_state(d, key, why, sizeof why);
  if (!why[0]) {
    snprintf(buf, cap, "hit");
    return KS_OK;
  }
  if (strcmp(why, "absent") != 0) {
    snprintf(buf, cap, "miss: the entry is damaged (%s); it will be rebuilt",
             why);
    return KS_OK;
  }
  key_text(ctx, t, &r, want, sizeof want);
  nearest nr = {.want = want, .best = -1};
  ks_disk_each_why(d, consider, &nr);
  if (nr.best < 0)
    snprintf(buf, cap, "miss: the cache is empty");
  else if (nr.best == 0)
    snprintf(buf, cap, "miss: an entry has the same components (damaged?)");
  else
    snprintf(buf, cap, "miss: %s (nearest of %lu entr%s)", nr.diff, nr.entries,
             nr.entries == 1 ? "y" : "ies");
  return KS_OK;
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

size_t ks_stage_count(void) { return ks_pipeline_stage_count(); }

const char *ks_stage_name(size_t i) { return ks_pipeline_stage_name(i); }

int ks_stage_optional(size_t i) { return ks_pipeline_stage_optional(i); }
