/*
 * bind.c - the bind pass: run-time values become compile-time constants.
 *
 * Bound arguments are replaced by constants (the argument stays, unused, so
 * the launch signature does not change); a fixed block size replaces the
 * kernel's reads of %ntid; launch bounds become nvvm.annotations entries,
 * which the NVPTX backend turns into .reqntid/.maxntid/.minnctapersm/
 * .maxnreg; every function is retargeted to the requested sm and PTX ISA,
 * since clang records its own target in function attributes, and
 * __nvvm_reflect("__CUDA_ARCH") is answered for that sm; the module's
 * other kernels are dropped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/ks_passes.h"

/* The constant of a value in the argument's own IR type (the request was
 * checked against it); an unsigned value above the signed range is held
 * as its bit pattern, so only a negative one is sign-extended. */
static LLVMValueRef value_constant(LLVMTypeRef ty, const ks_spec_value *v) {
  if (v->type == KS_TYPE_F16 || v->type == KS_TYPE_F32 ||
      v->type == KS_TYPE_F64)
    return LLVMConstReal(ty, v->f);
  return LLVMConstInt(ty, (unsigned long long)v->i, v->i < 0);
}

static int bind_values(LLVMValueRef fn, const ks_spec *s, ks_diag *d) {
  for (size_t i = 0; i < s->nvalues; i++) {
    const ks_spec_value *v = &s->values[i];
    if (v->arg_index >= LLVMCountParams(fn))
      return ks_diag_fail(d, KS_EPARAM, "bind: kernel '%s' has no argument %u",
                          s->kernel, v->arg_index);
    LLVMValueRef arg = LLVMGetParam(fn, v->arg_index);
    LLVMReplaceAllUsesWith(arg, value_constant(LLVMTypeOf(arg), v));
  }
  return 0;
}

/* Which %ntid component a call reads: 0..2, or -1. */
static int ntid_component(LLVMValueRef inst) {
  if (!LLVMIsACallInst(inst))
    return -1;
  LLVMValueRef callee = LLVMGetCalledValue(inst);
  if (!callee || !LLVMIsAFunction(callee))
    return -1;
  size_t len = 0;
  const char *name = LLVMGetValueName2(callee, &len);
  static const char prefix[] = "llvm.nvvm.read.ptx.sreg.ntid.";
  if (len != sizeof prefix || memcmp(name, prefix, sizeof prefix - 1) != 0)
    return -1;
  char c = name[sizeof prefix - 1];
  return c >= 'x' && c <= 'z' ? c - 'x' : -1;
}

static void bind_block(LLVMValueRef fn, const ks_spec *s) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef inst = LLVMGetFirstInstruction(bb);
    while (inst) {
      LLVMValueRef next = LLVMGetNextInstruction(inst);
      int c = ntid_component(inst);
      if (c >= 0 && s->block[c]) {
        LLVMTypeRef ty = LLVMTypeOf(inst);
        LLVMReplaceAllUsesWith(inst, LLVMConstInt(ty, s->block[c], 0));
        LLVMInstructionEraseFromParent(inst);
      }
      inst = next;
    }
  }
}

static void annotate(LLVMModuleRef m, LLVMValueRef fn, const char *key,
                     unsigned value) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMMetadataRef ops[3] = {
      LLVMValueAsMetadata(fn),
      LLVMMDStringInContext2(c, key, strlen(key)),
      LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(c), value, 0)),
  };
  LLVMValueRef node = LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, ops, 3));
  LLVMAddNamedMetadataOperand(m, "nvvm.annotations", node);
}

/* The launch bounds a kernel declares itself (__launch_bounds__, or
 * nvvm.annotations entries of its own): 0 where it declares none. */
typedef struct own_bounds {
  unsigned maxntid[3], reqntid[3], minctasm, maxnreg;
} own_bounds;

static const char *const own_keys[] = {"maxntidx", "maxntidy", "maxntidz",
                                       "reqntidx", "reqntidy", "reqntidz",
                                       "minctasm", "maxnreg"};
enum { OWN_KEYS = sizeof own_keys / sizeof own_keys[0] };

static unsigned *own_slot(own_bounds *o, size_t key) {
  return key < 3    ? &o->maxntid[key]
         : key < 6  ? &o->reqntid[key - 3]
         : key == 6 ? &o->minctasm
                    : &o->maxnreg;
}

/* Calls visit for every KEY, VALUE pair of m's nvvm.annotations entries
 * whose value is an integer (entry i, operand j the key, gv the global the
 * entry is about, possibly NULL), as the NVPTX backend reads them. 1: out
 * of memory. */
typedef void visit_fn(void *arg, LLVMValueRef entry, unsigned j,
                      LLVMValueRef gv, const char *key, unsigned len,
                      LLVMValueRef value);
static int each_annotation(LLVMModuleRef m, visit_fn *visit, void *arg) {
  unsigned n = LLVMGetNamedMetadataNumOperands(m, "nvvm.annotations");
  LLVMValueRef *ops = n ? malloc(n * sizeof *ops) : NULL;
  if (n && !ops)
    return 1;
  if (n)
    LLVMGetNamedMetadataOperands(m, "nvvm.annotations", ops);
  int rc = 0;
  for (unsigned i = 0; i < n && !rc; i++) {
    unsigned k = LLVMGetMDNodeNumOperands(ops[i]);
    LLVMValueRef *f = k ? malloc(k * sizeof *f) : NULL;
    if (!f) {
      rc = k != 0;
      continue;
    }
    LLVMGetMDNodeOperands(ops[i], f);
    for (unsigned j = 1; j + 1 < k; j += 2) {
      unsigned len = 0;
      const char *key = f[j] ? LLVMGetMDString(f[j], &len) : NULL;
      if (key && f[j + 1] && LLVMIsAConstantInt(f[j + 1]))
        visit(arg, ops[i], j, f[0], key, len, f[j + 1]);
    }
    free(f);
  }
  free(ops);
  return rc;
}

typedef struct own_read {
  LLVMValueRef fn;
  own_bounds *o;
  unsigned drop;
} own_read;

static void read_own(void *arg, LLVMValueRef entry, unsigned j, LLVMValueRef gv,
                     const char *key, unsigned len, LLVMValueRef value) {
  own_read *r = arg;
  if (gv != r->fn)
    return;
  for (size_t e = 0; e < OWN_KEYS; e++) {
    if (strlen(own_keys[e]) != len || memcmp(key, own_keys[e], len) != 0)
      continue;
    if (r->drop >> e & 1) {
      char renamed[32];
      snprintf(renamed, sizeof renamed, "kspec.dropped.%s", own_keys[e]);
      LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(gv));
      LLVMReplaceMDNodeOperandWith(
          entry, j, LLVMMDStringInContext2(c, renamed, strlen(renamed)));
    } else {
      *own_slot(r->o, e) = (unsigned)LLVMConstIntGetZExtValue(value);
    }
  }
}

/* Reads fn's own bounds from m's nvvm.annotations; with `drop` set (bit
 * per own_keys entry), renames those keys "kspec.dropped.KEY" instead, so
 * that the backend no longer sees them (an entry cannot be removed through
 * LLVM's C API; the backend ignores keys it does not know). 1: out of
 * memory. */
static int own_bounds_of(LLVMModuleRef m, LLVMValueRef fn, own_bounds *o,
                         unsigned drop) {
  memset(o, 0, sizeof *o);
  own_read r = {fn, o, drop};
  return each_annotation(m, read_own, &r);
}

static unsigned long long dims_product(const unsigned d[3]) {
  unsigned long long p = 1;
  for (int i = 0; i < 3; i++)
    p *= d[i] ? d[i] : 1;
  return p;
}

/* A request's launch bounds against the kernel's own: a fixed block must
 * equal its .reqntid or fit its .maxntid (which then gives way to the
 * .reqntid: PTX takes one of the two), a --maxntid must fit its .maxntid
 * (and replaces it), and --minctasm and --maxnreg must equal what it
 * declares. What the kernel declares already is not declared twice:
 * *skip gets bit 0 for reqntid, 1 for minctasm, 2 for maxnreg. */
static int reconcile_bounds(LLVMModuleRef m, LLVMValueRef fn, const ks_spec *s,
                            unsigned *skip, ks_diag *d) {
  own_bounds o;
  *skip = 0;
  if (own_bounds_of(m, fn, &o, 0))
    return ks_diag_fail(d, KS_ENOMEM, "bind: out of memory");
  unsigned long long omax = o.maxntid[0] || o.maxntid[1] || o.maxntid[2]
                                ? dims_product(o.maxntid)
                                : 0;
  int oreq = o.reqntid[0] || o.reqntid[1] || o.reqntid[2];
  unsigned long long threads = dims_product(s->block);
  if (s->block[0] && oreq) {
    for (int i = 0; i < 3; i++)
      if ((s->block[i] ? s->block[i] : 1) != (o.reqntid[i] ? o.reqntid[i] : 1))
        return ks_diag_fail(
            d, KS_EBOUNDS,
            "bind: block %ux%ux%u differs from the .reqntid kernel '%s' "
            "declares, %ux%ux%u",
            s->block[0], s->block[1] ? s->block[1] : 1,
            s->block[2] ? s->block[2] : 1, s->kernel,
            o.reqntid[0] ? o.reqntid[0] : 1, o.reqntid[1] ? o.reqntid[1] : 1,
            o.reqntid[2] ? o.reqntid[2] : 1);
    *skip |= 1;
  }
  if (!s->block[0] && s->maxntid && oreq)
    return ks_diag_fail(d, KS_EBOUNDS,
                        "bind: kernel '%s' declares its own .reqntid; a "
                        "maxntid cannot be added to it (give the block)",
                        s->kernel);
  unsigned long long want = s->block[0] ? threads : s->maxntid;
  if (want && omax) {
    if (want > omax)
      return ks_diag_fail(
          d, KS_EBOUNDS,
          s->block[0] ? "bind: a block of %llu threads exceeds the .maxntid "
                        "%llu kernel '%s' declares (__launch_bounds__)"
                      : "bind: maxntid %llu exceeds the .maxntid %llu kernel "
                        "'%s' declares (__launch_bounds__)",
          want, omax, s->kernel);
    own_bounds scratch;
    if (own_bounds_of(m, fn, &scratch, 7u)) /* maxntidx, y, z */
      return ks_diag_fail(d, KS_ENOMEM, "bind: out of memory");
  }
  const struct {
    const char *dir;
    unsigned asked, has;
  } equal[] = {{".minnctapersm", s->minctasm, o.minctasm},
               {".maxnreg", s->maxnreg, o.maxnreg}};
  for (size_t i = 0; i < 2; i++) {
    if (!equal[i].asked || !equal[i].has)
      continue;
    if (equal[i].asked != equal[i].has)
      return ks_diag_fail(d, KS_EBOUNDS,
                          "bind: kernel '%s' declares its own %s %u "
                          "(__launch_bounds__); the request asks %u",
                          s->kernel, equal[i].dir, equal[i].has,
                          equal[i].asked);
    *skip |= 2u << i;
  }
  return 0;
}

static int add_bounds(LLVMModuleRef m, LLVMValueRef fn, const ks_spec *s,
                      ks_diag *d) {
  static const char *req[3] = {"reqntidx", "reqntidy", "reqntidz"};
  unsigned skip;
  if (reconcile_bounds(m, fn, s, &skip, d))
    return 1;
  if (s->block[0]) {
    unsigned long long threads = dims_product(s->block);
    if (s->maxntid && threads > s->maxntid)
      return ks_diag_fail(d, KS_EBOUNDS,
                          "bind: block of %llu threads exceeds maxntid %u",
                          threads, s->maxntid);
    for (int i = 0; i < 3 && !(skip & 1); i++)
      annotate(m, fn, req[i], s->block[i] ? s->block[i] : 1);
  } else if (s->maxntid) {
    /* PTX allows .maxntid or .reqntid, not both; a fixed block says more. */
    annotate(m, fn, "maxntidx", s->maxntid);
    annotate(m, fn, "maxntidy", 1);
    annotate(m, fn, "maxntidz", 1);
  }
  if (s->minctasm && !(skip & 2))
    annotate(m, fn, "minctasm", s->minctasm);
  if (s->maxnreg && !(skip & 4))
    annotate(m, fn, "maxnreg", s->maxnreg);
  return 0;
}

static void set_string_attr(LLVMValueRef fn, const char *key,
                            const char *value) {
  LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
  unsigned klen = (unsigned)strlen(key);
  LLVMRemoveStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, key, klen);
  LLVMAddAttributeAtIndex(
      fn, LLVMAttributeFunctionIndex,
      LLVMCreateStringAttribute(c, key, klen, value, (unsigned)strlen(value)));
}

void ks_bind_retarget(LLVMModuleRef m, const ks_spec *s) {
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn;
       fn = LLVMGetNextFunction(fn)) {
    if (LLVMIsDeclaration(fn))
      continue;
    set_string_attr(fn, "target-cpu", s->cpu);
    set_string_attr(fn, "target-features", s->features);
  }
}

/* __nvvm_reflect("__CUDA_ARCH") becomes the target's sm times ten (900
 * for sm_90), as the NVPTX backend's own reflect pass would make it. The
 * optimize stage's nvvm-reflect, LLVM's pass as the new pass manager
 * builds it, knows no sm and would make it 0: code that asks (libdevice,
 * IR from other front ends) would take its oldest path. The FTZ query is
 * left to that pass: it reads the module's flag. */
static void reflect_arch(LLVMModuleRef m, const ks_spec *s) {
  unsigned sm = 0;
  if (!s->cpu || sscanf(s->cpu, "sm_%u", &sm) != 1 || sm == 0)
    return;
  static const char *const names[] = {"__nvvm_reflect", "llvm.nvvm.reflect"};
  for (size_t f = 0; f < sizeof names / sizeof names[0]; f++) {
    LLVMValueRef fn = LLVMGetNamedFunction(m, names[f]);
    LLVMUseRef next;
    for (LLVMUseRef u = fn ? LLVMGetFirstUse(fn) : NULL; u; u = next) {
      next = LLVMGetNextUse(u);
      LLVMValueRef call = LLVMGetUser(u);
      if (!LLVMIsACallInst(call) || LLVMGetCalledValue(call) != fn ||
          LLVMGetNumArgOperands(call) != 1 ||
          LLVMGetTypeKind(LLVMTypeOf(call)) != LLVMIntegerTypeKind ||
          !ks_ir_reflect_is(call, "__CUDA_ARCH"))
        continue;
      LLVMReplaceAllUsesWith(call, LLVMConstInt(LLVMTypeOf(call), sm * 10, 0));
      LLVMInstructionEraseFromParent(call);
    }
  }
}

/* The functions nvvm.annotations calls kernels ("kernel" = 1). */
typedef struct kernel_list {
  LLVMValueRef *fn;
  size_t n, cap;
  int nomem;
} kernel_list;

static void list_kernel(void *arg, LLVMValueRef entry, unsigned j,
                        LLVMValueRef gv, const char *key, unsigned len,
                        LLVMValueRef value) {
  kernel_list *l = arg;
  (void)entry, (void)j;
  if (!gv || !LLVMIsAFunction(gv) || len != 6 || memcmp(key, "kernel", 6) ||
      LLVMConstIntGetZExtValue(value) != 1 || l->nomem)
    return;
  if (!ks_ir_room(&l->fn, &l->cap, l->n, sizeof *l->fn, 8)) {
    l->nomem = 1;
    return;
  }
  l->fn[l->n++] = gv;
}

/* The module's other kernels are not compiled: the request is for one,
 * and the loaded module only needs that one (codegen would otherwise pay
 * for all of them; their device functions go with them where internal).
 * A kernel something else refers to (llvm.used) stays. Their
 * nvvm.annotations entries lose their function, which the backend skips.
 * 1: out of memory. */
int ks_bind_drop_other_kernels(LLVMModuleRef m, LLVMValueRef keep) {
  enum { CC_PTX_KERNEL = 71 };
  kernel_list l = {0};
  if (each_annotation(m, list_kernel, &l) || l.nomem) {
    free(l.fn);
    return 1;
  }
  LLVMValueRef next;
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = next) {
    next = LLVMGetNextFunction(fn);
    if (fn == keep || LLVMIsDeclaration(fn) || LLVMGetFirstUse(fn))
      continue;
    int kernel = LLVMGetFunctionCallConv(fn) == CC_PTX_KERNEL;
    for (size_t i = 0; i < l.n && !kernel; i++)
      kernel = l.fn[i] == fn;
    if (kernel)
      LLVMDeleteFunction(fn);
  }
  free(l.fn);
  return 0;
}

int ks_pass_bind(LLVMModuleRef m, const ks_spec *s, ks_diag *d) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, s->kernel);
  if (!fn || LLVMIsDeclaration(fn))
    return ks_diag_fail(d, KS_ENOKERNEL, "bind: no kernel '%s'", s->kernel);
  if (bind_values(fn, s, d) || add_bounds(m, fn, s, d))
    return 1;
  if (ks_bind_drop_other_kernels(m, fn))
    return ks_diag_fail(d, KS_ENOMEM, "bind: out of memory");
  bind_block(fn, s);
  ks_bind_retarget(m, s);
  reflect_arch(m, s);
  /* The markings have been read; their strings must not reach the PTX. */
  LLVMValueRef ga = LLVMGetNamedGlobal(m, "llvm.global.annotations");
  if (ga)
    LLVMDeleteGlobal(ga);
  return 0;
}
