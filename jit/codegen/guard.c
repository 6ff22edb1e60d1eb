/*
 * guard.c - never slower (issue 34 item 4): a specialization must not have
 * fewer resident warps per SM than the generic kernel of the same template
 * at the same block, nor spill where the generic does not.
 *
 * Where it looks: a fixed block (occupancy is defined), no register bounds
 * of the user's (--maxnreg, --minctasm: the user chose), no pass that
 * trades occupancy on purpose (tcoarsen's and smem_promote's coarsenings,
 * which say so in the launch plan), and a loop that holds a barrier. Block
 * synchronous code is where occupancy is what hides the wait: at each
 * barrier a block's warps stall, and only other resident blocks keep the
 * SM busy (the corpus's tiled matrix products lost half their occupancy, or
 * spilled 11 KB a thread, to the unrolled tile loop and ran 1.1-17x slower
 * than generic). A loop without a barrier trades occupancy for the
 * independent work unrolling gives each warp, which regpressure weighs
 * (stencil1d runs fastest at 8 warps per SM: BENCHMARKS.md, "Register
 * pressure"), and is left alone.
 *
 * Switching regpressure off (--no-pass regpressure) keeps full unrolling,
 * and the guard off with it.
 *
 * What it costs: nothing where the register estimate (regpressure's, with
 * half again for its error) says the register file cannot limit the
 * block's residency; else ptxas on the specialized PTX (the same ptxas as
 * ks_kernel_resources), and only where that shows a full SM short of its
 * limits, the generic kernel (through the cache: usually there already)
 * and ptxas on it, once per generic kernel. ptxas first: the decision is
 * made before the kernel is cached (the disk cache keeps what the guard
 * chose), in a process that may have no GPU, and ptxas reports spills.
 * Without ptxas, the driver's figures where there is a driver (the PTX
 * loaded as a module of its own; its local memory stands for spills).
 * Either way the figures are those of the compile the kernel gets where
 * it is loaded: whole-program (cubin.c says why never the linker's).
 *
 * Above the generic's occupancy the other way (ptxas holding registers
 * down for warps the generic never had, at the cost of what a full unroll
 * exposed): `.minnctapersm` at the generic's blocks per SM (relax).
 *
 * The retries, first that spills nothing (or no more than the generic) at
 * the generic's warps or more: loops that hold a barrier left rolled;
 * `.maxnreg` at the most registers that keep the generic's blocks per SM,
 * on the full unroll, then on the rolled one; else no unrolling at all
 * (the generic's code with the values bound), with `.maxnreg` if that
 * keeps the occupancy, else as it is.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jit/request/request.h"

enum { GUARD_PTXAS_MS = 120000, PATH_CAP = 4096 };

/* ptxas's figures of one PTX text at the block. */
typedef struct fig {
  ks_kernel_resources res;
  int spill; /* bytes of spill stores and loads */
  int warps, blocks;
} fig;

static void occupancy_at(const ks_ctx *ctx, unsigned threads, int regs,
                         unsigned smem, ks_occupancy *o) {
  ks_occ_limits l;
  ks_jit_occ_limits(ctx->arch, NULL, &l);
  ks_occ_input in = {
      .block = threads, .regs = regs, .smem = smem, .smem_optin = 1};
  if (ks_jit_occupancy(&l, &in, o) != KS_OK)
    *o = (ks_occupancy){0};
}

static void fig_of(const ks_ctx *ctx, unsigned threads,
                   const ks_kernel_resources *r, fig *f) {
  ks_occupancy o;
  occupancy_at(ctx, threads, r->regs, (unsigned)r->static_smem, &o);
  f->res = *r;
  f->spill = (r->spill_stores > 0 ? r->spill_stores : 0) +
             (r->spill_loads > 0 ? r->spill_loads : 0);
  f->warps = o.warps_per_sm;
  f->blocks = o.blocks_per_sm;
}

/* How the figures are taken: ptxas at path, else (path "") the driver. */
typedef struct how {
  ks_ctx *ctx;
  const char *name;
  char ptxas[PATH_CAP];
  unsigned threads;
} how;

static ks_status by_ptxas(const how *h, const char *ptx, size_t len, fig *f) {
  char *log = NULL;
  const char *arch = h->ctx->arch->name;
  ks_status s =
      ks_jit_ptxas_run(h->ptxas, arch, ptx, len, GUARD_PTXAS_MS, &log);
  ks_kernel_resources r = {.size = sizeof r, .source = KS_RES_PTXAS};
  if (s == KS_OK && !ks_jit_ptxas_parse(log, h->name, &r))
    s = ks_jit_fail(KS_ELOAD, "ptxas: no figures for '%s'", h->name);
  free(log);
  if (s != KS_OK)
    return s;
  snprintf(r.arch, sizeof r.arch, "%s", arch);
  fig_of(h->ctx, h->threads, &r, f);
  return KS_OK;
}

/* The driver's figures: the PTX loaded as a module of its own (the driver
 * assembles it) and unloaded. The driver reports no spills: the local
 * memory a thread has (spills and local arrays) stands for them. */
static ks_status by_driver(const how *h, const char *ptx, fig *f) {
  ks_drv *drv = NULL;
  ks_drv_module mod = {0};
  ks_drv_func_attrs a;
  size_t cap = 0;
  char *err = ks_jit_errbuf(&cap);
  ks_status s = ks_jit_driver(h->ctx, &drv);
  if (s == KS_OK)
    s = ks_drv_module_load(drv, ptx, h->name, &mod, err, cap);
  if (s != KS_OK)
    return s;
  s = ks_drv_func_attrs_get(drv, mod.function, &a, err, cap);
  ks_drv_module_unload(drv, &mod);
  if (s != KS_OK)
    return s;
  ks_kernel_resources r = {.size = sizeof r,
                           .source = KS_RES_DRIVER,
                           .regs = a.regs,
                           .spill_stores = -1,
                           .spill_loads = -1,
                           .stack_frame = a.local_bytes,
                           .static_smem = a.static_smem,
                           .const_bytes = -1};
  fig_of(h->ctx, h->threads, &r, f);
  f->spill = a.local_bytes > 0 ? a.local_bytes : 0;
  return KS_OK;
}

static ks_status measure(const how *h, const char *ptx, size_t len, fig *f) {
  return h->ptxas[0] ? by_ptxas(h, ptx, len, f) : by_driver(h, ptx, f);
}

/* Appends "guard: <text>" to k's explanation. */
static void say(ks_kernel *k, const char *fmt, ...) {
  char line[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  size_t old = k->explain ? strlen(k->explain) : 0;
  char *p = realloc(k->explain, old + strlen(line) + 9);
  if (!p)
    return;
  sprintf(p + old, "guard: %s\n", line);
  k->explain = p;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The time the guard took, at the end of its line (the explanation's last). */
static void stamp(ks_kernel *k, double ms) {
  char tail[48];
  size_t n = k->explain ? strlen(k->explain) : 0, start = n ? n - 1 : 0;
  while (start && k->explain[start - 1] != '\n')
    start--;
  if (!n || strncmp(k->explain + start, "guard: ", 7) != 0)
    return; /* no line of the guard's: nothing looked at, or no memory */
  int w = snprintf(tail, sizeof tail, " (%.0f ms)\n", ms);
  char *p = realloc(k->explain, n + (size_t)w + 1);
  if (!p)
    return;
  k->explain = p;
  strcpy(p + n - 1, tail); /* over the line's newline */
}

static unsigned threads_of(const ks_kernel *k) {
  const unsigned *b = k->info.reqntid;
  return b[0] * (b[1] ? b[1] : 1) * (b[2] ? b[2] : 1);
}

/* Is the regpressure stage switched off? It keeps full unrolling then,
 * and so does the guard. */
static int regpressure_off(const ks_spec *s) {
  for (size_t i = 0; i < ks_pipeline_stage_count(); i++)
    if (strcmp(ks_pipeline_stage_name(i), "regpressure") == 0)
      return (s->disabled >> i) & 1;
  return 0;
}

/* Where the guard looks (the file's head says why); an exemption says so. */
static int wanted(const ks_request *r, ks_kernel *k, int sync_loop) {
  const ks_spec *s = &r->spec;
  if (!s->block[0] || s->maxnreg || s->minctasm || r->smem_spill ||
      s->dump_stage || !sync_loop || regpressure_off(s))
    return 0;
  const ks_launch_plan *p = &k->info.plan;
  if (p->coarsen_x > 1 || p->coarsen_y > 1) {
    say(k, "not checked: thread coarsening trades occupancy on purpose");
    return 0;
  }
  return 1;
}

/* Can the registers limit the block's residency? By the estimate with half
 * again for its error (0: no estimate, then it may). */
static int may_lose(const ks_ctx *ctx, const ks_kernel *k) {
  int est = k->info.est_regs;
  if (est <= 0)
    return 1;
  ks_occupancy with, without;
  unsigned th = threads_of(k), smem = k->info.smem_bytes;
  occupancy_at(ctx, th, est + est / 2, smem, &with);
  occupancy_at(ctx, th, 0, smem, &without);
  return with.warps_per_sm < without.warps_per_sm;
}

/* The generic kernel's figures at the same block, taken as h takes them
 * (the driver's by loading it, as a launch would). */
static ks_status generic_fig(const how *h, const ks_template *t,
                             const ks_request *r, fig *g) {
  ks_spec_req req = {.kernel = r->spec.kernel, .fp = r->spec.fp};
  ks_kernel *kg = NULL;
  ks_status s = ks_jit_specialize(h->ctx, t, &req, &kg);
  ks_kernel_resources res = {.size = sizeof res};
  if (s == KS_OK)
    s = ks_kernel_resources_get(kg, h->ptxas[0] ? KS_RES_PTXAS : KS_RES_DRIVER,
                                &res);
  if (s != KS_OK)
    return s;
  fig_of(h->ctx, h->threads, &res, g);
  if (!h->ptxas[0])
    g->spill = res.stack_frame > 0 ? res.stack_frame : 0;
  return KS_OK;
}

static int keeps(const fig *f, const fig *g) {
  return f->warps >= g->warps && (f->spill == 0 || f->spill <= g->spill);
}

/* The most registers a thread may have for g's blocks per SM. */
static unsigned cap_for(const ks_ctx *ctx, unsigned threads, unsigned smem,
                        const fig *g) {
  unsigned cap = 255;
  ks_occupancy o;
  for (; cap > 16; cap--) {
    occupancy_at(ctx, threads, (int)cap, smem, &o);
    if (o.blocks_per_sm >= g->blocks)
      break;
  }
  return cap;
}

/* A retry: recompiled with these unroll counts (both 0: the original),
 * with .maxnreg or not. */
typedef struct step {
  unsigned unroll, unroll_sync;
  int maxnreg;
  const char *what;
} step;

static const step steps[] = {
    {0, 1, 0, "loops with a barrier left rolled"},
    {0, 0, 1, ".maxnreg"},
    {0, 1, 1, "loops with a barrier left rolled and .maxnreg"},
    {1, 0, 0, "no unrolling"},
    {1, 0, 1, "no unrolling and .maxnreg"},
};
enum { NSTEPS = sizeof steps / sizeof steps[0], NBASES = 3 };

/* What the guard works with. */
typedef struct guard {
  ks_ctx *ctx;
  const ks_template *t;
  const ks_request *r;
  ks_kernel *k;
  how how;
  unsigned threads, cap;
  fig spec, gen;
  ks_kernel *base[NBASES]; /* by base_of(); [0] unused: k itself */
  int tried[NBASES];
} guard;

static int base_of(const step *s) { return s->unroll ? 2 : s->unroll_sync; }

/* The recompiled kernel a step starts from (NULL: k; failed: sets *bad). */
static ks_kernel *base(guard *g, const step *s, int *bad) {
  int i = base_of(s);
  *bad = 0;
  if (!i)
    return NULL;
  if (!g->tried[i]) {
    g->tried[i] = 1;
    ks_request r2 = *g->r;
    r2.spec.unroll = s->unroll;
    r2.spec.unroll_sync = s->unroll_sync;
    ks_kernel *kv = ks_jit_kernel_new(g->ctx, g->t, &r2, g->k->key);
    int sync = 0;
    if (kv && ks_jit_compile(g->ctx, g->t, &r2, kv, &sync) != KS_OK) {
      ks_jit_kernel_free(kv, NULL);
      kv = NULL;
    }
    g->base[i] = kv;
  }
  *bad = !g->base[i];
  return g->base[i];
}

/* Step s's PTX (malloc'd into *ptx) and figures; 0 on success. */
static int try_step(guard *g, const step *s, char **ptx, size_t *len, fig *f) {
  int bad = 0;
  ks_kernel *b = base(g, s, &bad);
  const ks_kernel *from = b ? b : g->k;
  *ptx = NULL;
  if (bad)
    return 1;
  if (s->maxnreg) {
    if (ks_jit_ptx_maxnreg(from->ptx, from->ptx_len, g->k->name, g->cap, ptx,
                           len) != KS_OK)
      return 1;
  } else if (!(*ptx = malloc(from->ptx_len + 1))) {
    return 1;
  } else {
    memcpy(*ptx, from->ptx, from->ptx_len + 1);
    *len = from->ptx_len;
  }
  if (measure(&g->how, *ptx, *len, f) == KS_OK)
    return 0;
  free(*ptx);
  *ptx = NULL;
  return 1;
}

/* ptxas's figures stay with the kernel (ks_kernel_resources asks no
 * more); the driver's are read again at load. */
static void keep_figures(ks_kernel *k, const fig *f) {
  if (f->res.source != KS_RES_PTXAS)
    return;
  k->ptxas_res = f->res;
  k->ptxas_done = 1;
}

/* k takes step s's code: the recompiled kernel's explanation, IR and
 * info, and ptx (which it owns now), with f as its ptxas figures. */
static void adopt(guard *g, const step *s, char *ptx, size_t len,
                  const fig *f) {
  ks_kernel *k = g->k, *b = g->base[base_of(s)];
  if (b) {
    char *swap = k->explain;
    k->explain = b->explain;
    b->explain = swap;
    swap = k->ir;
    k->ir = b->ir;
    b->ir = swap;
    size_t n = k->ir_len;
    k->ir_len = b->ir_len;
    b->ir_len = n;
    k->info = b->info;
  }
  free(k->ptx);
  k->ptx = ptx;
  k->ptx_len = len;
  keep_figures(k, f);
}

/* The figures as the explanation gives them. */
static const char *show(const fig *f, char *buf, size_t cap) {
  snprintf(buf, cap, "%d registers, %d warps/SM, %d B %s", f->res.regs,
           f->warps, f->spill,
           f->res.source == KS_RES_PTXAS ? "spilled" : "of local memory");
  return buf;
}

/* The retries, in order; the first that keeps the generic's occupancy
 * without spilling more wins, else no unrolling. */
static void retry(guard *g) {
  char a[96], b[96], c[96];
  show(&g->spec, a, sizeof a);
  show(&g->gen, b, sizeof b);
  g->cap =
      cap_for(g->ctx, g->threads, (unsigned)g->spec.res.static_smem, &g->gen);
  int fallback = -1;
  char *fptx = NULL;
  size_t flen = 0;
  fig ff = {0};
  for (int i = 0; i < NSTEPS; i++) {
    char *ptx = NULL;
    size_t len = 0;
    fig f;
    if (try_step(g, &steps[i], &ptx, &len, &f))
      continue;
    if (keeps(&f, &g->gen)) {
      char what[96];
      snprintf(what, sizeof what, steps[i].maxnreg ? "%s %u" : "%s",
               steps[i].what, g->cap);
      free(fptx);
      adopt(g, &steps[i], ptx, len, &f);
      say(g->k, "%s at %u threads against the generic's %s: %s: %s", a,
          g->threads, b, what, show(&f, c, sizeof c));
      return;
    }
    if (steps[i].unroll && !steps[i].maxnreg && fallback < 0) {
      fallback = i;
      fptx = ptx;
      flen = len;
      ff = f;
    } else {
      free(ptx);
    }
  }
  if (fallback < 0) {
    say(g->k,
        "%s at %u threads against the generic's %s: no retry "
        "compiled: kept",
        a, g->threads, b);
    return;
  }
  adopt(g, &steps[fallback], fptx, flen, &ff);
  say(g->k,
      "%s at %u threads against the generic's %s: no retry kept "
      "both: no unrolling: %s",
      a, g->threads, b, show(&ff, c, sizeof c));
}

/* Above the generic's occupancy, ptxas's whole-program compile may have
 * held registers down to reach it, at the cost of the loads and
 * arithmetic a full unroll exposed (nbody_step bound: its tile loop
 * unrolled in full, 32 registers for 64 warps/SM, against the generic's
 * 34 registers and 48 warps; 1.03x the generic's time). `.minnctapersm`
 * at the generic's blocks per SM keeps the generic's occupancy and lets
 * ptxas use the registers it allows (40: 0.78x the generic's time;
 * BENCHMARKS.md). Taken when it spills nothing and keeps the generic's
 * warps; 1 when taken. */
static int relax(guard *g) {
  static const step s = {0, 0, 0, ".minnctapersm"};
  char *ptx = NULL, a[96], b[96], c[96];
  size_t len = 0;
  fig f;
  if (g->spec.spill || g->gen.blocks < 1 || g->spec.warps <= g->gen.warps ||
      ks_jit_ptx_minctasm(g->k->ptx, g->k->ptx_len, g->k->name,
                          (unsigned)g->gen.blocks, &ptx, &len) != KS_OK)
    return 0;
  if (measure(&g->how, ptx, len, &f) != KS_OK || f.spill ||
      f.warps < g->gen.warps || f.res.regs <= g->spec.res.regs) {
    free(ptx);
    ks_jit_clear();
    return 0;
  }
  show(&g->spec, a, sizeof a);
  show(&g->gen, b, sizeof b);
  adopt(g, &s, ptx, len, &f);
  say(g->k,
      "%s at %u threads, above the generic's %s: .minnctapersm %d, the "
      "generic's blocks per SM: %s",
      a, g->threads, b, g->gen.blocks, show(&f, c, sizeof c));
  return 1;
}

static void run_guard(guard *g) {
  char why[PATH_CAP + 64], a[96], b[96];
  ks_kernel *k = g->k;
  ks_drv *drv = NULL;
  g->how = (how){.ctx = g->ctx, .name = k->name, .threads = g->threads};
  if (ks_jit_ptxas_find(g->how.ptxas, sizeof g->how.ptxas, why, sizeof why) &&
      ks_jit_driver(g->ctx, &drv) != KS_OK) {
    say(k, "not checked: %s, and no driver", why);
    return;
  }
  if (measure(&g->how, k->ptx, k->ptx_len, &g->spec) != KS_OK) {
    say(k, "not checked: %s", ks_errmsg(NULL));
    return;
  }
  keep_figures(k, &g->spec);
  ks_occupancy full;
  occupancy_at(g->ctx, g->threads, 0, (unsigned)g->spec.res.static_smem, &full);
  int most = !g->spec.spill && g->spec.warps >= full.warps_per_sm;
  if (generic_fig(&g->how, g->t, g->r, &g->gen) != KS_OK) {
    if (most) {
      ks_jit_clear();
      say(k, "%s at %u threads: the most the block allows: kept",
          show(&g->spec, a, sizeof a), g->threads);
    } else {
      say(k, "not checked: the generic kernel: %s", ks_errmsg(NULL));
    }
    return;
  }
  if (relax(g))
    return;
  if (most) {
    say(k, "%s at %u threads: the most the block allows: kept",
        show(&g->spec, a, sizeof a), g->threads);
    return;
  }
  if (keeps(&g->spec, &g->gen)) {
    say(k, "%s at %u threads, not below the generic's %s: kept",
        show(&g->spec, a, sizeof a), g->threads, show(&g->gen, b, sizeof b));
    return;
  }
  retry(g);
}

void ks_jit_guard(ks_ctx *ctx, const ks_template *t, const ks_request *r,
                  ks_kernel *k, int sync_loop) {
  if (!wanted(r, k, sync_loop) || !may_lose(ctx, k))
    return;
  guard *g = calloc(1, sizeof *g);
  if (!g)
    return;
  *g = (guard){.ctx = ctx, .t = t, .r = r, .k = k, .threads = threads_of(k)};
  double t0 = now_ms();
  run_guard(g);
  stamp(k, now_ms() - t0);
  for (int i = 0; i < NBASES; i++)
    if (g->base[i])
      ks_jit_kernel_free(g->base[i], NULL);
  free(g);
}
