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

/* NVIDIA's libdevice, as the build machine had it (empty when it had
 * none: begin == end), and the file it came from. */
extern const unsigned char *const ks_libdevice_begin, *const ks_libdevice_end;
extern const char ks_libdevice_origin[];

#endif /* KS_TEMPLATES_H */
