/*
 * fuzz_entry.c - the target "entry": what kspec reads back from its own
 * files, which another process, a full disk or a person may have damaged.
 *
 * The first byte of the input chooses the reader, the rest is the file:
 *   0  a disk cache entry as it is (jit/cache/diskcache.c: ks_disk_check)
 *   1  the same with the header's magic, version, length, launch plan's
 *      length and checksum made right, so that the checks behind them
 *      (kind, strings, figures, the plan) and the template description
 *      inside get the bytes
 *   2  a template description alone (jit/cache/tplcache.c: ks_jit_desc_unpack)
 *   3  a tuner's stored results (jit/tune/tune_store.c), for the key "fuzz"
 * Nothing may crash or read outside the input, and what is accepted must
 * be exactly what the writer writes: an accepted entry or description is
 * written back (ks_disk_encode, ks_jit_desc_pack) to the same bytes.
 */
#define _GNU_SOURCE /* fmemopen */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL /* header-only: no run-time dependency */
#include <xxhash.h>

#include "fuzz.h"
#include "jit/ks_jit.h"
#include "jit/tune/tune.h"

/* Where diskcache.c's header keeps what mode 1 makes right; version and
 * size come from ks_jit.h, so that a new format does not leave mode 1
 * writing entries every reader refuses. */
enum {
  OFF_VERSION = 8,
  OFF_HEADER_BYTES = 12,
  OFF_KEY = 16,
  OFF_FILE_BYTES = 32,
  OFF_CHECKSUM = 40,
  OFF_PLAN_BYTES = 108,
  HEADER_BYTES = KS_DISK_HEADER_BYTES,
  FORMAT_VERSION = KS_DISK_FORMAT_VERSION,
};

static void put32(unsigned char *p, uint32_t v) { memcpy(p, &v, sizeof v); }
static void put64(unsigned char *p, uint64_t v) { memcpy(p, &v, sizeof v); }

/* An accepted description is what ks_jit_desc_pack writes of it. */
static void check_desc(const unsigned char *p, size_t n) {
  ks_ir_desc d;
  if (ks_jit_desc_unpack(p, n, &d) != 0)
    return;
  KS_FUZZ_CHECK(d.nkernels > 0);
  size_t m = 0;
  unsigned char *again = ks_jit_desc_pack(&d, &m);
  KS_FUZZ_CHECK(again && m == n && memcmp(again, p, n) == 0);
  free(again);
  ks_ir_desc_free(&d);
}

/* The entry's n bytes at buf, checked with and without its key. */
static void check_entry(const unsigned char *buf, size_t n) {
  ks_disk_entry e;
  char why[128];
  if (ks_disk_check(buf, n, NULL, &e, why, sizeof why) != 0) {
    KS_FUZZ_CHECK(why[0]);
    return;
  }
  ks_disk_entry k;
  KS_FUZZ_CHECK(ks_disk_check(buf, n, e.key, &k, why, sizeof why) == 0);
  KS_FUZZ_CHECK(e.kind < KS_DISK_NKINDS);
  for (int i = 0; i < KS_DISK_NSTR; i++) {
    const unsigned char *s = (const unsigned char *)e.str[i];
    KS_FUZZ_CHECK(s >= buf + HEADER_BYTES + KS_DISK_PLAN_BYTES &&
                  s + e.len[i] < buf + n);
    KS_FUZZ_CHECK(s[e.len[i]] == '\0');
  }
  size_t m = 0;
  unsigned char *again = ks_disk_encode(&e, &m);
  KS_FUZZ_CHECK(again && m == n && memcmp(again, buf, n) == 0);
  free(again);
  if (e.kind == KS_DISK_KIND_TEMPLATE)
    check_desc((const unsigned char *)e.str[KS_DISK_DESC], e.len[KS_DISK_DESC]);
}

/* Mode 1: the header's outer checks made to pass. */
static void check_fixed(const uint8_t *data, size_t n) {
  if (n < HEADER_BYTES) {
    check_entry(data, n);
    return;
  }
  unsigned char *buf = malloc(n);
  if (!buf)
    abort();
  memcpy(buf, data, n);
  memcpy(buf, "KSPECPTX", 8);
  put32(buf + OFF_VERSION, FORMAT_VERSION);
  put32(buf + OFF_HEADER_BYTES, HEADER_BYTES);
  put64(buf + OFF_FILE_BYTES, n);
  put32(buf + OFF_PLAN_BYTES, KS_DISK_PLAN_BYTES);
  put64(buf + OFF_CHECKSUM, 0);
  put64(buf + OFF_CHECKSUM, XXH3_64bits(buf, n));
  check_entry(buf, n);
  free(buf);
}

static void check_store(const uint8_t *data, size_t n) {
  if (!n)
    return;
  FILE *f = fmemopen((void *)data, n, "r");
  if (!f)
    return;
  ks_jit_tune_store *st = ks_jit_tune_store_read("fuzz", f);
  fclose(f);
  if (!st)
    return;
  ks_tune_best best;
  memset(&best, 0, sizeof best);
  if (ks_jit_tune_store_best(st, &best) == 0) {
    KS_FUZZ_CHECK(best.nbindings <= KS_TUNE_MAX_DIMS);
    for (size_t i = 0; i < best.nbindings; i++)
      KS_FUZZ_CHECK(best.bindings[i].name == best.names[i] &&
                    memchr(best.names[i], '\0', sizeof best.names[i]));
  }
  const ks_tune_entry *e = ks_jit_tune_store_find(
      st, "threads=256;block=0,0,0;maxntid=256;minctasm=0;maxnreg=0");
  if (e)
    KS_FUZZ_CHECK(e->cls < KS_TUNE_CLASS_COUNT &&
                  memchr(e->reason, '\0', sizeof e->reason));
  ks_jit_tune_store_close(st);
}

static int run(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  switch (data[0] % 4) {
  case 0:
    check_entry(data + 1, size - 1);
    break;
  case 1:
    check_fixed(data + 1, size - 1);
    break;
  case 2:
    check_desc(data + 1, size - 1);
    break;
  case 3:
    check_store(data + 1, size - 1);
    break;
  }
  return 0;
}

const ks_fuzz_target ks_fuzz_entry = {
    "entry", "disk cache entries, template descriptions, tuner stores", NULL,
    run};
