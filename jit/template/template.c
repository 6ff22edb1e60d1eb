/*
 * template.c - loading templates (built-in, file or memory) and describing
 * them. A loaded template keeps its canonical bitcode and its hash; each
 * specialization parses that bitcode into a fresh LLVM context of its own.
 * With a disk cache, a template whose bytes loaded fine before is not
 * parsed at all: its description and canonical bitcode come from the cache
 * (tplcache.c).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL /* header-only: no run-time dependency */
#include <xxhash.h>

#include "jit/ks_jit.h"
#include "templates/ks_templates.h"

size_t ks_builtin_count(void) { return ks_builtin_template_count; }

const char *ks_builtin_name(size_t i) {
  return i < ks_builtin_template_count ? ks_builtin_templates[i].name : NULL;
}

static const ks_builtin_tpl *builtin_find(const char *name) {
  for (size_t i = 0; i < ks_builtin_template_count; i++)
    if (strcmp(ks_builtin_templates[i].name, name) == 0)
      return &ks_builtin_templates[i];
  return NULL;
}

/* Parses, checks and describes the IR in data into t. */
static ks_status analyze(ks_template *t, const void *data, size_t len) {
  char diag[KS_IR_DIAG_CAP];
  size_t cap = 0;
  char *err = ks_jit_errbuf(&cap);
  LLVMContextRef c = ks_ir_context_create(diag);
  LLVMModuleRef m = NULL;
  ks_status s = ks_ir_parse(c, data, len, t->name, &m, err, cap);
  if (s == KS_OK)
    s = ks_ir_check_target(m, t->name, err, cap);
  if (s == KS_OK)
    s = ks_ir_verify(m, t->name, err, cap);
  if (s == KS_OK)
    s = ks_ir_discover(m, t->name, &t->desc, err, cap);
  if (s == KS_OK)
    s = ks_ir_globals(m, t->name, &t->desc, err, cap);
  if (s == KS_OK)
    s = ks_ir_screen_module(m, t->name, err, cap);
  if (s == KS_OK)
    t->desc.libdevice = ks_libdevice_needed(m);
  if (s == KS_OK)
    s = ks_ir_to_bitcode(m, &t->bitcode, &t->len, err, cap);
  if (m)
    LLVMDisposeModule(m);
  LLVMContextDispose(c);
  if (s == KS_OK) {
    XXH128_hash_t h = XXH3_128bits(t->bitcode, t->len);
    t->hash[0] = h.low64;
    t->hash[1] = h.high64;
  }
  return s;
}

/* LLVM's bitcode magic, plain or in the wrapper header. */
static int is_bitcode(const unsigned char *p, size_t len) {
  return len >= 4 &&
         ((p[0] == 'B' && p[1] == 'C' && p[2] == 0xc0 && p[3] == 0xde) ||
          (p[0] == 0xde && p[1] == 0xc0 && p[2] == 0x17 && p[3] == 0x0b));
}

typedef struct load_job {
  ks_template *t;
  const void *data;
  size_t len;
} load_job;

/* The child: 'R', the status (one byte) and, on failure, the message. */
static void load_child(void *arg) {
  load_job *j = arg;
  ks_status s = analyze(j->t, j->data, j->len);
  unsigned char st = (unsigned char)s;
  size_t cap = 0;
  const char *msg = ks_jit_errbuf(&cap);
  ks_jit_child_write("R", 1);
  ks_jit_child_write(&st, 1);
  if (s != KS_OK)
    ks_jit_child_write(msg, strnlen(msg, cap));
}

/* Loads IR from outside the library in a child process first: LLVM's
 * bitcode reader may crash on damaged bitcode, and its text parser on
 * malformed text (an inline asm constraint string overruns a buffer in
 * LLVM 19: found by the template fuzzer). KS_OK when the child loaded it
 * (the caller then loads it for real); its error otherwise. */
static ks_status load_isolated(ks_template *t, const void *data, size_t len) {
  const char *what = is_bitcode(data, len) ? "bitcode" : "IR";
  load_job j = {t, data, len};
  char *ans = NULL, how[96];
  size_t n = 0;
  ks_status s = KS_EPARSE;
  /* parsing takes milliseconds and a few times the input's size */
  const ks_jit_limits lim = {.seconds = 30,
                             .max_growth = (512ull << 20) + 64ull * len};
  if (ks_jit_child_run(load_child, &j, &lim, &ans, &n, how, sizeof how) != 0)
    ks_jit_fail(s,
                "parse: %s: LLVM gave up reading it (in a child process: "
                "%s); is the %s damaged?",
                t->name, how, what);
  else if (n >= 2 && ans[0] == 'R' && (unsigned char)ans[1] < KS_STATUS_COUNT)
    s = (ks_status)(unsigned char)ans[1] == KS_OK
            ? KS_OK
            : ks_jit_fail((ks_status)(unsigned char)ans[1], "%.*s",
                          (int)(n - 2 > 500 ? 500 : n - 2), ans + 2);
  else if (n >= 1 && ans[0] == 'E') { /* a fatal LLVM error: its 1st line */
    const char *nl = memchr(ans + 1, '\n', n - 1);
    int m = (int)(nl ? (size_t)(nl - ans - 1) : n - 1);
    ks_jit_fail(s, "parse: %s: LLVM cannot read it: %.*s", t->name,
                m > 300 ? 300 : m, ans + 1);
  } else
    ks_jit_fail(s,
                "parse: %s: LLVM crashed reading it (in a child process: %s); "
                "is the %s damaged?",
                t->name, how, what);
  free(ans);
  return s;
}

static ks_status load_bytes(ks_ctx *ctx, const char *name, const void *data,
                            size_t len, int trusted, ks_template **out) {
  ks_template *t = calloc(1, sizeof *t);
  if (!t || !(t->name = strdup(name))) {
    free(t);
    return ks_jit_fail(KS_ENOMEM, "template: out of memory");
  }
  int disk = ctx && ks_disk_usable(ctx->disk);
  uint64_t key[2];
  if (disk) {
    ks_jit_template_key(data, len, key);
    if (ks_jit_template_get(ctx, key, t)) {
      ks_jit_cache_count(ctx->cache, KS_CTR_TEMPLATE_HITS, 1);
      *out = t;
      return KS_OK;
    }
  }
  ks_status s = trusted ? KS_OK : load_isolated(t, data, len);
  if (s == KS_OK)
    s = analyze(t, data, len);
  if (s != KS_OK) {
    ks_template_destroy(t);
    return s;
  }
  if (disk) {
    ks_jit_cache_count(ctx->cache, KS_CTR_TEMPLATE_MISSES, 1);
    ks_jit_template_put(ctx, key, t);
  }
  *out = t;
  return KS_OK;
}

/* Reads a whole file into a malloc'd buffer. */
static ks_status read_file(const char *path, unsigned char **data,
                           size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return ks_jit_fail(KS_EIO, "load: %s: %s", path, strerror(errno));
  unsigned char *buf = NULL;
  size_t n = 0, capacity = 0;
  for (;;) {
    if (n == capacity) {
      capacity = capacity ? capacity * 2 : 65536;
      unsigned char *grown = realloc(buf, capacity);
      if (!grown) {
        free(buf);
        fclose(f);
        return ks_jit_fail(KS_ENOMEM, "load: %s: out of memory", path);
      }
      buf = grown;
    }
    size_t got = fread(buf + n, 1, capacity - n, f);
    n += got;
    if (got == 0)
      break;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    return ks_jit_fail(KS_EIO, "load: %s: read error", path);
  }
  *data = buf;
  *len = n;
  return KS_OK;
}

/* "dir/my_kernel.bc" -> "my_kernel" */
static void base_name(const char *path, char *out, size_t cap) {
  const char *b = strrchr(path, '/');
  b = b ? b + 1 : path;
  snprintf(out, cap, "%s", b);
  char *dot = strrchr(out, '.');
  if (dot && dot != out)
    *dot = '\0';
}

ks_status ks_template_load(ks_ctx *ctx, const char *name_or_path,
                           ks_template **out) {
  ks_jit_clear();
  if (!name_or_path || !out)
    return ks_jit_fail(KS_EINVAL, "load: NULL argument");
  *out = NULL;
  const ks_builtin_tpl *b = builtin_find(name_or_path);
  if (b)
    return load_bytes(ctx, b->name, b->begin, (size_t)(b->end - b->begin), 1,
                      out);
  if (!strchr(name_or_path, '/') && !strchr(name_or_path, '.')) {
    FILE *f = fopen(name_or_path, "rb");
    if (!f)
      return ks_jit_fail(KS_EIO,
                         "load: '%s' is neither a built-in template (see "
                         "`kspec list`) nor a file",
                         name_or_path);
    fclose(f);
  }
  unsigned char *data = NULL;
  size_t len = 0;
  ks_status s = read_file(name_or_path, &data, &len);
  if (s != KS_OK)
    return s;
  char name[256];
  base_name(name_or_path, name, sizeof name);
  s = len ? load_bytes(ctx, name, data, len, 0, out)
          : ks_jit_fail(KS_EIO, "load: %s: empty file", name_or_path);
  free(data);
  if (s == KS_OK) /* for recording (record.c); NULL when it cannot be had */
    (*out)->path = realpath(name_or_path, NULL);
  return s;
}

ks_status ks_template_load_mem(ks_ctx *ctx, const char *name, const void *data,
                               size_t len, ks_template **out) {
  ks_jit_clear();
  if (!out || (!data && len))
    return ks_jit_fail(KS_EINVAL, "load: NULL argument");
  *out = NULL;
  if (!name)
    name = "(memory)";
  if (len == 0)
    return ks_jit_fail(KS_EIO, "load: %s: empty input", name);
  return load_bytes(ctx, name, data, len, 0, out);
}

void ks_template_destroy(ks_template *t) {
  if (!t)
    return;
  ks_ir_desc_free(&t->desc);
  free(t->bitcode);
  free(t->name);
  free(t->path);
  free(t);
}

const char *ks_template_name(const ks_template *t) {
  return t ? t->name : NULL;
}

/* ---- prepared templates ----------------------------------------------------
 *
 * Parsing a template and inlining its helpers was a large part of a small
 * kernel's specialization (BENCHMARKS.md); the pool keeps that work. TPL_USES
 * bounds what the compiles leave in a context (constants, metadata nodes,
 * types, none freed before the context); TPL_POOL bounds the contexts kept, the
 * least recently used going first. The pool lives while a context does
 * (ks_jit_llvm_release empties it), as PostgreSQL's llvmjit recycles its LLVM
 * context and disposes of it at the end.
 */
enum { TPL_POOL = 16, TPL_USES = 64 };

static pthread_mutex_t tpl_lock = PTHREAD_MUTEX_INITIALIZER;
static ks_jit_tpl tpl_pool[TPL_POOL]; /* oldest first */
static size_t tpl_n;

static void tpl_dispose(ks_jit_tpl *t) {
  for (unsigned i = 0; i < t->nahead; i++)
    ks_jit_ahead_free(&t->ahead[i]);
  if (t->prepared)
    LLVMDisposeModule(t->prepared);
  if (t->c)
    LLVMContextDispose(t->c);
  free(t->diag);
  memset(t, 0, sizeof *t);
}

ks_status ks_jit_tpl_get(const ks_template *t, const ks_arch *a, unsigned ptx,
                         ks_jit_tpl *out) {
  pthread_mutex_lock(&tpl_lock);
  for (size_t i = tpl_n; i-- > 0;) {
    ks_jit_tpl *p = &tpl_pool[i];
    if (p->arch == a && p->ptx == ptx && p->hash[0] == t->hash[0] &&
        p->hash[1] == t->hash[1]) {
      *out = *p;
      memmove(p, p + 1, (tpl_n - i - 1) * sizeof *p);
      tpl_n--;
      pthread_mutex_unlock(&tpl_lock);
      out->diag[0] = '\0';
      return KS_OK;
    }
  }
  pthread_mutex_unlock(&tpl_lock);
  memset(out, 0, sizeof *out);
  out->diag = malloc(KS_IR_DIAG_CAP);
  if (!out->diag)
    return ks_jit_fail(KS_ENOMEM, "specialize: out of memory");
  out->c = ks_ir_context_create(out->diag);
  out->hash[0] = t->hash[0];
  out->hash[1] = t->hash[1];
  out->arch = a;
  out->ptx = ptx;
  return KS_OK;
}

void ks_jit_tpl_put(ks_jit_tpl *t, int reuse) {
  if (!t->c)
    return;
  ks_jit_tpl old = {0};
  if (reuse && t->prepared && ++t->uses < TPL_USES) {
    pthread_mutex_lock(&tpl_lock);
    if (tpl_n == TPL_POOL) {
      old = tpl_pool[0];
      memmove(tpl_pool, tpl_pool + 1, --tpl_n * sizeof *tpl_pool);
    }
    tpl_pool[tpl_n++] = *t;
    pthread_mutex_unlock(&tpl_lock);
    memset(t, 0, sizeof *t);
    t = &old;
  }
  tpl_dispose(t);
}

void ks_jit_tpl_drain(void) {
  ks_jit_tpl old[TPL_POOL];
  pthread_mutex_lock(&tpl_lock);
  size_t n = tpl_n;
  memcpy(old, tpl_pool, n * sizeof *old);
  tpl_n = 0;
  pthread_mutex_unlock(&tpl_lock);
  for (size_t i = 0; i < n; i++)
    tpl_dispose(&old[i]);
}

size_t ks_jit_tpl_pooled(void) {
  pthread_mutex_lock(&tpl_lock);
  size_t n = tpl_n;
  pthread_mutex_unlock(&tpl_lock);
  return n;
}
