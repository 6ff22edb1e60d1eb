/*
 * kspec_train.c - the training run of the static libkspec's code layout
 * (KSPEC_BOLT, tools/bolt.sh).
 *
 *   kspec-train LIBRARY [REPS]
 *
 * Opens LIBRARY (an instrumented copy of libkspec) and specializes every
 * built-in template REPS times (default 2) in each of three ways: generic
 * (nothing bound), with its parameters bound to their defaults, and with
 * the defaults and the block its workload uses (256 threads; 32 x 8 for the
 * separable filters; none where BLOCK or TILE fix it). For sm_90 and
 * sm_80, no driver and no disk cache: what it records is the work of a
 * cold specialization down to PTX.
 *
 * The library is opened with dlopen, not linked: the build runs this on
 * the library it is making, before that library is finished.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "kspec.h"
#include "workload_block.h"

enum { MAX_BIND = 16 };

#define KS_FN(name) __typeof__(&name) name
static struct {
  KS_FN(ks_ctx_create);
  KS_FN(ks_ctx_destroy);
  KS_FN(ks_errmsg);
  KS_FN(ks_builtin_count);
  KS_FN(ks_builtin_name);
  KS_FN(ks_template_load);
  KS_FN(ks_template_destroy);
  KS_FN(ks_template_param_count);
  KS_FN(ks_template_param);
  KS_FN(ks_specialize);
} api;
#undef KS_FN

static const struct {
  const char *name;
  size_t off;
} syms[] = {
#define KS_SYM(name) {#name, offsetof(__typeof__(api), name)}
    KS_SYM(ks_ctx_create),       KS_SYM(ks_ctx_destroy),
    KS_SYM(ks_errmsg),           KS_SYM(ks_builtin_count),
    KS_SYM(ks_builtin_name),     KS_SYM(ks_template_load),
    KS_SYM(ks_template_destroy), KS_SYM(ks_template_param_count),
    KS_SYM(ks_template_param),   KS_SYM(ks_specialize),
#undef KS_SYM
};

enum mode { GENERIC, BOUND, BLOCK };

/* One cold specialization of template NAME in a fresh context. */
static int once(const char *arch, const char *name, enum mode m) {
  ks_ctx_opts o = {
      .arch = arch, .ptx_isa = 85, .no_driver = 1, .no_disk_cache = 1};
  ks_ctx *ctx = NULL;
  ks_template *tp = NULL;
  ks_kernel *k = NULL;
  int rc = 1;
  if (api.ks_ctx_create(&o, &ctx) != KS_OK ||
      api.ks_template_load(ctx, name, &tp) != KS_OK)
    goto out;
  ks_binding b[MAX_BIND];
  size_t nb = 0;
  for (size_t i = 0;
       m != GENERIC && i < api.ks_template_param_count(tp, 0) && nb < MAX_BIND;
       i++) {
    ks_param_info p = {.size = sizeof p};
    if (api.ks_template_param(tp, 0, i, &p) != KS_OK)
      goto out;
    if (!p.marked) /* no default */
      continue;
    b[nb++] = (ks_binding){.name = p.name, .kind = KS_VALUE_REAL, .v.f = p.def};
  }
  ks_spec_req req = {.bindings = b, .nbindings = nb};
  if (m == BLOCK)
    ks_workload_block(name, &req.bounds);
  if (api.ks_specialize(ctx, tp, &req, &k) == KS_OK)
    rc = 0;
out:
  if (rc)
    fprintf(stderr, "kspec-train: %s: %s\n", name, api.ks_errmsg(ctx));
  api.ks_template_destroy(tp);
  api.ks_ctx_destroy(ctx);
  return rc;
}

int main(int argc, char **argv) {
  int reps = 2;
  if (argc < 2 || argc > 3 ||
      (argc == 3 && sscanf(argv[2], "%d", &reps) != 1)) {
    fprintf(stderr, "usage: kspec-train LIBRARY [REPS]\n");
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "kspec-train: %s\n", dlerror());
    return 1;
  }
  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
    void *p = dlsym(lib, syms[i].name);
    if (!p) {
      fprintf(stderr, "kspec-train: %s lacks %s\n", argv[1], syms[i].name);
      return 1;
    }
    /* POSIX: a data pointer from dlsym converts to a function pointer. */
    memcpy((char *)&api + syms[i].off, &p, sizeof p);
  }
  static const char *const arch[] = {"sm_90", "sm_80"};
  int rc = 0;
  for (int r = 0; r < reps; r++)
    for (size_t a = 0; a < sizeof arch / sizeof arch[0]; a++)
      for (int m = GENERIC; m <= BLOCK; m++)
        for (size_t t = 0; t < api.ks_builtin_count(); t++)
          rc |= once(arch[a], api.ks_builtin_name(t), (enum mode)m);
  /* The library's exit handlers write the profile: keep it loaded. */
  return rc;
}
