/*
 * libdevice.c - the device library the libdevice stage links from
 * (passes/libdevice.c): NVIDIA's libdevice.10.bc, found once per process,
 * its functions linked into a module by name, with what they call.
 *
 * Where it comes from, in this order (ks_jit_libdevice_find): the file or
 * directory $KSPEC_LIBDEVICE names (an error when it names nothing, rather
 * than another library than the one asked for; "builtin": the copy built
 * in); a CUDA toolkit:
 * $CUDA_HOME, $CUDA_PATH, /usr/local/cuda, the toolkit of the first nvcc
 * on PATH, Debian's /usr/lib/nvidia-cuda-toolkit; NVIDIA's PyPI wheel
 * (nvidia/cuda_nvcc/nvvm/libdevice in a site-packages or dist-packages
 * directory: $PYTHONPATH, $VIRTUAL_ENV, $CONDA_PREFIX, ~/.local,
 * /usr/local/lib, /usr/lib); last, the copy built into libkspec where the
 * build machine had one (templates/CMakeLists.txt). A file must be NVPTX
 * bitcode (nvptx64): it is first read in a child process, as template
 * files are, since LLVM's bitcode reader does not survive every damaged
 * file.
 *
 * Parsing all of libdevice costs hundreds of milliseconds, so nothing is
 * parsed whole. The process keeps, in an LLVM context of its own, a module
 * of the functions linked so far (each linkonce_odr, with what it calls),
 * grown by linking from a lazily read libdevice, which materializes only
 * the functions that linking takes; and that module's bitcode. A module
 * that calls libdevice reads that bitcode lazily into its own context and
 * links it: LLVM's linker takes a linkonce_odr definition only where the
 * module declares the function, and what such a definition calls, so only
 * the functions needed are materialized and copied. All of it under one
 * lock, held for the growing and the copying of the bitcode; the
 * process's state goes with the last context (ks_jit_llvm_release).
 */
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Linker.h>

#define XXH_INLINE_ALL /* header-only: no run-time dependency */
#include <xxhash.h>

#include "jit/ks_jit.h"
#include "templates/ks_templates.h"

enum { PATH_CAP = 4096, MAX_BYTES = 64 << 20 };
static const char file_name[] = "libdevice.10.bc";

/* ---- the search -----------------------------------------------------------
 */

static int is_file(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int is_dir(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Appends a place to the list of those searched. */
static void searched_add(char *s, size_t cap, const char *what) {
  size_t n = strlen(s);
  if (n + 1 < cap)
    snprintf(s + n, cap - n, "%s%s", n ? ", " : "", what);
}

/* Is dir/rel/libdevice.10.bc there? Into path when it is. */
static int try_dir(const char *dir, const char *rel, char *path, size_t cap) {
  int n = snprintf(path, cap, "%s%s/%s", dir, rel, file_name);
  return n > 0 && (size_t)n < cap && is_file(path);
}

/* The toolkit of the first nvcc on PATH (its real location: /usr/bin/nvcc
 * may be a link into the toolkit). */
static int try_nvcc(const char *pathvar, char *path, size_t cap) {
  char dir[PATH_CAP], real[PATH_MAX];
  for (const char *p = pathvar; p && *p;) {
    size_t n = strcspn(p, ":");
    if (n && n + 6 < sizeof dir) {
      snprintf(dir, sizeof dir, "%.*s/nvcc", (int)n, p);
      if (access(dir, X_OK) == 0 && realpath(dir, real)) {
        char *slash = strrchr(real, '/'); /* .../bin/nvcc -> ... */
        if (slash)
          *slash = '\0';
        slash = strrchr(real, '/');
        if (slash)
          *slash = '\0';
        return try_dir(real, "/nvvm/libdevice", path, cap);
      }
    }
    p += n + (p[n] == ':');
  }
  return 0;
}

/* NVIDIA's wheel under the site-packages directories matching pattern. */
static int try_wheels(const char *pattern, char *path, size_t cap) {
  glob_t g;
  int found = 0;
  if (glob(pattern, GLOB_ONLYDIR, NULL, &g) != 0)
    return 0;
  for (size_t i = 0; i < g.gl_pathc && !found; i++)
    found =
        try_dir(g.gl_pathv[i], "/nvidia/cuda_nvcc/nvvm/libdevice", path, cap);
  globfree(&g);
  return found;
}

static int try_site_dirs(const ks_jit_ld_env *e, char *path, size_t cap) {
  char pat[PATH_CAP];
  for (const char *p = e->pythonpath; p && *p;) {
    size_t n = strcspn(p, ":");
    if (n && n < sizeof pat) {
      snprintf(pat, sizeof pat, "%.*s", (int)n, p);
      if (try_wheels(pat, path, cap))
        return 1;
    }
    p += n + (p[n] == ':');
  }
  const char *prefixes[] = {e->virtual_env, e->conda_prefix, e->home};
  const char *rels[] = {"/lib/python3*/site-packages",
                        "/lib/python3*/site-packages",
                        "/.local/lib/python3*/site-packages"};
  for (int i = 0; i < 3; i++)
    if (prefixes[i] && *prefixes[i] &&
        snprintf(pat, sizeof pat, "%s%s", prefixes[i], rels[i]) <
            (int)sizeof pat &&
        try_wheels(pat, path, cap))
      return 1;
  static const char *const fixed[] = {"/usr/local/lib/python3*/dist-packages",
                                      "/usr/local/lib/python3*/site-packages",
                                      "/usr/lib/python3/dist-packages"};
  for (int i = 0; i < 3; i++)
    if (snprintf(pat, sizeof pat, "%s%s", e->root, fixed[i]) <
            (int)sizeof pat &&
        try_wheels(pat, path, cap))
      return 1;
  return 0;
}

int ks_jit_libdevice_find(const ks_jit_ld_env *e, char *path, size_t cap,
                          char *searched, size_t scap) {
  char dir[PATH_CAP];
  searched[0] = '\0';
  if (e->kspec_libdevice && strcmp(e->kspec_libdevice, "builtin") == 0) {
    if (e->embedded)
      return 1;
    snprintf(searched, scap,
             "$KSPEC_LIBDEVICE=builtin: no copy built into "
             "libkspec");
    return -2;
  }
  if (e->kspec_libdevice && *e->kspec_libdevice) {
    const char *k = e->kspec_libdevice;
    if (is_dir(k) ? try_dir(k, "", path, cap)
                  : is_file(k) && snprintf(path, cap, "%s", k) < (int)cap)
      return 0;
    snprintf(searched, scap, "$KSPEC_LIBDEVICE=%s: %s", k,
             is_dir(k) ? "no libdevice.10.bc in that directory"
                       : "no such file");
    return -2;
  }
  searched_add(searched, scap, "$KSPEC_LIBDEVICE (unset)");
  const char *vars[] = {e->cuda_home, e->cuda_path};
  const char *names[] = {"$CUDA_HOME", "$CUDA_PATH"};
  for (int i = 0; i < 2; i++) {
    if (vars[i] && *vars[i] && try_dir(vars[i], "/nvvm/libdevice", path, cap))
      return 0;
    snprintf(dir, sizeof dir, "%s%s", names[i],
             vars[i] && *vars[i] ? "" : " (unset)");
    searched_add(searched, scap, dir);
  }
  snprintf(dir, sizeof dir, "%s/usr/local/cuda", e->root);
  if (try_dir(dir, "/nvvm/libdevice", path, cap))
    return 0;
  searched_add(searched, scap, dir);
  if (try_nvcc(e->path, path, cap))
    return 0;
  searched_add(searched, scap, "nvcc on PATH");
  snprintf(dir, sizeof dir, "%s/usr/lib/nvidia-cuda-toolkit", e->root);
  if (try_dir(dir, "/libdevice", path, cap))
    return 0;
  searched_add(searched, scap, dir);
  if (try_site_dirs(e, path, cap))
    return 0;
  searched_add(searched, scap, "the nvidia-cuda-nvcc wheel in site-packages");
  if (e->embedded) {
    path[0] = '\0';
    return 1;
  }
  searched_add(searched, scap, "no copy built into libkspec");
  return -1;
}

/* ---- the process's library ------------------------------------------------
 */

static struct {
  pthread_mutex_t lock;
  int loaded;                 /* path, bytes and id are set */
  char path[PATH_CAP];        /* for messages and explanations */
  const unsigned char *bytes; /* the file's (owned) or the built-in copy */
  size_t len;
  int owned;
  char id[17]; /* XXH3-64 of the bytes, hex: the cache key's */
  char diag[KS_IR_DIAG_CAP];
  LLVMContextRef c;    /* the library's own: p lives here */
  LLVMModuleRef p;     /* the functions linked so far, linkonce_odr */
  unsigned char *blob; /* p as bitcode */
  size_t blob_len;
} ld = {.lock = PTHREAD_MUTEX_INITIALIZER};

static int bitcode_magic(const unsigned char *p, size_t n) {
  return n >= 4 &&
         ((p[0] == 'B' && p[1] == 'C' && p[2] == 0xc0 && p[3] == 0xde) ||
          (p[0] == 0xde && p[1] == 0xc0 && p[2] == 0x17 && p[3] == 0x0b));
}

static int fail(char *err, size_t cap, int s, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t cap, int s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, cap, fmt, ap);
  va_end(ap);
  return s;
}

/* A lazily read module of the library in context c, or NULL with why. */
static LLVMModuleRef lazy_module(LLVMContextRef c, const unsigned char *p,
                                 size_t n, char *err, size_t cap) {
  LLVMMemoryBufferRef mb =
      LLVMCreateMemoryBufferWithMemoryRange((const char *)p, n, "libdevice", 0);
  LLVMModuleRef m = NULL;
  if (LLVMGetBitcodeModuleInContext2(c, mb, &m)) {
    LLVMDisposeMemoryBuffer(mb);
    fail(err, cap, KS_EIO, "%s: LLVM cannot read it as bitcode", ld.path);
    return NULL;
  }
  return m; /* owns mb */
}

/* "" when m is NVPTX's (nvptx64), else what it is. */
static const char *foreign(LLVMModuleRef m) {
  const char *t = LLVMGetTarget(m);
  return strncmp(t, "nvptx64", 7) == 0 ? "" : t[0] ? t : "no target";
}

typedef struct check_job {
  const unsigned char *p;
  size_t n;
} check_job;

/* The child: 'R' and "" when the file reads as NVPTX bitcode, else why. */
static void check_child(void *arg) {
  check_job *j = arg;
  char diag[KS_IR_DIAG_CAP], err[256] = "";
  LLVMContextRef c = ks_ir_context_create(diag);
  LLVMModuleRef m = lazy_module(c, j->p, j->n, err, sizeof err);
  ks_jit_child_write("R", 1);
  if (!m)
    ks_jit_child_write("unreadable", 10);
  else if (foreign(m)[0])
    ks_jit_child_write(foreign(m), strlen(foreign(m)));
  if (m)
    LLVMDisposeModule(m);
  LLVMContextDispose(c);
}

/* Checks the file's bytes in a child process first. */
static int check_isolated(char *err, size_t cap) {
  check_job j = {ld.bytes, ld.len};
  const ks_jit_limits lim = {.seconds = 30, .max_growth = 1ull << 30};
  char *ans = NULL, how[96];
  size_t n = 0;
  int s = 0;
  if (ks_jit_child_run(check_child, &j, &lim, &ans, &n, how, sizeof how) != 0 ||
      n < 1 || ans[0] != 'R')
    s = fail(err, cap, KS_EIO,
             "%s: LLVM gave up reading it (in a child process: %s); is the "
             "file damaged?",
             ld.path, n ? how : "no answer");
  else if (n > 1 && n - 1 == 10 && memcmp(ans + 1, "unreadable", 10) == 0)
    s = fail(err, cap, KS_EIO, "%s: LLVM cannot read it as bitcode", ld.path);
  else if (n > 1)
    s = fail(err, cap, KS_EIO,
             "%s is bitcode for %.*s, not NVPTX's libdevice (nvptx64)", ld.path,
             (int)(n - 1 > 100 ? 100 : n - 1), ans + 1);
  free(ans);
  return s;
}

static int read_file(char *err, size_t cap) {
  FILE *f = fopen(ld.path, "rb");
  if (!f)
    return fail(err, cap, KS_EIO, "%s: %s", ld.path, strerror(errno));
  unsigned char *buf = malloc(MAX_BYTES);
  size_t n = buf ? fread(buf, 1, MAX_BYTES, f) : 0;
  int bad = !buf || ferror(f) || n == MAX_BYTES;
  fclose(f);
  if (bad) {
    free(buf);
    return fail(err, cap, KS_EIO, "%s: %s", ld.path,
                buf ? "cannot read it (or over 64 MiB)" : "out of memory");
  }
  unsigned char *fit = realloc(buf, n ? n : 1);
  ld.bytes = fit ? fit : buf;
  ld.len = n;
  ld.owned = 1;
  return 0;
}

static void env_of(ks_jit_ld_env *e) {
  *e = (ks_jit_ld_env){.kspec_libdevice = getenv("KSPEC_LIBDEVICE"),
                       .cuda_home = getenv("CUDA_HOME"),
                       .cuda_path = getenv("CUDA_PATH"),
                       .path = getenv("PATH"),
                       .home = getenv("HOME"),
                       .virtual_env = getenv("VIRTUAL_ENV"),
                       .conda_prefix = getenv("CONDA_PREFIX"),
                       .pythonpath = getenv("PYTHONPATH"),
                       .root = "",
                       .embedded = ks_libdevice_end > ks_libdevice_begin};
}

/* Finds, reads and checks the library once (ld.lock held). */
static int load(char *err, size_t cap) {
  if (ld.loaded)
    return 0;
  ks_jit_ld_env e;
  char searched[1536];
  env_of(&e);
  int r = ks_jit_libdevice_find(&e, ld.path, sizeof ld.path, searched,
                                sizeof searched);
  if (r < 0)
    return fail(err, cap, KS_EIO, "%s%s",
                r == -1 ? "none found; looked at " : "", searched);
  int s = 0;
  if (r == 1) {
    snprintf(ld.path, sizeof ld.path, "the copy built into libkspec (%s)",
             ks_libdevice_origin);
    ld.bytes = ks_libdevice_begin;
    ld.len = (size_t)(ks_libdevice_end - ks_libdevice_begin);
  } else if ((s = read_file(err, cap)) != 0) {
    return s;
  }
  if (!bitcode_magic(ld.bytes, ld.len))
    s = fail(err, cap, KS_EIO, "%s is not LLVM bitcode", ld.path);
  else if (ld.owned)
    s = check_isolated(err, cap);
  if (s) {
    if (ld.owned)
      free((void *)ld.bytes);
    ld.bytes = NULL, ld.owned = 0;
    return s;
  }
  snprintf(ld.id, sizeof ld.id, "%016llx",
           (unsigned long long)XXH3_64bits(ld.bytes, ld.len));
  ld.loaded = 1;
  return 0;
}

/* ---- the functions linked so far ----------------------------------------- */

static int in_p(const char *name) {
  LLVMValueRef f = ld.p ? LLVMGetNamedFunction(ld.p, name) : NULL;
  return f && !LLVMIsDeclaration(f);
}

/* Every named global and function of l with a body: linkonce_odr, so that
 * a link takes only what is asked for and keeps one copy of each. */
static void all_linkonce(LLVMModuleRef l) {
  for (LLVMValueRef f = LLVMGetFirstFunction(l); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && LLVMGetValueName2(f, &(size_t){0})[0]) {
      LLVMSetLinkage(f, LLVMLinkOnceODRLinkage);
      LLVMSetVisibility(f, LLVMDefaultVisibility);
    }
  for (LLVMValueRef g = LLVMGetFirstGlobal(l); g; g = LLVMGetNextGlobal(g))
    if (LLVMGetInitializer(g) && LLVMGetValueName2(g, &(size_t){0})[0]) {
      LLVMSetLinkage(g, LLVMLinkOnceODRLinkage);
      LLVMSetVisibility(g, LLVMDefaultVisibility);
    }
}

/* Declares in p what of names (required) and opt the library defines and
 * p lacks; the count declared, or -1 with why. */
static int declare(LLVMModuleRef l, const char *const *names, size_t n,
                   int required, char *err, size_t cap) {
  int added = 0;
  for (size_t i = 0; i < n; i++) {
    if (in_p(names[i]))
      continue;
    LLVMValueRef f = LLVMGetNamedFunction(l, names[i]);
    if (!f || LLVMIsDeclaration(f)) {
      if (required)
        return fail(err, cap, 0, "calls %s, which libdevice (%s) does not have",
                    names[i], ld.path),
               -1;
      continue;
    }
    if (!LLVMGetNamedFunction(ld.p, names[i]))
      LLVMAddFunction(ld.p, names[i], LLVMGlobalGetValueType(f));
    added++;
  }
  return added;
}

static int rewrite_blob(char *err, size_t cap) {
  LLVMMemoryBufferRef b = LLVMWriteBitcodeToMemoryBuffer(ld.p);
  size_t n = b ? LLVMGetBufferSize(b) : 0;
  unsigned char *p = n ? malloc(n) : NULL;
  if (p)
    memcpy(p, LLVMGetBufferStart(b), n);
  if (b)
    LLVMDisposeMemoryBuffer(b);
  if (!p)
    return fail(err, cap, KS_ENOMEM, "out of memory");
  free(ld.blob);
  ld.blob = p;
  ld.blob_len = n;
  return 0;
}

/* Links what p lacks of names and opt from the library (ld.lock held). */
static int grow(const char *const *names, size_t n, const char *const *opt,
                size_t nopt, char *err, size_t cap) {
  if (!ld.c) {
    ld.c = ks_ir_context_create(ld.diag);
    ld.p = LLVMModuleCreateWithNameInContext("libdevice", ld.c);
  }
  LLVMModuleRef l = lazy_module(ld.c, ld.bytes, ld.len, err, cap);
  if (!l)
    return KS_EIO;
  if (foreign(l)[0]) {
    fail(err, cap, KS_EIO,
         "%s is bitcode for %s, not NVPTX's libdevice "
         "(nvptx64)",
         ld.path, foreign(l));
    LLVMDisposeModule(l);
    return KS_EIO;
  }
  if (!LLVMGetFirstFunction(ld.p)) /* the first link: p takes l's layout */
    LLVMSetDataLayout(ld.p, LLVMGetDataLayoutStr(l));
  LLVMSetTarget(ld.p, LLVMGetTarget(l));
  int a = declare(l, names, n, 1, err, cap);
  int b = a < 0 ? -1 : declare(l, opt, nopt, 0, err, cap);
  if (a <= 0 && b <= 0) {
    LLVMDisposeModule(l);
    return a < 0 ? KS_ECODEGEN : 0;
  }
  all_linkonce(l);
  ld.diag[0] = '\0';
  if (LLVMLinkModules2(ld.p, l)) /* consumes l */
    return fail(err, cap, KS_ECODEGEN, "linking from %s failed: %s", ld.path,
                ld.diag);
  return rewrite_blob(err, cap);
}

static int missing(const char *const *names, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!in_p(names[i]))
      return 1;
  return 0;
}

/* The library's functions in p, as bitcode copied into a buffer of m's
 * (NULL with why). */
static LLVMMemoryBufferRef functions_for(const char *const *names, size_t n,
                                         const char *const *opt, size_t nopt,
                                         char *err, size_t cap, int *s) {
  LLVMMemoryBufferRef b = NULL;
  pthread_mutex_lock(&ld.lock);
  *s = load(err, cap);
  if (!*s && (missing(names, n) || missing(opt, nopt)))
    *s = grow(names, n, opt, nopt, err, cap);
  if (!*s)
    b = LLVMCreateMemoryBufferWithMemoryRangeCopy((const char *)ld.blob,
                                                  ld.blob_len, "libdevice");
  pthread_mutex_unlock(&ld.lock);
  return b;
}

static int link_into(LLVMModuleRef m, const char *const *names, size_t n,
                     const char *const *opt, size_t nopt, char *err,
                     size_t cap) {
  char why[1600] = "";
  int s = 0;
  LLVMMemoryBufferRef b =
      functions_for(names, n, opt, nopt, why, sizeof why, &s);
  if (!b) {
    if (s == KS_EIO) /* no library, or a bad one */
      return fail(err, cap, s, "calls %s, which needs libdevice: %s", names[0],
                  why);
    return fail(err, cap, s ? s : KS_ENOMEM, "%s", why);
  }
  LLVMModuleRef f = NULL;
  if (LLVMGetBitcodeModuleInContext2(LLVMGetModuleContext(m), b, &f)) {
    LLVMDisposeMemoryBuffer(b);
    return fail(err, cap, KS_ECODEGEN, "cannot read its own copy of libdevice");
  }
  LLVMSetTarget(f, LLVMGetTarget(m)); /* no warning of a foreign layout */
  LLVMSetDataLayout(f, LLVMGetDataLayoutStr(m));
  if (LLVMLinkModules2(m, f))
    return fail(err, cap, KS_ECODEGEN, "linking libdevice's functions failed");
  return 0;
}

static const char *where(void) {
  pthread_mutex_lock(&ld.lock);
  const char *p = ld.loaded ? ld.path : "libdevice";
  pthread_mutex_unlock(&ld.lock);
  return p;
}

const ks_devlib ks_jit_devlib = {link_into, where};

void ks_jit_libdevice_id(char *buf, size_t cap) {
  char err[256];
  pthread_mutex_lock(&ld.lock);
  int s = load(err, sizeof err);
  snprintf(buf, cap, "%s", s ? "none" : ld.id);
  pthread_mutex_unlock(&ld.lock);
}

void ks_jit_libdevice_drain(void) {
  pthread_mutex_lock(&ld.lock);
  if (ld.p)
    LLVMDisposeModule(ld.p);
  if (ld.c)
    LLVMContextDispose(ld.c);
  if (ld.owned)
    free((void *)ld.bytes);
  free(ld.blob);
  ld.p = NULL, ld.c = NULL, ld.bytes = NULL, ld.blob = NULL;
  ld.owned = ld.loaded = 0;
  ld.len = ld.blob_len = 0;
  pthread_mutex_unlock(&ld.lock);
}
