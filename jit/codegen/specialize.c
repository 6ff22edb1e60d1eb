/*
 * specialize.c - ks_specialize: a checked request (request.c) and its key
 * (key.c) looked up in the caches, otherwise compiled: the template parsed
 * into a fresh LLVM context (or its prepared copy cloned), the pipeline run
 * (passes/pipeline.c) and PTX emitted with the NVPTX backend.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jit/request/request.h"

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

/* The entry of tp's copies of its prepared template that the math stage
 * ran on ahead of bind for r's kernel and floating-point modes: made (with
 * what it costs counted as d's math stage's) where tp has none, the oldest
 * going when KS_JIT_AHEAD are kept; NULL when it cannot be made. */
static ks_jit_ahead *ahead_for(ks_jit_tpl *tp, const ks_request *r,
                               LLVMTargetMachineRef tm, ks_diag *d) {
  unsigned fp = r->spec.fp;
  for (unsigned i = 0; i < tp->nahead; i++)
    if (tp->ahead[i].fp == fp &&
        strcmp(tp->ahead[i].kernel, r->spec.kernel) == 0)
      return &tp->ahead[i];
  ks_jit_ahead a = {.kernel = strdup(r->spec.kernel), .fp = fp};
  a.m = a.kernel ? LLVMCloneModule(tp->prepared) : NULL;
  if (!a.m || ks_pipeline_math_ahead(a.m, tm, &r->spec, d, &a.out, &a.bodies)) {
    ks_jit_ahead_free(&a);
    return NULL; /* the pipeline's own math stage says why */
  }
  a.inlined = a.out == NULL; /* else when a request needs it (origin) */
  if (tp->nahead == KS_JIT_AHEAD) {
    ks_jit_ahead_free(&tp->ahead[0]);
    memmove(tp->ahead, tp->ahead + 1, --tp->nahead * sizeof *tp->ahead);
  }
  tp->ahead[tp->nahead] = a;
  return &tp->ahead[tp->nahead++];
}

/* What a specialization of r copies: tp's prepared template or, where it
 * links libdevice, a copy the math stage ran on ahead of bind (ahead_for):
 * the one whose kernel calls the library's functions out of line, into
 * *out, unless r's bind makes an argument of such a call constant; else
 * the one with them inlined (inlined now, the first time). Not with a dump of a
 * stage: the IR after bind or tex is then the one the pipeline makes, the
 * library's functions still out of line. */
static LLVMModuleRef origin(ks_jit_tpl *tp, const ks_request *r,
                            LLVMTargetMachineRef tm, ks_diag *d,
                            ks_jit_ahead **out) {
  ks_jit_ahead *a = NULL;
  *out = NULL;
  if (!r->spec.dump_stage && ks_math_ahead_worth(tp->prepared))
    a = ahead_for(tp, r, tm, d);
  if (a && a->out && !ks_math_outline_folds(a->out, &r->spec)) {
    *out = a;
    return a->out;
  }
  if (a && !a->inlined) {
    ks_diag id = {0}; /* a failure: the pipeline's own math stage says why */
    a->inlined = ks_pipeline_math_inline(a->m, tm, &r->spec, &id) ? -1 : 1;
    for (size_t i = 0; i < sizeof id.stage_ms / sizeof *id.stage_ms; i++)
      d->stage_ms[i] += id.stage_ms[i];
    free(id.explain);
    free(id.dump);
  }
  return a && a->inlined == 1 ? a->m : tp->prepared;
}

/* The module to specialize, in *m: a copy of the prepared template
 * (ks_pipeline_prepare) from tp (origin), preparing it first in a context
 * fresh from the pool; *prepared is 1 then; *out is the ahead copy it
 * came from when that calls libdevice out of line. With a dump of a stage that
 * preparing runs, the template parsed afresh instead (*prepared 0), for
 * the whole pipeline. d gets the preparing stages' times and failure. */
static ks_status start(const ks_template *t, const ks_request *r,
                       LLVMTargetMachineRef tm, ks_jit_tpl *tp,
                       LLVMModuleRef *m, int *prepared, ks_jit_ahead **out,
                       ks_diag *d) {
  size_t cap = 0;
  char *err = ks_jit_errbuf(&cap);
  int whole = ks_pipeline_prepared_stage(r->spec.dump_stage);
  *m = NULL;
  *out = NULL;
  *prepared = !whole;
  if (tp->prepared && !whole) {
    *m = LLVMCloneModule(origin(tp, r, tm, d, out));
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
  if (ks_pipeline_prepare(p, tm, &ks_jit_devlib, d)) {
    LLVMDisposeModule(p);
    return KS_EPASS; /* d says why */
  }
  tp->prepared = p;
  *m = LLVMCloneModule(origin(tp, r, tm, d, out));
  return *m ? KS_OK : ks_jit_fail(KS_ENOMEM, "specialize: out of memory");
}

/* Runs the pipeline and codegen on a private copy of the template. */
ks_status ks_jit_compile(ks_ctx *ctx, const ks_template *t, const ks_request *r,
                         ks_kernel *k, int *sync_loop) {
  size_t cap = 0;
  char *err = ks_jit_errbuf(&cap);
  ks_diag d = {0};
  LLVMModuleRef m = NULL;
  ks_jit_tm jtm = {0};
  ks_jit_tpl tp = {0};
  ks_jit_ahead *out = NULL; /* in tp: the kernel calls libdevice out of line */
  int prepared = 0, emitted = 0;
  *sync_loop = 0;
  ks_status s = ks_jit_tm_get(ctx->arch, ctx->ptx_isa, &jtm);
  if (s == KS_OK)
    s = ks_jit_tpl_get(t, ctx->arch, ctx->ptx_isa, &tp);
  if (s == KS_OK)
    s = start(t, r, jtm.tm, &tp, &m, &prepared, &out, &d);
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
  *sync_loop = d.sync_loop;
  ks_jit_set_plan(&k->info, &d.plan);
  int isolate = 0;
  s = ks_ir_screen(m, t->name, ctx->ptx_isa, &isolate, err, cap);
  if (s == KS_OK)
    s = ks_ir_screen_backend(m, ctx->arch->sm, t->name, err, cap);
  if (s == KS_OK) {
    ks_ir_align_shared(m); /* ir/ks_ir.h says why */
    s = check_memory(ctx, t, m, k);
  }
  if (s == KS_OK) {
    double t0 = now_ms();
    s = isolate ? ks_jit_emit_isolated(jtm.tm, m, diag, t->name, k->name,
                                       &k->ptx, &k->ptx_len)
                : emit_ptx(jtm.tm, m, diag, k);
    emitted = !isolate && s == KS_OK;
    if (s == KS_OK && out)
      s = ks_jit_math_ptx(ctx, t, out, jtm.tm, r, m, diag, &k->ptx,
                          &k->ptx_len);
    if (s == KS_OK)
      s = ks_jit_ptx_red(&k->ptx, &k->ptx_len);
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

ks_kernel *ks_jit_kernel_new(ks_ctx *ctx, const ks_template *t,
                             const ks_request *r, const uint64_t key[2]) {
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

/* From the processes sharing ctx's cache: 1 (k filled), else 0 with
 * *owner saying whether this process may write the disk cache. */
static int from_share(ks_ctx *ctx, ks_kernel *k, int *owner) {
  *owner = 1;
  if (!ks_jit_share_on(ctx) || !ks_jit_share_get_kernel(ctx, k, owner))
    return 0;
  ks_jit_ptx_launch_needs(k);
  ks_jit_cache_count(ctx->cache, KS_CTR_REMOTE_HITS, 1);
  return 1;
}

/* A claimed key: from the disk cache, else from the processes sharing
 * ctx's cache, else compiled (and stored, and shared). */
static ks_status build(ks_ctx *ctx, const ks_template *t, const ks_request *r,
                       const ks_key_in *in, const uint64_t key[2],
                       ks_kernel **out) {
  *out = NULL;
  double t0 = now_ms();
  ks_kernel *k = ks_jit_kernel_new(ctx, t, r, key);
  if (!k)
    return ks_jit_fail(KS_ENOMEM, "specialize: out of memory");
  /* the IR of a stage is not stored: such requests always compile */
  int disk = ks_disk_usable(ctx->disk) && !r->spec.dump_stage, owner = 1;
  if (disk && ks_disk_get(ctx, ctx->disk, k)) {
    ks_jit_ptx_launch_needs(k);
    ks_jit_cache_count(ctx->cache, KS_CTR_DISK_HITS, 1);
    ks_jit_cache_count(ctx->cache, KS_CTR_SAVED_NS,
                       (uint64_t)(k->info.compile_ms * 1e6));
    *out = k;
    return KS_OK;
  }
  int share = ks_jit_share_on(ctx) && !r->spec.dump_stage;
  if (share && from_share(ctx, k, &owner)) {
    *out = k;
    return KS_OK;
  }
  ks_jit_cache_count(ctx->cache, KS_CTR_MISSES, 1);
  int sync_loop = 0;
  ks_status s = ks_jit_compile(ctx, t, r, k, &sync_loop);
  if (s == KS_OK)
    ks_jit_guard(ctx, t, r, k, sync_loop);
  k->info.compile_ms = now_ms() - t0;
  ks_jit_cache_count(ctx->cache, KS_CTR_COMPILES, 1);
  ks_jit_cache_count(ctx->cache, KS_CTR_COMPILE_NS,
                     (uint64_t)(k->info.compile_ms * 1e6));
  if (s != KS_OK) {
    if (share) /* those waiting for it build it themselves */
      ks_jit_share_put_kernel(ctx, key, NULL, NULL);
    ks_jit_kernel_free(k, NULL);
    return s;
  }
  ks_jit_ptx_launch_needs(k);
  if (disk || share) {
    char why[2048];
    ks_key_text(in, why, sizeof why);
    if (share)
      ks_jit_share_put_kernel(ctx, key, k, why);
    if (disk && owner)
      ks_disk_put(ctx, ctx->disk, k, why);
  }
  *out = k;
  return KS_OK;
}

/* ks_specialize's work; with `record`, the request is recorded when
 * compiled. */
static ks_status specialize(ks_ctx *ctx, const ks_template *t,
                            const ks_spec_req *req, ks_kernel **out,
                            int record) {
  if (!ctx || !t || !req || !out)
    return ks_jit_fail(KS_EINVAL, "specialize: NULL argument");
  *out = NULL;
  ks_request r;
  ks_status s = ks_req_make(ctx, t, req, &r);
  if (s != KS_OK)
    return s;
  uint64_t key[2];
  ks_key_in in;
  ks_key_of(ctx, t, &r, &in);
  ks_key_hash(&in, key);
  ks_kernel *k = NULL;
  int claimed = 0;
  s = ks_jit_cache_acquire(ctx->cache, key, &k, &claimed);
  if (s == KS_OK && claimed) {
    s = build(ctx, t, &r, &in, key, &k);
    ks_jit_cache_finish(ctx->cache, key, k, s);
    if (s == KS_OK && record)
      ks_record_request(ctx, t, req);
  }
  *out = k;
  return s;
}

ks_status ks_specialize(ks_ctx *ctx, const ks_template *t,
                        const ks_spec_req *req, ks_kernel **out) {
  ks_jit_clear();
  return specialize(ctx, t, req, out, 1);
}

ks_status ks_jit_specialize(ks_ctx *ctx, const ks_template *t,
                            const ks_spec_req *req, ks_kernel **out) {
  return specialize(ctx, t, req, out, 0);
}

size_t ks_stage_count(void) { return ks_pipeline_stage_count(); }

const char *ks_stage_name(size_t i) { return ks_pipeline_stage_name(i); }

int ks_stage_optional(size_t i) { return ks_pipeline_stage_optional(i); }
