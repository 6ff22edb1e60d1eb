/*
 * ks_ir.h - internal interface of ir/: templates in, modules out. Parsing
 * (bitcode or text), verification, the NVPTX check, discovery of kernels and
 * their parameters from the template markings; and what the passes share
 * about IR: the control-flow graph (cfg.c), questions about instructions
 * (inst.c) and changes to modules (edit.c). Knows nothing of CUDA.
 *
 * Every function that can fail writes a one-line message to (err, cap),
 * prefixed with its stage ("parse: ", "verify: ", "template: ").
 */
#ifndef KS_IR_H
#define KS_IR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>

#include "kspec.h"

/* printf into err, never overflowing; returns s so callers can
 * `return ks_ir_fail(err, cap, KS_EPARSE, "...")`. */
ks_status ks_ir_fail(char *err, size_t cap, ks_status s, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* printf into why, never overflowing; returns -1, for checks that answer
 * 0 or -1 and why: `return ks_ir_why(why, cap, "truncated")`. */
int ks_ir_why(char *why, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Room for one more element in a growable array: when n, the elements in
 * use, has reached *cap, the array whose pointer is at pp (a T **, elements
 * of elem bytes) is reallocated to twice *cap, or to first when empty.
 * 0 when memory ran out, the array and *cap as they were. */
int ks_ir_room(void *pp, size_t *cap, size_t n, size_t elem, size_t first);

/* ---- ir.c -------------------------------------------------------------- */

/* A fresh LLVM context whose diagnostics are captured into *sink (a buffer
 * of ks_ir_diag_cap bytes that must outlive the context) instead of
 * printed; LLVM's default handler would exit the process on errors. */
enum { KS_IR_DIAG_CAP = 512 };
LLVMContextRef ks_ir_context_create(char *sink);

/* Parses len bytes (bitcode or IR text) into a module of ctx. name is used in
 * messages. KS_EIO for empty input, KS_EPARSE otherwise. */
ks_status ks_ir_parse(LLVMContextRef ctx, const void *data, size_t len,
                      const char *name, LLVMModuleRef *out, char *err,
                      size_t cap);

/* LLVMVerifyModule; KS_EVERIFY with the verifier's first line. */
ks_status ks_ir_verify(LLVMModuleRef m, const char *name, char *err,
                       size_t cap);

/* KS_ETARGET unless the triple is nvptx/nvptx64. */
ks_status ks_ir_check_target(LLVMModuleRef m, const char *name, char *err,
                             size_t cap);

/* Writes m as bitcode into a malloc'd buffer (*out, *len). */
ks_status ks_ir_to_bitcode(LLVMModuleRef m, unsigned char **out, size_t *len,
                           char *err, size_t cap);

/* Module text, malloc'd (LLVM's copy is disposed at once). */
char *ks_ir_print(LLVMModuleRef m);

/* Static shared memory of kernel: the bytes of the shared (addrspace 3)
 * variables it and the functions it calls use, with alignment padding. */
unsigned long long ks_ir_shared_bytes(LLVMModuleRef m, LLVMValueRef kernel);

/* Bytes of the module's constant (addrspace 4) variables. */
unsigned long long ks_ir_const_bytes(LLVMModuleRef m);

/* Bytes of all the shared-memory (address space 3) globals of m, without
 * padding: the passes' budget (ks_ir_shared_bytes is the exact static
 * shared memory of one kernel). */
unsigned ks_ir_shared_globals(LLVMModuleRef m);
/* Aligns each shared array of 16 bytes or more defined in m at 16 bytes
 * at least; returns how many it changed. For PTX compiled as relocatable
 * code (a program linking kspec's PTX with its own through the driver's
 * linker, or ptxas -c): ptxas knows a shared array's address only as its
 * declared alignment then, and merges no loads wider than it (four LDS
 * where a whole-program compile, which places the arrays itself, makes
 * one LDS.128). Costs at most 12 bytes of padding an array. */
unsigned ks_ir_align_shared(LLVMModuleRef m);

/* ---- inst.c ------------------------------------------------------------ */

/* The name of the function a call calls, "" for inline asm or an indirect
 * call. */
const char *ks_ir_callee_name(LLVMValueRef call);
/* The special register a call reads ("tid.x" for a call of
 * llvm.nvvm.read.ptx.sreg.tid.x), or NULL for anything else. */
const char *ks_ir_sreg(LLVMValueRef v);
/* Is special register r ("tid.x") one that places a thread in the launch:
 * tid, ntid, ctaid or nctaid? */
int ks_ir_sreg_launch(const char *r);
/* Which min or max intrinsic v calls: 1 + 2 * signed + max (umin 1, umax 2,
 * smin 3, smax 4); 0 for anything else. */
int ks_ir_minmax(LLVMValueRef v);
/* Is v one of a[0..n)? */
int ks_ir_value_in(const LLVMValueRef *a, size_t n, LLVMValueRef v);
/* Is op one of LLVM's integer binary operators: add, sub, mul, the
 * divisions and remainders, the shifts, and, or, xor? */
int ks_ir_int_binop(LLVMOpcode op);
/* Is f a declaration of a libdevice function that m calls out of line,
 * its PTX spliced in after codegen (passes/math_outline.c lists them in
 * m's named metadata kspec.outlined)? */
int ks_ir_outlined(LLVMModuleRef m, LLVMValueRef f);
/* Is call an intrinsic, or a libdevice function called out of line
 * (ks_ir_outlined), that writes no memory a kernel shares (lifetime, dbg,
 * assume, or memory(...) without a mod bit)? */
int ks_ir_pure_call(LLVMValueRef call);
/* The barriers of LLVM 19's NVVM intrinsics, by the threads they wait for:
 * the block or a named barrier's threads (__syncthreads: barrier0 and its
 * .and/.or/.popc forms, barrier, barrier.n, barrier.sync, barrier.sync.cnt,
 * bar.sync: cooperative groups' sync), the warp (bar.warp.sync:
 * __syncwarp), the cluster (barrier.cluster.arrive/wait and their
 * .relaxed/.aligned forms). */
enum { KS_BARRIER_NONE, KS_BARRIER_BLOCK, KS_BARRIER_WARP, KS_BARRIER_CLUSTER };
/* Which barrier i calls: KS_BARRIER_*, NONE for anything else. Every pass
 * that reasons about barriers asks this, so that no form is missed. */
int ks_ir_barrier_kind(LLVMValueRef i);
/* Is i a call of a barrier of any kind (ks_ir_barrier_kind)? */
int ks_ir_is_barrier(LLVMValueRef i);
/* The object a pointer is derived from, through GEPs and casts. */
LLVMValueRef ks_ir_base_of(LLVMValueRef p);
/* The address space p really points into: the first other than generic
 * (0) met on the way back through GEPs, bitcasts and address-space casts,
 * instructions or constant expressions (clang's `addrspacecast (ptr
 * addrspace(3) @tile to ptr)` is shared memory), an alloca being local
 * memory (5); 0 when nothing tells. */
unsigned ks_ir_addrspace(LLVMValueRef p);
/* Is call dead: its value unused, and it writes no memory, cannot unwind
 * and returns (inline asm without side effects, whose value alone is its
 * effect; a function or intrinsic of memory(none) or memory(read), nounwind,
 * willreturn or mustprogress)? LLVM keeps such calls where willreturn is
 * missing, as on cooperative groups' inline asm. */
int ks_ir_dead_call(LLVMValueRef call);
/* Is call inline asm without side effects that touches no memory
 * (memory(none): clang's asm without memory operands or clobber)? Its
 * value is all it does, though what it reads (%laneid, %smid, ...) only
 * its text says. */
int ks_ir_asm_pure(LLVMValueRef call);
/* Is call a warp-level exchange of registers (shfl.sync, vote.sync,
 * match.sync, redux.sync, activemask)? Convergent, but it neither accesses
 * nor orders memory: in PTX's memory model only bar.warp.sync does, within
 * a warp (a barrier: ks_ir_barrier_kind). */
int ks_ir_warp_exchange(LLVMValueRef call);
/* Deletes the dead calls (ks_ir_dead_call) of m's functions, and those
 * that deleting them leaves dead; returns how many. */
unsigned ks_ir_drop_dead_calls(LLVMModuleRef m);
/* Does a function of m call another function m defines (a call the
 * inliner left)? */
int ks_ir_calls_defined(LLVMModuleRef m);
/* The position of argument arg in its function's parameter list. */
unsigned ks_ir_param_index(LLVMValueRef arg);
/* The predicate of !(a p b), and of b p a (a p b with its sides swapped). */
LLVMIntPredicate ks_ir_icmp_inverse(LLVMIntPredicate p);
LLVMIntPredicate ks_ir_icmp_swap(LLVMIntPredicate p);
/* A hash of a pointer, for open addressing over IR values. */
unsigned ks_ir_hash_ptr(const void *p);

/* ---- edit.c ------------------------------------------------------------ */

/* What a one-argument __nvvm_reflect call asks ("__CUDA_FTZ", *n bytes, not
 * NUL-terminated), or NULL when its argument is not the constant string
 * NVVM's reflect pass reads; ks_ir_reflect_is compares it with want. */
const char *ks_ir_reflect_query(LLVMValueRef call, size_t *n);
int ks_ir_reflect_is(LLVMValueRef call, const char *want);

/* A call at b of the intrinsic `name` (not overloaded: the special
 * registers, llvm.nvvm.barrier0), declared in m where it is not yet. */
LLVMValueRef ks_ir_call_intrinsic(LLVMModuleRef m, LLVMBuilderRef b,
                                  const char *name, LLVMValueRef *args,
                                  unsigned n);
/* The same for an overloaded intrinsic (llvm.smin: its types, here one,
 * the operands' type). */
LLVMValueRef ks_ir_call_overloaded(LLVMModuleRef m, LLVMBuilderRef b,
                                   const char *name, LLVMTypeRef *types,
                                   unsigned ntypes, LLVMValueRef *args,
                                   unsigned n);
/* Sets fn's launch-bound annotation reqntid<dim> ("x", "y") to n, the real
 * block after coarsening. 1: out of memory. */
int ks_ir_set_reqntid(LLVMModuleRef m, LLVMValueRef fn, int dim, unsigned n);
/* A symbol for a global that stands for kernel argument arg: prefix and
 * the argument's name with every character PTX does not take in a name
 * made '_', or prefix "arg<index>" for an unnamed one (clang names none at
 * -O1 and above). Writes buf (cap at least 96) and returns it. */
const char *ks_ir_arg_symbol(LLVMValueRef arg, const char *prefix, char *buf,
                             size_t cap);
/* NVPTX keeps the nvvm.annotations it has read (kernel, maxntid, ...) in
 * a process-wide cache keyed by the module's and the function's
 * addresses, and drops a module's entries only when the backend finishes
 * emitting it. A module the optimize stage ran on (nvvm-intr-range reads
 * the annotations) that is freed without being emitted in this process
 * (a trial of the pipeline, codegen in a child, a failure) leaves entries
 * that a later module at the same address inherits: a device function
 * there was emitted as a kernel (.entry). This empties m (its functions
 * and globals deleted) and emits it, which drops its entries; then m can
 * only be disposed of. (A module with an alias, which the screen refuses,
 * is left as it is.) */
void ks_ir_forget_annotations(LLVMModuleRef m, LLVMTargetMachineRef tm);

/* ---- clone.c ----------------------------------------------------------- */

/* Values (instructions, blocks as values) to their copies, by open
 * addressing, for a pass that copies code. */
typedef struct ks_ir_vmap {
  LLVMValueRef *from, *to;
  size_t cap; /* a power of two */
} ks_ir_vmap;
/* Room for n entries; 0 when out of memory. ks_ir_vmap_free in either
 * case (and on a zeroed map). */
int ks_ir_vmap_init(ks_ir_vmap *m, size_t n);
void ks_ir_vmap_free(ks_ir_vmap *m);
/* from's copy is to (at most the n entries of ks_ir_vmap_init). */
void ks_ir_vmap_put(ks_ir_vmap *m, LLVMValueRef from, LLVMValueRef to);
/* v's copy, or v itself where it has none (made outside the copied code). */
LLVMValueRef ks_ir_vmap_get(const ks_ir_vmap *m, LLVMValueRef v);

/* Copies fn's blocks from its first up to stop (exclusive; NULL: all) to
 * the end of fn, instructions, phis, branches and metadata mapped to the
 * copies (debug intrinsics left out): a second version of the body,
 * unreachable until branched to. Returns the copy of the first block, or
 * NULL when out of memory (nothing copied then) or fn has no block. */
LLVMBasicBlockRef ks_ir_clone_blocks(LLVMValueRef fn, LLVMBasicBlockRef stop);

/* Replaces fn by a function of the same name with n more parameters at
 * the end, of types extra[i], named names[i] (hidden arguments a launch
 * appends): linkage, visibility, calling convention, attributes and
 * metadata carried over, the parameters' uses and names moved, the blocks
 * moved, fn's other uses (annotations) pointed at the new function and
 * fn deleted. NULL when out of memory (fn untouched then). */
LLVMValueRef ks_ir_add_params(LLVMValueRef fn, const LLVMTypeRef *extra,
                              const char *const *names, unsigned n);

/* ---- cfg.c ------------------------------------------------------------- */

/* The control-flow graph of a function: its blocks numbered in the
 * function's order (0 the entry), their predecessors, the reverse
 * post-order of the blocks the entry reaches, the back edges of a
 * depth-first walk from the entry (its loops) and the dominator tree. A
 * snapshot: a pass that changes branches builds it again. */
enum { KS_CFG_NONE = ~0u };
typedef struct ks_cfg_key ks_cfg_key;
typedef struct ks_cfg_edge {
  unsigned from, to;
} ks_cfg_edge;
typedef struct ks_cfg {
  LLVMValueRef fn;
  unsigned n;            /* blocks */
  LLVMBasicBlockRef *bb; /* block i */
  /* block i's predecessors, one per edge (a branch with both successors
   * to one block counts twice), in the order of their numbers and of
   * their terminator's successor list: pred[pred_at[i] .. pred_at[i+1]) */
  unsigned *pred_at, *pred;
  unsigned *rpo, nrpo; /* the blocks the entry reaches, rpo[0] = 0 */
  unsigned *rpo_num;   /* block i's place in rpo; KS_CFG_NONE: unreached */
  unsigned *idom;      /* block i's immediate dominator (the entry's is the
                          entry); KS_CFG_NONE: unreached */
  ks_cfg_edge *back;   /* edges to a block still on the walk's path: for a
                          reducible graph, each loop's latches to its
                          header; in the order the walk met them */
  unsigned nback;
  ks_cfg_key *keys; /* private: the blocks by address */
  unsigned *work;   /* private: ks_cfg_reaching's stack */
} ks_cfg;

/* Builds g for fn (a function with a body, or a declaration: no blocks);
 * 1 when out of memory, g then empty. ks_cfg_free(g) in either case (an
 * empty or zeroed g is a no-op). */
int ks_cfg_build(ks_cfg *g, LLVMValueRef fn);
void ks_cfg_free(ks_cfg *g);
/* bb's number; KS_CFG_NONE when it is not a block of g's function (or
 * was added after g was built). */
unsigned ks_cfg_index(const ks_cfg *g, LLVMBasicBlockRef bb);
/* bb's predecessors as blocks (as g->pred lists them), at most max of
 * them stored in out; returns how many there are. */
unsigned ks_cfg_preds(const ks_cfg *g, LLVMBasicBlockRef bb,
                      LLVMBasicBlockRef *out, unsigned max);
/* Block b's one predecessor block (by one edge or several), KS_CFG_NONE
 * when it has none or several. */
unsigned ks_cfg_single_pred(const ks_cfg *g, unsigned b);
/* Does block a dominate block b (every block dominates itself)? 0 when
 * the entry reaches either not. */
int ks_cfg_dominates(const ks_cfg *g, unsigned a, unsigned b);
/* Sets mark[i] (g->n bytes) to 1 for the blocks from which a path of one
 * edge or more leads to block b, to 0 for the others; mark[b] is 1 when b
 * is in a loop. Uses g's scratch: one call on a g at a time. */
void ks_cfg_reaching(ks_cfg *g, unsigned b, unsigned char *mark);

/* ---- discover.c -------------------------------------------------------- */

typedef struct ks_ir_param {
  char *name;
  ks_type type;
  unsigned arg_index;
  unsigned flags; /* KS_PARAM_* */
  double def, min, max;
} ks_ir_param;

/* What an argument is, for binding: a scalar takes a number (-D), a pointer
 * a buffer's contents (--bake); an aggregate (a struct by value, byval) and
 * anything else neither. */
typedef enum ks_ir_arg_kind {
  KS_IR_ARG_SCALAR,
  KS_IR_ARG_POINTER,
  KS_IR_ARG_AGGREGATE,
  KS_IR_ARG_OTHER
} ks_ir_arg_kind;

/* Launch bounds a kernel declares itself (nvvm.annotations). */
enum {
  KS_IR_OWN_MAXNTID = 1u << 0,
  KS_IR_OWN_REQNTID = 1u << 1,
  KS_IR_OWN_MINCTASM = 1u << 2,
  KS_IR_OWN_MAXNREG = 1u << 3,
};

/* The signedness of a scalar integer argument. The IR says it for the
 * small ones (zeroext, signext) and a C++ kernel's symbol for all; an
 * extern "C" kernel's int and long arguments are unknown, and take what
 * either reading allows (as a C caller's conversion would). Bool is
 * unsigned, reals signed. */
typedef enum ks_ir_sign {
  KS_IR_SIGNED,
  KS_IR_UNSIGNED,
  KS_IR_SIGN_UNKNOWN
} ks_ir_sign;

typedef struct ks_ir_arg {
  char *name;  /* "" when the IR has no name for it */
  int pointer; /* a pointer argument (a buffer, or a byval aggregate) */
  ks_ir_arg_kind kind;
  ks_type type;    /* a scalar's (i1..i64, half, float, double) */
  ks_ir_sign sign; /* a scalar's */
  char label[16];  /* "@N", its position as a binding spells it */
} ks_ir_arg;

typedef struct ks_ir_kernel {
  char *name;
  char *display; /* demangled, "scale<float, 4>(float*, int)"; NULL: name */
  char *doc;
  unsigned nargs;
  ks_ir_arg *args;     /* nargs of them */
  unsigned own_bounds; /* KS_IR_OWN_* */
  ks_ir_param *params;
  size_t nparams;
  /* Non-zero: the kernel, or a function it calls, reads the driver's grid
   * workspace (%envreg: the dialect's ks_grid_sync, cooperative groups'
   * this_grid().sync()), which only a cooperative launch sets up. */
  int grid_sync;
} ks_ir_kernel;

typedef struct ks_ir_global ks_ir_global; /* globals.c */

typedef struct ks_ir_desc {
  ks_ir_kernel *kernels;
  size_t nkernels;
  ks_ir_global *globals; /* ks_ir_globals */
  size_t nglobals;
  /* Calls the device library (passes/libdevice.c: ks_libdevice_needed),
   * which is then part of its specializations' cache key. */
  int libdevice;
} ks_ir_desc;

/* Finds the kernels (nvvm.annotations "kernel" entries or the PTX kernel
 * calling convention) and the KS_PARAM / KS_DOC markings of each. Every
 * marking is checked: the argument exists and is a 32/64-bit integer or a
 * float/double, min <= default <= max, no duplicates. KS_ETEMPLATE on a bad
 * marking or a module without kernels. */
ks_status ks_ir_discover(LLVMModuleRef m, const char *name, ks_ir_desc *out,
                         char *err, size_t cap);
void ks_ir_desc_free(ks_ir_desc *d);

/* Is v a value of a parameter of type ty: finite, and for the integer
 * types whole and within their range (the rule for markings, which the
 * template cache checks again on what it reads)? */
int ks_ir_value_fits(ks_type ty, double v);

/* The inclusive range of values of a scalar type of signedness sign: for
 * KS_IR_SIGN_UNKNOWN, from the signed minimum to the unsigned maximum. */
void ks_ir_type_range(ks_type ty, ks_ir_sign sign, double *min, double *max);

/* Fills kind, type, sign and label of argument i of fn into a, from the
 * IR alone (ks_ir_discover also reads a C++ kernel's symbol). */
void ks_ir_arg_describe(LLVMValueRef fn, unsigned i, ks_ir_arg *a);

/* Sets a's label from its position i. */
void ks_ir_arg_label(ks_ir_arg *a, unsigned i);

/* The demangled form of a C++ symbol, with its argument list and without
 * a template's return type ("scale<float, 4>(float*, int)"), malloc'd;
 * NULL when name is no C++ symbol (an extern "C" kernel). */
char *ks_ir_demangle(const char *name);

/* Is F a kernel entry point of m? */
int ks_ir_is_kernel(LLVMModuleRef m, LLVMValueRef fn);

/* ---- signature.c ------------------------------------------------------ */

/* Reads the parameter list of a demangled C++ function name (display,
 * "f<int>(float*, unsigned int)"): sign[i] = 1 for an unsigned integer
 * (or bool), 0 for a signed one, -1 for anything else (pointers, reals,
 * classes, enums, names it does not know). 1 when the list parsed and has
 * exactly nargs entries (sign filled), else 0 (sign partly written). */
int ks_ir_signature_signs(const char *display, unsigned nargs,
                          signed char *sign);

/* ---- globals.c --------------------------------------------------------- */

/* A module-scope __constant__ (addrspace 4) or __device__ (addrspace 1)
 * variable of a template. */
struct ks_ir_global {
  char *name;
  char *type;        /* as C would write it: "float[9]", "struct co {...}" */
  uint64_t bytes;    /* its size (the data layout's allocation size) */
  int constant;      /* addrspace 4 */
  int has_init;      /* a non-zero initializer */
  uint64_t leaves;   /* scalar numbers it holds in memory order (what a bake
                        gives values for); 0 when any part is not a number */
  uint32_t *writers; /* kernels (indices into the description) that may
                        write it, in order */
  uint32_t nwriters;
};

/* Describes m's user globals into d->globals (replacing any there), with
 * the kernels of d (ks_ir_discover first) that may write each: a store, an
 * atomic or a use that lets the address escape, in the kernel or in a
 * function it may call. LLVM's and clang's own globals (llvm.*, "__"
 * names, private ones), declarations and shared memory are left out.
 * KS_ENOMEM only. */
ks_status ks_ir_globals(LLVMModuleRef m, const char *name, ks_ir_desc *d,
                        char *err, size_t cap);
void ks_ir_globals_free(ks_ir_desc *d);
/* d's global called name, or NULL. */
const ks_ir_global *ks_ir_global_find(const ks_ir_desc *d, const char *name);
/* Does kernel (an index into the description) write g? */
int ks_ir_global_written_by(const ks_ir_global *g, size_t kernel);

/* The scalar numbers (integers up to 64 bits, half, bfloat, float, double)
 * a value of type ty holds; 0 when it holds anything else (pointers,
 * vectors). */
uint64_t ks_ir_leaf_count(LLVMTypeRef ty);
/* The scalar number of type want that starts at byte offset off of a
 * value of type ty: its index among ty's numbers in memory order, or -1
 * when no number of that type starts there. With init (a constant of type
 * ty, or NULL), *c gets that number's constant in it (zero where init is
 * undefined). */
int64_t ks_ir_leaf(LLVMTargetDataRef dl, LLVMTypeRef ty, uint64_t off,
                   LLVMTypeRef want, LLVMValueRef init, LLVMValueRef *c);

/* ---- screen.c ---------------------------------------------------------- */

/* KS_ECODEGEN ("codegen: ...") if m has what the NVPTX backend can never
 * compile, whatever values are bound, and LLVM would end the process on:
 * types it has no registers for (fp128, x86_fp80, ppc_fp128, x86_amx,
 * scalable vectors, target extension types), pointers outside NVPTX's
 * address spaces, thread-local, module-scope local or initialized shared
 * variables, static initializers PTX cannot write, global constructors or
 * destructors, ifuncs, symbols that are not PTX identifiers, and
 * __nvvm_reflect calls NVVMReflect cannot read. Run it on a template when
 * it is loaded: some of these crash LLVM's passes before codegen. */
ks_status ks_ir_screen_module(LLVMModuleRef m, const char *tname, char *err,
                              size_t cap);

/* The same on the module codegen will see, plus what binding and the
 * optimizer may have removed: calls to intrinsics the NVPTX backend cannot
 * select or to external functions nothing provides (the libdevice stage
 * has linked what libdevice has), fences and atomic loads or stores stronger
 * than monotonic (LLVM 19 selects neither), conversions between floating point
 * and integers wider than 64 bits, allocas of a run-time size, va_arg of
 * vectors and aggregates, block addresses, aliases before PTX ISA 6.3 (ptx is
 * the ISA codegen emits, x10). *isolate (may be NULL) is set when the module
 * passes but has inline asm or calls llvm.nvvm.* intrinsics not known to select
 * on every architecture and PTX ISA: codegen may end the process on those, so
 * run it where that cannot take the caller down. */
ks_status ks_ir_screen(LLVMModuleRef m, const char *tname, unsigned ptx,
                       int *isolate, char *err, size_t cap);

/* ---- screen_backend.c ---------------------------------------------------
 * A second screen, run after ks_ir_screen on the module codegen will see,
 * with the rules found by fuzzing and by sweeping constructs through
 * llc-19 on sm_60 and sm_90: KS_ECODEGEN if m holds what the NVPTX backend
 * of LLVM 19 cannot compile for sm_<sm> and would end the process on (a
 * fence, an atomic outside the generic, global, shared and local spaces,
 * casts between two specific address spaces, integers wider than 64 bits
 * other than a scalar i128, indirectbr, empty aggregate parameters,
 * llvm.stacksave, inline asm with bad operand references, memory operands
 * or explicit registers, ...). */
ks_status ks_ir_screen_backend(LLVMModuleRef m, unsigned sm, const char *tname,
                               char *err, size_t cap);

/* 0 when NVPTX prints inline asm asm_ (an LLVMInlineAsmValueKind value)
 * for sm_<sm> without ending the process; else -1 and what is wrong in
 * why. */
int ks_ir_screen_asm(LLVMValueRef asm_, unsigned sm, char *why, size_t cap);

#endif /* KS_IR_H */
