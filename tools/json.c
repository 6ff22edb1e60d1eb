/*
 * json.c - the streaming JSON writer of json.h.
 */
#include "json.h"

#include <math.h>
#include <string.h>

void ks_json_init(ks_json *j, FILE *f) {
  memset(j, 0, sizeof *j);
  j->f = f;
}

/* The comma before a value or key, unless it completes a key. */
static void separate(ks_json *j) {
  if (j->after_key) {
    j->after_key = 0;
    return;
  }
  if (j->depth > 0 && j->nonempty[j->depth - 1])
    fputc(',', j->f);
  if (j->depth > 0)
    j->nonempty[j->depth - 1] = 1;
}

static void open_container(ks_json *j, char c) {
  if (j->depth == KS_JSON_DEPTH)
    return;
  separate(j);
  fputc(c, j->f);
  j->nonempty[j->depth] = 0;
  j->is_array[j->depth] = c == '[';
  j->depth++;
}

void ks_json_object(ks_json *j) { open_container(j, '{'); }
void ks_json_array(ks_json *j) { open_container(j, '['); }

void ks_json_end(ks_json *j) {
  if (j->depth == 0)
    return;
  j->depth--;
  fputc(j->is_array[j->depth] ? ']' : '}', j->f);
  if (j->depth == 0)
    fputc('\n', j->f);
}

/* The length of the valid UTF-8 sequence at s (1..4), or 0. */
static size_t utf8_len(const unsigned char *s) {
  unsigned c = s[0];
  size_t n = c < 0x80                 ? 1
             : c >= 0xC2 && c <= 0xDF ? 2
             : c >= 0xE0 && c <= 0xEF ? 3
             : c >= 0xF0 && c <= 0xF4 ? 4
                                      : 0;
  for (size_t i = 1; i < n; i++)
    if ((s[i] & 0xC0) != 0x80)
      return 0;
  /* Overlong forms, surrogates and code points past U+10FFFF. */
  if ((n == 3 && c == 0xE0 && s[1] < 0xA0) ||
      (n == 3 && c == 0xED && s[1] >= 0xA0) ||
      (n == 4 && c == 0xF0 && s[1] < 0x90) ||
      (n == 4 && c == 0xF4 && s[1] >= 0x90))
    return 0;
  return n;
}

static void write_string(FILE *f, const char *text) {
  const unsigned char *s = (const unsigned char *)text;
  fputc('"', f);
  while (*s) {
    unsigned c = *s;
    size_t n = utf8_len(s);
    if (c == '"' || c == '\\') {
      fputc('\\', f);
      fputc((int)c, f);
    } else if (c == '\n') {
      fputs("\\n", f);
    } else if (c == '\t') {
      fputs("\\t", f);
    } else if (c == '\r') {
      fputs("\\r", f);
    } else if (c < 0x20 || c == 0x7F) {
      fprintf(f, "\\u%04x", c);
    } else if (n == 0) {
      fputs("\\ufffd", f);
      n = 1;
    } else {
      fwrite(s, 1, n, f);
    }
    s += n ? n : 1;
  }
  fputc('"', f);
}

void ks_json_key(ks_json *j, const char *key) {
  separate(j);
  write_string(j->f, key);
  fputc(':', j->f);
  j->after_key = 1;
}

void ks_json_string(ks_json *j, const char *s) {
  if (!s) {
    ks_json_null(j);
    return;
  }
  separate(j);
  write_string(j->f, s);
}

void ks_json_int(ks_json *j, long long v) {
  separate(j);
  fprintf(j->f, "%lld", v);
}

void ks_json_double(ks_json *j, double v) {
  if (!isfinite(v)) {
    ks_json_null(j);
    return;
  }
  separate(j);
  fprintf(j->f, "%.6g", v);
}

void ks_json_null(ks_json *j) {
  separate(j);
  fputs("null", j->f);
}

void ks_json_bool(ks_json *j, int v) {
  separate(j);
  fputs(v ? "true" : "false", j->f);
}
