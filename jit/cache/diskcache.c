/*
 * diskcache.c - the on-disk cache of PTX, cubins and template descriptions,
 * per user, shared by processes.
 *
 * One file per key, "<32 hex digits>.kspec": a header (magic, format
 * version, the entry's kind, the full 128-bit key, the file's length, an
 * XXH3-64 checksum of everything else, the kernel's figures), the kernel's
 * launch plan (ks_launch_plan, in a layout of its own: see PLAN_FIELDS) and
 * four NUL-terminated fields. A PTX entry holds four strings: kernel name, the
 * passes' explanation, the PTX, and the key's components as text (for
 * saying why a request missed). A cubin entry holds the kernel name, "",
 * the cubin the driver made of the PTX (binary) and its key's components;
 * a template entry "", the template's description and its canonical
 * bitcode (both binary), and "". The kinds' keys are hashed apart, and a
 * reader takes only the kind it asked for.
 *
 * Safety between processes rests on rename and unlink: an entry is written
 * to a temporary file in the same directory and renamed over its name, so a
 * reader sees a whole old file or a whole new one; eviction unlinks, and a
 * reader holding the file open keeps reading the old inode. Every read
 * checks magic, version, key, length, checksum and the strings' shape; any
 * mismatch is a miss (counted as corrupt), and the rebuilt entry replaces
 * the bad one. Nothing from a file is used before all checks pass.
 *
 * The directory is opened once (O_NOFOLLOW) and used through its descriptor,
 * so it cannot be swapped for a symlink later. It must belong to the user
 * and be writable by no one else. Any failure to write (read-only, full)
 * turns disk caching off for the context, with one warning.
 */
#define _GNU_SOURCE /* dladdr */
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <link.h>
#include <pwd.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define XXH_INLINE_ALL /* header-only: no run-time dependency */
#include <xxhash.h>

#include "jit/ks_jit.h"

enum {
  /* 3: kind, est_regs; 4: coarsen_x; 5: coarsen_y, grid_coarsen; 6: const
   * copies; 7: the launch plan out of the header, little-endian; 8: its
   * hardware textures */
  FORMAT_VERSION = KS_DISK_FORMAT_VERSION,
  NAME_LEN = 32 + 6,      /* hex key + ".kspec" */
  STALE_TMP_S = 3600,     /* temporary files older are leftovers */
  MAX_ENTRY = 256u << 20, /* no entry is larger */
  MAX_PATH_LEN = 4096,
};

static const char MAGIC[8] = {'K', 'S', 'P', 'E', 'C', 'P', 'T', 'X'};

/* The file's header; the launch plan (plan_bytes) and the four strings
 * follow, each string with its NUL. */
typedef struct header {
  char magic[8];
  uint32_t version;
  uint32_t header_bytes;
  uint64_t key[2];
  uint64_t file_bytes;
  uint64_t checksum; /* XXH3-64 of the file with this field zero */
  uint64_t compile_ns;
  uint32_t reqntid[3], maxntid, minctasm, maxnreg, smem_bytes;
  uint32_t len[KS_DISK_NSTR]; /* name, explain, ptx, components */
  uint32_t kind;              /* KS_DISK_KIND_* */
  uint32_t est_regs;          /* ks_kernel_info.est_regs */
  uint32_t plan_bytes;        /* KS_DISK_PLAN_BYTES */
} header;
_Static_assert(sizeof(header) == KS_DISK_HEADER_BYTES,
               "the header has no padding");

struct ks_disk {
  int dirfd;
  char path[MAX_PATH_LEN];
  uint64_t limit;
  atomic_int off;                /* set once writing failed */
  _Atomic uint64_t since_scan;   /* bytes written since the last eviction */
  atomic_flag scanning;          /* one eviction scan at a time */
  _Atomic unsigned long tmp_seq; /* temporary names of this process */
};

/* ---- opening: where, and whether it is safe -------------------------- */

/* KSPEC_CACHE_DIR, else $XDG_CACHE_HOME/kspec, else ~/.cache/kspec. */
static int default_dir(char *out, size_t cap) {
  const char *d = getenv("KSPEC_CACHE_DIR");
  if (d && *d)
    return snprintf(out, cap, "%s", d) < (int)cap;
  d = getenv("XDG_CACHE_HOME");
  if (d && d[0] == '/') /* the XDG rule: relative values are ignored */
    return snprintf(out, cap, "%s/kspec", d) < (int)cap;
  d = getenv("HOME");
  if (!d || !*d) {
    struct passwd pw, *res = NULL;
    char buf[1024];
    if (getpwuid_r(geteuid(), &pw, buf, sizeof buf, &res) != 0 || !res)
      return 0;
    d = res->pw_dir;
  }
  return snprintf(out, cap, "%s/.cache/kspec", d) < (int)cap;
}

/* mkdir -p with mode 0700 for what it creates. */
static void make_dirs(const char *path) {
  char p[MAX_PATH_LEN];
  snprintf(p, sizeof p, "%s", path);
  for (char *s = p + 1; *s; s++)
    if (*s == '/') {
      *s = '\0';
      mkdir(p, 0700);
      *s = '/';
    }
  mkdir(p, 0700);
}

/* Opens path as the cache directory when it is safe; else -1 and why. */
static int open_safe(const char *path, char *why, size_t cap) {
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;
  if (fd < 0) {
    struct stat lst;
    if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
      snprintf(why, cap, "it is a symbolic link");
    else
      snprintf(why, cap, "%s", strerror(errno));
    return -1;
  }
  const char *bad = NULL;
  if (fstat(fd, &st) != 0)
    bad = strerror(errno);
  else if (st.st_uid != geteuid())
    bad = "it belongs to another user";
  else if (st.st_mode & (S_IWGRP | S_IWOTH))
    bad = "it is writable by group or others (want mode 0700)";
  else if (faccessat(fd, ".", W_OK | X_OK, AT_EACCESS) != 0)
    bad = "it is not writable";
  if (bad) {
    snprintf(why, cap, "%s", bad);
    close(fd);
    return -1;
  }
  return fd;
}

/* "256M", "1G", "1048576": bytes; 0 when malformed. */
static uint64_t parse_size(const char *s) {
  char *end = NULL;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s || s[0] == '-')
    return 0;
  unsigned shift = 0;
  switch (*end) {
  case 'k':
  case 'K':
    shift = 10;
    end++;
    break;
  case 'm':
  case 'M':
    shift = 20;
    end++;
    break;
  case 'g':
  case 'G':
    shift = 30;
    end++;
    break;
  }
  if (*end == 'i' || *end == 'B')
    end += *end == 'i' && end[1] == 'B' ? 2 : 1;
  if (*end || v > (UINT64_MAX >> shift))
    return 0;
  return (uint64_t)v << shift;
}

static int env_off(void) {
  const char *v = getenv("KSPEC_CACHE");
  return v && (strcmp(v, "off") == 0 || strcmp(v, "0") == 0 ||
               strcmp(v, "no") == 0 || strcmp(v, "false") == 0);
}

ks_disk *ks_disk_open(ks_ctx *ctx, const ks_ctx_opts *o) {
  if (o->no_disk_cache || env_off())
    return NULL;
  char path[MAX_PATH_LEN], why[256];
  if (o->cache_dir
          ? snprintf(path, sizeof path, "%s", o->cache_dir) >= (int)sizeof path
          : !default_dir(path, sizeof path)) {
    ks_jit_warn(ctx, "cache: no directory for the disk cache (set "
                     "KSPEC_CACHE_DIR); disk caching off");
    return NULL;
  }
  uint64_t limit = o->cache_max;
  const char *env = getenv("KSPEC_CACHE_MAX");
  if (!limit && env && *env && !(limit = parse_size(env)))
    ks_jit_warn(ctx, "cache: KSPEC_CACHE_MAX='%s' is not a size; using %d MiB",
                env, KS_DISK_DEFAULT_MAX >> 20);
  if (!limit)
    limit = KS_DISK_DEFAULT_MAX;
  size_t idn = 0;
  ks_jit_build_id(&idn);
  if (!idn) {
    ks_jit_warn(ctx, "cache: cannot identify the library's build (no build "
                     "id); disk caching off");
    return NULL;
  }
  make_dirs(path);
  int fd = open_safe(path, why, sizeof why);
  ks_disk *d = fd >= 0 ? calloc(1, sizeof *d) : NULL;
  if (!d) {
    ks_jit_warn(ctx, "cache: refusing %s: %s; disk caching off", path,
                fd >= 0 ? "out of memory" : why);
    if (fd >= 0)
      close(fd);
    return NULL;
  }
  d->dirfd = fd;
  snprintf(d->path, sizeof d->path, "%s", path);
  d->limit = limit;
  atomic_init(&d->since_scan, UINT64_MAX / 2); /* scan on the first write */
  atomic_flag_clear(&d->scanning);
  return d;
}

void ks_disk_close(ks_disk *d) {
  if (!d)
    return;
  close(d->dirfd);
  free(d);
}

const char *ks_disk_path(const ks_disk *d) { return d ? d->path : NULL; }

uint64_t ks_disk_limit(const ks_disk *d) { return d ? d->limit : 0; }

int ks_disk_fd(const ks_disk *d) { return d ? d->dirfd : -1; }

int ks_disk_usable(const ks_disk *d) { return d && !atomic_load(&d->off); }

/* Writing failed: no more disk caching for this context, one warning. */
static void give_up(ks_ctx *ctx, ks_disk *d, const char *what, int err) {
  if (atomic_exchange(&d->off, 1) == 0)
    ks_jit_warn(ctx, "cache: cannot %s in %s: %s; disk caching off", what,
                d->path, strerror(err));
}

/* ---- entries: names ---------------------------------------------------- */

void ks_disk_name(const uint64_t key[2], char out[KS_DISK_NAME_CAP]) {
  snprintf(out, KS_DISK_NAME_CAP, "%016" PRIx64 "%016" PRIx64 ".kspec", key[1],
           key[0]);
}

/* Is name an entry's name ("<32 hex>.kspec")? */
int ks_disk_is_entry(const char *name) {
  if (strlen(name) != NAME_LEN || strcmp(name + 32, ".kspec") != 0)
    return 0;
  for (int i = 0; i < 32; i++)
    if (!strchr("0123456789abcdef", name[i]) || !name[i])
      return 0;
  return 1;
}

static uint64_t checksum(const unsigned char *buf, size_t n) {
  header h;
  memcpy(&h, buf, sizeof h);
  h.checksum = 0;
  XXH3_state_t st;
  XXH3_64bits_reset(&st);
  XXH3_64bits_update(&st, &h, sizeof h);
  XXH3_64bits_update(&st, buf + sizeof h, n - sizeof h);
  return XXH3_64bits_digest(&st);
}

/* ---- the launch plan ----------------------------------------------------- */

/* ks_launch_plan as an entry stores it: each field in this order, with the
 * largest value a reader takes; every element a little-endian uint32. A
 * field added to ks_launch_plan is one line here (the assertions below
 * fail until it is), a new FORMAT_VERSION and, if it must agree with the
 * block or another field, a check in plan_fits. */
#define PLAN_FIELDS(X)                                                         \
  X(coarsen_x, 1024)                                                           \
  X(coarsen_y, 1024)                                                           \
  X(grid_coarsen, 1024)                                                        \
  X(const_copies, KS_CMEM_MAX)                                                 \
  X(const_copy_arg, 4096)                                                      \
  X(const_copy_bytes, 65536)                                                   \
  X(texs, KS_TEX_MAX)                                                          \
  X(tex_arg, 4096)                                                             \
  X(tex_dims, 3)                                                               \
  X(tex_format, KS_TEX_S16)                                                    \
  X(tex_filter, 3)                                                             \
  X(tex_mode, 3)                                                               \
  X(tex_size_arg, 4097)                                                        \
  X(tex_size_value, 1u << 30)

/* Elements of field f: 1, or an array's length. */
#define PLAN_LEN(f) (sizeof((ks_launch_plan *)0)->f / sizeof(unsigned))

typedef struct plan_field {
  const char *name;
  size_t offset, n; /* in ks_launch_plan; elements */
  unsigned max;
} plan_field;

#define PLAN_ROW(f, max) {#f, offsetof(ks_launch_plan, f), PLAN_LEN(f), max},
static const plan_field plan_fields[] = {PLAN_FIELDS(PLAN_ROW)};
#undef PLAN_ROW

/* Every field is listed, and each is an unsigned or an array of them. */
#define PLAN_WORDS(f, max) +PLAN_LEN(f)
_Static_assert(sizeof(unsigned) == 4 &&
                   sizeof(ks_launch_plan) == 4 * (0 PLAN_FIELDS(PLAN_WORDS)),
               "PLAN_FIELDS lists every field of ks_launch_plan");
#undef PLAN_WORDS
#define PLAN_UNSIGNED(f, max)                                                  \
  _Static_assert(_Generic(&((ks_launch_plan *)0)->f,                           \
                     unsigned *: 1,                                            \
                     unsigned(*)[PLAN_LEN(f)]: 1,                              \
                     default: 0),                                              \
                 #f " is unsigned");
PLAN_FIELDS(PLAN_UNSIGNED)
#undef PLAN_UNSIGNED

/* Where element i of field f is in a ks_launch_plan. */
static size_t plan_at(const plan_field *f, size_t i) {
  return f->offset + i * sizeof(unsigned);
}

void ks_disk_plan_encode(const ks_launch_plan *p,
                         unsigned char out[KS_DISK_PLAN_BYTES]) {
  for (size_t k = 0; k < sizeof plan_fields / sizeof *plan_fields; k++)
    for (size_t i = 0; i < plan_fields[k].n; i++) {
      unsigned v;
      memcpy(&v, (const unsigned char *)p + plan_at(&plan_fields[k], i),
             sizeof v);
      for (int b = 0; b < 4; b++)
        *out++ = (unsigned char)(v >> 8 * b);
    }
}

/* The plan agrees with itself and with the kernel's fixed block (0s: none):
 * what ks_launch relies on when it divides the block and copies. */
static int plan_fits(const ks_launch_plan *p, const unsigned block[3],
                     char *why, size_t cap) {
  if (p->coarsen_x > 1 && (!block[0] || block[0] % p->coarsen_x))
    return ks_ir_why(why, cap, "launch plan: coarsening by %u of block.x %u",
                     p->coarsen_x, block[0]);
  if (p->coarsen_y > 1 && (!block[1] || block[1] % p->coarsen_y))
    return ks_ir_why(why, cap, "launch plan: coarsening by %u of block.y %u",
                     p->coarsen_y, block[1]);
  if (p->grid_coarsen > 1 && !block[0])
    return ks_ir_why(why, cap,
                     "launch plan: grid coarsening by %u without a fixed block",
                     p->grid_coarsen);
  for (unsigned i = 0; i < KS_CMEM_MAX; i++)
    if (i < p->const_copies ? !p->const_copy_bytes[i]
                            : p->const_copy_arg[i] || p->const_copy_bytes[i])
      return ks_ir_why(why, cap,
                       "launch plan: constant copy %u (of %u) of %u bytes from "
                       "argument %u",
                       i, p->const_copies, p->const_copy_bytes[i],
                       p->const_copy_arg[i]);
  for (unsigned i = p->texs; i < KS_TEX_MAX; i++)
    if (p->tex_arg[i] || p->tex_dims[i])
      return ks_ir_why(why, cap,
                       "launch plan: texture %u (of %u) of argument %u", i,
                       p->texs, p->tex_arg[i]);
  for (unsigned i = 0; i < p->texs; i++)
    if (!p->tex_dims[i])
      return ks_ir_why(why, cap, "launch plan: texture %u of no dimension", i);
  return 0;
}

int ks_disk_plan_decode(const unsigned char in[KS_DISK_PLAN_BYTES],
                        const unsigned block[3], ks_launch_plan *p, char *why,
                        size_t cap) {
  memset(p, 0, sizeof *p);
  for (size_t k = 0; k < sizeof plan_fields / sizeof *plan_fields; k++)
    for (size_t i = 0; i < plan_fields[k].n; i++, in += 4) {
      unsigned v = (unsigned)in[0] | (unsigned)in[1] << 8 |
                   (unsigned)in[2] << 16 | (unsigned)in[3] << 24;
      if (v > plan_fields[k].max)
        return ks_ir_why(why, cap, "launch plan: %s %u over %u",
                         plan_fields[k].name, v, plan_fields[k].max);
      memcpy((unsigned char *)p + plan_at(&plan_fields[k], i), &v, sizeof v);
    }
  return plan_fits(p, block, why, cap);
}

/* ---- entries: checks ---------------------------------------------------- */

int ks_disk_check(const unsigned char *buf, size_t n, const uint64_t key[2],
                  ks_disk_entry *e, char *why, size_t cap) {
  header h;
  if (n < sizeof h)
    return ks_ir_why(why, cap, "truncated: %zu bytes", n);
  memcpy(&h, buf, sizeof h);
  if (memcmp(h.magic, MAGIC, sizeof MAGIC) != 0)
    return ks_ir_why(why, cap, "not a kspec cache entry");
  if (h.version != FORMAT_VERSION || h.header_bytes != sizeof h)
    return ks_ir_why(why, cap, "format version %u, want %u", h.version,
                     FORMAT_VERSION);
  if (h.file_bytes != n)
    return ks_ir_why(why, cap, "length %" PRIu64 " in the header, %zu bytes",
                     h.file_bytes, n);
  if (key && (h.key[0] != key[0] || h.key[1] != key[1]))
    return ks_ir_why(why, cap, "holds another key");
  if (checksum(buf, n) != h.checksum)
    return ks_ir_why(why, cap, "checksum mismatch");
  if (h.kind >= KS_DISK_NKINDS)
    return ks_ir_why(why, cap, "unknown kind %u", h.kind);
  if (h.plan_bytes != KS_DISK_PLAN_BYTES || n - sizeof h < h.plan_bytes)
    return ks_ir_why(why, cap, "launch plan of %u bytes, want %zu",
                     h.plan_bytes, KS_DISK_PLAN_BYTES);
  size_t at = sizeof h + h.plan_bytes;
  for (int i = 0; i < KS_DISK_NSTR; i++) {
    const char *s = (const char *)buf + at;
    int binary = (h.kind == KS_DISK_KIND_CUBIN && i == KS_DISK_BLOB) ||
                 (h.kind == KS_DISK_KIND_TEMPLATE &&
                  (i == KS_DISK_BLOB || i == KS_DISK_DESC));
    if (h.len[i] >= n - at || s[h.len[i]] != '\0' ||
        (!binary && memchr(s, '\0', h.len[i])))
      return ks_ir_why(why, cap, "malformed string %d", i);
    e->str[i] = s;
    e->len[i] = h.len[i];
    at += (size_t)h.len[i] + 1;
  }
  if (at != n)
    return ks_ir_why(why, cap, "%zu bytes after the strings", n - at);
  e->kind = h.kind;
  if (ks_disk_plan_decode(buf + sizeof h, h.reqntid, &e->plan, why, cap))
    return -1;
  if (h.est_regs > INT_MAX) /* the writer stores an int >= 0 */
    return ks_ir_why(why, cap, "estimated registers %u", h.est_regs);
  memcpy(e->key, h.key, sizeof e->key);
  memcpy(e->reqntid, h.reqntid, sizeof e->reqntid);
  e->maxntid = h.maxntid;
  e->minctasm = h.minctasm;
  e->maxnreg = h.maxnreg;
  e->smem_bytes = h.smem_bytes;
  e->est_regs = (int)h.est_regs;
  e->compile_ns = h.compile_ns;
  return 0;
}

/* The entry's file, to be read. */
static int open_entry(ks_disk *d, const uint64_t key[2]) {
  char name[KS_DISK_NAME_CAP];
  ks_disk_name(key, name);
  return openat(d->dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
}

unsigned char *ks_disk_read_fd(int fd, size_t *n) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 ||
      (uint64_t)st.st_size > MAX_ENTRY)
    return NULL;
  size_t len = (size_t)st.st_size, got = 0;
  unsigned char *buf = malloc(len ? len : 1);
  while (buf && got < len) {
    ssize_t r = pread(fd, buf + got, len - got, (off_t)got);
    if (r <= 0) {
      free(buf);
      return NULL;
    }
    got += (size_t)r;
  }
  *n = len;
  return buf;
}

/* The kernel k expects from the entry: name and bounds agree, else the
 * entry is foreign (another request under the same key). */
static int matches(const ks_disk_entry *e, const ks_kernel *k) {
  return strcmp(e->str[KS_DISK_NAME], k->name) == 0 &&
         memcmp(e->reqntid, k->info.reqntid, sizeof e->reqntid) == 0 &&
         e->maxntid == k->info.maxntid && e->minctasm == k->info.minctasm &&
         e->maxnreg == k->info.maxnreg;
}

int ks_disk_read(ks_ctx *ctx, ks_disk *d, unsigned kind, const uint64_t key[2],
                 ks_disk_entry *e, unsigned char **buf) {
  *buf = NULL;
  int fd = open_entry(d, key);
  if (fd < 0)
    return 0; /* absent, or evicted a moment ago */
  size_t n = 0;
  unsigned char *b = ks_disk_read_fd(fd, &n);
  char why[128];
  if (b && ks_disk_check(b, n, key, e, why, sizeof why) == 0 &&
      e->kind == kind) {
    futimens(fd, NULL); /* recently used: last to be evicted */
    close(fd);
    *buf = b;
    return 1;
  }
  ks_jit_cache_count(ctx->cache, KS_CTR_CORRUPT, 1);
  free(b);
  close(fd);
  return 0;
}

int ks_disk_fill(const ks_disk_entry *e, ks_kernel *k) {
  if (!matches(e, k))
    return 0;
  k->ptx = malloc(e->len[KS_DISK_PTX] + 1);
  k->explain = strdup(e->str[KS_DISK_EXPLAIN]);
  if (!k->ptx || !k->explain) {
    free(k->ptx);
    free(k->explain);
    k->ptx = k->explain = NULL;
    return 0;
  }
  memcpy(k->ptx, e->str[KS_DISK_PTX], e->len[KS_DISK_PTX] + 1);
  k->ptx_len = e->len[KS_DISK_PTX];
  k->info.smem_bytes = e->smem_bytes;
  k->info.est_regs = e->est_regs;
  ks_jit_set_plan(&k->info, &e->plan);
  k->info.compile_ms = e->compile_ns / 1e6;
  k->info.from_disk = 1;
  return 1;
}

int ks_disk_get(ks_ctx *ctx, ks_disk *d, ks_kernel *k) {
  ks_disk_entry e;
  unsigned char *buf = NULL;
  if (!ks_disk_read(ctx, d, KS_DISK_KIND_PTX, k->key, &e, &buf))
    return 0;
  int ok = ks_disk_fill(&e, k);
  if (!ok)
    ks_jit_cache_count(ctx->cache, KS_CTR_CORRUPT, 1);
  free(buf);
  return ok;
}

void ks_disk_drop(ks_disk *d, const uint64_t key[2]) {
  char name[KS_DISK_NAME_CAP];
  ks_disk_name(key, name);
  unlinkat(d->dirfd, name, 0);
}

/* ---- writing and eviction ----------------------------------------------- */

unsigned char *ks_disk_encode(const ks_disk_entry *e, size_t *n) {
  header h = {.version = FORMAT_VERSION,
              .header_bytes = sizeof h,
              .plan_bytes = KS_DISK_PLAN_BYTES};
  memcpy(h.magic, MAGIC, sizeof MAGIC);
  h.kind = e->kind;
  memcpy(h.key, e->key, sizeof h.key);
  h.compile_ns = e->compile_ns;
  memcpy(h.reqntid, e->reqntid, sizeof h.reqntid);
  h.maxntid = e->maxntid;
  h.minctasm = e->minctasm;
  h.maxnreg = e->maxnreg;
  h.smem_bytes = e->smem_bytes;
  h.est_regs = e->est_regs > 0 ? (uint32_t)e->est_regs : 0;
  size_t total = sizeof h + KS_DISK_PLAN_BYTES;
  for (int i = 0; i < KS_DISK_NSTR; i++) {
    if (e->len[i] >= MAX_ENTRY)
      return NULL;
    h.len[i] = e->len[i];
    total += (size_t)e->len[i] + 1;
  }
  if (total > MAX_ENTRY)
    return NULL;
  h.file_bytes = total;
  unsigned char *buf = malloc(total);
  if (!buf)
    return NULL;
  memcpy(buf, &h, sizeof h);
  ks_disk_plan_encode(&e->plan, buf + sizeof h);
  size_t at = sizeof h + KS_DISK_PLAN_BYTES;
  for (int i = 0; i < KS_DISK_NSTR; i++) {
    if (h.len[i])
      memcpy(buf + at, e->str[i], h.len[i]);
    buf[at + h.len[i]] = '\0';
    at += (size_t)h.len[i] + 1;
  }
  h.checksum = checksum(buf, total);
  memcpy(buf, &h, sizeof h);
  *n = total;
  return buf;
}

static int write_all(int fd, const unsigned char *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      if (w == 0)
        errno = ENOSPC;
      return -1;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

typedef struct file_age {
  char name[NAME_LEN + 1];
  struct timespec mtime;
  uint64_t bytes;
} file_age;

static int older(const void *a, const void *b) {
  const file_age *x = a, *y = b;
  if (x->mtime.tv_sec != y->mtime.tv_sec)
    return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
  return (x->mtime.tv_nsec > y->mtime.tv_nsec) -
         (x->mtime.tv_nsec < y->mtime.tv_nsec);
}

/* Lists the entries (and removes old temporary files). *total gets the
 * bytes. NULL (with *n = 0) when the directory cannot be read. */
static file_age *list_entries(int dirfd, size_t *n, uint64_t *total) {
  *n = 0;
  *total = 0;
  int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
  if (!dir) {
    if (fd >= 0)
      close(fd);
    return NULL;
  }
  size_t cap = 64;
  file_age *v = malloc(cap * sizeof *v);
  time_t now = time(NULL);
  struct dirent *de;
  while (v && (de = readdir(dir))) {
    struct stat st;
    int entry = ks_disk_is_entry(de->d_name);
    int tmp = strncmp(de->d_name, ".tmp.", 5) == 0;
    if ((!entry && !tmp) ||
        fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISREG(st.st_mode))
      continue;
    if (tmp) {
      if (now - st.st_mtime > STALE_TMP_S)
        unlinkat(dirfd, de->d_name, 0); /* a writer that died */
      continue;
    }
    if (*n == cap) {
      file_age *grown = realloc(v, 2 * cap * sizeof *v);
      if (!grown)
        break;
      v = grown;
      cap *= 2;
    }
    memcpy(v[*n].name, de->d_name, NAME_LEN + 1);
    v[*n].mtime = st.st_mtim;
    v[*n].bytes = (uint64_t)st.st_size;
    *total += (uint64_t)st.st_size;
    (*n)++;
  }
  closedir(dir);
  return v;
}

/* Removes the least recently used entries until the directory holds at
 * most 7/8 of the limit. Readers of a removed entry keep their inode. */
static void evict(ks_ctx *ctx, ks_disk *d) {
  if (atomic_flag_test_and_set(&d->scanning))
    return; /* another thread of this process is at it */
  atomic_store(&d->since_scan, 0);
  size_t n = 0;
  uint64_t total = 0;
  file_age *v = list_entries(d->dirfd, &n, &total);
  if (v && total > d->limit) {
    qsort(v, n, sizeof *v, older);
    uint64_t goal = d->limit - d->limit / 8;
    for (size_t i = 0; i < n && total > goal; i++)
      if (unlinkat(d->dirfd, v[i].name, 0) == 0) {
        total -= v[i].bytes;
        ks_jit_cache_count(ctx->cache, KS_CTR_EVICTIONS, 1);
      } else if (errno == ENOENT) {
        total -= v[i].bytes; /* another process evicted it */
      }
  }
  free(v);
  atomic_flag_clear(&d->scanning);
}

/* The fields of k's PTX entry, with the key's components text why. */
static void ptx_entry(const ks_kernel *k, const char *why, ks_disk_entry *e) {
  const char *s[KS_DISK_NSTR] = {k->name, k->explain ? k->explain : "", k->ptx,
                                 why ? why : ""};
  memset(e, 0, sizeof *e);
  e->kind = KS_DISK_KIND_PTX;
  memcpy(e->key, k->key, sizeof e->key);
  for (int i = 0; i < KS_DISK_NSTR; i++) {
    size_t len = i == KS_DISK_PTX ? k->ptx_len : strlen(s[i]);
    e->str[i] = s[i];
    e->len[i] = len < MAX_ENTRY ? (uint32_t)len : MAX_ENTRY;
  }
  memcpy(e->reqntid, k->info.reqntid, sizeof e->reqntid);
  e->maxntid = k->info.maxntid;
  e->minctasm = k->info.minctasm;
  e->maxnreg = k->info.maxnreg;
  e->smem_bytes = k->info.smem_bytes;
  e->est_regs = k->info.est_regs;
  e->plan = k->info.plan;
  e->compile_ns =
      k->info.compile_ms > 0 ? (uint64_t)(k->info.compile_ms * 1e6) : 0;
}

unsigned char *ks_disk_kernel_blob(const ks_kernel *k, const char *why,
                                   size_t *n) {
  ks_disk_entry e;
  ptx_entry(k, why, &e);
  return ks_disk_encode(&e, n);
}

void ks_disk_put(ks_ctx *ctx, ks_disk *d, const ks_kernel *k, const char *why) {
  ks_disk_entry e;
  ptx_entry(k, why, &e);
  ks_disk_write(ctx, d, &e);
}

void ks_disk_write(ks_ctx *ctx, ks_disk *d, const ks_disk_entry *e) {
  if (atomic_load(&d->off))
    return;
  size_t n = 0;
  unsigned char *buf = ks_disk_encode(e, &n);
  if (!buf)
    return;
  char name[KS_DISK_NAME_CAP], tmp[KS_DISK_NAME_CAP + 64];
  ks_disk_name(e->key, name);
  snprintf(tmp, sizeof tmp, ".tmp.%.32s.%ld.%lu", name, (long)getpid(),
           atomic_fetch_add(&d->tmp_seq, 1));
  int fd = openat(d->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    give_up(ctx, d, "create a file", errno);
  } else if (write_all(fd, buf, n) != 0) {
    int err = errno;
    close(fd);
    unlinkat(d->dirfd, tmp, 0);
    give_up(ctx, d, "write", err);
  } else if (close(fd) != 0 || renameat(d->dirfd, tmp, d->dirfd, name) != 0) {
    int err = errno;
    unlinkat(d->dirfd, tmp, 0);
    if (err != ENOENT) /* ENOENT: `kspec cache clear` took the file */
      give_up(ctx, d, "write", err);
  } else {
    ks_jit_cache_count(ctx->cache, KS_CTR_DISK_WRITES, 1);
    uint64_t since = atomic_fetch_add(&d->since_scan, n) + n;
    if (since > d->limit / 16)
      evict(ctx, d);
  }
  free(buf);
}

/* ---- maintenance: usage, verify, clear ------------------------------------
 */

ks_status ks_disk_usage(ks_disk *d, uint64_t *entries, uint64_t *bytes) {
  size_t n = 0;
  file_age *v = list_entries(d->dirfd, &n, bytes);
  free(v);
  *entries = n;
  return v ? KS_OK
           : ks_jit_fail(KS_EIO, "cache: cannot list %s: %s", d->path,
                         strerror(errno));
}

/* The key an entry's name stands for. */
static void name_key(const char *name, uint64_t key[2]) {
  char hi[17], lo[17];
  memcpy(hi, name, 16);
  memcpy(lo, name + 16, 16);
  hi[16] = lo[16] = '\0';
  key[1] = strtoull(hi, NULL, 16);
  key[0] = strtoull(lo, NULL, 16);
}

/* Reads and checks the listed entry called name: 1 when sound (e points
 * into *buf, which the caller frees), 0 when not, -1 when it is gone. */
static int read_listed(ks_disk *d, const char *name, ks_disk_entry *e,
                       unsigned char **buf) {
  uint64_t key[2];
  name_key(name, key);
  *buf = NULL;
  int fd = openat(d->dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return errno == ENOENT ? -1 : 0;
  size_t len = 0;
  char why[128];
  *buf = ks_disk_read_fd(fd, &len);
  close(fd);
  return *buf && ks_disk_check(*buf, len, key, e, why, sizeof why) == 0;
}

ks_status ks_disk_verify(ks_disk *d, int remove_all, uint64_t *good,
                         uint64_t *removed) {
  size_t n = 0;
  uint64_t bytes = 0;
  *good = *removed = 0;
  file_age *v = list_entries(d->dirfd, &n, &bytes);
  if (!v)
    return ks_jit_fail(KS_EIO, "cache: cannot list %s: %s", d->path,
                       strerror(errno));
  for (size_t i = 0; i < n; i++) {
    int ok = 0; /* -1: gone meanwhile, neither good nor removed */
    if (!remove_all) {
      unsigned char *buf;
      ks_disk_entry e;
      ok = read_listed(d, v[i].name, &e, &buf);
      free(buf);
    }
    if (ok > 0)
      (*good)++;
    else if (ok == 0 && unlinkat(d->dirfd, v[i].name, 0) == 0)
      (*removed)++;
  }
  free(v);
  return KS_OK;
}

/* Calls fn on every well-formed entry's key-components text. */
void ks_disk_each_why(ks_disk *d, void (*fn)(void *, const char *), void *arg) {
  size_t n = 0;
  uint64_t bytes = 0;
  file_age *v = list_entries(d->dirfd, &n, &bytes);
  for (size_t i = 0; v && i < n; i++) {
    unsigned char *buf;
    ks_disk_entry e;
    if (read_listed(d, v[i].name, &e, &buf) == 1 && e.kind == KS_DISK_KIND_PTX)
      fn(arg, e.str[KS_DISK_WHY]);
    free(buf);
  }
  free(v);
}

/* Why key's entry is not a hit: "" when it is there and sound. */
void ks_disk_entry_state(ks_disk *d, const uint64_t key[2], char *why,
                         size_t cap) {
  char name[KS_DISK_NAME_CAP];
  ks_disk_name(key, name);
  int fd = openat(d->dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    snprintf(why, cap, "absent");
    return;
  }
  size_t len = 0;
  unsigned char *buf = ks_disk_read_fd(fd, &len);
  ks_disk_entry e;
  why[0] = '\0';
  if (!buf)
    snprintf(why, cap, "unreadable");
  else
    ks_disk_check(buf, len, key, &e, why, cap);
  free(buf);
  close(fd);
}

/* ---- the library's identity --------------------------------------------- */

typedef struct id_search {
  uintptr_t addr; /* an address inside the library */
  unsigned char id[64];
  size_t n;
} id_search;

/* The GNU build-id note among the object's segments, when addr is in it. */
static int find_build_id(struct dl_phdr_info *info, size_t size, void *arg) {
  id_search *s = arg;
  int mine = 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && s->addr >= lo && s->addr < lo + ph->p_memsz)
      mine = 1;
  }
  for (int i = 0; mine && i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_NOTE)
      continue;
    const unsigned char *p =
        (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
    const unsigned char *end = p + ph->p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
      const unsigned char *name = p + sizeof *nh;
      const unsigned char *desc = name + ((nh->n_namesz + 3) & ~3u);
      if (desc + nh->n_descsz > end)
        break;
      if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
          memcmp(name, "GNU", 4) == 0 && nh->n_descsz <= sizeof s->id) {
        memcpy(s->id, desc, nh->n_descsz);
        s->n = nh->n_descsz;
        return 1;
      }
      p = desc + ((nh->n_descsz + 3) & ~3u);
    }
  }
  return mine; /* stop at the library's object, found or not */
}

static id_search build_id;

/* Without a build id: the file the code was loaded from, its size and its
 * modification time. */
static void file_identity(void) {
  Dl_info dl;
  struct stat st;
  if (!dladdr((void *)ks_jit_build_id, &dl) || !dl.dli_fname ||
      stat(dl.dli_fname, &st) != 0)
    return;
  XXH128_hash_t h = XXH3_128bits(dl.dli_fname, strlen(dl.dli_fname));
  uint64_t v[4] = {h.low64, h.high64, (uint64_t)st.st_size,
                   (uint64_t)st.st_mtim.tv_sec * 1000000000u +
                       (uint64_t)st.st_mtim.tv_nsec};
  memcpy(build_id.id, v, sizeof v);
  build_id.n = sizeof v;
}

static void find_identity(void) {
  build_id.addr = (uintptr_t)(void *)ks_jit_build_id;
  dl_iterate_phdr(find_build_id, &build_id);
  if (!build_id.n)
    file_identity();
}

const unsigned char *ks_jit_build_id(size_t *n) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, find_identity);
  *n = build_id.n;
  return build_id.id;
}
