/*
 * json.h - a small streaming JSON writer for the tools: objects, arrays,
 * keys and values written in order, commas and string escaping handled.
 * Strings are written as UTF-8; bytes that are not valid UTF-8 become
 * U+FFFD, so the output always parses.
 */
#ifndef KS_TOOLS_JSON_H
#define KS_TOOLS_JSON_H

#include <stdio.h>

enum { KS_JSON_DEPTH = 32 };

typedef struct ks_json {
  FILE *f;
  int depth;
  int after_key;                         /* a value completes "key": */
  unsigned char nonempty[KS_JSON_DEPTH]; /* the open container has items */
  unsigned char is_array[KS_JSON_DEPTH]; /* it is an array, not an object */
} ks_json;

void ks_json_init(ks_json *j, FILE *f);
/* Nesting deeper than KS_JSON_DEPTH is not written. */
void ks_json_object(ks_json *j); /* { */
void ks_json_array(ks_json *j);  /* [ */
void ks_json_end(ks_json *j);    /* } or ], whichever is open */
void ks_json_key(ks_json *j, const char *key);
void ks_json_string(ks_json *j, const char *s); /* NULL writes null */
void ks_json_int(ks_json *j, long long v);
void ks_json_double(ks_json *j, double v); /* not finite: null */
void ks_json_null(ks_json *j);
void ks_json_bool(ks_json *j, int v);

#endif /* KS_TOOLS_JSON_H */
