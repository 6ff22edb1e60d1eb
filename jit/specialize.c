/*
 * specialize.c - ks_specialize: check the request, look it up in the cache,
 * otherwise parse the template into a fresh LLVM context, run the pipeline
 * (passes/pipeline.c) and emit PTX with the NVPTX backend.
 *
 * Every check on names, values and bounds happens before any LLVM work, so
 * bad input costs microseconds and never reaches LLVM.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define XXH_INLINE_ALL /* header-only: no run-time dependency */
#include <xxhash.h>

#include "jit/ks_jit.h"

enum { MAX_VALUES = 64 };

/* A checked request: what the pipeline and the cache key are made of. */
typedef struct request {
  long kernel;
  ks_spec_value values[MAX_VALUES];
  size_t nvalues;
  ks_spec spec;
} request;

static const ks_ir_param *find_param(const ks_ir_kernel *k, const char *name) {
  for (size_t i = 0; i < k->nparams; i++)
    if (strcmp(k->params[i].name, name) == 0)
      return &k->params[i];
  return NULL;
}

static ks_status unknown_param(const ks_template *t, const ks_ir_kernel *k,
                               const char *name) {
  char list[256] = "";
  size_t used = 0;
  for (size_t i = 0; i < k->nparams && used < sizeof list - 1; i++)
    used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
                             i ? ", " : "", k->params[i].name);
  return ks_jit_fail(KS_EPARAM,
                     "bind: %s: kernel '%s' has no parameter '%s' "
                     "(parameters: %s)",
                     t->name, k->name, name, k->nparams ? list : "none");
}

/* Converts one binding to a double, checking its syntax and type. */
static ks_status binding_number(const ks_template *t, const ks_ir_param *p,
                                const ks_binding *b, double *out) {
  int integral = p->type == KS_TYPE_I32 || p->type == KS_TYPE_I64;
  if (b->kind == KS_VALUE_INT) {
    *out = (double)b->v.i;
  } else if (b->kind == KS_VALUE_REAL) {
    *out = b->v.f;
  } else if (b->kind == KS_VALUE_TEXT && b->v.s) {
    char *end = NULL;
    errno = 0;
    if (integral)
      *out = (double)strtoll(b->v.s, &end, 10);
    else
      *out = strtod(b->v.s, &end);
    if (end == b->v.s || *end != '\0' || errno == ERANGE)
      return ks_jit_fail(KS_EPARAM, "bind: %s: %s='%s' is not %s", t->name,
                         p->name, b->v.s, integral ? "an integer" : "a number");
  } else {
    return ks_jit_fail(KS_EPARAM, "bind: %s: %s has no value", t->name,
                       p->name);
  }
  if (!isfinite(*out) || (integral && *out != floor(*out)))
    return ks_jit_fail(KS_EPARAM, "bind: %s: %s=%g is not %s", t->name, p->name,
                       *out, integral ? "an integer" : "finite");
  if (*out < p->min || *out > p->max)
    return ks_jit_fail(KS_ERANGE, "bind: %s: %s=%.17g out of range [%g, %g]",
                       t->name, p->name, *out, p->min, p->max);
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

static ks_status bind_one(const ks_template *t, const ks_ir_kernel *k,
                          const ks_binding *b, request *r) {
  if (!b->name)
    return ks_jit_fail(KS_EPARAM, "bind: %s: binding without a name", t->name);
  const ks_ir_param *p = find_param(k, b->name);
  if (!p)
    return unknown_param(t, k, b->name);
  for (size_t i = 0; i < r->nvalues; i++)
    if (r->values[i].arg_index == p->arg_index)
      return ks_jit_fail(KS_EPARAM, "bind: %s: %s bound twice", t->name,
                         p->name);
  if (r->nvalues == MAX_VALUES)
    return ks_jit_fail(KS_EPARAM, "bind: more than %d bindings", MAX_VALUES);
  double v = 0;
  ks_status s = binding_number(t, p, b, &v);
  if (s != KS_OK)
    return s;
  ks_spec_value *sv = &r->values[r->nvalues++];
  *sv = (ks_spec_value){.arg_index = p->arg_index, .type = p->type};
  sv->i = (int64_t)v;
  sv->f = v;
  if (s == KS_OK && (p->flags & KS_PARAM_BLOCK_X))
    s = fix_block(r, 0, (unsigned)v, p->name);
  if (s == KS_OK && (p->flags & KS_PARAM_BLOCK_Y))
    s = fix_block(r, 1, (unsigned)v, p->name);
  return s;
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

/* A template may carry launch bounds of its own (__launch_bounds__); a
 * request may not override them, since PTX takes one of each. */
static ks_status check_own_bounds(const ks_template *t, const ks_ir_kernel *k,
                                  const ks_spec *b) {
  static const struct {
    unsigned flag;
    const char *what;
  } own[] = {{KS_IR_OWN_MAXNTID, ".maxntid"},
             {KS_IR_OWN_REQNTID, ".reqntid"},
             {KS_IR_OWN_MINCTASM, ".minnctapersm"},
             {KS_IR_OWN_MAXNREG, ".maxnreg"}};
  unsigned asked =
      (b->block[0] || b->maxntid ? KS_IR_OWN_MAXNTID | KS_IR_OWN_REQNTID : 0) |
      (b->minctasm ? KS_IR_OWN_MINCTASM : 0) |
      (b->maxnreg ? KS_IR_OWN_MAXNREG : 0);
  for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
    if (asked & k->own_bounds & own[i].flag)
      return ks_jit_fail(KS_EBOUNDS,
                         "bounds: %s: kernel '%s' declares its own %s "
                         "(__launch_bounds__); the request cannot change it",
                         t->name, k->name, own[i].what);
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
    ks_status s = bind_one(t, k, &req->bindings[i], r);
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
  ks_status s = check_own_bounds(t, k, &r->spec);
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
    if (v->type == KS_TYPE_F32 || v->type == KS_TYPE_F64)
      memcpy(&rec[2], &v->f, sizeof v->f);
    else
      rec[2] = (uint64_t)v->i;
    XXH3_128bits_update(&st, rec, sizeof rec);
  }
  unsigned nums[] = {
      r->spec.block[0], r->spec.block[1], r->spec.block[2], r->spec.maxntid,
      r->spec.minctasm, r->spec.maxnreg,  ctx->ptx_isa,     KS_PIPELINE_VERSION,
      llvm[0],          llvm[1],          llvm[2]};
  XXH3_128bits_update(&st, nums, sizeof nums);
  XXH3_128bits_update(&st, ctx->arch->name, strlen(ctx->arch->name) + 1);
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

/* Runs the pipeline and codegen on a private copy of the template. */
static ks_status compile(ks_ctx *ctx, const ks_template *t, const request *r,
                         ks_kernel *k) {
  char diag[KS_IR_DIAG_CAP];
  size_t cap = 0;
  char *err = ks_jit_errbuf(&cap);
  ks_diag d = {0};
  LLVMContextRef c = ks_ir_context_create(diag);
  LLVMModuleRef m = NULL;
  ks_jit_tm jtm = {0};
  ks_status s = ks_ir_parse(c, t->bitcode, t->len, t->name, &m, err, cap);
  if (s != KS_OK)
    goto done;
  s = ks_jit_tm_get(ctx->arch, ctx->ptx_isa, &jtm);
  if (s != KS_OK)
    goto done;
  LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(jtm.tm);
  LLVMSetModuleDataLayout(m, dl);
  LLVMDisposeTargetData(dl);
  LLVMSetTarget(m, "nvptx64-nvidia-cuda");
  if (ks_pipeline_run(m, jtm.tm, &r->spec, &d)) {
    /* "stage: what" -> "stage: template: what" */
    int n = (int)strcspn(d.msg, ":");
    s = ks_jit_fail(d.status, "%.*s: %s%s", n, d.msg, t->name, d.msg + n);
    goto done;
  }
  if (diag[0]) {
    s = ks_jit_fail(KS_EPASS, "optimize: %s: %s", t->name, diag);
    goto done;
  }
  k->ir = d.dump;
  d.dump = NULL; /* owned by the kernel now */
  k->ir_len = k->ir ? strlen(k->ir) : 0;
  s = ks_ir_screen(m, t->name, err, cap);
  if (s == KS_OK)
    s = emit_ptx(jtm.tm, m, diag, k);
done:
  free(d.dump);
  ks_jit_tm_put(ctx->arch, ctx->ptx_isa, jtm, s == KS_OK);
  if (m)
    LLVMDisposeModule(m);
  LLVMContextDispose(c);
  return s;
}

static ks_kernel *kernel_new(ks_ctx *ctx, const request *r,
                             const uint64_t key[2]) {
  ks_kernel *k = calloc(1, sizeof *k);
  if (!k || !(k->name = strdup(r->spec.kernel))) {
    free(k);
    return NULL;
  }
  k->ctx = ctx;
  memcpy(k->key, key, sizeof k->key);
  pthread_mutex_init(&k->load_lock, NULL);
  memcpy(k->info.reqntid, r->spec.block, sizeof k->info.reqntid);
  if (r->spec.block[0])
    for (int i = 1; i < 3; i++)
      if (!k->info.reqntid[i])
        k->info.reqntid[i] = 1;
  k->info.maxntid = r->spec.maxntid;
  k->info.minctasm = r->spec.minctasm;
  k->info.maxnreg = r->spec.maxnreg;
  return k;
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
  ks_kernel *k = ks_cache_get(ctx->cache, key);
  if (k) {
    *out = k;
    return KS_OK;
  }
  double t0 = now_ms();
  k = kernel_new(ctx, &r, key);
  if (!k)
    return ks_jit_fail(KS_ENOMEM, "specialize: out of memory");
  s = compile(ctx, t, &r, k);
  if (s != KS_OK) {
    ks_kernel_free(k, NULL);
    return s;
  }
  k->info.compile_ms = now_ms() - t0;
  *out = ks_cache_put(ctx->cache, k, ctx->drv);
  return *out ? KS_OK : ks_jit_fail(KS_ENOMEM, "specialize: out of memory");
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
