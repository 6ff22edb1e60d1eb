/*
 * record.c - the prewarm list: recording the requests a program
 * specializes (KSPEC_RECORD, ks_ctx_opts.record) and compiling a recorded
 * file ahead of time (ks_prewarm, `kspec prewarm`).
 *
 * One line per request, written with a single write(2) on a descriptor
 * opened O_APPEND, so that lines from threads and processes sharing the
 * file never interleave. The format is in kspec.h; names and values are
 * %XX-escaped so that a line splits on spaces and a list on commas.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jit/ks_jit.h"

#define MAGIC "kspec-req-1"

struct ks_record {
  int fd;
};

ks_record *ks_record_open(ks_ctx *ctx, const ks_ctx_opts *o) {
  const char *path = o->record;
  if (!path) {
    path = getenv("KSPEC_RECORD");
    if (!path || !*path)
      return NULL;
  }
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  ks_record *r = fd >= 0 ? malloc(sizeof *r) : NULL;
  if (!r) {
    ks_jit_warn(ctx, "record: cannot open %s: %s; requests are not recorded",
                path, fd < 0 ? strerror(errno) : "out of memory");
    if (fd >= 0)
      close(fd);
    return NULL;
  }
  r->fd = fd;
  return r;
}

void ks_record_close(ks_record *r) {
  if (!r)
    return;
  close(r->fd);
  free(r);
}

/* ---- writing ------------------------------------------------------------ */

typedef struct buf {
  char *p;
  size_t n, cap;
  int ok; /* 0 once out of memory */
} buf;

static void put(buf *b, const char *s, size_t n) {
  if (!b->ok)
    return;
  if (b->n + n + 1 > b->cap) {
    size_t cap = (b->n + n + 1) * 2;
    char *p = realloc(b->p, cap);
    if (!p) {
      b->ok = 0;
      return;
    }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = '\0';
}

static void putf(buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void putf(buf *b, const char *fmt, ...) {
  char tmp[64];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n > 0)
    put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* s with spaces, controls, non-ASCII, '%', ',' and '=' as %XX. */
static void put_escaped(buf *b, const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    if (*p <= ' ' || *p >= 0x7f || *p == '%' || *p == ',' || *p == '=')
      putf(b, "%%%02X", *p);
    else
      put(b, (const char *)p, 1);
}

static void put_binding(buf *b, const ks_binding *x) {
  put(b, " D:", 3);
  if (x->name) /* by position: "@3", read back as the same binding */
    put_escaped(b, x->name);
  else
    putf(b, "@%d", x->arg);
  put(b, "=", 1);
  if (x->kind == KS_VALUE_INT)
    putf(b, "%" PRId64, x->v.i);
  else if (x->kind == KS_VALUE_REAL)
    putf(b, "%.17g", x->v.f);
  else
    put_escaped(b, x->v.s ? x->v.s : "");
}

void ks_record_request(ks_ctx *ctx, const ks_template *t,
                       const ks_spec_req *req) {
  if (!ctx->record)
    return;
  long ki = ks_jit_kernel_index(t, req->kernel);
  if (ki < 0)
    return;
  buf b = {.ok = 1};
  put(&b, MAGIC " ", sizeof MAGIC);
  put_escaped(&b, t->path ? t->path : t->name);
  putf(&b, " %016llx%016llx kernel=", (unsigned long long)t->hash[1],
       (unsigned long long)t->hash[0]);
  put_escaped(&b, t->desc.kernels[ki].name);
  const ks_launch_bounds *lb = &req->bounds;
  putf(&b, " block=%u,%u,%u", lb->block[0], lb->block[1], lb->block[2]);
  putf(&b, " maxntid=%u minctasm=%u", lb->maxntid, lb->minctasm);
  putf(&b, " maxnreg=%u", lb->maxnreg);
  if (req->smem_spill)
    put(&b, " smem_spill=1", 13);
  if (req->fp)
    putf(&b, " fp=%u", req->fp);
  for (size_t i = 0; i < req->nbindings; i++)
    put_binding(&b, &req->bindings[i]);
  for (size_t i = 0; i < req->nno_pass; i++) {
    put(&b, " no_pass=", 9);
    put_escaped(&b, req->no_pass[i]);
  }
  for (size_t i = 0; i < req->ntex; i++) {
    put(&b, " tex=", 5);
    put_escaped(&b, req->tex[i]);
  }
  for (size_t i = 0; i < req->nbakes; i++) {
    put(&b, " bake:", 6);
    put_escaped(&b, req->bakes[i].arg);
    for (size_t j = 0; j < req->bakes[i].n; j++)
      putf(&b, "%c%.17g", j ? ',' : '=', req->bakes[i].values[j]);
  }
  put(&b, "\n", 1);
  ssize_t w = b.ok ? write(ctx->record->fd, b.p, b.n) : -1;
  if (w != (ssize_t)b.n)
    ks_jit_warn(ctx, "record: a request could not be written: %s",
                w < 0 && b.ok ? strerror(errno) : "short write");
  free(b.p);
}

/* ---- reading ------------------------------------------------------------ */

static int hexval(int c) {
  return c >= '0' && c <= '9'   ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                : -1;
}

/* Decodes %XX in place; -1 on a bad escape. */
static int unescape(char *s) {
  char *w = s;
  for (char *p = s; *p; p++) {
    if (*p == '%') {
      int h = hexval(p[1]), l = h < 0 ? -1 : hexval(p[2]);
      if (l < 0)
        return -1;
      *w++ = (char)(h * 16 + l);
      p += 2;
    } else {
      *w++ = *p;
    }
  }
  *w = '\0';
  return 0;
}

/* A parsed line: the request's strings point into the line itself. */
typedef struct parsed {
  const char *tpl, *hash;
  ks_spec_req req;
  ks_binding *bindings;
  const char **no_pass;
  const char **tex;
  ks_bake *bakes;
} parsed;

static void parsed_free(parsed *p) {
  for (size_t i = 0; p->bakes && i < p->req.nbakes; i++)
    free((double *)p->bakes[i].values);
  free(p->bindings);
  free(p->no_pass);
  free(p->tex);
  free(p->bakes);
}

static int parse_bake(char *spec, ks_bake *out, char *why, size_t cap) {
  char *eq = strchr(spec, '=');
  if (eq == spec || !spec[0])
    return snprintf(why, cap, "bad bake '%s'", spec), -1;
  if (!eq) { /* a global baked from its initializer: no values */
    if (unescape(spec) < 0)
      return snprintf(why, cap, "bad escape in '%s'", spec), -1;
    *out = (ks_bake){.arg = spec};
    return 0;
  }
  *eq = '\0';
  size_t n = 1;
  for (char *c = eq + 1; *c; c++)
    n += *c == ',';
  double *v = malloc(n * sizeof *v);
  if (!v)
    return snprintf(why, cap, "out of memory"), -1;
  char *s = eq + 1;
  for (size_t i = 0; i < n; i++) {
    char *end = NULL;
    v[i] = strtod(s, &end);
    if (end == s || (*end != ',' && *end != '\0')) {
      free(v);
      return snprintf(why, cap, "bad value in bake of '%s'", spec), -1;
    }
    s = end + 1;
  }
  if (unescape(spec) < 0) {
    free(v);
    return snprintf(why, cap, "bad escape in '%s'", spec), -1;
  }
  *out = (ks_bake){.arg = spec, .values = v, .n = n};
  return 0;
}

static int parse_uint(const char *s, unsigned *out) {
  char *end = NULL;
  errno = 0;
  unsigned long v = strtoul(s, &end, 10);
  *out = (unsigned)v;
  return end != s && !*end && errno == 0 && v <= 0xffffffffu ? 0 : -1;
}

static int parse_field(char *tok, parsed *p, char *why, size_t cap) {
  ks_spec_req *r = &p->req;
  ks_launch_bounds *lb = &r->bounds;
  if (strncmp(tok, "D:", 2) == 0) {
    char *eq = strchr(tok + 2, '=');
    if (!eq || eq == tok + 2)
      return snprintf(why, cap, "bad binding '%s'", tok), -1;
    *eq = '\0';
    if (unescape(tok + 2) < 0 || unescape(eq + 1) < 0)
      return snprintf(why, cap, "bad escape in '%s'", tok), -1;
    p->bindings[r->nbindings++] =
        (ks_binding){.name = tok + 2, .kind = KS_VALUE_TEXT, .v.s = eq + 1};
    return 0;
  }
  if (strncmp(tok, "bake:", 5) == 0)
    return parse_bake(tok + 5, &p->bakes[r->nbakes++], why, cap) < 0
               ? (r->nbakes--, -1)
               : 0;
  char *eq = strchr(tok, '=');
  if (!eq)
    return snprintf(why, cap, "unknown field '%s'", tok), -1;
  *eq++ = '\0';
  unsigned *num = strcmp(tok, "maxntid") == 0    ? &lb->maxntid
                  : strcmp(tok, "minctasm") == 0 ? &lb->minctasm
                  : strcmp(tok, "maxnreg") == 0  ? &lb->maxnreg
                                                 : NULL;
  if (num)
    return parse_uint(eq, num) < 0
               ? (snprintf(why, cap, "bad %s '%s'", tok, eq), -1)
               : 0;
  if (strcmp(tok, "fp") == 0) {
    unsigned v = 0;
    if (parse_uint(eq, &v) < 0 || v > KS_FP_ALL)
      return snprintf(why, cap, "bad fp '%s'", eq), -1;
    r->fp = v;
    return 0;
  }
  if (strcmp(tok, "smem_spill") == 0) {
    unsigned v = 0;
    if (parse_uint(eq, &v) < 0 || v > 1)
      return snprintf(why, cap, "bad smem_spill '%s'", eq), -1;
    r->smem_spill = (int)v;
    return 0;
  }
  if (strcmp(tok, "block") == 0) {
    if (sscanf(eq, "%u,%u,%u", &lb->block[0], &lb->block[1], &lb->block[2]) !=
        3)
      return snprintf(why, cap, "bad block '%s'", eq), -1;
    return 0;
  }
  if (strcmp(tok, "kernel") != 0 && strcmp(tok, "no_pass") != 0 &&
      strcmp(tok, "tex") != 0)
    return snprintf(why, cap, "unknown field '%s'", tok), -1;
  if (unescape(eq) < 0)
    return snprintf(why, cap, "bad escape in '%s'", eq), -1;
  if (tok[0] == 'k')
    r->kernel = eq;
  else if (tok[0] == 't')
    p->tex[r->ntex++] = eq;
  else
    p->no_pass[r->nno_pass++] = eq;
  return 0;
}

/* Parses line (modified in place) into p; -1 with why on a bad line. */
static int parse_line(char *line, parsed *p, char *why, size_t cap) {
  memset(p, 0, sizeof *p);
  size_t ntok = 1;
  for (char *c = line; *c; c++)
    ntok += *c == ' ';
  p->bindings = calloc(ntok, sizeof *p->bindings);
  p->no_pass = calloc(ntok, sizeof *p->no_pass);
  p->tex = calloc(ntok, sizeof *p->tex);
  p->bakes = calloc(ntok, sizeof *p->bakes);
  p->req.bindings = p->bindings;
  p->req.no_pass = p->no_pass;
  p->req.tex = p->tex;
  p->req.bakes = p->bakes;
  if (!p->bindings || !p->no_pass || !p->tex || !p->bakes)
    return snprintf(why, cap, "out of memory"), -1;
  char *save = NULL;
  char *magic = strtok_r(line, " ", &save);
  char *tpl = strtok_r(NULL, " ", &save);
  char *hash = strtok_r(NULL, " ", &save);
  if (!magic || strcmp(magic, MAGIC) != 0 || !hash)
    return snprintf(why, cap, "not a %s line", MAGIC), -1;
  if (unescape(tpl) < 0)
    return snprintf(why, cap, "bad escape in '%s'", tpl), -1;
  p->tpl = tpl;
  p->hash = hash;
  for (char *tok; (tok = strtok_r(NULL, " ", &save));)
    if (parse_field(tok, p, why, cap) < 0)
      return -1;
  return 0;
}

/* ---- prewarming --------------------------------------------------------- */

/* A template of the file, loaded once; t NULL with why when it cannot be. */
typedef struct tpl {
  char *name, *hash;
  ks_template *t;
  char why[512];
} tpl;

typedef struct job {
  ks_future *f;
  unsigned long line;
} job;

typedef struct prewarm {
  ks_ctx *ctx;
  tpl *tpls;
  size_t ntpls;
  job *jobs;
  size_t njobs;
  void (*on_fail)(void *, unsigned long, const char *);
  void *arg;
  ks_prewarm_result res;
} prewarm;

static void fail(prewarm *pw, unsigned long line, const char *why) {
  pw->res.failed++;
  if (pw->on_fail)
    pw->on_fail(pw->arg, line, why);
}

static tpl *find_tpl(prewarm *pw, const char *name, const char *hash) {
  for (size_t i = 0; i < pw->ntpls; i++)
    if (!strcmp(pw->tpls[i].name, name) && !strcmp(pw->tpls[i].hash, hash))
      return &pw->tpls[i];
  tpl *n = realloc(pw->tpls, (pw->ntpls + 1) * sizeof *n);
  if (!n)
    return NULL;
  pw->tpls = n;
  tpl *e = &n[pw->ntpls];
  memset(e, 0, sizeof *e);
  e->name = strdup(name);
  e->hash = strdup(hash);
  if (!e->name || !e->hash) {
    free(e->name);
    free(e->hash);
    return NULL;
  }
  pw->ntpls++;
  if (ks_template_load(pw->ctx, name, &e->t) != KS_OK) {
    snprintf(e->why, sizeof e->why, "%s", ks_errmsg(pw->ctx));
    return e;
  }
  char now[40];
  snprintf(now, sizeof now, "%016llx%016llx", (unsigned long long)e->t->hash[1],
           (unsigned long long)e->t->hash[0]);
  if (strcmp(now, hash) != 0) {
    snprintf(e->why, sizeof e->why,
             "template %s changed since it was recorded (%.12s... now "
             "%.12s...)",
             name, hash, now);
    ks_template_destroy(e->t);
    e->t = NULL;
  }
  return e;
}

/* Parses one line and starts its compile. */
static void start(prewarm *pw, char *text, unsigned long line) {
  char why[512];
  parsed p;
  pw->res.requests++;
  if (parse_line(text, &p, why, sizeof why) < 0) {
    parsed_free(&p);
    fail(pw, line, why);
    return;
  }
  tpl *e = find_tpl(pw, p.tpl, p.hash);
  job *jobs = realloc(pw->jobs, (pw->njobs + 1) * sizeof *jobs);
  if (jobs)
    pw->jobs = jobs;
  if (!e || !jobs)
    fail(pw, line, "out of memory");
  else if (!e->t)
    fail(pw, line, e->why);
  else if (ks_specialize_async(pw->ctx, e->t, &p.req, &pw->jobs[pw->njobs].f) !=
           KS_OK)
    fail(pw, line, ks_errmsg(pw->ctx));
  else
    pw->jobs[pw->njobs++].line = line;
  parsed_free(&p);
}

/* Waits for every compile, in file order, and counts its outcome. */
static void finish(prewarm *pw) {
  ks_kernel **seen = calloc(pw->njobs + 1, sizeof *seen);
  size_t nseen = 0;
  for (size_t i = 0; i < pw->njobs; i++) {
    ks_kernel *k = NULL;
    if (ks_future_wait(pw->jobs[i].f, &k) != KS_OK) {
      fail(pw, pw->jobs[i].line, ks_errmsg(pw->ctx));
      continue;
    }
    size_t j = 0;
    while (seen && j < nseen && seen[j] != k)
      j++;
    ks_kernel_info info = {.size = sizeof info};
    ks_kernel_info_get(k, &info);
    if (seen && j < nseen)
      pw->res.duplicates++;
    else if (info.from_disk)
      pw->res.cached++;
    else
      pw->res.compiled++;
    if (seen && j == nseen)
      seen[nseen++] = k;
  }
  free(seen);
}

ks_status ks_prewarm(ks_ctx *ctx, const char *file,
                     void (*on_fail)(void *, unsigned long, const char *),
                     void *arg, ks_prewarm_result *out) {
  ks_jit_clear();
  ks_status s = out ? KS_OUT_CHECK(out, "prewarm", ks_prewarm_result) : KS_OK;
  if (s != KS_OK)
    return s;
  static const ks_prewarm_result none;
  if (out)
    ks_jit_out_put(out, &none, sizeof none);
  if (!ctx || !file)
    return ks_jit_fail(KS_EINVAL, "prewarm: NULL argument");
  FILE *f = fopen(file, "r");
  if (!f)
    return ks_jit_fail(KS_EIO, "prewarm: cannot open %s: %s", file,
                       strerror(errno));
  prewarm pw = {.ctx = ctx, .on_fail = on_fail, .arg = arg};
  char *text = NULL;
  size_t cap = 0;
  ssize_t n;
  unsigned long line = 0;
  while ((n = getline(&text, &cap, f)) >= 0) {
    line++;
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r'))
      text[--n] = '\0';
    if (n > 0 && text[0] != '#')
      start(&pw, text, line);
  }
  int bad = ferror(f);
  fclose(f);
  free(text);
  finish(&pw);
  for (size_t i = 0; i < pw.njobs; i++)
    ks_future_free(pw.jobs[i].f);
  for (size_t i = 0; i < pw.ntpls; i++) {
    ks_template_destroy(pw.tpls[i].t);
    free(pw.tpls[i].name);
    free(pw.tpls[i].hash);
  }
  free(pw.jobs);
  free(pw.tpls);
  if (out)
    ks_jit_out_put(out, &pw.res, sizeof pw.res);
  return bad ? ks_jit_fail(KS_EIO, "prewarm: %s: read error", file) : KS_OK;
}
