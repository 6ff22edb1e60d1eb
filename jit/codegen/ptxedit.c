/*
 * ptxedit.c - edits of the emitted PTX text for what LLVM 19's NVPTX backend
 * cannot say: it knows PTX ISA up to 8.5.
 */
#include <stdlib.h>
#include <string.h>

#include "jit/ks_jit.h"

static const char pragma[] = "\t.pragma \"enable_smem_spilling\";\n";

/* The start of the line at or after p that begins with what; NULL if none. */
static const char *line_with(const char *text, const char *p,
                             const char *what) {
  for (const char *q = strstr(p, what); q; q = strstr(q + 1, what))
    if (q == text || q[-1] == '\n')
      return q;
  return NULL;
}

/* The entry of kernel in text, NULL if none. */
static const char *entry_of(const char *text, const char *kernel) {
  size_t name_len = strlen(kernel);
  for (const char *q = strstr(text, ".entry "); q; q = strstr(q + 1, ".entry "))
    if (strncmp(q + 7, kernel, name_len) == 0 && q[7 + name_len] == '(')
      return q;
  return NULL;
}

ks_status ks_jit_ptx_maxnreg(const char *ptx, size_t len, const char *kernel,
                             unsigned n, char **out, size_t *out_len) {
  const char *entry = entry_of(ptx, kernel);
  const char *body = entry ? line_with(ptx, entry, "{\n") : NULL;
  *out = NULL;
  if (!body)
    return ks_jit_fail(KS_ECODEGEN, "maxnreg: no body of the entry '%s'",
                       kernel);
  char line[32];
  size_t head = (size_t)(body - ptx);
  size_t nl = (size_t)snprintf(line, sizeof line, ".maxnreg %u\n", n);
  char *w = malloc(len + nl + 1);
  if (!w)
    return ks_jit_fail(KS_ENOMEM, "maxnreg: out of memory");
  memcpy(w, ptx, head);
  memcpy(w + head, line, nl);
  memcpy(w + head + nl, body, len - head);
  w[len + nl] = '\0';
  *out = w;
  *out_len = len + nl;
  return KS_OK;
}

ks_status ks_jit_ptx_smem_spill(char **ptx, size_t *len, const char *kernel) {
  const char *text = *ptx;
  /* ptxas: "Pragma 'enable_smem_spilling' is not allowed for dynamic SMEM" */
  if (line_with(text, text, ".extern .shared"))
    return ks_jit_fail(KS_EPARAM,
                       "smem spill: kernel '%s' uses dynamic shared memory, "
                       "which ptxas does not allow with shared-memory "
                       "spilling",
                       kernel);
  const char *ver = line_with(text, text, ".version ");
  const char *entry = entry_of(text, kernel);
  const char *body = entry ? line_with(text, entry, "{\n") : NULL;
  if (!ver || !body)
    return ks_jit_fail(KS_ECODEGEN, "smem spill: no %s in the PTX of '%s'",
                       ver ? "body of the entry" : ".version line", kernel);
  const char *ver_end = ver + strcspn(ver, "\n");
  static const char new_ver[] = ".version 9.0";
  size_t n_ver = sizeof new_ver - 1, n_pragma = sizeof pragma - 1;
  size_t head = (size_t)(ver - text);
  size_t mid = (size_t)(body + 2 - ver_end); /* through "{\n" */
  size_t tail = *len - (size_t)(body + 2 - text);
  size_t n = head + n_ver + mid + n_pragma + tail;
  char *out = malloc(n + 1);
  if (!out)
    return ks_jit_fail(KS_ENOMEM, "smem spill: out of memory");
  char *w = out;
  memcpy(w, text, head), w += head;
  memcpy(w, new_ver, n_ver), w += n_ver;
  memcpy(w, ver_end, mid), w += mid;
  memcpy(w, pragma, n_pragma), w += n_pragma;
  memcpy(w, body + 2, tail), w += tail;
  *w = '\0';
  free(*ptx);
  *ptx = out;
  *len = n;
  return KS_OK;
}
