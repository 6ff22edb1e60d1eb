/*
 * tune_store.c - the tuner's results on disk, and ks_tune_lookup.
 *
 * One file per problem: <dir>/<fnv64 of the key>.tune, where the key names
 * the device model, the driver, the architecture, the template's hash, the
 * kernel, the fixed values and the caller's problem text:
 *
 *   kspec-tune-3
 *   key dev=NVIDIA H100;drv=13000;arch=sm_90;tmpl=9f..e1;kernel=conv1d;...
 *   best threads=256;block=0,0,0;maxntid=256;minctasm=2;maxnreg=0;@4=32
 *   v VKEY CLASS RUNS MEDIAN MIN MAX Q1 Q3 GPU FINALIST REASON...
 *
 * GPU is the device ordinal that measured the variant (-1: the context's
 * device), FINALIST 1 when it was measured again, on one GPU, among the
 * finalists of a sweep over several. Version 2 files (no GPU and
 * FINALIST) are read as measured on GPU -1.
 *
 * Parameters, fixed or swept, are keyed by their argument position ("@4")
 * however the space spells them (a name or "@N"), so that one problem
 * swept or looked up either way is one file and one set of variants.
 * Version 1 keyed them by spelling; its files are not read (a lookup
 * misses, a sweep measures again).
 *
 * The file is rewritten whole after every measured variant: written to a
 * temporary file in the same directory and renamed over the old one, so a
 * reader (or a sweep killed half-way) sees the old or the new file, never
 * a torn one. Entries of variants outside the current space are kept.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jit/tune/tune.h"

enum { KEY_CAP = KS_TUNE_KEY_CAP, MAX_LINE = 4096 };

typedef struct stored {
  char vkey[KS_TUNE_VKEY_CAP];
  ks_tune_entry e;
} stored;

struct ks_jit_tune_store {
  char path[1024];
  char key[KEY_CAP];
  char best[KS_TUNE_VKEY_CAP];
  stored *items;
  size_t n, cap;
  int unsynced; /* saved since the last fsync */
  /* Opened held (ks_jit_tune_store_open_held): puts are kept in memory,
   * the directory is made and the file written at the commit. */
  int held;
  char dir[900];
};

static uint64_t fnv64(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static void device_of(ks_ctx *ctx, const ks_tune_opts *o, char *name,
                      size_t cap, int *drv) {
  ks_device_info info = {.size = sizeof info};
  *drv = o->driver_version;
  if (o->device) {
    snprintf(name, cap, "%s", o->device);
  } else if (!o->isolate && !ks_jit_ctx_no_driver(ctx) &&
             ks_device_query(ctx, &info) == KS_OK) {
    snprintf(name, cap, "%s", info.name);
    if (!*drv)
      *drv = info.driver_version;
  } else {
    snprintf(name, cap, "none");
  }
  ks_jit_clear();
}

static void value_text(const ks_binding *b, char *buf, size_t cap) {
  if (b->kind == KS_VALUE_INT)
    snprintf(buf, cap, "%lld", (long long)b->v.i);
  else if (b->kind == KS_VALUE_REAL)
    snprintf(buf, cap, "%.17g", b->v.f);
  else
    snprintf(buf, cap, "%s", b->v.s ? b->v.s : "");
}

/* A fixed value as the parameter of type ty reads it, so that 16, 16.0
 * and "16" are one value: an integer's in decimal, a real's to the digit;
 * text that does not read as one stays as it is (its compile fails). */
static void number_text(ks_type ty, const ks_binding *b, char *buf,
                        size_t cap) {
  int real = ty == KS_TYPE_F16 || ty == KS_TYPE_F32 || ty == KS_TYPE_F64;
  const char *t = b->kind == KS_VALUE_TEXT && b->v.s ? b->v.s : "";
  char *end = NULL;
  errno = 0;
  if (b->kind == KS_VALUE_INT && real)
    snprintf(buf, cap, "%.17g", (double)b->v.i);
  else if (b->kind == KS_VALUE_REAL && !real && b->v.f > -9e18 &&
           b->v.f < 9e18 && b->v.f == (double)(long long)b->v.f)
    snprintf(buf, cap, "%lld", (long long)b->v.f);
  else if (b->kind != KS_VALUE_TEXT || !*t)
    value_text(b, buf, cap);
  else if (real && (strtod(t, &end), *end == '\0' && !errno))
    snprintf(buf, cap, "%.17g", strtod(t, NULL));
  else if (!real && (strtoll(t, &end, 10), *end == '\0' && !errno))
    snprintf(buf, cap, "%lld", strtoll(t, NULL, 10));
  else
    value_text(b, buf, cap);
}

/* Appends the fixed values to the key by argument position ("@4=32", in
 * order of position), so that neither their spelling nor their order
 * matters; those that bind nothing (each variant fails to compile) as
 * they are spelled. */
static size_t fixed_text(const ks_template *t, long ki, const ks_tune_space *sp,
                         char *buf, size_t cap, size_t n) {
  ks_jit_tune_args args;
  ks_jit_tune_args_of(t, ki, sp, &args);
  char v[128];
  for (int last = -1;;) {
    int next = -1;
    size_t at = 0;
    for (size_t f = 0; f < sp->nfixed && f < KS_TUNE_MAX_FIXED; f++)
      if (args.fixed[f] > last && (next < 0 || args.fixed[f] < next))
        next = args.fixed[f], at = f;
    if (next < 0 || n >= cap)
      break;
    ks_param_info info = {.size = sizeof info, .type = KS_TYPE_I64};
    size_t np = ks_template_param_count(t, (size_t)ki);
    for (size_t i = 0; i < np; i++)
      if (ks_template_param(t, (size_t)ki, i, &info) == KS_OK &&
          info.arg_index == (unsigned)next)
        break;
    number_text(info.type, &sp->fixed[at], v, sizeof v);
    n += (size_t)snprintf(buf + n, cap - n, ";@%d=%s", next, v);
    last = next;
  }
  for (size_t f = 0; f < sp->nfixed && n < cap; f++) {
    if (f < KS_TUNE_MAX_FIXED && args.fixed[f] >= 0)
      continue;
    value_text(&sp->fixed[f], v, sizeof v);
    n += (size_t)snprintf(buf + n, cap - n, ";%s=%s",
                          sp->fixed[f].name ? sp->fixed[f].name : "?", v);
  }
  return n;
}

/* The problem's key: everything a measurement depends on but the variant. */
static void key_text(ks_ctx *ctx, const ks_template *t, const ks_tune_space *sp,
                     const ks_tune_opts *o, char *buf, size_t cap) {
  char dev[160];
  int drv;
  device_of(ctx, o, dev, sizeof dev, &drv);
  long ki = ks_jit_kernel_index(t, sp->kernel);
  uint64_t hash[2];
  ks_jit_template_hash(t, hash);
  const ks_launch_bounds *b = &sp->bounds;
  size_t n = (size_t)snprintf(
      buf, cap,
      "dev=%s;drv=%d;arch=%s;tmpl=%016llx%016llx;kernel=%s;bounds=%u,%u,%u,"
      "%u,%u,%u;problem=%s",
      dev, drv, ks_ctx_arch(ctx), (unsigned long long)hash[0],
      (unsigned long long)hash[1],
      ki >= 0 ? ks_template_kernel_name(t, (size_t)ki) : "?", b->block[0],
      b->block[1], b->block[2], b->maxntid, b->minctasm, b->maxnreg,
      o->problem ? o->problem : "");
  if (sp->fp && n < cap) /* results of other modes are other problems */
    n += (size_t)snprintf(buf + n, cap - n, ";fp=%u", sp->fp);
  if (ki >= 0 && n < cap)
    fixed_text(t, ki, sp, buf, cap, n);
  for (char *s = buf; *s; s++)
    if (*s == '\n' || *s == '\r')
      *s = ' ';
}

void ks_jit_tune_store_key(ks_ctx *ctx, const ks_template *t,
                           const ks_tune_space *sp, const ks_tune_opts *o,
                           char *buf, size_t cap) {
  key_text(ctx, t, sp, o, buf, cap);
}

static stored *find(ks_jit_tune_store *st, const char *vkey) {
  for (size_t i = 0; i < st->n; i++)
    if (strcmp(st->items[i].vkey, vkey) == 0)
      return &st->items[i];
  return NULL;
}

static stored *add(ks_jit_tune_store *st, const char *vkey) {
  stored *s = find(st, vkey);
  if (s)
    return s;
  if (st->n == st->cap) {
    size_t cap = st->cap ? st->cap * 2 : 64;
    stored *grown = realloc(st->items, cap * sizeof *grown);
    if (!grown)
      return NULL;
    st->items = grown;
    st->cap = cap;
  }
  s = &st->items[st->n++];
  memset(s, 0, sizeof *s);
  snprintf(s->vkey, sizeof s->vkey, "%s", vkey);
  return s;
}

/* Parses one "v ..." line of a version 2 or 3 file into st; malformed
 * lines are skipped. */
static void parse_entry(ks_jit_tune_store *st, const char *line, int v3) {
  char vkey[KS_TUNE_VKEY_CAP];
  int cls, used = 0;
  unsigned runs;
  ks_tune_entry e = {.gpu = -1};
  if (sscanf(line, "v %511s %d %u %lf %lf %lf %lf %lf %n", vkey, &cls, &runs,
             &e.median, &e.min, &e.max, &e.q1, &e.q3, &used) < 8 ||
      cls < 0 || cls >= KS_TUNE_CLASS_COUNT)
    return;
  int more = 0;
  if (v3 && (sscanf(line + used, "%d %d %n", &e.gpu, &e.finalist, &more) < 2 ||
             !more))
    return;
  used += more;
  e.cls = (ks_tune_class)cls;
  e.runs = runs;
  snprintf(e.reason, sizeof e.reason, "%s", line + used);
  e.reason[strcspn(e.reason, "\n")] = '\0';
  stored *s = add(st, vkey);
  if (s)
    s->e = e;
}

/* Reads a store's lines from f when they belong to st's key. */
static void read_lines(ks_jit_tune_store *st, FILE *f) {
  char *line = malloc(MAX_LINE);
  int v3 = 0;
  int ok = line && fgets(line, MAX_LINE, f) &&
           ((v3 = strcmp(line, "kspec-tune-3\n") == 0) ||
            strcmp(line, "kspec-tune-2\n") == 0) &&
           fgets(line, MAX_LINE, f) && strncmp(line, "key ", 4) == 0 &&
           strncmp(line + 4, st->key, strlen(st->key)) == 0 &&
           line[4 + strlen(st->key)] == '\n';
  while (ok && fgets(line, MAX_LINE, f)) {
    if (strncmp(line, "best ", 5) == 0 &&
        sscanf(line, "best %511s", st->best) != 1)
      st->best[0] = '\0';
    else if (line[0] == 'v')
      parse_entry(st, line, v3);
  }
  free(line);
}

/* Reads the file when it exists and belongs to this key. */
static void load(ks_jit_tune_store *st) {
  FILE *f = fopen(st->path, "r");
  if (!f)
    return;
  read_lines(st, f);
  fclose(f);
}

ks_jit_tune_store *ks_jit_tune_store_read(const char *key, FILE *f) {
  ks_jit_tune_store *st = calloc(1, sizeof *st);
  if (!st)
    return NULL;
  snprintf(st->key, sizeof st->key, "%s", key);
  read_lines(st, f);
  return st;
}

static ks_status open_store(ks_ctx *ctx, const ks_template *t,
                            const ks_tune_space *sp, const ks_tune_opts *o,
                            int create, ks_jit_tune_store **out) {
  *out = NULL;
  char dir[900];
  const char *cache = ks_cache_dir(ctx);
  if (o->store_dir && !*o->store_dir)
    return KS_OK;
  if (o->store_dir)
    snprintf(dir, sizeof dir, "%s", o->store_dir);
  else if (cache)
    snprintf(dir, sizeof dir, "%s/tune", cache);
  else
    return KS_OK;
  if (create && mkdir(dir, 0700) != 0 && errno != EEXIST)
    return ks_jit_fail(KS_EIO, "tune: cannot create %s: %s", dir,
                       strerror(errno));
  ks_jit_tune_store *st = calloc(1, sizeof *st);
  if (!st)
    return ks_jit_fail(KS_ENOMEM, "tune: store");
  snprintf(st->dir, sizeof st->dir, "%s", dir);
  key_text(ctx, t, sp, o, st->key, sizeof st->key);
  snprintf(st->path, sizeof st->path, "%s/%016llx.tune", dir,
           (unsigned long long)fnv64(st->key));
  load(st);
  *out = st;
  return KS_OK;
}

ks_status ks_jit_tune_store_open(ks_ctx *ctx, const ks_template *t,
                                 const ks_tune_space *sp, const ks_tune_opts *o,
                                 ks_jit_tune_store **out) {
  return open_store(ctx, t, sp, o, 1, out);
}

ks_status ks_jit_tune_store_open_held(ks_ctx *ctx, const ks_template *t,
                                      const ks_tune_space *sp,
                                      const ks_tune_opts *o,
                                      ks_jit_tune_store **out) {
  ks_status s = open_store(ctx, t, sp, o, 0, out);
  if (*out)
    (*out)->held = 1;
  return s;
}

const char *ks_jit_tune_store_path(const ks_jit_tune_store *st) {
  return st->path;
}

/* Variants that ran: measured, or failed when launched. */
static int runtime_class(ks_tune_class c) {
  return c == KS_TUNE_MEASURED || c == KS_TUNE_LAUNCH_FAILURE ||
         c == KS_TUNE_WRONG_RESULT || c == KS_TUNE_TIMEOUT ||
         c == KS_TUNE_DEVICE_FAULT;
}

const ks_tune_entry *ks_jit_tune_store_find(ks_jit_tune_store *st,
                                            const char *vkey) {
  stored *s = find(st, vkey);
  return s && runtime_class(s->e.cls) ? &s->e : NULL;
}

/* Writes the whole store to a temporary file and renames it over; with
 * durable, fsync'd first. The rename alone keeps a reader or a resumed
 * sweep from a torn file after a process dies; the fsync guards against a
 * machine that goes down, and costs milliseconds on some disks: paid after
 * every variant, in the loop that hands variants out, it kept the workers
 * of several GPUs waiting, so it is paid once, when the store closes. */
static int save(const ks_jit_tune_store *st, int durable) {
  char tmp[1100];
  snprintf(tmp, sizeof tmp, "%s.XXXXXX", st->path);
  int fd = mkstemp(tmp);
  if (fd < 0)
    return -1;
  FILE *f = fdopen(fd, "w");
  if (!f) {
    close(fd);
    unlink(tmp);
    return -1;
  }
  fprintf(f, "kspec-tune-3\nkey %s\nbest %s\n", st->key,
          st->best[0] ? st->best : "-");
  for (size_t i = 0; i < st->n; i++) {
    const ks_tune_entry *e = &st->items[i].e;
    fprintf(f, "v %s %d %u %.9g %.9g %.9g %.9g %.9g %d %d %s\n",
            st->items[i].vkey, (int)e->cls, e->runs, e->median, e->min, e->max,
            e->q1, e->q3, e->gpu, e->finalist, e->reason);
  }
  int bad = ferror(f) | fflush(f) | (durable ? fsync(fileno(f)) : 0);
  bad |= fclose(f);
  if (bad || rename(tmp, st->path) != 0) {
    unlink(tmp);
    return -1;
  }
  return 0;
}

void ks_jit_tune_store_put(ks_jit_tune_store *st, const char *vkey,
                           const ks_tune_entry *e, const char *best) {
  if (vkey && e && runtime_class(e->cls)) {
    stored *s = add(st, vkey);
    if (s) {
      s->e = *e;
      s->e.stored = 0;
    }
  }
  if (best)
    snprintf(st->best, sizeof st->best, "%s", best);
  /* a failed write loses only the resume point */
  if (!st->held)
    st->unsynced |= save(st, 0) == 0;
}

ks_status ks_jit_tune_store_commit(ks_jit_tune_store *st) {
  if (!st || !st->held)
    return KS_OK;
  if (mkdir(st->dir, 0700) != 0 && errno != EEXIST)
    return ks_jit_fail(KS_EIO, "tune: cannot create %s: %s", st->dir,
                       strerror(errno));
  st->held = 0;
  st->unsynced |= save(st, 0) == 0;
  return KS_OK;
}

void ks_jit_tune_store_close(ks_jit_tune_store *st) {
  if (!st)
    return;
  if (st->unsynced && !st->held) /* a held store never gets a file */
    save(st, 1);
  free(st->items);
  free(st);
}

/* ---- ks_tune_lookup ------------------------------------------------------ */

/* Fills out from a variant key (ks_jit_tune_vkey's format). */
static int parse_vkey(const char *vkey, ks_tune_best *out) {
  ks_launch_bounds *b = &out->bounds;
  int used = 0;
  if (sscanf(vkey,
             "threads=%u;block=%u,%u,%u;maxntid=%u;minctasm=%u;maxnreg=%u%n",
             &out->threads, &b->block[0], &b->block[1], &b->block[2],
             &b->maxntid, &b->minctasm, &b->maxnreg, &used) < 7)
    return -1;
  for (const char *s = vkey + used;
       *s == ';' && out->nbindings < KS_TUNE_MAX_DIMS;) {
    unsigned a = 0;
    int at = 0;
    if (sscanf(s, ";tex@%u=%*d%n", &a, &at) == 1 && at > 0 && a < 64) {
      out->tex |= (uint64_t)1 << a; /* a texture switched on */
      s += at;
      continue;
    }
    const char *eq = strchr(s, '=');
    if (!eq || (size_t)(eq - s - 1) >= sizeof out->names[0])
      return -1;
    size_t i = out->nbindings++;
    memcpy(out->names[i], s + 1, (size_t)(eq - s - 1));
    out->names[i][eq - s - 1] = '\0';
    char *end;
    long long v = strtoll(eq + 1, &end, 10);
    out->bindings[i] =
        (ks_binding){.name = out->names[i], .kind = KS_VALUE_INT, .v.i = v};
    s = end;
  }
  return 0;
}

int ks_jit_tune_store_best(ks_jit_tune_store *st, ks_tune_best *out) {
  const stored *b = st->best[0] ? find(st, st->best) : NULL;
  if (!b || parse_vkey(b->vkey, out) != 0)
    return -1;
  out->median_ms = b->e.median;
  return 0;
}

/* The winner's values are stored by position ("@4"): each gets its
 * parameter's name where it has one ("FILTER_LEN"), which binds the same
 * argument. */
static void name_bindings(const ks_template *t, long ki, ks_tune_best *out) {
  for (size_t i = 0; i < out->nbindings; i++) {
    char *end = NULL;
    long arg = strtol(out->names[i] + 1, &end, 10);
    if (out->names[i][0] != '@' || *end || arg < 0)
      continue;
    size_t np = ks_template_param_count(t, (size_t)ki);
    for (size_t j = 0; j < np; j++) {
      ks_param_info info = {.size = sizeof info};
      if (ks_template_param(t, (size_t)ki, j, &info) == KS_OK &&
          info.arg_index == (unsigned long)arg && info.name[0] != '@') {
        snprintf(out->names[i], sizeof out->names[i], "%s", info.name);
        break;
      }
    }
  }
}

static ks_status tune_lookup(ks_ctx *ctx, const ks_template *t,
                             const ks_tune_space *space,
                             const ks_tune_opts *opts, ks_tune_best *out) {
  if (!ctx || !t || !space || !opts)
    return ks_jit_fail(KS_EINVAL, "tune: lookup: NULL argument");
  if (ks_jit_kernel_index(t, space->kernel) < 0)
    return KS_ENOKERNEL;
  ks_jit_tune_store *st = NULL;
  ks_status s = open_store(ctx, t, space, opts, 0, &st);
  if (s != KS_OK)
    return s;
  if (!st)
    return ks_jit_fail(KS_EINVAL, "tune: lookup: no store (no disk cache)");
  if (ks_jit_tune_store_best(st, out) != 0)
    s = ks_jit_fail(KS_EINVAL,
                    "tune: lookup: nothing stored for this "
                    "problem in %s",
                    st->path);
  else
    name_bindings(t, ks_jit_kernel_index(t, space->kernel), out);
  ks_jit_tune_store_close(st);
  return s;
}

ks_status ks_tune_lookup(ks_ctx *ctx, const ks_template *t,
                         const ks_tune_space *space, const ks_tune_opts *opts,
                         ks_tune_best *out) {
  ks_jit_clear();
  ks_status s = KS_OUT_CHECK(out, "tune: lookup", ks_tune_best);
  if (s != KS_OK)
    return s;
  ks_tune_best full = {.size = sizeof full};
  s = tune_lookup(ctx, t, space, opts, &full);
  ks_jit_out_put(out, &full, sizeof full);    /* zeros on failure */
  for (size_t i = 0; i < full.nbindings; i++) /* names lie in out now */
    if (full.bindings[i].name == full.names[i])
      out->bindings[i].name = out->names[i];
  return s;
}

ks_status ks_specialize_tuned(ks_ctx *ctx, const ks_template *t,
                              const ks_tune_space *space,
                              const ks_tune_opts *opts, ks_kernel **out,
                              unsigned *threads) {
  if (out)
    *out = NULL;
  if (!out || !space || (space->nfixed && !space->fixed))
    return ks_jit_fail(KS_EINVAL, "tune: specialize: NULL argument");
  ks_tune_best best = {.size = sizeof best};
  ks_status s = ks_tune_lookup(ctx, t, space, opts, &best);
  if (s != KS_OK)
    return s;
  enum { MAX = 64 };
  if (space->nfixed + best.nbindings > MAX)
    return ks_jit_fail(KS_EINVAL, "tune: specialize: too many values");
  ks_binding b[MAX];
  size_t n = 0;
  for (size_t i = 0; i < space->nfixed; i++)
    b[n++] = space->fixed[i];
  for (size_t i = 0; i < best.nbindings; i++)
    b[n++] = best.bindings[i];
  ks_spec_req req = {
      .kernel = space->kernel, .bindings = b, .nbindings = n, .fp = space->fp};
  req.bounds = space->bounds;
  /* the winner's bounds override the space's, field by field */
  for (int i = 0; i < 3; i++)
    if (best.bounds.block[i])
      req.bounds.block[i] = best.bounds.block[i];
  if (best.bounds.maxntid)
    req.bounds.maxntid = best.bounds.maxntid;
  if (best.bounds.minctasm)
    req.bounds.minctasm = best.bounds.minctasm;
  if (best.bounds.maxnreg)
    req.bounds.maxnreg = best.bounds.maxnreg;
  const char *tex[64];
  char tex_names[64][8];
  for (unsigned a = 0; a < 64; a++)
    if (best.tex >> a & 1) {
      snprintf(tex_names[req.ntex], sizeof tex_names[0], "@%u", a);
      tex[req.ntex] = tex_names[req.ntex];
      req.ntex++;
    }
  req.tex = tex;
  s = ks_specialize(ctx, t, &req, out);
  if (s == KS_OK && threads)
    *threads = best.threads;
  return s;
}
