/*
 * test_util.h - small helpers shared by the CPU tests: whole files in and
 * out, temporary files, and string assertions with readable failures.
 * Header-only (static functions) so each test stays one translation unit.
 */
#ifndef KS_TEST_UTIL_H
#define KS_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Reads a whole file into a malloc'd, NUL-terminated buffer; NULL on
 * failure. *len (optional) excludes the NUL. */
static inline unsigned char *tu_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  unsigned char *buf = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    if (n + 1 >= cap) {
      cap = cap ? cap * 2 : 65536;
      unsigned char *grown = realloc(buf, cap);
      if (!grown) {
        free(buf);
        fclose(f);
        return NULL;
      }
      buf = grown;
    }
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (got == 0)
      break;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    return NULL;
  }
  buf[n] = '\0';
  if (len)
    *len = n;
  return buf;
}

/* Writes len bytes to a fresh temporary file whose name ends in suffix
 * (".ll", ".bc", ".ptx"); the path goes to path (cap >= 64). Returns 0 on
 * success. The caller unlinks it. */
static inline int tu_write_temp(const char *suffix, const void *data,
                                size_t len, char *path, size_t cap) {
  const char *dir = getenv("TMPDIR");
  snprintf(path, cap, "%s/kspec_test_XXXXXX%s", dir && *dir ? dir : "/tmp",
           suffix);
  int fd = mkstemps(path, (int)strlen(suffix));
  if (fd < 0)
    return -1;
  const unsigned char *p = data;
  size_t done = 0;
  while (done < len) {
    ssize_t w = write(fd, p + done, len - done);
    if (w <= 0) {
      close(fd);
      unlink(path);
      return -1;
    }
    done += (size_t)w;
  }
  return close(fd);
}

/* Does the executable at path exist? */
static inline int tu_have_tool(const char *path) {
  return path && *path && access(path, X_OK) == 0;
}

/* Asserts that haystack contains needle, printing both when not. */
#define TU_ASSERT_CONTAINS(haystack, needle)                                   \
  do {                                                                         \
    const char *h_ = (haystack), *n_ = (needle);                               \
    if (!h_ || !strstr(h_, n_))                                                \
      fail_msg("expected \"%s\" in: %s", n_, h_ ? h_ : "(null)");              \
  } while (0)

#define TU_ASSERT_NOT_CONTAINS(haystack, needle)                               \
  do {                                                                         \
    const char *h_ = (haystack), *n_ = (needle);                               \
    if (h_ && strstr(h_, n_))                                                  \
      fail_msg("did not expect \"%s\" in: %.2000s", n_, h_);                   \
  } while (0)

#endif /* KS_TEST_UTIL_H */
