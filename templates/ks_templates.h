/*
 * ks_templates.h - the templates built into libkspec (bitcode embedded at
 * build time, see templates/CMakeLists.txt).
 */
#ifndef KS_TEMPLATES_H
#define KS_TEMPLATES_H

#include <stddef.h>

typedef struct ks_builtin_tpl {
  const char *name;
  const unsigned char *begin, *end; /* bitcode bytes [begin, end) */
} ks_builtin_tpl;

extern const ks_builtin_tpl ks_builtin_templates[];
extern const size_t ks_builtin_template_count;

#endif /* KS_TEMPLATES_H */
