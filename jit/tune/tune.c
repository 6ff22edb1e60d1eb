/*
 * tune.c - ks_tune: the sweep over a space of variants of one kernel.
 *
 *   enumerate -> constraint -> fork a measuring worker per GPU -> compile
 *     all (async), figures, prune (while the workers open their GPUs)
 *     -> the workers' hellos: their GPUs (model, driver: the store's key)
 *     -> for each survivor (tune_measure.c): stored? reuse : check, warm up,
 *        time until the median is stable (in-process, or in a worker per
 *        GPU that takes the next variant of one queue when idle)
 *     -> store after each (tune_store.c) -> the noise rule picks the best
 *     -> several GPUs: the finalists (the fastest and its ties)
 *        measured again on one GPU, which picks the winner
 *
 * Pruning uses only compile-time figures, before any measurement:
 *  - compile errors, and bounds the specializer refuses (over resources);
 *  - over resources: a launch block over .maxntid, or no block fitting on
 *    an SM (the occupancy calculator over ptxas's registers);
 *  - spills, when spill-free variants exist;
 *  - occupancy dominated: among variants that bind the same values and
 *    launch the same block, the PTX of each differs only in its bounds
 *    directives, so equal PTX instruction counts mean the same code; ptxas
 *    then allocates registers under each variant's bounds. A spill-free
 *    variant with fewer resident warps per SM than another such variant
 *    is dominated; one with the same warps and registers as an earlier one
 *    is its duplicate. Both are pruned, saying which variant dominates.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jit/tune/sweep.h"

enum { MAX_POINTS = 100000, DEF_WARMUP = 3, DEF_WINDOW = 5 };

const char *ks_tune_class_name(ks_tune_class c) {
  static const char *const names[] = {
#define KS_TUNE_CLASS_TEXT(name, text) text,
      KS_TUNE_CLASS_LIST(KS_TUNE_CLASS_TEXT)
#undef KS_TUNE_CLASS_TEXT
  };
  return (unsigned)c < KS_TUNE_CLASS_COUNT ? names[c] : "?";
}

/* ---- the space ----------------------------------------------------------- */

/* A dim "tex:ARG": hardware textures for pointer argument ARG, 0 off, 1
 * on where the hardware returns the software's result bit for bit, 2 on
 * whatever the filter (the caller's check allowing its error). */
static int tex_dim(const char *name) { return strncmp(name, "tex:", 4) == 0; }

static int bound_dim(const char *name) {
  static const char *const names[] = {"maxntid", "minctasm", "maxnreg",
                                      "block"};
  for (int i = 0; i < 4; i++)
    if (strcmp(name, names[i]) == 0)
      return i;
  return -1;
}

/* The parameter of kernel ki at argument position arg into *info: its
 * index, or -1. */
static long param_at(const ks_template *t, long ki, int arg,
                     ks_param_info *info) {
  size_t n = ks_template_param_count(t, (size_t)ki);
  for (size_t i = 0; arg >= 0 && i < n; i++)
    if (ks_template_param(t, (size_t)ki, i, info) == KS_OK &&
        info->arg_index == (unsigned)arg)
      return (long)i;
  return -1;
}

void ks_jit_tune_args_of(const ks_template *t, long ki, const ks_tune_space *sp,
                         ks_jit_tune_args *out) {
  for (size_t d = 0; d < KS_TUNE_MAX_DIMS; d++) {
    unsigned arg = 0;
    const char *nm = d < sp->ndims && sp->dims ? sp->dims[d].name : NULL;
    int tex = nm && tex_dim(nm) &&
              ks_jit_buffer_at(t, ki, nm + 4, &arg) == KS_OK && arg < 64;
    out->tex[d] = tex ? (int)arg : KS_TUNE_ARG_NONE;
    out->dim[d] = !nm           ? KS_TUNE_ARG_NONE
                  : tex_dim(nm) ? (tex ? KS_TUNE_ARG_TEX : KS_TUNE_ARG_NONE)
                  : bound_dim(nm) >= 0 ? KS_TUNE_ARG_BOUND
                  : ks_jit_arg_at(t, ki, nm, 0, &arg) == KS_OK
                      ? (int)arg
                      : KS_TUNE_ARG_NONE;
  }
  for (size_t f = 0; f < KS_TUNE_MAX_FIXED; f++) {
    unsigned arg = 0;
    const ks_binding *b = f < sp->nfixed && sp->fixed ? &sp->fixed[f] : NULL;
    out->fixed[f] = b && ks_jit_arg_at(t, ki, b->name, b->arg, &arg) == KS_OK
                        ? (int)arg
                        : KS_TUNE_ARG_NONE;
  }
  ks_jit_clear(); /* a bad fixed value is each variant's compile error */
}

/* Checks the space's shape, then resolves w->args. */
static ks_status check_shape(sweep *w) {
  const ks_tune_space *sp = w->space;
  if (sp->ndims > KS_TUNE_MAX_DIMS || (sp->ndims && !sp->dims) ||
      (sp->nfixed && !sp->fixed) || sp->nfixed > KS_TUNE_MAX_FIXED)
    return ks_jit_fail(KS_EINVAL, "tune: %zu dims (at most %d), %zu fixed",
                       sp->ndims, KS_TUNE_MAX_DIMS, sp->nfixed);
  for (size_t d = 0; d < sp->ndims; d++)
    if (!sp->dims[d].name || !sp->dims[d].n || !sp->dims[d].values)
      return ks_jit_fail(KS_EINVAL, "tune: dim %zu (%s) has no values", d,
                         sp->dims[d].name ? sp->dims[d].name : "unnamed");
  ks_jit_tune_args_of(w->t, w->kernel, sp, &w->args);
  return KS_OK;
}

/* Dims and fixed values compare by the argument they bind ("n" and "@3"
 * are one), launch bounds by name. */
static ks_status check_space(sweep *w, size_t *total) {
  const ks_tune_space *sp = w->space;
  ks_status s = check_shape(w);
  if (s != KS_OK)
    return s;
  size_t n = 1;
  for (size_t d = 0; d < sp->ndims; d++) {
    const ks_tune_dim *dim = &sp->dims[d];
    int arg = w->args.dim[d];
    if (arg == KS_TUNE_ARG_NONE && tex_dim(dim->name))
      return ks_jit_fail(KS_EINVAL,
                         "tune: '%s': %s has no buffer argument '%s' (among "
                         "its first 64)",
                         dim->name, ks_template_kernel_name(w->t, w->kernel),
                         dim->name + 4);
    if (arg == KS_TUNE_ARG_NONE)
      return ks_jit_fail(KS_EINVAL,
                         "tune: '%s' is neither a launch bound nor a "
                         "parameter of %s",
                         dim->name, ks_template_kernel_name(w->t, w->kernel));
    for (size_t i = 0; arg == KS_TUNE_ARG_TEX && i < dim->n; i++)
      if (dim->values[i] < 0 || dim->values[i] > 2)
        return ks_jit_fail(KS_EINVAL,
                           "tune: '%s': value %lld; 0 (software), 1 "
                           "(hardware where bit-identical) or 2 (hardware)",
                           dim->name, (long long)dim->values[i]);
    for (size_t f = 0; f < sp->nfixed; f++)
      if (arg >= 0 && w->args.fixed[f] == arg)
        return ks_jit_fail(KS_EINVAL, "tune: '%s' is both fixed and swept",
                           dim->name);
    for (size_t e = 0; e < d; e++)
      if (arg >= 0                 ? w->args.dim[e] == arg
          : arg == KS_TUNE_ARG_TEX ? w->args.tex[e] == w->args.tex[d]
                                   : strcmp(sp->dims[e].name, dim->name) == 0)
        return ks_jit_fail(KS_EINVAL, "tune: '%s' is swept twice", dim->name);
    if (dim->n > MAX_POINTS || n * dim->n > MAX_POINTS)
      return ks_jit_fail(KS_EINVAL, "tune: over %d points", MAX_POINTS);
    n *= dim->n;
  }
  *total = n;
  return KS_OK;
}

/* The value a parameter has in a variant: swept, fixed or its default,
 * however the dim or fixed value spells it. */
static double param_value(const sweep *w, const ks_tune_point *p,
                          const ks_param_info *info) {
  const ks_tune_space *sp = w->space;
  for (size_t d = 0; d < sp->ndims; d++)
    if (w->args.dim[d] == (int)info->arg_index)
      return (double)p->v[d];
  for (size_t f = 0; f < sp->nfixed; f++) {
    const ks_binding *b = &sp->fixed[f];
    if (w->args.fixed[f] != (int)info->arg_index)
      continue;
    return b->kind == KS_VALUE_INT    ? (double)b->v.i
           : b->kind == KS_VALUE_REAL ? b->v.f
                                      : strtod(b->v.s ? b->v.s : "0", NULL);
  }
  return info->def;
}

/* The threads of a launch (see ks_tune_point.threads). */
static unsigned launch_threads(const sweep *w, const ks_tune_point *p) {
  const ks_launch_bounds *b = &p->bounds;
  if (b->block[0])
    return b->block[0] * (b->block[1] ? b->block[1] : 1) *
           (b->block[2] ? b->block[2] : 1);
  unsigned x = 0, y = 1;
  size_t n = ks_template_param_count(w->t, (size_t)w->kernel);
  for (size_t i = 0; i < n; i++) {
    ks_param_info info = {.size = sizeof info};
    if (ks_template_param(w->t, (size_t)w->kernel, i, &info) != KS_OK)
      continue;
    double v = param_value(w, p, &info);
    if (info.flags & KS_PARAM_BLOCK_X)
      x = v > 0 ? (unsigned)v : 0;
    if (info.flags & KS_PARAM_BLOCK_Y)
      y = v > 0 ? (unsigned)v : 0;
  }
  if (x)
    return x * y;
  return b->maxntid ? b->maxntid : 256;
}

/* Point number i (the last dim fastest) and its bindings; base: the
 * baseline instead (the space's bounds, swept parameters at their
 * defaults, unmarked ones, which have none, left to the launch as in the
 * generic kernel; bound dims 0). */
static void make_point(const sweep *w, size_t i, int base, ks_tune_point *p,
                       variant *v) {
  const ks_tune_space *sp = w->space;
  int unbound = 0;
  memset(p, 0, sizeof *p);
  p->bounds = sp->bounds;
  for (size_t f = 0; f < sp->nfixed; f++)
    v->binds[v->nbinds++] = sp->fixed[f];
  for (size_t d = sp->ndims; d-- > 0;) {
    const ks_tune_dim *dim = &sp->dims[d];
    int64_t x = dim->values[i % dim->n];
    i /= dim->n;
    ks_param_info info = {.size = sizeof info};
    int open = 0; /* an unmarked argument in the baseline: left unbound */
    if (base) {
      int is_param = param_at(w->t, w->kernel, w->args.dim[d], &info) >= 0;
      x = is_param ? (int64_t)info.def : 0;
      open = is_param && !info.marked; /* no default: the generic kernel's */
      unbound += open;
    }
    p->v[d] = x;
    unsigned u = x < 0 ? 0 : x > 0xffffffffLL ? 0xffffffffu : (unsigned)x;
    if (w->args.dim[d] == KS_TUNE_ARG_TEX) { /* the baseline's: software */
      p->v[d] = base ? 0 : x;
      v->tex |= (uint64_t)(p->v[d] != 0) << w->args.tex[d];
      continue;
    }
    switch ((base && bound_dim(dim->name) >= 0) || open
                ? -2
                : bound_dim(dim->name)) {
    case -2:
      break;
    case 0:
      p->bounds.maxntid = u;
      break;
    case 1:
      p->bounds.minctasm = u;
      break;
    case 2:
      p->bounds.maxnreg = u;
      break;
    case 3:
      p->bounds.block[0] = u;
      p->bounds.block[1] = p->bounds.block[2] = 1;
      break;
    default:
      v->binds[v->nbinds++] =
          (ks_binding){.name = dim->name, .kind = KS_VALUE_INT, .v.i = x};
    }
  }
  p->threads = launch_threads(w, p);
  ks_jit_tune_vkey(sp, &w->args, p, v->vkey, sizeof v->vkey);
  /* a baseline with arguments left to the launch is no point of the
   * space, whose values it would otherwise read as 0 in the store */
  size_t used = strlen(v->vkey);
  if (unbound && used < sizeof v->vkey)
    snprintf(v->vkey + used, sizeof v->vkey - used, ";generic");
}

void ks_jit_tune_vkey(const ks_tune_space *sp, const ks_jit_tune_args *args,
                      const ks_tune_point *p, char *buf, size_t cap) {
  const ks_launch_bounds *b = &p->bounds;
  size_t n = (size_t)snprintf(
      buf, cap, "threads=%u;block=%u,%u,%u;maxntid=%u;minctasm=%u;maxnreg=%u",
      p->threads, b->block[0], b->block[1], b->block[2], b->maxntid,
      b->minctasm, b->maxnreg);
  /* Swept parameters by position, in order of position, so that neither
   * the spelling nor the order of the dims matters. */
  int last = -1;
  for (;;) {
    int next = -1;
    size_t at = 0;
    for (size_t d = 0; d < sp->ndims; d++) {
      int a = args->dim[d];
      if (a > last && (next < 0 || a < next)) {
        next = a;
        at = d;
      }
    }
    if (next < 0 || n >= cap)
      break;
    n += (size_t)snprintf(buf + n, cap - n, ";@%d=%lld", next,
                          (long long)p->v[at]);
    last = next;
  }
  /* then the textures switched on, by position */
  for (int a = 0; a < 64 && n < cap; a++)
    for (size_t d = 0; d < sp->ndims && n < cap; d++)
      if (args->dim[d] == KS_TUNE_ARG_TEX && args->tex[d] == a && p->v[d])
        n += (size_t)snprintf(buf + n, cap - n, ";tex@%d=%lld", a,
                              (long long)p->v[d]);
}

/* ---- compiling and the figures ------------------------------------------ */

void ks_jit_tune_reason(ks_tune_entry *e, ks_tune_class c, const char *fmt,
                        ...) {
  va_list ap;
  va_start(ap, fmt);
  e->cls = c;
  vsnprintf(e->reason, sizeof e->reason, fmt, ap);
  va_end(ap);
  for (char *s = e->reason; *s; s++)
    if (*s == '\n' || *s == '\r' || *s == '\t')
      *s = ' ';
}

/* The textures variant v switches on, as names ("@N", in v->tex_names)
 * into names (KS_TUNE_MAX_DIMS): how many. */
static size_t tex_names(variant *v, const char **names) {
  size_t n = 0;
  for (int a = 0; a < 64 && n < KS_TUNE_MAX_DIMS; a++)
    if (v->tex >> a & 1) {
      snprintf(v->tex_names[n], sizeof v->tex_names[n], "@%d", a);
      names[n] = v->tex_names[n];
      n++;
    }
  return n;
}

/* Does every texture of k over the arguments in args (bits) return what
 * the software sampling returns, bit for bit? Nearest sampling, clamped or 0
 * outside, of float, half or integers read as values: the hardware takes the
 * texel the software takes. Linear filtering weighs with 9-bit fractions,
 * normalized integers go through the hardware's conversion, and wrap and mirror
 * divide the coordinate by the size: within a bound, not the same. */
static int tex_exact(const ks_kernel *k, uint64_t args, char *why, size_t cap) {
  static const char *const fmts[] = {"f32", "f16", "u8", "s8", "u16", "s16"};
  ks_kernel_info in = {.size = sizeof in};
  if (ks_kernel_info_get(k, &in) != KS_OK)
    return snprintf(why, cap, "no kernel info"), 0;
  for (unsigned i = 0; i < in.plan.texs; i++) {
    unsigned f = in.plan.tex_filter[i], m = in.plan.tex_mode[i];
    unsigned fmt = in.plan.tex_format[i] < 6 ? in.plan.tex_format[i] : 0;
    if (!(args >> (in.plan.tex_arg[i] & 63) & 1))
      continue;
    const char *what = f & 1                 ? "linear filtering"
                       : (f & 2) && fmt >= 2 ? "normalized integers"
                       : m == 1 || m == 2    ? "wrap or mirror"
                                             : NULL;
    if (what) {
      snprintf(why, cap,
               "texture of argument %u (%s): %s in hardware is only within "
               "a bound of the software's result (tex:ARG=2 allows it)",
               in.plan.tex_arg[i], fmts[fmt], what);
      return 0;
    }
  }
  return 1;
}

/* Variants whose texture dims say 1 but whose hardware sampling is not
 * bit-identical to the software's are left out (excluded). */
static void exclude_inexact(sweep *w) {
  ks_tune_result *r = w->res;
  for (size_t i = 0; i < r->n; i++) {
    ks_tune_entry *e = &r->entries[i];
    uint64_t exact_only = 0; /* the arguments whose dim says 1 */
    for (size_t d = 0; d < w->space->ndims; d++)
      if (w->args.dim[d] == KS_TUNE_ARG_TEX && e->point.v[d] == 1)
        exact_only |= (uint64_t)1 << w->args.tex[d];
    char why[sizeof e->reason];
    if (exact_only && ks_jit_tune_alive(e) && w->vars[i].kernel &&
        !tex_exact(w->vars[i].kernel, exact_only, why, sizeof why))
      ks_jit_tune_reason(e, KS_TUNE_EXCLUDED, "%s", why);
  }
}

void ks_jit_tune_variant_req(sweep *w, size_t i, ks_spec_req *req,
                             const char **tex) {
  variant *v = &w->vars[i];
  *req = (ks_spec_req){.kernel = w->space->kernel,
                       .bindings = v->binds,
                       .nbindings = v->nbinds,
                       .bounds = w->res->entries[i].point.bounds,
                       .fp = w->space->fp,
                       .tex = tex};
  req->ntex = tex_names(v, tex);
}

/* Starts every variant's compile, then waits for all of them. */
static ks_status compile_all(sweep *w) {
  ks_tune_result *r = w->res;
  size_t all = r->n + (r->baseline != NULL);
  for (size_t i = 0; i < all; i++) {
    variant *v = &w->vars[i];
    if (r->entries[i].cls == KS_TUNE_EXCLUDED)
      continue;
    ks_spec_req req;
    const char *tex[KS_TUNE_MAX_DIMS];
    ks_jit_tune_variant_req(w, i, &req, tex);
    ks_status s = ks_specialize_async(w->ctx, w->t, &req, &v->future);
    if (s != KS_OK)
      ks_jit_tune_reason(&r->entries[i], KS_TUNE_COMPILE_ERROR, "%s",
                         ks_errmsg(w->ctx));
  }
  for (size_t i = 0; i < all; i++) {
    variant *v = &w->vars[i];
    if (!v->future)
      continue;
    ks_status s = ks_future_wait(v->future, &v->kernel);
    if (s != KS_OK)
      ks_jit_tune_reason(&r->entries[i],
                         s == KS_EBOUNDS ? KS_TUNE_OVER_RESOURCES
                                         : KS_TUNE_COMPILE_ERROR,
                         "%s", ks_errmsg(w->ctx));
  }
  return KS_OK;
}

/* Instructions in PTX text: statements ending in ';' that are not
 * directives (lines starting with '.') or comments. */
static int ptx_instructions(const ks_kernel *k) {
  const char *ptx;
  size_t len;
  if (ks_kernel_ptx(k, &ptx, &len) != KS_OK)
    return -1;
  int n = 0;
  for (const char *s = ptx; *s;) {
    const char *eol = strchr(s, '\n');
    size_t l = eol ? (size_t)(eol - s) : strlen(s);
    const char *a = s;
    while (a < s + l && isspace((unsigned char)*a))
      a++;
    if (a < s + l && *a != '.' && *a != '/' && memchr(a, ';', l - (a - s)))
      n++;
    s = eol ? eol + 1 : s + l;
  }
  return n;
}

/* Registers, spills, occupancy of one compiled variant; over resources
 * when the block cannot run. */
static void figures(sweep *w, size_t i) {
  ks_tune_entry *e = &w->res->entries[i];
  ks_kernel *k = w->vars[i].kernel;
  ks_kernel_resources res = {.size = sizeof res};
  variant *v = &w->vars[i];
  ks_status s = w->o.resources
                    ? w->o.resources(w->o.arg, k, &res)
                    : ks_jit_resources_cubin(k, &res, &v->cubin, &v->cubin_len);
  int have = s == KS_OK;
  ks_kernel_info info = {.size = sizeof info};
  ks_kernel_info_get(k, &info);
  e->instrs = ptx_instructions(k);
  e->regs = have ? res.regs : -1;
  e->spills =
      have && res.spill_stores >= 0
          ? res.spill_stores + (res.spill_loads > 0 ? res.spill_loads : 0)
          : -1;
  const ks_launch_bounds *b = &e->point.bounds;
  if (b->maxntid && e->point.threads > b->maxntid) {
    ks_jit_tune_reason(e, KS_TUNE_OVER_RESOURCES,
                       "a block of %u threads is over .maxntid %u",
                       e->point.threads, b->maxntid);
    return;
  }
  ks_occ_input in = {.block = e->point.threads,
                     .regs = have ? res.regs : 0,
                     .smem = have && res.static_smem >= 0
                                 ? (unsigned)res.static_smem
                                 : info.smem_bytes};
  ks_occupancy occ = {.size = sizeof occ};
  s = ks_occupancy_calc(ks_ctx_arch(w->ctx), &in, &occ);
  if (s != KS_OK || occ.blocks_per_sm == 0) {
    ks_jit_tune_reason(
        e, KS_TUNE_OVER_RESOURCES,
        "no block fits on an SM: %u threads x %d registers, %u bytes "
        "of shared memory",
        in.block, in.regs, in.smem);
    return;
  }
  e->warps = have ? occ.warps_per_sm : -1;
}

/* The variants' figures, each by a ptxas of its own: one after the
 * other they would take longer than the measurements of a sweep over
 * several GPUs. The same run makes the variant's whole-program cubin,
 * which the workers load: they then run no ptxas of their own. A
 * resources callback of the caller's is called from this thread alone. */
typedef struct figure_queue {
  sweep *w;
  size_t all;
  atomic_size_t next;
} figure_queue;

static void *figures_worker(void *arg) {
  figure_queue *q = arg;
  for (size_t i; (i = atomic_fetch_add(&q->next, 1)) < q->all;)
    if (ks_jit_tune_alive(&q->w->res->entries[i]))
      figures(q->w, i);
  return NULL;
}

static void all_figures(sweep *w) {
  enum { MAX_FIGURE_THREADS = 64 };
  figure_queue q = {.w = w, .all = w->res->n + (w->res->baseline != NULL)};
  atomic_init(&q.next, 0);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  size_t n = w->o.resources || cpus < 2 ? 0 : (size_t)cpus;
  if (n > MAX_FIGURE_THREADS)
    n = MAX_FIGURE_THREADS;
  if (n > q.all)
    n = q.all;
  pthread_t th[MAX_FIGURE_THREADS];
  size_t started = 0;
  while (started + 1 < n &&
         pthread_create(&th[started], NULL, figures_worker, &q) == 0)
    started++;
  figures_worker(&q); /* this thread too, and alone when none started */
  for (size_t k = 0; k < started; k++)
    pthread_join(th[k], NULL);
}

/* Do a and b bind the same values and launch the same block? */
static int same_group(const sweep *w, const ks_tune_entry *a,
                      const ks_tune_entry *b) {
  if (a->point.threads != b->point.threads ||
      memcmp(a->point.bounds.block, b->point.bounds.block,
             sizeof a->point.bounds.block) != 0)
    return 0;
  for (size_t d = 0; d < w->space->ndims; d++)
    if ((w->args.dim[d] >= 0 || w->args.dim[d] == KS_TUNE_ARG_TEX) &&
        a->point.v[d] != b->point.v[d])
      return 0;
  return 1;
}

static void prune(sweep *w) {
  ks_tune_result *r = w->res;
  int spill_free = 0;
  for (size_t i = 0; i < r->n; i++)
    spill_free |=
        ks_jit_tune_alive(&r->entries[i]) && r->entries[i].spills == 0;
  for (size_t i = 0; i < r->n && spill_free; i++) {
    ks_tune_entry *e = &r->entries[i];
    if (ks_jit_tune_alive(e) && e->spills > 0)
      ks_jit_tune_reason(
          e, KS_TUNE_PRUNED,
          "spills %d bytes per thread (%d registers); spill-free "
          "variants exist",
          e->spills, e->regs);
  }
  /* Dominance is decided over the survivors of the spill rule at once;
   * then duplicates among those not dominated. */
  long *by = calloc(r->n, sizeof *by);
  if (!by)
    return;
  for (size_t i = 0; i < r->n; i++) {
    ks_tune_entry *a = &r->entries[i];
    by[i] = -1;
    for (size_t j = 0; j < r->n && ks_jit_tune_alive(a) && a->warps >= 0; j++) {
      ks_tune_entry *b = &r->entries[j];
      if (j == i || !ks_jit_tune_alive(b) || b->warps < 0 || b->spills != 0 ||
          a->spills != 0 || b->instrs != a->instrs || a->instrs < 0 ||
          !same_group(w, a, b))
        continue;
      if (b->warps > a->warps &&
          (by[i] < 0 || b->warps > r->entries[by[i]].warps))
        by[i] = (long)j;
    }
  }
  for (size_t i = 0; i < r->n; i++) {
    ks_tune_entry *a = &r->entries[i];
    if (by[i] >= 0)
      ks_jit_tune_reason(a, KS_TUNE_PRUNED,
                         "occupancy dominated by #%ld: same code size (%d PTX "
                         "instructions), %d vs %d resident warps per SM",
                         by[i], a->instrs, a->warps, r->entries[by[i]].warps);
  }
  free(by);
  for (size_t i = 0; i < r->n; i++) {
    ks_tune_entry *a = &r->entries[i];
    for (size_t j = 0; j < i && ks_jit_tune_alive(a) && a->warps >= 0; j++) {
      ks_tune_entry *b = &r->entries[j];
      if (ks_jit_tune_alive(b) && b->spills == 0 && a->spills == 0 &&
          b->instrs == a->instrs && b->regs == a->regs &&
          b->warps == a->warps && same_group(w, a, b))
        ks_jit_tune_reason(
            a, KS_TUNE_PRUNED,
            "duplicate of #%zu: same code size (%d PTX "
            "instructions), registers (%d) and warps per SM (%d)",
            j, a->instrs, a->regs, a->warps);
    }
  }
}

/* ---- ks_tune ----------------------------------------------------------- */

static void defaults(ks_tune_opts *o) {
  if (!o->warmup)
    o->warmup = DEF_WARMUP;
  if (!o->window)
    o->window = DEF_WINDOW;
  if (!o->max_runs)
    o->max_runs = KS_TUNE_DEF_RUNS;
  if (o->max_runs > KS_TUNE_DEF_RUNS * 10)
    o->max_runs = KS_TUNE_DEF_RUNS * 10;
  if (o->window > o->max_runs)
    o->window = o->max_runs;
  if (!(o->stable > 0))
    o->stable = 0.01;
  if (!(o->min_gain > 0))
    o->min_gain = 0.01;
  if (!(o->timeout_ms > 0))
    o->timeout_ms = 10000;
  if (o->ngpus)
    o->isolate = 1; /* a worker process per GPU */
}

/* A GPU list names each GPU once, by its ordinal. */
static ks_status check_gpus(const ks_tune_opts *o) {
  if (o->ngpus && !o->gpus)
    return ks_jit_fail(KS_EINVAL, "tune: %zu GPUs but no list", o->ngpus);
  if (o->ngpus > KS_TUNE_MAX_GPUS)
    return ks_jit_fail(KS_EINVAL, "tune: %zu GPUs (at most %d)", o->ngpus,
                       KS_TUNE_MAX_GPUS);
  for (size_t k = 0; k < o->ngpus; k++) {
    if (o->gpus[k] < 0)
      return ks_jit_fail(KS_EINVAL, "tune: GPU %d: not a device ordinal",
                         o->gpus[k]);
    for (size_t j = 0; j < k; j++)
      if (o->gpus[j] == o->gpus[k])
        return ks_jit_fail(KS_EINVAL, "tune: GPU %d is named twice",
                           o->gpus[k]);
  }
  return KS_OK;
}

static ks_status setup(sweep *w, ks_tune_result *out) {
  size_t n = 0;
  ks_status s = check_space(w, &n);
  if (s != KS_OK)
    return s;
  size_t all = n + (w->o.baseline != 0);
  out->entries = calloc(all, sizeof *out->entries);
  w->vars = calloc(all, sizeof *w->vars);
  w->mine = malloc(all);
  if (!out->entries || !w->vars || !w->mine)
    return ks_jit_fail(KS_ENOMEM, "tune: %zu variants", n);
  out->n = n;
  if (w->o.baseline)
    out->baseline = &out->entries[n];
  for (size_t i = 0; i < all; i++) {
    ks_tune_entry *e = &out->entries[i];
    e->size = sizeof *e;
    make_point(w, i, i == n, &e->point, &w->vars[i]);
    e->cls = KS_TUNE_NOT_RUN;
    e->regs = e->spills = e->warps = e->instrs = -1;
    e->gpu = -1;
    w->mine[i] = 1;
    if (i < n && w->space->valid &&
        !w->space->valid(&e->point, w->space->valid_arg))
      ks_jit_tune_reason(e, KS_TUNE_EXCLUDED, "left out by the constraint");
  }
  return KS_OK;
}

static ks_status tune(ks_ctx *ctx, const ks_template *t,
                      const ks_tune_space *space, const ks_tune_opts *opts,
                      ks_tune_result *out) {
  if (!ctx || !t || !space || !opts || !opts->measure)
    return ks_jit_fail(KS_EINVAL, "tune: NULL context, template, space, "
                                  "options or measure");
  ks_status s = check_gpus(opts);
  if (s != KS_OK)
    return s;
  sweep w = {.ctx = ctx, .t = t, .space = space, .o = *opts, .res = out};
  defaults(&w.o);
  w.kernel = ks_jit_kernel_index(t, space->kernel);
  if (w.kernel < 0)
    return KS_ENOKERNEL;
  s = setup(&w, out);
  /* The workers for GPUs fork first, and open their GPUs while this
   * process compiles: each variant's kernel goes to them with it. */
  if (s == KS_OK)
    s = ks_jit_tune_pool_spawn(&w);
  if (s == KS_OK) {
    double t0 = ks_jit_tune_now_ms();
    compile_all(&w);
    exclude_inexact(&w);
    out->compile_ms = ks_jit_tune_now_ms() - t0;
    t0 = ks_jit_tune_now_ms();
    all_figures(&w);
    prune(&w);
    out->figures_ms = ks_jit_tune_now_ms() - t0;
    s = ks_jit_tune_measure_all(&w);
  }
  for (size_t i = 0; w.vars && i < out->n + (out->baseline != NULL); i++) {
    ks_future_free(w.vars[i].future);
    free(w.vars[i].cubin);
  }
  free(w.vars);
  free(w.mine);
  free(w.left);
  return s;
}

ks_status ks_tune(ks_ctx *ctx, const ks_template *t, const ks_tune_space *space,
                  const ks_tune_opts *opts, ks_tune_result *out) {
  ks_jit_clear();
  ks_status s = KS_OUT_CHECK(out, "tune", ks_tune_result);
  if (s != KS_OK)
    return s;
  ks_tune_result full = {.size = sizeof full, .best = -1};
  s = tune(ctx, t, space, opts, &full);
  ks_jit_out_put(out, &full, sizeof full); /* even when the sweep stopped */
  return s;
}

void ks_tune_result_free(ks_tune_result *r) {
  if (!r)
    return;
  free(r->entries);
  r->entries = NULL;
  r->baseline = NULL;
  r->n = 0;
}
