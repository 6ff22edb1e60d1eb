/*
 * request.h - a checked specialization request (request.c) and its cache
 * key (key.c), shared with the compile (specialize.c).
 */
#ifndef KS_JIT_REQUEST_H
#define KS_JIT_REQUEST_H

#include "jit/ks_jit.h"

enum { KS_REQ_MAX_VALUES = 64, KS_REQ_MAX_BAKES = 16 };

/* A checked request: what the pipeline and the cache key are made of. */
typedef struct ks_request {
  long kernel;
  ks_spec_value values[KS_REQ_MAX_VALUES];
  size_t spelled[KS_REQ_MAX_VALUES]; /* the binding each value came from */
  size_t nvalues;
  ks_spec_bake bakes[KS_REQ_MAX_BAKES]; /* values point into the caller's */
  size_t nbakes;
  ks_spec spec;
  unsigned smem_spill; /* ks_spec_req.smem_spill, 0 or 1 */
  char libdevice[24];  /* the device library's identity (key.c), or "" */
} ks_request;

static inline int ks_req_integral(ks_type ty) {
  return ty != KS_TYPE_F16 && ty != KS_TYPE_F32 && ty != KS_TYPE_F64;
}

/* ---- mathptx.c ---------------------------------------------------------- */

/* mathptx.c: the PTX *ptx of a specialization m of a's kernel out, with
 * the libdevice functions m calls out of line (passes/math_outline.c)
 * defined in it, in place of their declarations: their PTX compiled from
 * a->bodies for the set m calls, where a has none yet (kept in a->blobs);
 * diag is m's context's diagnostic sink. *ptx is replaced (freed and malloc'd
 * again). */
ks_status ks_jit_math_ptx(ks_ctx *ctx, const ks_template *t, ks_jit_ahead *a,
                          LLVMTargetMachineRef tm, const ks_request *r,
                          LLVMModuleRef m, const char *diag, char **ptx,
                          size_t *len);

/* ---- request.c ---------------------------------------------------------- */

/* Checks req against t and ctx's target into *r: names, values, bounds,
 * bakes, passes, before any LLVM work. */
ks_status ks_req_make(ks_ctx *ctx, const ks_template *t, const ks_spec_req *req,
                      ks_request *r);

/* ---- key.c --------------------------------------------------------------
 *
 * The cache key is a hash of every field below; the same list prints them
 * as "name value" lines, which the disk cache keeps beside each entry and
 * --why-miss compares, so a field can never be hashed without being shown
 * (or shown without being hashed). X(name, kind): kind says how the field
 * is hashed and printed (key.c's kind_hash and kind_text). */
#define KS_KEY_FIELDS(X)                                                       \
  X(template, tpl)                                                             \
  X(kernel, str)                                                               \
  X(values, values)                                                            \
  X(bakes, bakes)                                                              \
  X(block, u3)                                                                 \
  X(maxntid, u)                                                                \
  X(minctasm, u)                                                               \
  X(maxnreg, u)                                                                \
  X(smem_spill, u)                                                             \
  X(no_pass, passes)                                                           \
  X(arch, str)                                                                 \
  X(ptx_isa, u)                                                                \
  X(pipeline, u)                                                               \
  X(llvm, ver)                                                                 \
  X(codegen, lowers)                                                           \
  X(build, bytes)                                                              \
  X(dump_stage, optstr)                                                        \
  X(libdevice, optstr)                                                         \
  X(fp, fp)                                                                    \
  X(tex, tex)

/* The field kinds. */
typedef struct ks_key_tpl {
  const char *name;
  uint64_t hash[2];
} ks_key_tpl;
typedef const char *ks_key_str;
typedef const char *ks_key_optstr; /* NULL: not part of the key */
typedef unsigned ks_key_u;
typedef struct ks_key_u3 {
  unsigned v[3];
} ks_key_u3;
typedef ks_key_u3 ks_key_ver;   /* printed "19.1.7" */
typedef unsigned ks_key_passes; /* bits of disabled pipeline stages */
typedef int ks_key_lowers;      /* ks_spec.codegen_lowers */
typedef unsigned ks_key_fp;     /* ks_spec.fp: KS_FP_* bits */
typedef struct ks_key_values {  /* bound values, by argument */
  const ks_ir_kernel *k;        /* for their names */
  const ks_spec_value *v;
  size_t n;
} ks_key_values;
typedef struct ks_key_bakes {
  const ks_ir_kernel *k;
  const ks_spec_bake *b;
  size_t n;
} ks_key_bakes;
typedef struct ks_key_tex { /* ks_spec.tex: arguments by bit */
  const ks_ir_kernel *k;
  uint64_t args;
} ks_key_tex;
typedef struct ks_key_bytes {
  const unsigned char *p;
  size_t n;
} ks_key_bytes;

/* The key's inputs, one member per field. */
typedef struct ks_key_in {
#define KS_KEY_MEMBER(name, kind) ks_key_##kind name;
  KS_KEY_FIELDS(KS_KEY_MEMBER)
#undef KS_KEY_MEMBER
} ks_key_in;

/* The key's inputs of a checked request (sorting its values and bakes). */
void ks_key_of(const ks_ctx *ctx, const ks_template *t, ks_request *r,
               ks_key_in *in);
void ks_key_hash(const ks_key_in *in, uint64_t key[2]);
/* The "name value" lines (cap bytes at buf, cut short if need be). */
void ks_key_text(const ks_key_in *in, char *buf, size_t cap);
/* How many lines of two key texts differ, described in diff ("FILTER_LEN
 * 31 != 32", "template conv1d changed", "kspec was rebuilt ..."). */
int ks_key_compare(const char *want, const char *have, char *diff, size_t cap);

/* ---- codegen/specialize.c, codegen/guard.c -------------------------------
 *
 * ks_jit_compile runs the pipeline and codegen for r into k (made by
 * ks_jit_kernel_new); *sync_loop gets whether a loop of the kernel holds a
 * barrier (ks_diag.sync_loop). ks_jit_specialize is ks_specialize without
 * clearing the thread's message or recording the request: the guard's way
 * to the generic kernel, through the same caches. */
ks_kernel *ks_jit_kernel_new(ks_ctx *ctx, const ks_template *t,
                             const ks_request *r, const uint64_t key[2]);
ks_status ks_jit_compile(ks_ctx *ctx, const ks_template *t, const ks_request *r,
                         ks_kernel *k, int *sync_loop);
ks_status ks_jit_specialize(ks_ctx *ctx, const ks_template *t,
                            const ks_spec_req *req, ks_kernel **out);
/* Never slower: after k (compiled for r) is emitted, where a fixed block
 * makes occupancy defined and a loop holds a barrier, compares ptxas's
 * figures for k with the generic kernel's at the same block, and where k
 * has fewer resident warps per SM or spills where the generic does not,
 * replaces k's code by a retry that does not (guard.c says which). One
 * line of k's explanation says what it did. Never fails: what it cannot
 * check it leaves as it is, and says so. */
void ks_jit_guard(ks_ctx *ctx, const ks_template *t, const ks_request *r,
                  ks_kernel *k, int sync_loop);

#endif /* KS_JIT_REQUEST_H */
