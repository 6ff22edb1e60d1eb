/*
 * tplcache.c - template descriptions in the disk cache, so that loading a
 * template that loaded fine before costs a hash and a file read instead of
 * parsing, verifying and describing it with LLVM.
 *
 * The entry's key is a hash of the template's bytes as given (file,
 * built-in or memory), the library's build id and LLVM's version: the same
 * bytes loaded by the same code give the same result, so an entry exists
 * only for bytes that loaded fine, and a template that fails to load still
 * fails exactly as before (it never has an entry). The entry holds the
 * description (kernels, arguments, parameters, own launch bounds, docs)
 * and the canonical bitcode that the full load would have made, so that a
 * template from the cache is the same, byte for byte, as one parsed now;
 * compiling parses that bitcode as always.
 *
 * The description's bytes: u32 kernels, then per kernel its name, a u8
 * saying whether a doc follows, the doc, u32 args and per argument its
 * name, a u8 pointer flag, u8 kind (ks_ir_arg_kind), u8 scalar type and
 * u8 signedness (ks_ir_sign), u32 own bounds, a u8 saying whether it
 * synchronizes the grid, u32 params and per parameter its name, u32 type, arg
 * index and flags, f64 default, min and max; then u32 globals and per global
 * its name, type text, u64 bytes, u8 constant, u8 non-zero initializer, u64
 * numbers held, u32 writers and each writer's kernel index (increasing); then a
 * u8 saying whether it calls the device library. Strings are a u32 length and
 * the bytes. Reading checks every length and value, and what ks_ir_discover
 * guarantees of a description (parameters are scalar arguments of their name,
 * marked once, with sound ranges); anything else is a miss.
 */
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL /* header-only: no run-time dependency */
#include <xxhash.h>

#include "jit/ks_jit.h"

enum { MAX_COUNT = 1u << 16 };

typedef struct sink {
  unsigned char *p;
  size_t n, cap;
  int bad;
} sink;

static void put(sink *o, const void *v, size_t n) {
  if (o->bad || !n) /* an absent string (NULL, 0): memcpy takes no NULL */
    return;
  if (o->n + n > o->cap) {
    size_t cap = o->cap ? o->cap * 2 : 256;
    while (cap < o->n + n)
      cap *= 2;
    unsigned char *p = realloc(o->p, cap);
    if (!p) {
      o->bad = 1;
      return;
    }
    o->p = p;
    o->cap = cap;
  }
  if (n) /* v may be NULL for nothing (an empty doc or name) */
    memcpy(o->p + o->n, v, n);
  o->n += n;
}

static void put_u32(sink *o, uint32_t v) { put(o, &v, sizeof v); }

static void put_u8(sink *o, unsigned v) {
  unsigned char c = (unsigned char)v;
  put(o, &c, 1);
}

static void put_str(sink *o, const char *s) {
  size_t n = s ? strlen(s) : 0;
  put_u32(o, (uint32_t)n);
  put(o, s, n);
}

static void put_u64(sink *o, uint64_t v) { put(o, &v, sizeof v); }

static void put_globals(sink *o, const ks_ir_desc *d) {
  put_u32(o, (uint32_t)d->nglobals);
  for (size_t i = 0; i < d->nglobals; i++) {
    const ks_ir_global *g = &d->globals[i];
    put_str(o, g->name);
    put_str(o, g->type);
    put_u64(o, g->bytes);
    put_u8(o, g->constant != 0);
    put_u8(o, g->has_init != 0);
    put_u64(o, g->leaves);
    put_u32(o, g->nwriters);
    for (uint32_t j = 0; j < g->nwriters; j++)
      put_u32(o, g->writers[j]);
  }
}

unsigned char *ks_jit_desc_pack(const ks_ir_desc *d, size_t *n) {
  sink o = {0};
  put_u32(&o, (uint32_t)d->nkernels);
  for (size_t i = 0; i < d->nkernels; i++) {
    const ks_ir_kernel *k = &d->kernels[i];
    put_str(&o, k->name);
    put_u8(&o, k->doc != NULL);
    put_str(&o, k->doc);
    put_u32(&o, k->nargs);
    for (unsigned j = 0; j < k->nargs; j++) {
      const ks_ir_arg *a = &k->args[j];
      put_str(&o, a->name);
      put_u8(&o, a->pointer != 0);
      put_u8(&o, (unsigned)a->kind);
      put_u8(&o, (unsigned)a->type);
      put_u8(&o, (unsigned)a->sign);
    }
    put_u32(&o, k->own_bounds);
    put_u8(&o, k->grid_sync != 0);
    put_u32(&o, (uint32_t)k->nparams);
    for (size_t j = 0; j < k->nparams; j++) {
      const ks_ir_param *p = &k->params[j];
      double f[3] = {p->def, p->min, p->max};
      put_str(&o, p->name);
      put_u32(&o, (uint32_t)p->type);
      put_u32(&o, p->arg_index);
      put_u32(&o, p->flags);
      put(&o, f, sizeof f);
    }
  }
  put_globals(&o, d);
  put_u8(&o, d->libdevice != 0);
  if (o.bad) {
    free(o.p);
    return NULL;
  }
  *n = o.n;
  return o.p;
}

typedef struct source {
  const unsigned char *p;
  size_t n, at;
  int bad;
} source;

static void get(source *r, void *v, size_t n) {
  if (r->bad || n > r->n - r->at) {
    r->bad = 1;
    memset(v, 0, n);
    return;
  }
  memcpy(v, r->p + r->at, n);
  r->at += n;
}

static uint32_t get_u32(source *r) {
  uint32_t v;
  get(r, &v, sizeof v);
  return v;
}

static unsigned get_u8(source *r) {
  unsigned char c;
  get(r, &c, 1);
  return c;
}

static uint64_t get_u64(source *r) {
  uint64_t v;
  get(r, &v, sizeof v);
  return v;
}

/* A malloc'd string without NULs inside; NULL when malformed. */
static char *get_str(source *r) {
  uint32_t n = get_u32(r);
  if (r->bad || n > r->n - r->at || memchr(r->p + r->at, '\0', n)) {
    r->bad = 1;
    return NULL;
  }
  char *s = malloc((size_t)n + 1);
  if (!s) {
    r->bad = 1;
    return NULL;
  }
  memcpy(s, r->p + r->at, n);
  s[n] = '\0';
  r->at += n;
  return s;
}

/* Sizes a count: at most MAX_COUNT, and no more than the bytes left could
 * describe (each item takes at least min bytes). */
static uint32_t get_count(source *r, size_t min) {
  uint32_t n = get_u32(r);
  if (n > MAX_COUNT || (size_t)n * min > r->n - r->at)
    r->bad = 1;
  return r->bad ? 0 : n;
}

/* What ks_ir_discover guarantees of a parameter of k: it is a scalar
 * argument of that name, marked once, its range holds its default and
 * fits its type, and a block-fixing one starts at 1 at least. */
static int param_sound(const ks_ir_kernel *k, size_t j) {
  const ks_ir_param *p = &k->params[j];
  const ks_ir_arg *a = &k->args[p->arg_index];
  for (size_t i = 0; i < j; i++)
    if (k->params[i].arg_index == p->arg_index)
      return 0;
  return p->name && p->name[0] && !a->pointer && a->name &&
         a->kind == KS_IR_ARG_SCALAR && a->type == p->type &&
         strcmp(a->name, p->name) == 0 && ks_ir_value_fits(p->type, p->def) &&
         ks_ir_value_fits(p->type, p->min) &&
         ks_ir_value_fits(p->type, p->max) && !(p->flags && p->min < 1);
}

static void get_kernel(source *r, ks_ir_kernel *k) {
  k->name = get_str(r);
  k->display = k->name ? ks_ir_demangle(k->name) : NULL;
  int has_doc = (int)get_u8(r);
  char *doc = get_str(r);
  if (has_doc > 1 || (!has_doc && doc && doc[0])) /* without: "" */
    r->bad = 1;
  if (has_doc)
    k->doc = doc;
  else
    free(doc);
  k->nargs = get_count(r, 5);
  k->args = calloc(k->nargs ? k->nargs : 1, sizeof *k->args);
  if (!k->args) {
    k->nargs = 0;
    r->bad = 1;
  }
  for (unsigned j = 0; !r->bad && j < k->nargs; j++) {
    ks_ir_arg *a = &k->args[j];
    a->name = get_str(r);
    unsigned ptr = get_u8(r), kind = get_u8(r), type = get_u8(r);
    unsigned uns = get_u8(r);
    a->pointer = ptr == 1;
    a->kind = (ks_ir_arg_kind)kind;
    a->type = (ks_type)type;
    a->sign = (ks_ir_sign)uns;
    ks_ir_arg_label(a, j);
    if (ptr > 1 || kind > KS_IR_ARG_OTHER || type > KS_TYPE_BOOL ||
        uns > KS_IR_SIGN_UNKNOWN || (a->kind == KS_IR_ARG_SCALAR && a->pointer))
      r->bad = 1;
  }
  k->own_bounds = get_u32(r);
  if (k->own_bounds & ~(unsigned)(KS_IR_OWN_MAXNTID | KS_IR_OWN_REQNTID |
                                  KS_IR_OWN_MINCTASM | KS_IR_OWN_MAXNREG))
    r->bad = 1;
  unsigned gs = get_u8(r);
  k->grid_sync = gs == 1;
  if (gs > 1)
    r->bad = 1;
  size_t np = get_count(r, 40);
  k->params = calloc(np ? np : 1, sizeof *k->params);
  if (!k->params)
    r->bad = 1;
  for (size_t j = 0; !r->bad && j < np; j++) {
    ks_ir_param *p = &k->params[j];
    k->nparams = j + 1; /* freed with the kernel from here on */
    double f[3];
    p->name = get_str(r);
    uint32_t type = get_u32(r);
    p->arg_index = get_u32(r);
    p->flags = get_u32(r);
    get(r, f, sizeof f);
    p->type = (ks_type)type;
    p->def = f[0];
    p->min = f[1];
    p->max = f[2];
    if (type > KS_TYPE_F64 || p->arg_index >= k->nargs ||
        (p->flags & ~(unsigned)(KS_PARAM_BLOCK_X | KS_PARAM_BLOCK_Y)) ||
        !(p->min <= p->def && p->def <= p->max) || !param_sound(k, j))
      r->bad = 1;
  }
  if (!k->name)
    r->bad = 1;
}

/* One global of d, whose kernels are read: every field checked. */
static void get_global(source *r, const ks_ir_desc *d, ks_ir_global *g) {
  g->name = get_str(r);
  g->type = get_str(r);
  g->bytes = get_u64(r);
  unsigned c = get_u8(r), init = get_u8(r);
  g->constant = c == 1;
  g->has_init = init == 1;
  g->leaves = get_u64(r);
  uint32_t n = get_count(r, 4);
  g->writers = calloc(n ? n : 1, sizeof *g->writers);
  if (!g->name || !g->name[0] || !g->type || c > 1 || init > 1 || !g->writers)
    r->bad = 1;
  for (uint32_t j = 0; !r->bad && j < n; j++) {
    uint32_t k = get_u32(r);
    if (k >= d->nkernels || (j && k <= g->writers[j - 1]))
      r->bad = 1;
    g->writers[j] = k;
    g->nwriters = j + 1;
  }
}

static void get_globals(source *r, ks_ir_desc *d) {
  size_t n = get_count(r, 31);
  d->globals = r->bad ? NULL : calloc(n ? n : 1, sizeof *d->globals);
  if (!d->globals)
    r->bad = 1;
  for (size_t i = 0; !r->bad && i < n; i++) {
    d->nglobals = i + 1; /* freed with the description from here on */
    get_global(r, d, &d->globals[i]);
    if (!r->bad && ks_ir_global_find(d, d->globals[i].name) != &d->globals[i])
      r->bad = 1; /* a name twice */
  }
}

int ks_jit_desc_unpack(const unsigned char *p, size_t n, ks_ir_desc *d) {
  source r = {.p = p, .n = n};
  memset(d, 0, sizeof *d);
  size_t nk = get_count(&r, 17);
  if (nk == 0)
    r.bad = 1; /* a template has kernels */
  d->kernels = r.bad ? NULL : calloc(nk, sizeof *d->kernels);
  if (!r.bad && !d->kernels)
    r.bad = 1;
  for (size_t i = 0; !r.bad && i < nk; i++) {
    d->nkernels = i + 1; /* freed with the description from here on */
    get_kernel(&r, &d->kernels[i]);
  }
  if (!r.bad)
    get_globals(&r, d);
  unsigned lib = r.bad ? 0 : get_u8(&r);
  if (lib > 1)
    r.bad = 1;
  d->libdevice = (int)lib;
  if (!r.bad && r.at != n)
    r.bad = 1; /* bytes after the description */
  if (r.bad) {
    ks_ir_desc_free(d);
    return -1;
  }
  return 0;
}

void ks_jit_template_key(const void *data, size_t len, uint64_t out[2]) {
  XXH3_state_t st;
  unsigned llvm[3];
  LLVMGetVersion(&llvm[0], &llvm[1], &llvm[2]);
  XXH128_hash_t h = XXH3_128bits(data, len);
  uint64_t bytes[3] = {h.low64, h.high64, len};
  size_t idn = 0;
  const unsigned char *id = ks_jit_build_id(&idn);
  XXH3_128bits_reset(&st);
  XXH3_128bits_update(&st, "kspec-template-5", 16);
  XXH3_128bits_update(&st, bytes, sizeof bytes);
  XXH3_128bits_update(&st, llvm, sizeof llvm);
  XXH3_128bits_update(&st, id, idn);
  h = XXH3_128bits_digest(&st);
  out[0] = h.low64;
  out[1] = h.high64;
}

int ks_jit_template_get(ks_ctx *ctx, const uint64_t key[2], ks_template *t) {
  ks_disk_entry e;
  unsigned char *buf = NULL;
  if (!ks_disk_read(ctx, ctx->disk, KS_DISK_KIND_TEMPLATE, key, &e, &buf))
    return 0;
  ks_ir_desc d;
  size_t n = e.len[KS_DISK_BLOB];
  unsigned char *bc = n ? malloc(n) : NULL;
  int ok = bc && ks_jit_desc_unpack((const unsigned char *)e.str[KS_DISK_DESC],
                                    e.len[KS_DISK_DESC], &d) == 0;
  if (ok) {
    memcpy(bc, e.str[KS_DISK_BLOB], n);
    XXH128_hash_t h = XXH3_128bits(bc, n);
    t->bitcode = bc;
    t->len = n;
    t->hash[0] = h.low64;
    t->hash[1] = h.high64;
    t->desc = d;
  } else {
    free(bc);
    ks_jit_cache_count(ctx->cache, KS_CTR_CORRUPT, 1);
  }
  free(buf);
  return ok;
}

void ks_jit_template_put(ks_ctx *ctx, const uint64_t key[2],
                         const ks_template *t) {
  size_t n = 0;
  unsigned char *desc = ks_jit_desc_pack(&t->desc, &n);
  if (!desc || n > UINT32_MAX || t->len > UINT32_MAX) {
    free(desc);
    return;
  }
  ks_disk_entry e = {.kind = KS_DISK_KIND_TEMPLATE};
  memcpy(e.key, key, sizeof e.key);
  e.str[KS_DISK_NAME] = "";
  e.str[KS_DISK_DESC] = (const char *)desc;
  e.len[KS_DISK_DESC] = (uint32_t)n;
  e.str[KS_DISK_BLOB] = (const char *)t->bitcode;
  e.len[KS_DISK_BLOB] = (uint32_t)t->len;
  e.str[KS_DISK_WHY] = "";
  ks_disk_write(ctx, ctx->disk, &e);
  free(desc);
}
