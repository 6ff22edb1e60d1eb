/*
 * ir.c - parsing, verification and printing of template modules.
 *
 * LLVM reports some errors (bitcode reader, inline asm) through the
 * context's diagnostic handler, whose default prints and exits the process
 * on errors; every context kspec makes captures them instead.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Target.h>

#include "ir/ks_ir.h"

ks_status ks_ir_fail(char *err, size_t cap, ks_status s, const char *fmt, ...) {
  if (err && cap) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
  }
  return s;
}

int ks_ir_why(char *why, size_t cap, const char *fmt, ...) {
  if (why && cap) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
  }
  return -1;
}

int ks_ir_room(void *pp, size_t *cap, size_t n, size_t elem, size_t first) {
  if (n < *cap)
    return 1;
  size_t c = *cap ? 2 * *cap : first;
  void *old, *p;
  if (c > SIZE_MAX / elem)
    return 0;
  memcpy(&old, pp, sizeof old); /* the T * at pp, read as what it is */
  if (!(p = realloc(old, c * elem)))
    return 0;
  memcpy(pp, &p, sizeof p);
  *cap = c;
  return 1;
}

/* Copies an LLVM message into dst as one line: the first line only. */
static void copy_line(char *dst, size_t cap, const char *src) {
  size_t n = strcspn(src, "\n");
  if (n >= cap)
    n = cap - 1;
  memcpy(dst, src, n);
  dst[n] = '\0';
}

static void diag_handler(LLVMDiagnosticInfoRef di, void *user) {
  char *sink = user;
  if (LLVMGetDiagInfoSeverity(di) != LLVMDSError || sink[0])
    return; /* keep the first error; warnings and remarks are dropped */
  char *msg = LLVMGetDiagInfoDescription(di);
  copy_line(sink, KS_IR_DIAG_CAP, msg);
  LLVMDisposeMessage(msg);
}

LLVMContextRef ks_ir_context_create(char *sink) {
  LLVMContextRef c = LLVMContextCreate();
  sink[0] = '\0';
  LLVMContextSetDiagnosticHandler(c, diag_handler, sink);
  return c;
}

ks_status ks_ir_parse(LLVMContextRef ctx, const void *data, size_t len,
                      const char *name, LLVMModuleRef *out, char *err,
                      size_t cap) {
  *out = NULL;
  if (len == 0)
    return ks_ir_fail(err, cap, KS_EIO, "parse: %s: empty input", name);
  /* LLVM's text parser stops at a NUL, parsing what comes before it as
   * the whole module; bitcode starts with its magic number. */
  const unsigned char *bytes = data;
  const void *nul = memchr(data, '\0', len);
  int bitcode = len >= 4 && (memcmp(bytes, "BC\xc0\xde", 4) == 0 ||
                             memcmp(bytes, "\xde\xc0\x17\x0b", 4) == 0);
  if (nul && !bitcode)
    return ks_ir_fail(err, cap, KS_EPARSE,
                      "parse: %s: a NUL byte at offset %zu of text IR", name,
                      (size_t)((const unsigned char *)nul - bytes));
  /* Text IR must be NUL-terminated for the parser: the range copy adds it. */
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRangeCopy(data, len, name);
  char *msg = NULL;
  if (LLVMParseIRInContext(ctx, buf, out, &msg)) { /* consumes buf */
    char line[KS_IR_DIAG_CAP];
    copy_line(line, sizeof line, msg ? msg : "unknown error");
    LLVMDisposeMessage(msg);
    *out = NULL;
    return ks_ir_fail(err, cap, KS_EPARSE, "parse: %s: %s", name, line);
  }
  return KS_OK;
}

ks_status ks_ir_verify(LLVMModuleRef m, const char *name, char *err,
                       size_t cap) {
  char *msg = NULL;
  if (!LLVMVerifyModule(m, LLVMReturnStatusAction, &msg)) {
    LLVMDisposeMessage(msg);
    return KS_OK;
  }
  char line[KS_IR_DIAG_CAP];
  copy_line(line, sizeof line, msg ? msg : "invalid module");
  LLVMDisposeMessage(msg);
  return ks_ir_fail(err, cap, KS_EVERIFY, "verify: %s: %s", name, line);
}

ks_status ks_ir_check_target(LLVMModuleRef m, const char *name, char *err,
                             size_t cap) {
  const char *triple = LLVMGetTarget(m);
  if (strncmp(triple, "nvptx64-", 8) == 0 || strncmp(triple, "nvptx-", 6) == 0)
    return KS_OK;
  return ks_ir_fail(err, cap, KS_ETARGET,
                    "parse: %s: target triple '%s' is not NVPTX "
                    "(compile the template with --cuda-device-only)",
                    name, triple[0] ? triple : "(none)");
}

ks_status ks_ir_to_bitcode(LLVMModuleRef m, unsigned char **out, size_t *len,
                           char *err, size_t cap) {
  LLVMMemoryBufferRef buf = LLVMWriteBitcodeToMemoryBuffer(m);
  size_t n = LLVMGetBufferSize(buf);
  unsigned char *p = malloc(n ? n : 1);
  if (!p) {
    LLVMDisposeMemoryBuffer(buf);
    return ks_ir_fail(err, cap, KS_ENOMEM, "parse: out of memory");
  }
  memcpy(p, LLVMGetBufferStart(buf), n);
  LLVMDisposeMemoryBuffer(buf);
  *out = p;
  *len = n;
  return KS_OK;
}

char *ks_ir_print(LLVMModuleRef m) {
  char *s = LLVMPrintModuleToString(m);
  char *copy = strdup(s);
  LLVMDisposeMessage(s);
  return copy;
}

/* Is v used, directly or through constants, by a function marked in
 * reach (fns[i] reachable when reach[i])? */
static int used_in(LLVMValueRef v, LLVMValueRef *fns, const char *reach,
                   size_t n, unsigned depth) {
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsAInstruction(user)) {
      LLVMValueRef f = LLVMGetBasicBlockParent(LLVMGetInstructionParent(user));
      for (size_t i = 0; i < n; i++)
        if (fns[i] == f && reach[i])
          return 1;
    } else if (LLVMIsAConstant(user) && !LLVMIsAGlobalValue(user) &&
               depth < 8 && used_in(user, fns, reach, n, depth + 1)) {
      return 1;
    }
  }
  return 0;
}

/* Marks in reach the functions fn calls, transitively. */
static void mark_reachable(LLVMValueRef *fns, char *reach, size_t n) {
  for (int changed = 1; changed;) {
    changed = 0;
    for (size_t i = 0; i < n; i++)
      if (!reach[i] && used_in(fns[i], fns, reach, n, 0))
        reach[i] = changed = 1;
  }
}

/* Bytes of the variables defined in address space as, with alignment
 * padding; with fns, only those a function marked in reach uses. */
static unsigned long long space_bytes(LLVMModuleRef m, unsigned as,
                                      LLVMValueRef *fns, const char *reach,
                                      size_t n) {
  LLVMTargetDataRef dl = LLVMGetModuleDataLayout(m);
  unsigned long long total = 0;
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
    if (LLVMGetPointerAddressSpace(LLVMTypeOf(g)) != as ||
        LLVMIsDeclaration(g) || (fns && !used_in(g, fns, reach, n, 0)))
      continue;
    unsigned long long align = LLVMGetAlignment(g);
    if (align > 1)
      total = (total + align - 1) / align * align;
    total += LLVMABISizeOfType(dl, LLVMGlobalGetValueType(g));
  }
  return total;
}

unsigned long long ks_ir_shared_bytes(LLVMModuleRef m, LLVMValueRef kernel) {
  size_t n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    n++;
  LLVMValueRef *fns = malloc((n ? n : 1) * sizeof *fns);
  char *reach = calloc(n ? n : 1, 1);
  unsigned long long total = 0;
  if (fns && reach) {
    size_t i = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(m); f;
         f = LLVMGetNextFunction(f), i++) {
      fns[i] = f;
      reach[i] = f == kernel;
    }
    mark_reachable(fns, reach, n);
    total = space_bytes(m, 3, fns, reach, n);
  } else {
    total = space_bytes(m, 3, NULL, NULL, 0); /* all of them */
  }
  free(fns);
  free(reach);
  return total;
}

unsigned long long ks_ir_const_bytes(LLVMModuleRef m) {
  return space_bytes(m, 4, NULL, NULL, 0);
}

unsigned ks_ir_shared_globals(LLVMModuleRef m) {
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
  unsigned long long n = 0;
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
    if (LLVMGetPointerAddressSpace(LLVMTypeOf(g)) == 3)
      n += LLVMABISizeOfType(td, LLVMGlobalGetValueType(g));
  return (unsigned)n;
}

unsigned ks_ir_align_shared(LLVMModuleRef m) {
  LLVMTargetDataRef dl = LLVMGetModuleDataLayout(m);
  unsigned n = 0;
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
    if (LLVMGetPointerAddressSpace(LLVMTypeOf(g)) == 3 &&
        !LLVMIsDeclaration(g) && LLVMGetAlignment(g) < 16 &&
        LLVMABISizeOfType(dl, LLVMGlobalGetValueType(g)) >= 16) {
      LLVMSetAlignment(g, 16);
      n++;
    }
  return n;
}
