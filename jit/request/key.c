/*
 * key.c - the cache key of a checked request: one list of its fields
 * (request.h's KS_KEY_FIELDS) makes both the hash and the "name value"
 * text the disk cache keeps beside each entry; and why a request misses the
 * disk cache (ks_cache_why_miss, kspec --why-miss), from those texts.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL /* header-only: no run-time dependency */
#include <xxhash.h>

#include "jit/request/request.h"

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

/* ---- the kinds of field: how each is hashed and printed ------------------ */

static void tpl_hash(XXH3_state_t *st, const ks_key_tpl *v) {
  XXH3_128bits_update(st, v->hash, sizeof v->hash);
}

static void tpl_text(char *buf, size_t cap, const char *name,
                     const ks_key_tpl *v) {
  line(buf, cap, "%s %s %016llx%016llx\n", name, v->name,
       (unsigned long long)v->hash[1], (unsigned long long)v->hash[0]);
}

static void str_hash(XXH3_state_t *st, const ks_key_str *v) {
  XXH3_128bits_update(st, *v, strlen(*v) + 1);
}

static void str_text(char *buf, size_t cap, const char *name,
                     const ks_key_str *v) {
  line(buf, cap, "%s %s\n", name, *v);
}

static void optstr_hash(XXH3_state_t *st, const ks_key_optstr *v) {
  unsigned char set = *v != NULL;
  XXH3_128bits_update(st, &set, 1);
  if (set)
    str_hash(st, v);
}

static void optstr_text(char *buf, size_t cap, const char *name,
                        const ks_key_optstr *v) {
  if (*v)
    str_text(buf, cap, name, v);
}

static void u_hash(XXH3_state_t *st, const ks_key_u *v) {
  XXH3_128bits_update(st, v, sizeof *v);
}

static void u_text(char *buf, size_t cap, const char *name, const ks_key_u *v) {
  line(buf, cap, "%s %u\n", name, *v);
}

static void u3_hash(XXH3_state_t *st, const ks_key_u3 *v) {
  XXH3_128bits_update(st, v->v, sizeof v->v);
}

static void u3_text(char *buf, size_t cap, const char *name,
                    const ks_key_u3 *v) {
  line(buf, cap, "%s %u,%u,%u\n", name, v->v[0], v->v[1], v->v[2]);
}

static void ver_hash(XXH3_state_t *st, const ks_key_ver *v) { u3_hash(st, v); }

static void ver_text(char *buf, size_t cap, const char *name,
                     const ks_key_ver *v) {
  line(buf, cap, "%s %u.%u.%u\n", name, v->v[0], v->v[1], v->v[2]);
}

static void passes_hash(XXH3_state_t *st, const ks_key_passes *v) {
  XXH3_128bits_update(st, v, sizeof *v);
}

static void passes_text(char *buf, size_t cap, const char *name,
                        const ks_key_passes *v) {
  line(buf, cap, "%s", name);
  for (size_t i = 0; i < ks_pipeline_stage_count(); i++)
    if (*v & (1u << i))
      line(buf, cap, " %s", ks_pipeline_stage_name(i));
  line(buf, cap, "\n");
}

/* Which passes lower the IR before codegen: LLVM's own, or the lower
 * stage's where LLVM's options are not kspec's to set (target.c). */
static void lowers_hash(XXH3_state_t *st, const ks_key_lowers *v) {
  unsigned char b = *v != 0;
  XXH3_128bits_update(st, &b, 1);
}

static void lowers_text(char *buf, size_t cap, const char *name,
                        const ks_key_lowers *v) {
  line(buf, cap, "%s %s\n", name, *v ? "all of LLVM's" : "from lower");
}

/* The floating-point modes, by nvcc's names ("ftz prec-div=0"). */
static void fp_hash(XXH3_state_t *st, const ks_key_fp *v) {
  XXH3_128bits_update(st, v, sizeof *v);
}

static void fp_text(char *buf, size_t cap, const char *name,
                    const ks_key_fp *v) {
  line(buf, cap, "%s%s%s%s%s%s\n", name, *v ? "" : " default",
       *v & KS_FP_FTZ ? " ftz" : "", *v & KS_FP_APPROX_DIV ? " prec-div=0" : "",
       *v & KS_FP_APPROX_SQRT ? " prec-sqrt=0" : "",
       *v & KS_FP_FAST_MATH ? " fast-math" : "");
}

static void bytes_hash(XXH3_state_t *st, const ks_key_bytes *v) {
  XXH3_128bits_update(st, v->p, v->n);
}

static void bytes_text(char *buf, size_t cap, const char *name,
                       const ks_key_bytes *v) {
  line(buf, cap, "%s ", name);
  for (size_t i = 0; i < v->n; i++)
    line(buf, cap, "%02x", v->p[i]);
  line(buf, cap, "\n");
}

/* Values by argument position (the request's spelling does not matter). */
static void values_hash(XXH3_state_t *st, const ks_key_values *v) {
  for (size_t i = 0; i < v->n; i++) {
    const ks_spec_value *x = &v->v[i];
    uint64_t rec[3] = {x->arg_index, (uint64_t)x->type, 0};
    if (!ks_req_integral(x->type))
      memcpy(&rec[2], &x->f, sizeof x->f);
    else
      rec[2] = (uint64_t)x->i;
    XXH3_128bits_update(st, rec, sizeof rec);
  }
}

/* One line a value, by the argument's name whichever way the request
 * named it: one key, one text. */
static void values_text(char *buf, size_t cap, const char *name,
                        const ks_key_values *v) {
  (void)name;
  for (size_t i = 0; i < v->n; i++) {
    const ks_spec_value *x = &v->v[i];
    const ks_ir_arg *a = &v->k->args[x->arg_index];
    const ks_ir_param *m = ks_jit_marking(v->k, x->arg_index);
    const char *arg = m ? m->name : a->name[0] ? a->name : a->label;
    if (!ks_req_integral(x->type))
      line(buf, cap, "%s %.17g\n", arg, x->f);
    else if (a->sign == KS_IR_UNSIGNED) /* 2^63 and up: not negative */
      line(buf, cap, "%s %llu\n", arg, (unsigned long long)x->i);
    else
      line(buf, cap, "%s %lld\n", arg, (long long)x->i);
  }
}

static void bakes_hash(XXH3_state_t *st, const ks_key_bakes *v) {
  for (size_t i = 0; i < v->n; i++) {
    const ks_spec_bake *b = &v->b[i];
    uint64_t rec[2] = {b->arg_index, b->n};
    const char *g = b->global; /* n 0: its initializer */
    XXH3_128bits_update(st, g ? "gbake" : "bake", g ? 5 : 4);
    if (g)
      XXH3_128bits_update(st, g, strlen(g) + 1);
    XXH3_128bits_update(st, rec, sizeof rec);
    XXH3_128bits_update(st, b->values, b->n * sizeof b->values[0]);
  }
}

static void bakes_text(char *buf, size_t cap, const char *name,
                       const ks_key_bakes *v) {
  (void)name;
  for (size_t i = 0; i < v->n; i++) {
    const ks_spec_bake *b = &v->b[i];
    if (b->global && !b->n)
      line(buf, cap, "bake-global:%s initializer\n", b->global);
    else
      line(
          buf, cap, "%s:%s %zu values %016llx\n",
          b->global ? "bake-global" : "bake",
          b->global ? b->global : v->k->args[b->arg_index].name, b->n,
          (unsigned long long)XXH3_64bits(b->values, b->n * sizeof *b->values));
  }
}

/* The --tex arguments: none (the line left out) or their names. */
static void tex_hash(XXH3_state_t *st, const ks_key_tex *v) {
  XXH3_128bits_update(st, &v->args, sizeof v->args);
}

static void tex_text(char *buf, size_t cap, const char *name,
                     const ks_key_tex *v) {
  if (!v->args)
    return;
  line(buf, cap, "%s", name);
  for (unsigned i = 0; i < 64 && i < v->k->nargs; i++)
    if (v->args >> i & 1)
      line(buf, cap, " %s",
           v->k->args[i].name[0] ? v->k->args[i].name : v->k->args[i].label);
  line(buf, cap, "\n");
}

/* ---- the key --------------------------------------------------------------
 */

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

void ks_key_of(const ks_ctx *ctx, const ks_template *t, ks_request *r,
               ks_key_in *in) {
  const ks_ir_kernel *k = &t->desc.kernels[r->kernel];
  qsort(r->values, r->nvalues, sizeof r->values[0], by_arg);
  qsort(r->bakes, r->nbakes, sizeof r->bakes[0], bake_by_arg);
  *in = (ks_key_in){
      .template = {.name = t->name, .hash = {t->hash[0], t->hash[1]}},
      .kernel = r->spec.kernel,
      .values = {.k = k, .v = r->values, .n = r->nvalues},
      .bakes = {.k = k, .b = r->bakes, .n = r->nbakes},
      .maxntid = r->spec.maxntid,
      .minctasm = r->spec.minctasm,
      .maxnreg = r->spec.maxnreg,
      .smem_spill = r->smem_spill,
      .no_pass = r->spec.disabled,
      .arch = ctx->arch->name,
      .ptx_isa = ctx->ptx_isa,
      .pipeline = KS_PIPELINE_VERSION,
      .codegen = r->spec.codegen_lowers,
      .dump_stage = r->spec.dump_stage,
      .fp = r->spec.fp,
      .tex = {.k = k, .args = r->spec.tex},
  };
  /* the library a template's math comes from; none asked of the others */
  if (t->desc.libdevice) {
    ks_jit_libdevice_id(r->libdevice, sizeof r->libdevice);
    in->libdevice = r->libdevice;
  }
  memcpy(in->block.v, r->spec.block, sizeof in->block.v);
  LLVMGetVersion(&in->llvm.v[0], &in->llvm.v[1], &in->llvm.v[2]);
  /* the code that compiles: a rebuilt library misses */
  in->build.p = ks_jit_build_id(&in->build.n);
}

void ks_key_hash(const ks_key_in *in, uint64_t key[2]) {
  XXH3_state_t st;
  XXH3_128bits_reset(&st);
  XXH3_128bits_update(&st, "kspec-key-2", 11);
#define KS_KEY_HASH(name, kind)                                                \
  XXH3_128bits_update(&st, #name, sizeof #name);                               \
  kind##_hash(&st, &in->name);
  KS_KEY_FIELDS(KS_KEY_HASH)
#undef KS_KEY_HASH
  XXH128_hash_t h = XXH3_128bits_digest(&st);
  key[0] = h.low64;
  key[1] = h.high64;
}

void ks_key_text(const ks_key_in *in, char *buf, size_t cap) {
  buf[0] = '\0';
#define KS_KEY_TEXT(name, kind) kind##_text(buf, cap, #name, &in->name);
  KS_KEY_FIELDS(KS_KEY_TEXT)
#undef KS_KEY_TEXT
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
int ks_key_compare(const char *want, const char *have, char *diff, size_t cap) {
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
  int n = ks_key_compare(nr->want, have, diff, sizeof diff);
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
  ks_disk *d = ks_jit_cache_disk_for(ctx);
  if (!d)
    return KS_EINVAL;
  ks_request r;
  ks_status s = ks_req_make(ctx, t, req, &r);
  if (s != KS_OK)
    return s;
  uint64_t key[2];
  char why[128], want[2048];
  ks_key_in in;
  ks_key_of(ctx, t, &r, &in);
  ks_key_hash(&in, key);
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
  ks_key_text(&in, want, sizeof want);
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
