/*
 * screen_asm.c - the part of the codegen screen (screen.c) that reads
 * inline asm.
 *
 * The NVPTX backend of LLVM 19 ends the process on inline asm whose
 * string refers to operands badly ("$x", "${0", "$9" with one operand,
 * "${:foo}", nested "$(" variants), on memory operands ("=*m"), explicit
 * registers ("{r1}"), the 'a' operand modifier, aggregates as operands,
 * integers wider than 64 bits outside the 'q' constraint, and 'q' itself
 * before sm_70. What it merely rejects with an error (an unknown modifier,
 * a non-constant "i" operand) is left to it: kspec reports those errors.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir/ks_ir.h"

enum { MAX_ENTRIES = 64 };

/* Register and immediate constraint letters NVPTX knows. */
static const char LETTERS[] = "bchrlNqfdin";

/* One constraint of the list. */
typedef struct entry {
  char dir;   /* 'o' output, 'i' input, 'c' clobber, 'l' label */
  int q;      /* it allows 'q' (128-bit registers) */
  int only_q; /* 'q' is all it allows */
} entry;

/* The codes of one alternative ("r", "rl", "0"): 0 when all are known. */
static int parse_codes(const char *c, size_t n, entry *e) {
  if (n == 0)
    return -1;
  if (isdigit((unsigned char)c[0])) { /* tied to an output */
    for (size_t i = 0; i < n; i++)
      if (!isdigit((unsigned char)c[i]))
        return -1;
    return 0;
  }
  for (size_t i = 0; i < n; i++) {
    if (!c[i] || !strchr(LETTERS, c[i]))
      return -1;
    e->q |= c[i] == 'q';
  }
  e->only_q = n == 1 && c[0] == 'q';
  return 0;
}

/* One comma-separated constraint (n bytes at c) into e. */
static int parse_entry(const char *c, size_t n, entry *e, char *why,
                       size_t cap) {
  memset(e, 0, sizeof *e);
  if (n && c[0] == '~') {
    e->dir = 'c';
    return n >= 3 && c[1] == '{' && c[n - 1] == '}'
               ? 0
               : ks_ir_why(why, cap, "malformed clobber '%.*s'", (int)n, c);
  }
  if (n && c[0] == '!') {
    e->dir = 'l';
    return 0;
  }
  size_t at = 0;
  e->dir = 'i';
  if (at < n && c[at] == '=') {
    e->dir = 'o';
    at++;
    if (at < n && c[at] == '&')
      at++;
  }
  if (at < n && c[at] == '*')
    return ks_ir_why(why, cap, "memory operand '%.*s'", (int)n, c);
  int only_q = 1;
  for (size_t s = at; s <= n; s++) {
    if (s < n && c[s] != '|')
      continue;
    entry alt = {0};
    if (parse_codes(c + at, s - at, &alt) != 0)
      return ks_ir_why(why, cap,
                       "constraint '%.*s' (NVPTX takes b c h r l q f d i n)",
                       (int)n, c);
    e->q |= alt.q;
    only_q &= alt.only_q;
    at = s + 1;
  }
  e->only_q = only_q;
  return 0;
}

/* Can an operand of type ty, with constraint e, be printed? */
static int operand_ok(LLVMTypeRef ty, const entry *e, char *why, size_t cap) {
  LLVMTypeKind k = LLVMGetTypeKind(ty);
  LLVMTypeRef el = ty;
  if (k == LLVMVectorTypeKind) {
    el = LLVMGetElementType(ty);
    k = LLVMGetTypeKind(el);
  }
  switch (k) {
  case LLVMIntegerTypeKind: {
    unsigned w = LLVMGetIntTypeWidth(el);
    if (w <= 64 || (w == 128 && el == ty && e->only_q))
      return 0;
    return ks_ir_why(why, cap, "an i%u operand (only a scalar i128, with 'q')",
                     w);
  }
  case LLVMHalfTypeKind:
  case LLVMBFloatTypeKind:
  case LLVMFloatTypeKind:
  case LLVMDoubleTypeKind:
  case LLVMPointerTypeKind:
    return 0;
  default:
    return ks_ir_why(why, cap, "an operand that is not a scalar or a vector");
  }
}

/* Parses the constraint list; *n gets the entries. */
static int parse_constraints(const char *c, size_t len, entry *v, size_t *n,
                             char *why, size_t cap) {
  *n = 0;
  if (len == 0)
    return 0;
  size_t at = 0;
  for (size_t i = 0; i <= len; i++) {
    if (i < len && c[i] != ',')
      continue;
    if (*n == MAX_ENTRIES)
      return ks_ir_why(why, cap, "more than %d constraints", MAX_ENTRIES);
    if (parse_entry(c + at, i - at, &v[*n], why, cap) != 0)
      return -1;
    (*n)++;
    at = i + 1;
  }
  return 0;
}

/* The operands' types against their constraints: outputs are the result
 * (a struct's elements when there are several), inputs the arguments. */
static int check_operands(LLVMTypeRef fty, const entry *v, size_t n,
                          unsigned sm, char *why, size_t cap) {
  LLVMTypeRef ret = LLVMGetReturnType(fty);
  unsigned nparams = LLVMCountParamTypes(fty);
  LLVMTypeRef *params = calloc(nparams ? nparams : 1, sizeof *params);
  if (!params)
    return ks_ir_why(why, cap, "out of memory");
  LLVMGetParamTypes(fty, params);
  size_t nout = 0, nin = 0;
  int rc = 0;
  for (size_t i = 0; i < n && rc == 0; i++) {
    LLVMTypeRef ty = NULL;
    if (v[i].q && sm < 70)
      rc = ks_ir_why(why, cap, "the 'q' constraint (128-bit) before sm_70");
    else if (v[i].dir == 'o' && LLVMGetTypeKind(ret) == LLVMStructTypeKind)
      ty = nout < LLVMCountStructElementTypes(ret)
               ? LLVMStructGetTypeAtIndex(ret, (unsigned)nout)
               : NULL;
    else if (v[i].dir == 'o')
      ty = nout == 0 && LLVMGetTypeKind(ret) != LLVMVoidTypeKind ? ret : NULL;
    else if (v[i].dir == 'i')
      ty = nin < nparams ? params[nin] : NULL;
    else
      continue;
    if (rc == 0 && !ty)
      rc = ks_ir_why(why, cap, "constraints that do not match its operands");
    if (rc == 0)
      rc = operand_ok(ty, &v[i], why, cap);
    nout += v[i].dir == 'o';
    nin += v[i].dir == 'i';
  }
  if (rc == 0 && nin != nparams)
    rc = ks_ir_why(why, cap, "constraints that do not match its operands");
  free(params);
  return rc;
}

/* "${...}" at s (n bytes, s[0] == '$', s[1] == '{'): its length, or 0. */
static size_t braced(const char *s, size_t n, unsigned nops) {
  const char *close = memchr(s, '}', n);
  if (!close)
    return 0;
  const char *in = s + 2;
  size_t len = (size_t)(close - in);
  if (len && in[0] == ':') {
    static const char *const special[] = {"uid", "comment", "private"};
    for (size_t i = 0; i < sizeof special / sizeof *special; i++)
      if (len - 1 == strlen(special[i]) &&
          memcmp(in + 1, special[i], len - 1) == 0)
        return (size_t)(close - s) + 1;
    return 0;
  }
  size_t d = 0;
  unsigned long v = 0;
  while (d < len && isdigit((unsigned char)in[d]) && v < 100000)
    v = v * 10 + (unsigned long)(in[d++] - '0');
  if (d == 0 || v >= nops)
    return 0;
  if (d < len) { /* a modifier: letters, not 'a' (a memory address) */
    if (in[d] != ':' || d + 1 == len || in[d + 1] == 'a')
      return 0;
    for (size_t i = d + 1; i < len; i++)
      if (!isalpha((unsigned char)in[i]))
        return 0;
  }
  return (size_t)(close - s) + 1;
}

/* Every '$' of the asm string names an operand that exists. */
static int check_string(const char *s, size_t n, unsigned nops, char *why,
                        size_t cap) {
  for (size_t i = 0; i < n; i++) {
    if (s[i] != '$')
      continue;
    char c = i + 1 < n ? s[i + 1] : '\0';
    size_t used = 0;
    if (c == '$') {
      used = 2;
    } else if (isdigit((unsigned char)c)) {
      size_t d = i + 1;
      unsigned long v = 0;
      while (d < n && isdigit((unsigned char)s[d]) && v < 100000)
        v = v * 10 + (unsigned long)(s[d++] - '0');
      used = v < nops && !(d < n && isdigit((unsigned char)s[d])) ? d - i : 0;
    } else if (c == '{') {
      used = braced(s + i, n - i, nops);
    }
    if (!used)
      return ks_ir_why(why, cap,
                       "'%.*s' in its string, which is no operand of the %u it "
                       "has",
                       (int)(n - i < 12 ? n - i : 12), s + i, nops);
    i += used - 1;
  }
  return 0;
}

int ks_ir_screen_asm(LLVMValueRef asm_, unsigned sm, char *why, size_t cap) {
  size_t slen = 0, clen = 0;
  const char *str = LLVMGetInlineAsmAsmString(asm_, &slen);
  const char *con = LLVMGetInlineAsmConstraintString(asm_, &clen);
  entry v[MAX_ENTRIES];
  size_t n = 0;
  if (parse_constraints(con, clen, v, &n, why, cap) != 0)
    return -1;
  unsigned nops = 0;
  for (size_t i = 0; i < n; i++)
    nops += v[i].dir != 'c';
  if (check_string(str, slen, nops, why, cap) != 0)
    return -1;
  return check_operands(LLVMGetInlineAsmFunctionType(asm_), v, n, sm, why, cap);
}
