/*
 * ptxinline.c - the calls of a kernel's PTX to functions defined in it
 * (the libdevice functions mathptx.c splices in) replaced by their bodies.
 *
 * ptxas, even compiling the whole module, keeps a .func called out of
 * line: a CALL and a RET each, the arguments moved to the ABI's registers
 * and the registers live across the call kept out of the callee's. The
 * IR inlined, as before the functions' PTX was compiled once, had none of
 * that. So each call is replaced by the callee's body in a block of its
 * own: its registers and labels renamed for the call site, its parameter
 * loads and its result's store moves from and to the caller's registers,
 * each ret a branch to the block's end. Only bodies that are straight PTX
 * are taken: no call of their own, no local memory (a stack frame), every
 * parameter and the result a 32- or 64-bit scalar; other calls stay, and
 * so do the definitions (ptxas drops those left without a call).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/ks_jit.h"

enum { MAX_PARAMS = 4, MAX_REGS = 16 };

/* A function definition in PTX text. */
typedef struct def {
  const char *name, *body; /* body: after "{\n", up to the closing "}" */
  size_t name_len, body_len;
  char param[MAX_PARAMS][96]; /* "__nv_expf_param_0" */
  unsigned nparams;
  char reg[MAX_REGS][16]; /* declared register names ("f" of %f<14>) */
  size_t reg_len[MAX_REGS];
  unsigned nregs;
} def;

/* A growing output string. */
typedef struct out {
  char *s;
  size_t len, cap;
  int nomem;
} out;

static void put(out *o, const char *p, size_t n) {
  if (o->nomem)
    return;
  if (o->len + n + 1 > o->cap) {
    size_t cap = (o->len + n + 1) * 2;
    char *s = realloc(o->s, cap);
    if (!s) {
      o->nomem = 1;
      return;
    }
    o->s = s;
    o->cap = cap;
  }
  memcpy(o->s + o->len, p, n);
  o->len += n;
  o->s[o->len] = '\0';
}

static void puts_(out *o, const char *p) { put(o, p, strlen(p)); }

static int ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '$';
}

/* The end of the line at p (its '\n', or the text's end). */
static const char *eol(const char *p) {
  const char *e = strchr(p, '\n');
  return e ? e : p + strlen(p);
}

/* p with blanks skipped. */
static const char *blank(const char *p) {
  while (*p == ' ' || *p == '\t')
    p++;
  return p;
}

/* Is the body straight PTX whose registers are all declared the simple
 * way (.reg .TYPE %NAME<N>;)? Fills d->reg. */
static int straight(def *d) {
  const char *end = d->body + d->body_len;
  for (const char *l = d->body; l < end; l = eol(l) + 1) {
    const char *p = blank(l), *e = eol(l);
    if (!strncmp(p, "call", 4) || !strncmp(p, ".local", 6) ||
        !strncmp(p, ".param", 6) || !strncmp(p, ".shared", 7))
      return 0;
    for (const char *q = p; q + 3 <= e; q++)
      if (!strncmp(q, "%SP", 3))
        return 0; /* a stack frame */
    if (strncmp(p, ".reg", 4) != 0)
      continue;
    const char *r = memchr(p, '%', (size_t)(e - p));
    const char *lt = r ? memchr(r, '<', (size_t)(e - r)) : NULL;
    if (!lt || lt - r - 1 <= 0 || lt - r - 1 >= 16 || d->nregs == MAX_REGS)
      return 0;
    d->reg_len[d->nregs] = (size_t)(lt - r - 1);
    memcpy(d->reg[d->nregs], r + 1, d->reg_len[d->nregs]);
    d->reg[d->nregs++][lt - r - 1] = '\0';
  }
  return 1;
}

/* The definition of the function name in ptx, if it is one to inline. */
static int find_def(const char *ptx, const char *name, def *d) {
  size_t nl = strlen(name);
  memset(d, 0, sizeof *d);
  for (const char *p = strstr(ptx, ".func"); p; p = strstr(p + 1, ".func")) {
    const char *e = eol(p);
    if ((p != ptx && p[-1] != '\n') || *e != '\n' || e - p < (long)nl + 1 ||
        e[-1] != '(' || memcmp(e - 1 - nl, name, nl) != 0 ||
        (e[-2 - (long)nl] != ' ' && e[-2 - (long)nl] != ')'))
      continue;
    const char *l = e + 1; /* "\t.param .b32 NAME_param_0," lines */
    while (!strncmp(blank(l), ".param", 6)) {
      const char *t = blank(blank(l) + 6), *le = eol(l);
      if (d->nparams == MAX_PARAMS ||
          (strncmp(t, ".b32 ", 5) && strncmp(t, ".b64 ", 5)))
        return 0;
      const char *id = blank(t + 5), *ie = id;
      while (ie < le && ident_char(*ie))
        ie++;
      snprintf(d->param[d->nparams++], sizeof d->param[0], "%.*s",
               (int)(ie - id), id);
      l = le + 1;
    }
    if (strncmp(l, ")\n{\n", 4) != 0)
      return 0;
    d->body = l + 4;
    const char *close = strstr(d->body, "\n}\n");
    if (!close)
      return 0;
    d->name = name;
    d->name_len = nl;
    d->body_len = (size_t)(close + 1 - d->body);
    return straight(d);
  }
  return 0;
}

/* A call site: the callseq block [from, to), its callee, arguments and
 * where the result goes. */
typedef struct site {
  const char *from, *to;
  char callee[96];
  char arg[MAX_PARAMS][64];
  unsigned nargs;
  char dest[64]; /* "" when the result is not read */
} site;

/* Copies the operand at p (up to ';' or ',') into buf. */
static int operand(const char *p, char *buf, size_t cap) {
  p = blank(p);
  size_t n = strcspn(p, ";,\n");
  while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
    n--;
  if (!n || n >= cap)
    return 0;
  memcpy(buf, p, n);
  buf[n] = '\0';
  return 1;
}

/* The callseq block starting at p ("\t{ // callseq N, 0" line), read
 * into *s: 1 when it is a plain call of scalars. */
static int read_site(const char *p, site *s) {
  memset(s, 0, sizeof *s);
  const char *end = strstr(p, "} // callseq");
  if (!end)
    return 0;
  s->from = p;
  s->to = eol(end) + (*eol(end) == '\n');
  while (end > p && end[-1] != '\n')
    end--; /* the closing line's start */
  int called = 0;
  for (const char *l = eol(p) + 1; l < end; l = eol(l) + 1) {
    const char *q = blank(l);
    unsigned k;
    if (!strncmp(q, ".param", 6) || !strncmp(q, "(", 1) ||
        !strncmp(q, ");", 2) || !strncmp(q, "param", 5) || q == eol(l))
      continue;
    if (!strncmp(q, "st.param.", 9)) {
      const char *br = strstr(q, "[param");
      if (!br || sscanf(br, "[param%u+0]", &k) != 1 || k != s->nargs ||
          k == MAX_PARAMS || !operand(strchr(br, ']') + 2, s->arg[k], 64))
        return 0;
      s->nargs++;
    } else if (!strncmp(q, "call.uni", 8) || !strncmp(q, "call ", 5) ||
               !strncmp(q, "call\t", 5)) {
      const char *n = blank(eol(l) + 1); /* the callee on the next line */
      size_t len = 0;
      while (ident_char(n[len]))
        len++;
      if (!len || len >= sizeof s->callee || n[len] != ',')
        return 0;
      memcpy(s->callee, n, len);
      l = eol(l) + 1;
      called = 1;
    } else if (!strncmp(q, "ld.param.", 9) && strstr(q, "[retval0+0]")) {
      const char *t = q + 9;
      while (*t && *t != ' ' && *t != '\t')
        t++;
      if (!operand(t, s->dest, sizeof s->dest))
        return 0;
    } else {
      return 0;
    }
  }
  return called;
}

/* The bit type of the same size as the type at p ("f32" of ld.param.f32:
 * "b32"), if one of 32 or 64 bits: a mov of a bit type takes registers
 * of any type of its size, whatever types the caller's and the callee's
 * registers have. */
static int param_type(const char *p, char *t) {
  size_t n = 0;
  while (n < 4 && p[n] && p[n] != ' ' && p[n] != '\t')
    n++;
  if (n != 3 || (strncmp(p + 1, "32", 2) && strncmp(p + 1, "64", 2)))
    return 0;
  memcpy(t, p, 3);
  t[0] = 'b';
  t[3] = '\0';
  return 1;
}

/* The prefixes of call site k's names: "%ks<k>_" for registers,
 * "$Lks<k>_" for labels. */
typedef struct prefix {
  char reg[24], label[24];
  size_t reg_len, label_len;
} prefix;

/* Text [l, e) of d's body, its registers and labels renamed, into o. */
static void rename_text(out *o, const def *d, const char *l, const char *e,
                        const prefix *x) {
  const char *run = l;
  for (const char *p = l; p < e; p++) {
    if (*p == '$' && p + 1 < e && p[1] == 'L') {
      put(o, run, (size_t)(p - run));
      put(o, x->label, x->label_len);
      run = ++p + 1;
    } else if (*p == '%') {
      size_t n = 1; /* the name without its number */
      while (p + n < e && ident_char(p[n]) && !(p[n] >= '0' && p[n] <= '9'))
        n++;
      for (unsigned r = 0; r < d->nregs; r++)
        if (d->reg_len[r] == n - 1 && !memcmp(d->reg[r], p + 1, n - 1)) {
          put(o, run, (size_t)(p - run));
          put(o, x->reg, x->reg_len);
          run = p + 1;
          break;
        }
    }
  }
  put(o, run, (size_t)(e - run));
}

/* The body of d for call site s (the k-th) into o; 0 when a line is not
 * one it can place. */
static int place(out *o, const def *d, const site *s, unsigned k) {
  char line[256], t[4], reg[64];
  prefix x;
  x.reg_len = (size_t)snprintf(x.reg, sizeof x.reg, "%%ks%u_", k);
  x.label_len = (size_t)snprintf(x.label, sizeof x.label, "$Lks%u_", k);
  snprintf(line, sizeof line, "\t{ // %s inlined\n", s->callee);
  puts_(o, line);
  const char *end = d->body + d->body_len;
  for (const char *l = d->body; l < end; l = eol(l) + 1) {
    const char *q = blank(l), *e = eol(l);
    if (!strncmp(q, "ld.param.", 9)) { /* a parameter: the argument */
      const char *br = strchr(q, '[');
      unsigned i = 0;
      while (br && i < d->nparams &&
             (strncmp(br + 1, d->param[i], strlen(d->param[i])) ||
              br[1 + strlen(d->param[i])] != ']'))
        i++;
      if (!br || i == d->nparams || i >= s->nargs || !param_type(q + 9, t) ||
          !operand(q + 12, reg, sizeof reg))
        return 0;
      snprintf(line, sizeof line, "\tmov.%s \t", t);
      puts_(o, line);
      rename_text(o, d, reg, reg + strlen(reg), &x);
      snprintf(line, sizeof line, ", %s;\n", s->arg[i]);
      puts_(o, line);
    } else if (!strncmp(q, "st.param.", 9)) { /* the result */
      const char *c = strstr(q, "[func_retval0+0],");
      if (!c || !param_type(q + 9, t) || !operand(c + 17, reg, sizeof reg))
        return 0;
      if (!s->dest[0])
        continue;
      snprintf(line, sizeof line, "\tmov.%s \t%s, ", t, s->dest);
      puts_(o, line);
      rename_text(o, d, reg, reg + strlen(reg), &x);
      puts_(o, ";\n");
    } else if (!strncmp(q, "ret;", 4)) {
      snprintf(line, sizeof line, "\tbra.uni \t$Lks%u_ret;\n", k);
      puts_(o, line);
    } else {
      rename_text(o, d, l, e, &x);
      puts_(o, "\n");
    }
  }
  snprintf(line, sizeof line, "$Lks%u_ret:\n\t}\n", k);
  puts_(o, line);
  return 1;
}

ks_status ks_jit_ptx_inline(char **ptx, size_t *len, const char *const *names,
                            size_t n) {
  def *defs = calloc(n ? n : 1, sizeof *defs);
  int *ok = calloc(n ? n : 1, sizeof *ok);
  out o = {0};
  unsigned k = 0;
  if (!defs || !ok)
    o.nomem = 1;
  for (size_t i = 0; !o.nomem && i < n; i++)
    ok[i] = find_def(*ptx, names[i], &defs[i]);
  const char *p = *ptx;
  for (const char *q = strstr(p, "{ // callseq "); !o.nomem && q;
       q = strstr(q, "{ // callseq ")) {
    const char *l = q;
    while (l > *ptx && l[-1] != '\n')
      l--;
    site s;
    size_t i = n;
    if (read_site(l, &s))
      for (i = 0; i < n && strcmp(names[i], s.callee); i++)
        ;
    out body = {0};
    if (i < n && ok[i] && place(&body, &defs[i], &s, k) && !body.nomem) {
      put(&o, p, (size_t)(l - p));
      put(&o, body.s, body.len);
      p = s.to;
      k++;
    }
    o.nomem |= body.nomem;
    free(body.s);
    q = i < n && s.to > q ? s.to : q + 1;
  }
  puts_(&o, p);
  free(defs);
  free(ok);
  if (o.nomem) {
    free(o.s);
    return ks_jit_fail(KS_ENOMEM, "codegen: out of memory");
  }
  free(*ptx);
  *ptx = o.s;
  *len = o.len;
  return KS_OK;
}
