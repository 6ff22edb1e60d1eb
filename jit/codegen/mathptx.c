/*
 * mathptx.c - the PTX of the libdevice functions a specialization calls
 * out of line (passes/math_outline.c), spliced into the kernel's.
 *
 * The kernel's PTX declares each such function (.extern .func) and calls
 * it. Its PTX comes from the bodies the math stage run ahead of bind left
 * (ks_jit_ahead.bodies), compiled for the set of functions a
 * specialization calls once per prepared template, kernel and modes, and
 * kept there: the declarations give way to the definitions, at the place
 * of the first, and the calls to the bodies (ptxinline.c: ptxas would keep
 * them calls). The definitions are .func without .visible, so that ptxas
 * drops those no call is left to.
 */
#include <stdlib.h>
#include <string.h>

#include "jit/request/request.h"

enum { MAX_CALLED = 64 };

static int cmp_name(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The functions m calls out of line, sorted, into names (n at most cap):
 * their count, or cap + 1 when there are more. */
static size_t called(LLVMModuleRef m, const char **names, size_t cap) {
  size_t n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (LLVMIsDeclaration(f) && LLVMGetFirstUse(f) && ks_ir_outlined(m, f)) {
      if (n == cap)
        return cap + 1;
      names[n++] = LLVMGetValueName2(f, &(size_t){0});
    }
  qsort(names, n, sizeof *names, cmp_name);
  return n;
}

/* "a,b,c" of names, malloc'd. */
static char *joined(const char **names, size_t n) {
  size_t len = 1;
  for (size_t i = 0; i < n; i++)
    len += strlen(names[i]) + 1;
  char *s = malloc(len), *p = s;
  for (size_t i = 0; s && i < n; i++)
    p += sprintf(p, "%s%s", i ? "," : "", names[i]);
  if (s)
    *p = '\0';
  return s;
}

/* PTX text after its header (.version, .target, .address_size). */
static const char *after_header(const char *ptx) {
  const char *p = strstr(ptx, ".address_size");
  p = p ? strchr(p, '\n') : NULL;
  return p ? p + 1 : NULL;
}

/* Emits b with tm (in a child process where the screen says so) into
 * *ptx, malloc'd. */
static ks_status emit(ks_ctx *ctx, LLVMTargetMachineRef tm, LLVMModuleRef b,
                      const char *diag, const char *tname, char **ptx,
                      size_t *len) {
  size_t cap = 0;
  char *err = ks_jit_errbuf(&cap);
  int isolate = 0;
  ks_status s = ks_ir_screen(b, tname, ctx->ptx_isa, &isolate, err, cap);
  if (s == KS_OK)
    s = ks_ir_screen_backend(b, ctx->arch->sm, tname, err, cap);
  if (s != KS_OK)
    return s;
  if (isolate) {
    s = ks_jit_emit_isolated(tm, b, diag, tname, "libdevice", ptx, len);
    ks_ir_forget_annotations(b, tm); /* not emitted in this process */
    return s;
  }
  char *msg = NULL;
  LLVMMemoryBufferRef buf = NULL;
  if (LLVMTargetMachineEmitToMemoryBuffer(tm, b, LLVMAssemblyFile, &msg,
                                          &buf)) {
    s = ks_jit_fail(KS_ECODEGEN, "codegen: %s: libdevice: %s", tname,
                    msg ? msg : "failed");
    LLVMDisposeMessage(msg);
    return s;
  }
  if (diag[0]) {
    LLVMDisposeMemoryBuffer(buf);
    return ks_jit_fail(KS_ECODEGEN, "codegen: %s: libdevice: %s", tname, diag);
  }
  *len = LLVMGetBufferSize(buf);
  *ptx = malloc(*len + 1);
  if (*ptx) {
    memcpy(*ptx, LLVMGetBufferStart(buf), *len);
    (*ptx)[*len] = '\0';
  }
  LLVMDisposeMemoryBuffer(buf);
  return *ptx ? KS_OK : ks_jit_fail(KS_ENOMEM, "codegen: out of memory");
}

/* The PTX of the n functions names (their definitions and what they use,
 * no header), compiled from a->bodies for r, into *out (a's). */
static ks_status compile(ks_ctx *ctx, const ks_template *t, ks_jit_ahead *a,
                         LLVMTargetMachineRef tm, const ks_request *r,
                         const char *diag, const char **names, size_t n,
                         const char **out) {
  ks_diag d = {0};
  char *ptx = NULL, *key = joined(names, n);
  size_t len = 0;
  LLVMModuleRef b = key ? LLVMCloneModule(a->bodies) : NULL;
  ks_status s = b ? KS_OK : ks_jit_fail(KS_ENOMEM, "codegen: out of memory");
  if (s == KS_OK) {
    ks_math_bodies_keep(b, names, n);
    if (ks_pipeline_math_bodies(b, tm, &r->spec, &d))
      s = ks_jit_fail(d.status ? d.status : KS_EPASS, "%s", d.msg);
  }
  if (s == KS_OK)
    s = emit(ctx, tm, b, diag, t->name, &ptx, &len);
  else if (b)
    ks_ir_forget_annotations(b, tm);
  const char *body = ptx ? after_header(ptx) : NULL;
  if (s == KS_OK && !body)
    s = ks_jit_fail(KS_ECODEGEN, "codegen: %s: libdevice: no PTX header",
                    t->name);
  if (s == KS_OK) {
    if (a->nblobs == KS_JIT_BLOBS) {
      free(a->blobs[0].names);
      free(a->blobs[0].ptx);
      memmove(a->blobs, a->blobs + 1, --a->nblobs * sizeof *a->blobs);
    }
    memmove(ptx, body, strlen(body) + 1);
    a->blobs[a->nblobs++] = (ks_jit_blob){key, ptx};
    *out = ptx;
    key = ptx = NULL; /* a's now */
  }
  if (b)
    LLVMDisposeModule(b);
  free(d.dump);
  free(d.explain);
  free(key);
  free(ptx);
  return s;
}

/* The extent [*from, *to) of the .extern .func declaration of name in ptx
 * (its lines up to ";"): 1 when found. */
static int declaration(const char *ptx, const char *name, const char **from,
                       const char **to) {
  size_t nl = strlen(name);
  for (const char *p = strstr(ptx, ".extern .func"); p;
       p = strstr(p + 1, ".extern .func")) {
    const char *eol = strchr(p, '\n');
    if ((p != ptx && p[-1] != '\n') || !eol)
      continue;
    if ((size_t)(eol - p) > nl && memcmp(eol - nl, name, nl) == 0 &&
        eol[-(long)nl - 1] == ' ') {
      const char *end = strstr(eol, "\n;\n");
      if (!end)
        return 0;
      *from = p;
      *to = end + 3;
      return 1;
    }
  }
  return 0;
}

/* ptx with the declarations of names removed and body put in place of the
 * first of them. */
static ks_status splice(char **ptx, size_t *len, const char **names, size_t n,
                        const char *body) {
  size_t blen = strlen(body);
  char *out = malloc(*len + blen + 1);
  if (!out)
    return ks_jit_fail(KS_ENOMEM, "codegen: out of memory");
  memcpy(out, *ptx, *len + 1);
  size_t olen = *len;
  const char *first = NULL;
  for (size_t i = 0; i < n; i++) {
    const char *from, *to;
    if (!declaration(out, names[i], &from, &to)) {
      free(out);
      return ks_jit_fail(KS_ECODEGEN,
                         "codegen: the PTX does not declare %s, called out of "
                         "line",
                         names[i]);
    }
    if (!first || from < first)
      first = from;
    memmove((char *)from, to, olen + 1 - (size_t)(to - out));
    olen -= (size_t)(to - from);
  }
  size_t at = (size_t)(first - out);
  memmove(out + at + blen, out + at, olen + 1 - at);
  memcpy(out + at, body, blen);
  free(*ptx);
  *ptx = out;
  *len = olen + blen;
  return KS_OK;
}

ks_status ks_jit_math_ptx(ks_ctx *ctx, const ks_template *t, ks_jit_ahead *a,
                          LLVMTargetMachineRef tm, const ks_request *r,
                          LLVMModuleRef m, const char *diag, char **ptx,
                          size_t *len) {
  const char *names[MAX_CALLED];
  size_t n = called(m, names, MAX_CALLED);
  if (n == 0)
    return KS_OK; /* folded away, all of them */
  if (n > MAX_CALLED)
    return ks_jit_fail(KS_ECODEGEN,
                       "codegen: %s: more than %d libdevice "
                       "functions called out of line",
                       t->name, MAX_CALLED);
  char *key = joined(names, n);
  if (!key)
    return ks_jit_fail(KS_ENOMEM, "codegen: out of memory");
  const char *body = NULL;
  for (unsigned i = 0; i < a->nblobs && !body; i++)
    if (strcmp(a->blobs[i].names, key) == 0)
      body = a->blobs[i].ptx;
  free(key);
  ks_status s = KS_OK;
  if (!body)
    s = compile(ctx, t, a, tm, r, diag, names, n, &body);
  if (s == KS_OK)
    s = splice(ptx, len, names, n, body);
  return s == KS_OK ? ks_jit_ptx_inline(ptx, len, names, n) : s;
}

void ks_jit_ahead_free(ks_jit_ahead *a) {
  if (a->m)
    LLVMDisposeModule(a->m);
  if (a->out)
    LLVMDisposeModule(a->out);
  if (a->bodies)
    LLVMDisposeModule(a->bodies);
  for (unsigned i = 0; i < a->nblobs; i++) {
    free(a->blobs[i].names);
    free(a->blobs[i].ptx);
  }
  free(a->kernel);
  memset(a, 0, sizeof *a);
}
