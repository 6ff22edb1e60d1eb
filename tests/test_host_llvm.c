/*
 * test_host_llvm.c - kspec leaves its host's LLVM as it found it, and its
 * LLVM pools go with its last context.
 *
 * This is a host program of the kind issue 32 describes: it uses LLVM-C
 * itself, through the same shared libLLVM as libkspec, to emit PTX for a
 * small NVPTX module of its own (an `atomicrmw nand`, which codegen's
 * atomic expansion must turn into a compare-and-swap loop, and a byval
 * struct that the kernel writes, which NVPTX's argument lowering must copy),
 * then specializes a built-in template with kspec, then emits its module
 * again. The two PTX texts must be the same. When kspec set LLVM's
 * process-wide options behind the host's back, the second emission ended
 * the process ("LLVM ERROR: Cannot select: AtomicLoadNand"); each case runs
 * in a child process, so that such a regression fails the case instead of
 * ending the test.
 *
 * Built against libkspec (never kspec_internal): with KSPEC_LLVM_STATIC,
 * libkspec carries an LLVM of its own, hidden, and this program's LLVM-C
 * calls reach the shared libLLVM, as a host's would.
 */
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>

#include "kspec.h"

/* The host's kernel: written by hand, not by a CUDA compiler. */
static const char host_ir[] =
    "target datalayout = \"e-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\n"
    "target triple = \"nvptx64-nvidia-cuda\"\n"
    "%pair = type { i32, float }\n"
    "define void @host_kernel(ptr %out, ptr byval(%pair) align 4 %p) {\n"
    "entry:\n"
    "  %a = getelementptr inbounds %pair, ptr %p, i32 0, i32 0\n"
    "  %v = load i32, ptr %a, align 4\n"
    "  %old = atomicrmw nand ptr %out, i32 %v monotonic, align 4\n"
    "  store i32 %old, ptr %a, align 4\n" /* written: the struct is copied */
    "  %b = getelementptr inbounds %pair, ptr %p, i32 0, i32 1\n"
    "  %f = load float, ptr %b, align 4\n"
    "  %i = fptosi float %f to i32\n"
    "  %w = load volatile i32, ptr %a, align 4\n"
    "  %s = add i32 %w, %i\n"
    "  %o2 = getelementptr inbounds i32, ptr %out, i64 1\n"
    "  store i32 %s, ptr %o2, align 4\n"
    "  ret void\n"
    "}\n"
    "!nvvm.annotations = !{!0}\n"
    "!0 = !{ptr @host_kernel, !\"kernel\", i32 1}\n";

/* In a child: says what went wrong on stderr and exits with 1. */
static void child_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "host: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  _exit(1);
}

/* The host's own codegen: its module, parsed in a fresh context, emitted by
 * a fresh target machine; the PTX malloc'd. */
static char *host_emit(void) {
  LLVMContextRef c = LLVMContextCreate();
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(
      host_ir, sizeof host_ir - 1, "host");
  LLVMModuleRef m = NULL;
  char *msg = NULL;
  if (LLVMParseIRInContext(c, buf, &m, &msg))
    child_fail("parse: %s", msg);
  LLVMTargetRef t = NULL;
  if (LLVMGetTargetFromTriple("nvptx64-nvidia-cuda", &t, &msg))
    child_fail("no NVPTX target: %s", msg);
  LLVMTargetMachineRef tm = LLVMCreateTargetMachine(
      t, "nvptx64-nvidia-cuda", "sm_70", "+ptx63", LLVMCodeGenLevelDefault,
      LLVMRelocDefault, LLVMCodeModelDefault);
  LLVMMemoryBufferRef out = NULL;
  if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMAssemblyFile, &msg, &out))
    child_fail("emit: %s", msg);
  size_t n = LLVMGetBufferSize(out);
  char *ptx = malloc(n + 1);
  if (!ptx)
    child_fail("out of memory");
  memcpy(ptx, LLVMGetBufferStart(out), n);
  ptx[n] = '\0';
  LLVMDisposeMemoryBuffer(out);
  LLVMDisposeTargetMachine(tm);
  LLVMDisposeModule(m);
  LLVMContextDispose(c);
  return ptx;
}

/* kspec's part: conv1d with FILTER_LEN bound, to PTX; 0 on success. */
static int kspec_specialize(const char *arch, const char **explain) {
  ks_ctx *ctx = NULL;
  ks_template *tp = NULL;
  ks_kernel *k = NULL;
  const char *ptx = NULL;
  size_t len = 0;
  ks_binding b;
  char name[64];
  ks_ctx_opts o = {.arch = arch, .no_driver = 1, .no_disk_cache = 1};
  if (ks_ctx_create(&o, &ctx) != KS_OK ||
      ks_template_load(ctx, "conv1d", &tp) != KS_OK ||
      ks_binding_parse("FILTER_LEN=7", &b, name, sizeof name) != KS_OK)
    child_fail("kspec: %s", ks_errmsg(ctx));
  ks_spec_req req = {.bindings = &b, .nbindings = 1};
  if (ks_specialize(ctx, tp, &req, &k) != KS_OK ||
      ks_kernel_ptx(k, &ptx, &len) != KS_OK || len == 0)
    child_fail("kspec: %s", ks_errmsg(ctx));
  if (explain) {
    static char text[1 << 16];
    snprintf(text, sizeof text, "%s", ks_kernel_explain(k));
    *explain = text;
  }
  ks_template_destroy(tp);
  ks_ctx_destroy(ctx);
  return 0;
}

/* Runs fn in a child process; fails the case unless it exits with 0. */
static void in_child(void (*fn)(void)) {
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    fn();
    _exit(0);
  }
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  if (WIFSIGNALED(st))
    fail_msg("the child was killed by signal %d", WTERMSIG(st));
  if (WEXITSTATUS(st) != 0)
    fail_msg("the child exited with %d (its stderr says why)", WEXITSTATUS(st));
}

static void host_round_trip(void) {
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetMC();
  LLVMInitializeNVPTXAsmPrinter();
  char *before = host_emit();
  if (!strstr(before, "atom.global.cas.b32") && !strstr(before, "atom.cas"))
    child_fail("the host's nand is not a compare-and-swap loop:\n%s", before);
  kspec_specialize("sm_90", NULL);
  kspec_specialize("sm_80", NULL);
  char *after = host_emit(); /* ended the process when kspec set options */
  if (strcmp(before, after) != 0)
    child_fail("the host's PTX changed after kspec ran:\n--- before\n%s\n"
               "--- after\n%s",
               before, after);
  free(before);
  free(after);
}

/* The host's PTX is the same before and after kspec, in a process where
 * kspec was never told it owns LLVM (the default). */
static void host_ptx_unchanged(void **state) {
  (void)state;
  in_child(host_round_trip);
}

static int lower_skipped(const char *explain) {
  return strstr(explain, "lower: not run: codegen lowers the module") != NULL;
}

static void default_mode(void) {
  const char *explain = NULL;
  kspec_specialize("sm_90", &explain);
#ifdef KSPEC_LLVM_STATIC
  int want = 0; /* LLVM is kspec's own there: the options are set */
#else
  int want = 1;
#endif
  if (lower_skipped(explain) != want)
    child_fail("lower %s by default:\n%s", want ? "ran" : "was skipped",
               explain);
  if (ks_llvm_own_process() == KS_OK && want)
    child_fail("ks_llvm_own_process after a context succeeded");
  if (want && !strstr(ks_errmsg(NULL), "after the first context"))
    child_fail("ks_llvm_own_process too late said '%s'", ks_errmsg(NULL));
  kspec_specialize("sm_90", &explain); /* and the mode stays as it was */
  if (lower_skipped(explain) != want)
    child_fail("the mode changed after a refused ks_llvm_own_process");
}

/* By default the lower stage is skipped (codegen lowers) in the shared
 * build, and a late ks_llvm_own_process is refused. */
static void default_mode_and_late_call(void **state) {
  (void)state;
  in_child(default_mode);
}

static void own_mode(void) {
  const char *explain = NULL;
  if (ks_llvm_own_process() != KS_OK)
    child_fail("ks_llvm_own_process first: %s", ks_errmsg(NULL));
  kspec_specialize("sm_90", &explain);
  if (lower_skipped(explain))
    child_fail("lower skipped in a process that owns LLVM:\n%s", explain);
  if (ks_llvm_own_process() != KS_OK) /* said again: nothing changes */
    child_fail("ks_llvm_own_process again: %s", ks_errmsg(NULL));
}

/* A process that owns its LLVM gets the lower stage and codegen from
 * nvptx-lower-unreachable (the kspec tool's mode). */
static void own_process_first(void **state) {
  (void)state;
  in_child(own_mode);
}

/* Bytes the heap holds now (a sanitizer's allocator counts its own: gcc
 * says so by a macro, clang by __has_feature). */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define KS_SANITIZED_HEAP 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) ||           \
    defined(KS_SANITIZED_HEAP)
#include <sanitizer/allocator_interface.h>
static size_t heap_in_use(void) {
  return __sanitizer_get_current_allocated_bytes();
}
#else
static size_t heap_in_use(void) {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}
#endif

/* Specializes conv1d and the histogram for two architectures in one
 * context; returns the heap in use before the context goes. */
static size_t round_of_compiles(const char *const *arch, size_t narch) {
  static const char *const names[] = {"conv1d", "histogram", "transpose"};
  ks_ctx *ctx[2] = {NULL, NULL};
  for (size_t a = 0; a < narch; a++) {
    ks_ctx_opts o = {.arch = arch[a], .no_driver = 1, .no_disk_cache = 1};
    assert_int_equal(ks_ctx_create(&o, &ctx[a]), KS_OK);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
      ks_template *tp = NULL;
      ks_kernel *k = NULL;
      ks_spec_req req = {0};
      assert_int_equal(ks_template_load(ctx[a], names[i], &tp), KS_OK);
      if (ks_specialize(ctx[a], tp, &req, &k) != KS_OK)
        fail_msg("%s", ks_errmsg(ctx[a]));
      ks_template_destroy(tp);
    }
  }
  size_t held = heap_in_use();
  for (size_t a = 0; a < narch; a++)
    ks_ctx_destroy(ctx[a]);
  return held;
}

/* The LLVM contexts of prepared templates and the target machines go with
 * the last ks_ctx: after it, the heap is back where it was after the first
 * round (LLVM's own process-wide tables, made on first use, stay), however
 * many templates and targets the rounds between compiled for; while a
 * context lives, they are kept (the next compile reuses them). */
static void pools_go_with_last_context(void **state) {
  (void)state;
  static const char *const two[] = {"sm_80", "sm_90"};
  round_of_compiles(two, 2); /* LLVM's first-use tables */
  size_t base = heap_in_use();
  size_t held = 0;
  for (int i = 0; i < 3; i++)
    held = round_of_compiles(two, 2);
  size_t after = heap_in_use();
  /* six prepared templates in their LLVM contexts and two target machines:
   * over a megabyte (the heap grew by 0.7 MB over the rounds and the pools
   * held 50 KB over what stayed, when nothing owned them) */
  if (held < after + (512u << 10))
    fail_msg("the pools held only %zu bytes over what the heap has after "
             "the last context",
             held > after ? held - after : 0);
  if (after > base + (256u << 10))
    fail_msg("the heap grew by %zu bytes over three rounds of contexts",
             after - base);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(host_ptx_unchanged),
      cmocka_unit_test(default_mode_and_late_call),
      cmocka_unit_test(own_process_first),
      cmocka_unit_test(pools_go_with_last_context),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
