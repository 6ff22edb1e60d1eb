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

/* ".NAME n" on a line of its own before the body of kernel's entry. */
static ks_status directive(const char *ptx, size_t len, const char *kernel,
                           const char *name, unsigned n, char **out,
                           size_t *out_len) {
  const char *entry = entry_of(ptx, kernel);
  const char *body = entry ? line_with(ptx, entry, "{\n") : NULL;
  *out = NULL;
  if (!body)
    return ks_jit_fail(KS_ECODEGEN, "%s: no body of the entry '%s'", name,
                       kernel);
  char line[48];
  size_t head = (size_t)(body - ptx);
  size_t nl = (size_t)snprintf(line, sizeof line, ".%s %u\n", name, n);
  char *w = malloc(len + nl + 1);
  if (!w)
    return ks_jit_fail(KS_ENOMEM, "%s: out of memory", name);
  memcpy(w, ptx, head);
  memcpy(w + head, line, nl);
  memcpy(w + head + nl, body, len - head);
  w[len + nl] = '\0';
  *out = w;
  *out_len = len + nl;
  return KS_OK;
}

ks_status ks_jit_ptx_maxnreg(const char *ptx, size_t len, const char *kernel,
                             unsigned n, char **out, size_t *out_len) {
  return directive(ptx, len, kernel, "maxnreg", n, out, out_len);
}

ks_status ks_jit_ptx_minctasm(const char *ptx, size_t len, const char *kernel,
                              unsigned n, char **out, size_t *out_len) {
  return directive(ptx, len, kernel, "minnctapersm", n, out, out_len);
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

/* ---- red: atomics whose old value nothing reads --------------------------
 * kspec's disk cache makes its cubins with the driver's linker, which
 * compiles PTX as relocatable code; ptxas then keeps `atom.global` with an
 * unread result as an atomic that returns a value (ATOMG into RZ), which
 * a whole-program compile turns into a reduction (REDG) and which holds
 * the warp until the old value comes back. `red` says so in the PTX. */

/* Operations red has, as atom has them. */
static int red_op(const char *q, size_t n) {
  static const char *const ops[] = {"add", "min", "max", "and",
                                    "or",  "xor", "inc", "dec"};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    if (strlen(ops[i]) == n && !strncmp(q, ops[i], n))
      return 1;
  return 0;
}

/* Whether the qualifiers q (".global.add.u32", n bytes) make an atom
 * that red can replace: global memory, a red operation, no vector, no
 * acquire ordering (red is relaxed or release). */
static int red_quals(const char *q, size_t n) {
  int global = 0, op = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && q[j] != '.')
      j++;
    const char *w = q + i + 1;
    size_t wn = j - i - 1;
    if (wn == 6 && !strncmp(w, "global", 6))
      global = 1;
    else if (red_op(w, wn))
      op++;
    else if (w[0] == 'v' || (wn == 7 && !strncmp(w, "acquire", 7)) ||
             (wn == 7 && !strncmp(w, "acq_rel", 7)) ||
             (wn == 3 && !strncmp(w, "cas", 3)) ||
             (wn == 4 && !strncmp(w, "exch", 4)))
      return 0;
    i = j;
  }
  return global && op == 1;
}

/* Occurrences of register reg (n bytes, "%r8") in [p, end) as a whole
 * token. */
static int reg_uses(const char *p, const char *end, const char *reg, size_t n) {
  char r[32];
  if (n >= sizeof r)
    return -1;
  memcpy(r, reg, n);
  r[n] = '\0';
  reg = r;
  int uses = 0;
  for (const char *q = p; (q = strstr(q, reg)) && q < end; q += n) {
    char c = q[n];
    if (!(c == '_' || c == '$' || (c >= '0' && c <= '9') ||
          (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
      uses++;
  }
  return uses;
}

/* If the line at l ("\t[@%p1 ]atom.global.add.u32 \t%r8, [%rd1], %r7;")
 * is an atom whose result the function body [body, end) never reads, the
 * byte spans of its "atom" and of its "%r8, " in *a and *d; else 0. */
static int red_candidate(const char *l, const char *body, const char *end,
                         const char **a, const char **d, size_t *dn) {
  const char *p = l + strspn(l, " \t");
  if (*p == '@')
    p += strcspn(p, " \t"), p += strspn(p, " \t");
  if (strncmp(p, "atom.", 5))
    return 0;
  *a = p;
  size_t qn = strcspn(p + 4, " \t\n");
  if (!red_quals(p + 4, qn))
    return 0;
  const char *r = p + 4 + qn;
  r += strspn(r, " \t");
  size_t rn = strcspn(r, ", \t\n");
  if (*r != '%' || r[rn] != ',' || reg_uses(body, end, r, rn) != 1)
    return 0;
  *d = r;
  *dn = rn + 1 + strspn(r + rn + 1, " \t");
  return 1;
}

/* The end of the function body that starts at body ("{\n" at column 0):
 * its "}\n" at column 0, or the text's end. */
static const char *body_end(const char *body, const char *text_end) {
  const char *e = line_with(body, body + 1, "}\n");
  return e ? e : text_end;
}

ks_status ks_jit_ptx_red(char **ptx, size_t *len) {
  const char *text = *ptx, *end = text + *len;
  char *out = NULL, *w = NULL;
  const char *copied = text;
  for (const char *b = line_with(text, text, "{\n"); b;
       b = line_with(text, b + 2, "{\n")) {
    const char *e = body_end(b, end);
    for (const char *l = b, *nl; l < e && (nl = strchr(l, '\n')); l = nl + 1) {
      const char *a, *d;
      size_t dn;
      if (!red_candidate(l, b, e, &a, &d, &dn))
        continue;
      if (!out && !(w = out = malloc(*len + 1)))
        return ks_jit_fail(KS_ENOMEM, "red: out of memory");
      memcpy(w, copied, (size_t)(a - copied)), w += a - copied;
      memcpy(w, "red", 3), w += 3;
      memcpy(w, a + 4, (size_t)(d - (a + 4))), w += d - (a + 4);
      copied = d + dn;
    }
    b = e;
    if (e == end)
      break;
  }
  if (!out)
    return KS_OK;
  memcpy(w, copied, (size_t)(end - copied)), w += end - copied;
  *w = '\0';
  free(*ptx);
  *ptx = out;
  *len = (size_t)(w - out);
  return KS_OK;
}
