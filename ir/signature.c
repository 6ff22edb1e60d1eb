/*
 * signature.c - the signedness of a C++ kernel's integer arguments, read
 * from its demangled name.
 *
 * The IR says little: clang marks bool, unsigned char and unsigned short
 * arguments zeroext and the signed small integers signext, but an `int`
 * and an `unsigned int` are both a plain i32 (the same for the 64-bit
 * ones). A C++ symbol, though, spells each parameter's type (the Itanium
 * ABI mangles `unsigned int` as j, `int` as i), and __cxa_demangle writes
 * it back as C++ does: "scale<float, 4>(float*, unsigned int)". Typedefs
 * are resolved by then (size_t is "unsigned long"), and a by-value
 * parameter's top-level const is not part of the mangling, but a const
 * that is there is skipped all the same.
 *
 * Only the argument list at the end is read: the parenthesized group that
 * the final ')' closes, split at commas outside any <>, () or [] nesting.
 * Anything not understood says nothing, and the IR's word (or "unknown")
 * stands.
 */
#include <string.h>

#include "ir/ks_ir.h"

/* Known scalar spellings: 1 unsigned, 0 signed. char is signed on the
 * targets CUDA compiles for (its IR has signext anyway). */
static int spelled_sign(const char *s, size_t n) {
  static const struct {
    const char *text;
    int uns;
  } known[] = {
      {"bool", 1},
      {"unsigned char", 1},
      {"unsigned short", 1},
      {"unsigned int", 1},
      {"unsigned", 1},
      {"unsigned long", 1},
      {"unsigned long long", 1},
      {"char16_t", 1},
      {"char32_t", 1},
      {"char", 0},
      {"signed char", 0},
      {"short", 0},
      {"int", 0},
      {"long", 0},
      {"long long", 0},
      {"wchar_t", 0},
  };
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (strlen(known[i].text) == n && memcmp(known[i].text, s, n) == 0)
      return known[i].uns;
  return -1;
}

/* Trims blanks and const/volatile words off both ends of [*s, *s + *n). */
static void trim_cv(const char **s, size_t *n) {
  static const char *const words[] = {"const", "volatile"};
  int again = 1;
  while (again) {
    again = 0;
    while (*n && **s == ' ')
      (*s)++, (*n)--;
    while (*n && (*s)[*n - 1] == ' ')
      (*n)--;
    for (size_t w = 0; w < 2; w++) {
      size_t k = strlen(words[w]);
      if (*n > k && memcmp(*s, words[w], k) == 0 && (*s)[k] == ' ') {
        *s += k + 1, *n -= k + 1, again = 1;
      } else if (*n > k && memcmp(*s + *n - k, words[w], k) == 0 &&
                 (*s)[*n - k - 1] == ' ') {
        *n -= k + 1, again = 1;
      }
    }
  }
}

/* The start of the argument list that the last ')' of d closes (just
 * after its '('), or NULL. */
static const char *arg_list(const char *d, size_t *len) {
  size_t n = strlen(d);
  if (n < 2 || d[n - 1] != ')')
    return NULL;
  int depth = 0;
  for (size_t i = n; i-- > 0;) {
    depth += d[i] == ')';
    depth -= d[i] == '(';
    if (depth == 0) {
      *len = n - 1 - (i + 1);
      return d + i + 1;
    }
  }
  return NULL;
}

int ks_ir_signature_signs(const char *display, unsigned nargs,
                          signed char *sign) {
  size_t len = 0;
  const char *p = display ? arg_list(display, &len) : NULL;
  if (!p)
    return 0;
  unsigned i = 0;
  int depth = 0;
  const char *start = p;
  for (size_t j = 0; j <= len; j++) {
    char c = j < len ? p[j] : ',';
    depth += c == '<' || c == '(' || c == '[';
    depth -= c == '>' || c == ')' || c == ']';
    if (depth < 0)
      return 0;
    if (c != ',' || depth != 0)
      continue;
    const char *s = start;
    size_t n = (size_t)(p + j - start);
    start = p + j + 1;
    trim_cv(&s, &n);
    if (n == 0) /* only "()" has an empty entry */
      return nargs == 0 && len == 0;
    if (i == nargs)
      return 0; /* more parameters than the IR has arguments */
    sign[i++] = (signed char)spelled_sign(s, n);
  }
  return depth == 0 && i == nargs;
}
