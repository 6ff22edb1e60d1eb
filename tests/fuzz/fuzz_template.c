/*
 * fuzz_template.c - the target "template": bytes -> ks_template_load_mem ->
 * a kernel bound and specialized (no driver, no disk cache) -> PTX.
 *
 * The input is a template (bitcode or IR text), optionally followed by a
 * request: the bytes after its last "\n;ks:", in the words of the kspec
 * tool (-D NAME=V, --block X[,Y[,Z]], --maxntid N, --minctasm N,
 * --maxnreg N, --bake ARG=V,..., --no-pass NAME, --kernel K, --arch sm_XX,
 * --ptx-isa N, --smem-spill, --stage NAME), parsed by the tool's own
 * parsers (tools/args.c). In text IR the request line is a comment, so a
 * .ll file with one still loads as it is. Without a request line, the
 * request comes from a hash of the input: the first kernel's parameters
 * each unbound or bound to the default, the minimum, the maximum or the
 * middle of their range, and perhaps a block size.
 *
 * Errors are fine. A crash, a sanitizer report, a leak, a timeout, or LLVM
 * ending the process (report_fatal_error) is a finding: kspec must turn
 * away what LLVM cannot take before it gets there (ir/screen.c).
 *
 * Bitcode inputs are passed over (and kept out of the corpus) unless
 * KSPEC_FUZZ_BITCODE=1: LLVM's bitcode reader is not made to survive
 * malformed bitcode (tests/fuzz/llvm/ has one that makes it ask for 32 GB),
 * and what it gets wrong kspec cannot mend; text IR reaches the same kspec
 * code.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "fuzz.h"
#include "kspec.h"

enum { MAX_DEFS = 16, MAX_BAKES = 4, MAX_NO_PASS = 8, REQ_CAP = 1024 };

static const char MARK[] = "\n;ks:";

typedef struct fuzz_req {
  ks_spec_req req;
  ks_binding defs[MAX_DEFS];
  char def_names[MAX_DEFS][64];
  ks_bake bakes[MAX_BAKES];
  char bake_names[MAX_BAKES][64];
  const char *no_pass[MAX_NO_PASS];
  const char *arch;
  unsigned ptx_isa;
  int given;          /* a request line was there */
  char text[REQ_CAP]; /* the request line; the words point into it */
} fuzz_req;

/* Where the request line starts (its "\n"), or size when there is none. */
static size_t find_mark(const uint8_t *data, size_t size) {
  size_t m = sizeof MARK - 1;
  for (size_t i = size >= m ? size - m + 1 : 0; i-- > 0;)
    if (memcmp(data + i, MARK, m) == 0)
      return i;
  return size;
}

static unsigned long long number(const char *s) {
  unsigned long long v = 0;
  return ks_arg_uint(s, 0, UINT32_MAX, &v) ? v : 0;
}

/* One word of the request line (and its value, which it may take). Returns
 * 1 when the value was used. */
static int take_word(fuzz_req *r, const char *w, const char *v) {
  ks_spec_req *q = &r->req;
  if (!v)
    return strcmp(w, "--smem-spill") == 0 ? (q->smem_spill = 1, 0) : 0;
  if (strcmp(w, "-D") == 0) {
    size_t i = q->nbindings;
    if (i < MAX_DEFS && ks_binding_parse(v, &r->defs[i], r->def_names[i],
                                         sizeof r->def_names[0]) == KS_OK)
      q->nbindings++;
  } else if (strcmp(w, "--block") == 0) {
    ks_arg_block(v, q->bounds.block);
  } else if (strcmp(w, "--maxntid") == 0) {
    q->bounds.maxntid = (unsigned)number(v);
  } else if (strcmp(w, "--minctasm") == 0) {
    q->bounds.minctasm = (unsigned)number(v);
  } else if (strcmp(w, "--maxnreg") == 0) {
    q->bounds.maxnreg = (unsigned)number(v);
  } else if (strcmp(w, "--ptx-isa") == 0) {
    r->ptx_isa = (unsigned)number(v);
  } else if (strcmp(w, "--bake") == 0) {
    size_t i = q->nbakes;
    double *vals = NULL;
    size_t n = 0;
    if (i < MAX_BAKES &&
        ks_arg_bake(v, r->bake_names[i], sizeof r->bake_names[0], &vals, &n)) {
      r->bakes[i] = (ks_bake){.arg = r->bake_names[i], .values = vals, .n = n};
      q->nbakes++;
    }
  } else if (strcmp(w, "--no-pass") == 0) {
    if (q->nno_pass < MAX_NO_PASS)
      r->no_pass[q->nno_pass++] = v;
  } else if (strcmp(w, "--kernel") == 0) {
    q->kernel = v;
  } else if (strcmp(w, "--arch") == 0) {
    r->arch = v;
  } else if (strcmp(w, "--stage") == 0) {
    q->dump_stage = v;
  } else {
    return strcmp(w, "--smem-spill") == 0 ? (q->smem_spill = 1, 0) : 0;
  }
  return 1;
}

/* The request line (n bytes at line) into r. */
static void parse_request(fuzz_req *r, const uint8_t *line, size_t n) {
  if (n >= sizeof r->text)
    n = sizeof r->text - 1;
  memcpy(r->text, line, n);
  r->text[n] = '\0';
  r->given = 1;
  char *save = NULL;
  char *w = strtok_r(r->text, " \t\r\n", &save);
  while (w) {
    char *v = strtok_r(NULL, " \t\r\n", &save);
    if (take_word(r, w, v))
      v = strtok_r(NULL, " \t\r\n", &save);
    w = v;
  }
}

static uint64_t fnv64(const uint8_t *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

/* A request from h for the first kernel of t: each parameter unbound or
 * bound to a value of its range; a block unless a parameter fixes it. */
static void derive_request(fuzz_req *r, const ks_template *t, uint64_t h) {
  ks_spec_req *q = &r->req;
  int fixes_block = 0;
  size_t np = ks_template_param_count(t, 0);
  for (size_t i = 0; i < np && q->nbindings < MAX_DEFS; i++, h >>= 3) {
    ks_param_info p = {.size = sizeof p};
    if (ks_template_param(t, 0, i, &p) != KS_OK)
      continue;
    double pick[8] = {0, 0, 0, p.def, p.min, p.max, (p.min + p.max) / 2, p.def};
    unsigned sel = h & 7;
    if (sel < 3)
      continue;
    ks_binding *b = &r->defs[q->nbindings++];
    b->name = p.name;
    if (p.type == KS_TYPE_F32 || p.type == KS_TYPE_F64) {
      b->kind = KS_VALUE_REAL;
      b->v.f = pick[sel];
    } else if (pick[sel] >= 0x1p63) {
      /* the upper half of an unsigned 64-bit range does not fit v.i */
      b->kind = KS_VALUE_TEXT;
      b->v.s =
          pick[sel] >= 0x1p64 ? "18446744073709551615" : "9223372036854775808";
    } else {
      b->kind = KS_VALUE_INT;
      b->v.i = (int64_t)pick[sel]; /* in range: the type's values fit */
    }
    fixes_block |= p.flags != 0;
  }
  static const unsigned blocks[8] = {0, 0, 0, 0, 32, 128, 256, 1024};
  if (!fixes_block)
    q->bounds.block[0] = blocks[(h >> 40) & 7];
}

/* Reads everything the template describes, as `kspec info` does. */
static void describe(const ks_template *t) {
  KS_FUZZ_CHECK(ks_template_name(t) != NULL);
  size_t nk = ks_template_kernel_count(t);
  KS_FUZZ_CHECK(nk > 0);
  for (size_t k = 0; k < nk; k++) {
    KS_FUZZ_CHECK(ks_template_kernel_name(t, k) != NULL);
    KS_FUZZ_CHECK(ks_template_kernel_doc(t, k) != NULL);
    int coop = ks_template_kernel_cooperative(t, k);
    KS_FUZZ_CHECK(coop == 0 || coop == 1);
    for (size_t i = 0; i < ks_template_param_count(t, k); i++) {
      ks_param_info p = {.size = sizeof p};
      KS_FUZZ_CHECK(ks_template_param(t, k, i, &p) == KS_OK);
      KS_FUZZ_CHECK(p.min <= p.def && p.def <= p.max);
    }
  }
}

/* The kernel's outputs, read whole. */
static void read_kernel(ks_kernel *k, const ks_spec_req *q) {
  const char *ptx = NULL;
  size_t len = 0;
  KS_FUZZ_CHECK(ks_kernel_ptx(k, &ptx, &len) == KS_OK);
  KS_FUZZ_CHECK(ptx && strlen(ptx) == len && len > 0);
  KS_FUZZ_CHECK(ks_kernel_explain(k) != NULL);
  KS_FUZZ_CHECK(ks_kernel_name(k) != NULL);
  ks_kernel_info info = {.size = sizeof info};
  KS_FUZZ_CHECK(ks_kernel_info_get(k, &info) == KS_OK);
  KS_FUZZ_CHECK(info.plan.coarsen_x >= 1);
  KS_FUZZ_CHECK(info.plan.grid_coarsen >= 1);
  if (q->dump_stage) {
    const char *ir = NULL;
    KS_FUZZ_CHECK(ks_kernel_ir(k, &ir, &len) == KS_OK && ir);
  }
}

static int bitcode_too;

static void init(void) {
  const char *v = getenv("KSPEC_FUZZ_BITCODE");
  bitcode_too = v && strcmp(v, "1") == 0;
}

/* Bitcode, bare or in its wrapper. */
static int is_bitcode(const uint8_t *d, size_t n) {
  static const uint8_t bare[4] = {'B', 'C', 0xc0, 0xde};
  static const uint8_t wrapped[4] = {0xde, 0xc0, 0x17, 0x0b};
  return n >= 4 && (memcmp(d, bare, 4) == 0 || memcmp(d, wrapped, 4) == 0);
}

static int run(const uint8_t *data, size_t size) {
  static fuzz_req r;
  if (!bitcode_too && is_bitcode(data, size))
    return -1; /* not into the corpus */
  memset(&r, 0, sizeof r);
  size_t end = find_mark(data, size);
  if (end < size)
    parse_request(&r, data + end + sizeof MARK - 1,
                  size - end - (sizeof MARK - 1));
  r.req.bindings = r.defs;
  r.req.no_pass = r.no_pass;
  r.req.bakes = r.bakes;
  ks_ctx_opts o = {.arch = r.arch ? r.arch : "sm_90",
                   .ptx_isa = r.ptx_isa,
                   .no_driver = 1,
                   .no_disk_cache = 1,
                   .jobs = 1};
  ks_ctx *ctx = NULL;
  ks_template *t = NULL;
  if (ks_ctx_create(&o, &ctx) != KS_OK) {
    KS_FUZZ_CHECK(ctx == NULL && ks_errmsg(NULL)[0]);
    goto done;
  }
  if (ks_template_load_mem(ctx, "fuzz", data, end + (end < size), &t) !=
      KS_OK) {
    KS_FUZZ_CHECK(t == NULL && ks_errmsg(ctx)[0]);
    goto done;
  }
  describe(t);
  if (!r.given)
    derive_request(&r, t, fnv64(data, size));
  if (!r.req.kernel && ks_template_kernel_count(t) > 1)
    r.req.kernel = ks_template_kernel_name(t, 0);
  ks_kernel *k = NULL;
  ks_status s = ks_specialize(ctx, t, &r.req, &k);
  if (s == KS_OK)
    read_kernel(k, &r.req);
  else
    KS_FUZZ_CHECK(k == NULL && ks_errmsg(ctx)[0]);
done:
  ks_template_destroy(t);
  ks_ctx_destroy(ctx);
  for (size_t i = 0; i < r.req.nbakes; i++)
    free((void *)r.bakes[i].values);
  return 0;
}

const ks_fuzz_target ks_fuzz_template = {
    "template", "template bytes -> load -> bind -> specialize -> PTX", init,
    run};
