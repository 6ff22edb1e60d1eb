/*
 * kspec.h - the public interface of kspec, a JIT specializer for GPU kernels.
 *
 * A template is NVPTX LLVM IR (bitcode or text) holding one or more kernels.
 * Kernel arguments marked as parameters (see templates/kspec_device.h) can be
 * bound to values at run time; kspec folds them into constants, runs its
 * pipeline, emits PTX for the target GPU and loads it through the CUDA
 * driver, which is opened at run time: everything up to PTX works with no
 * GPU and no driver.
 *
 * Conventions
 *  - Handles are opaque. Each create/load has a destroy; destroying NULL is a
 *    no-op.
 *  - Every fallible function returns a ks_status. On failure a one-line
 *    message naming the stage and the cause is kept for the calling thread:
 *    ks_errmsg() returns it.
 *  - Structs the library fills (ks_device_info, ks_param_info,
 *    ks_global_info, ks_kernel_info, ks_kernel_resources, ks_occupancy,
 *    ks_cache_counters, ks_cache_usage, ks_prewarm_result, ks_tune_result,
 *    ks_tune_best) begin with a size_t `size` that the caller sets to the
 *    struct's size before the call, as Win32's cbSize:
 *
 *      ks_kernel_info info = {.size = sizeof info};
 *      ks_kernel_info_get(k, &info);
 *
 *    Fields are only ever appended. A program built against an older
 *    kspec.h passes a smaller size and gets the fields it knows; one built
 *    against a newer kspec.h gets the fields this library knows and zeros
 *    after them, up to its size. A size below the struct's first version
 *    (0: size not set) is KS_EINVAL and nothing is written. The library
 *    never changes `size`. Structs the library allocates or hands to a
 *    callback (ks_tune_entry) carry the library's own size there.
 *  - The library never prints, exits or aborts.
 *  - A ks_ctx may be used from several threads at once; templates are
 *    read-only after loading; kernels belong to their context.
 */
#ifndef KSPEC_H
#define KSPEC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define KS_API
#else
#define KS_API __attribute__((visibility("default")))
#endif

/* The version of this header: the one source of the version number
 * (CMakeLists.txt reads project()'s VERSION from these three lines). */
#define KSPEC_VERSION_MAJOR 0
#define KSPEC_VERSION_MINOR 3
#define KSPEC_VERSION_PATCH 0
/* MAJOR * 1000000 + MINOR * 1000 + PATCH (3000 for 0.3.0), as SQLite's
 * SQLITE_VERSION_NUMBER: compare it with ks_version(). */
#define KSPEC_VERSION_NUMBER                                                   \
  (KSPEC_VERSION_MAJOR * 1000000 + KSPEC_VERSION_MINOR * 1000 +                \
   KSPEC_VERSION_PATCH)
#define KSPEC__STR(x) #x
#define KSPEC__XSTR(x) KSPEC__STR(x)
/* "0.3.0" */
#define KSPEC_VERSION_STRING                                                   \
  KSPEC__XSTR(KSPEC_VERSION_MAJOR)                                             \
  "." KSPEC__XSTR(KSPEC_VERSION_MINOR) "." KSPEC__XSTR(KSPEC_VERSION_PATCH)

typedef struct ks_ctx ks_ctx;
typedef struct ks_template ks_template;
typedef struct ks_kernel ks_kernel;

/* ---- status codes --------------------------------------------------- */

/* X(name, message): one list makes the enum, the names and the messages. */
#define KS_STATUS_LIST(X)                                                      \
  X(OK, "success")                                                             \
  X(EINVAL, "invalid argument")                                                \
  X(ENOMEM, "out of memory")                                                   \
  X(EIO, "cannot read input")                                                  \
  X(EPARSE, "template does not parse as LLVM IR")                              \
  X(EVERIFY, "template fails the LLVM verifier")                               \
  X(ETARGET, "template is not NVPTX IR")                                       \
  X(ETEMPLATE, "malformed template markings")                                  \
  X(ENOKERNEL, "no such kernel")                                               \
  X(EPARAM, "bad parameter binding")                                           \
  X(ERANGE, "value out of range")                                              \
  X(EARCH, "unknown or unsupported GPU architecture")                          \
  X(EBOUNDS, "launch bounds or launch size over the limits")                   \
  X(EPASS, "optimization pipeline failed")                                     \
  X(ECODEGEN, "PTX code generation failed")                                    \
  X(ENODRIVER, "CUDA driver not available")                                    \
  X(ENODEVICE, "no CUDA device")                                               \
  X(EDRIVER, "CUDA driver call failed")                                        \
  X(ELOAD, "the driver rejected the PTX")                                      \
  X(ELAUNCH, "kernel launch failed")                                           \
  X(ETIMEOUT, "timed out")                                                     \
  X(EFAULT, "device fault: the context is lost")

typedef enum ks_status {
#define KS_STATUS_ENUM(name, msg) KS_##name,
  KS_STATUS_LIST(KS_STATUS_ENUM)
#undef KS_STATUS_ENUM
      KS_STATUS_COUNT
} ks_status;

/* "KS_EPARAM" and so on; "KS_?" for values outside the list. Static. */
KS_API const char *ks_status_name(ks_status s);
/* The fixed message of a status code. Static. */
KS_API const char *ks_status_str(ks_status s);

/* The version of the library that is running, as KSPEC_VERSION_NUMBER
 * (which gives the header's a program was built against) and as text. */
KS_API int ks_version(void);
KS_API const char *ks_version_string(void);

/* The detailed message of the calling thread's last failure, naming the
 * stage ("bind: unknown parameter 'FOO' of kernel 'conv1d'"). Messages are
 * kept per thread, not per context: two threads failing on one context
 * each read their own, and calls that take no context (ks_template_param,
 * ks_occupancy_calc, ks_binding_parse) report the same way. ctx is not
 * used (it may be NULL or any context). Read it right after a call that
 * returned a failure: it is that call's message until the thread's next
 * call into kspec. After a call that succeeded it is "no error" or a
 * message that call recovered from (a damaged disk cache entry that was
 * then rebuilt): it tells nothing about the success. ks_future_wait sets
 * the waiting thread's message to the background compile's. Never NULL;
 * valid until the thread's next call into kspec. */
KS_API const char *ks_errmsg(const ks_ctx *ctx);

/* ---- context -------------------------------------------------------- */

typedef struct ks_ctx_opts {
  /* Target architecture, "sm_75".."sm_90a". NULL: the device's, or sm_90
   * when no driver or device can be found. */
  const char *arch;
  /* PTX ISA version times ten (85 = 8.5). 0: the highest the LLVM backend
   * emits that the driver, when present, accepts. 90: the PTX loads as 9.0;
   * LLVM emits 8.5, which a request's smem_spill raises to 9.0. */
  unsigned ptx_isa;
  /* CUDA device ordinal used for loading and launching. */
  int device;
  /* Non-zero: never open the CUDA driver (PTX only). */
  int no_driver;
  /* Non-zero: no disk cache (as with the environment KSPEC_CACHE=off). */
  int no_disk_cache;
  /* The disk cache's directory. NULL: $KSPEC_CACHE_DIR, else
   * $XDG_CACHE_HOME/kspec, else ~/.cache/kspec. It is created mode 0700,
   * and refused (a warning, no disk caching) when it is a symlink, belongs
   * to another user or is writable by group or others. */
  const char *cache_dir;
  /* Size limit of the disk cache in bytes; least recently used entries go
   * first. 0: $KSPEC_CACHE_MAX ("512M", "2G"), else 256 MiB. */
  uint64_t cache_max;
  /* Background compiles (ks_specialize_async) run on up to this many
   * threads, started on first use. 0: $KSPEC_JOBS, else the number of
   * online CPUs, at most 8. */
  unsigned jobs;
  /* Non-NULL: append every specialization this context compiles or reads
   * from the disk cache to this file, one line per request, for `kspec
   * prewarm` (as with the environment KSPEC_RECORD=FILE, which is used
   * when this is NULL). A file that cannot be opened is a warning. */
  const char *record;
} ks_ctx_opts;

/* Creates a context. opts may be NULL for defaults. Unless no_driver is
 * set, the driver is opened now when arch or ptx_isa is left to be chosen
 * (they come from the device and the driver version) and otherwise on first
 * use; a missing driver or device is not an error here.
 * Errors: KS_EINVAL, KS_EARCH, KS_ENOMEM. */
KS_API ks_status ks_ctx_create(const ks_ctx_opts *opts, ks_ctx **out);
/* Destroys a context with its cache, kernels and loaded modules. Queued
 * background compiles are dropped and running ones waited for; futures not
 * yet freed are left finished with KS_EINVAL ("context destroyed") and must
 * still be freed with ks_future_free. No other call on ctx, its kernels or
 * its futures may run concurrently with it. */
KS_API void ks_ctx_destroy(ks_ctx *ctx);

/* Says that this process's LLVM is kspec's alone, so that kspec may set
 * LLVM's process-wide command-line options for faster codegen: code
 * generation then starts after NVPTX's IR passes, which kspec's own last
 * stage does only where a kernel needs them, and five machine passes whose
 * work ptxas redoes are skipped. Specialization is faster and ptxas's
 * machine code of most kernels shorter (BENCHMARKS.md gives the figures).
 * Call it before the first ks_ctx_create of the process, from a program
 * that uses no other LLVM code: those options would change every compile
 * of the libLLVM kspec shares with the rest of the process (Mesa's
 * llvmpipe, a JIT of the program's own), and once set they stay. Without
 * this call (the default), kspec sets no LLVM option and leaves the
 * process's LLVM as it found it. With LLVM linked statically into
 * libkspec (CMake KSPEC_LLVM_STATIC), LLVM is hidden inside it and kspec's
 * alone: the options are always set there, and this call changes nothing.
 * Thread-safe. Errors: KS_EINVAL when a context was created before
 * without the options (they then stay unset for the process's life). */
KS_API ks_status ks_llvm_own_process(void);

/* The first thing that went wrong without being an error (a refused or
 * unwritable cache directory: caching goes on in memory only), or "" when
 * nothing did. Valid as long as ctx. */
KS_API const char *ks_ctx_warning(const ks_ctx *ctx);

/* The architecture ("sm_90") and PTX ISA (85) this context compiles for. */
KS_API const char *ks_ctx_arch(const ks_ctx *ctx);
KS_API unsigned ks_ctx_ptx_isa(const ks_ctx *ctx);

/* What the device reports. Requires a driver and a device. */
typedef struct ks_device_info {
  size_t size; /* set by the caller: sizeof(ks_device_info) */
  char name[128];
  int sm; /* 90 for sm_90 */
  int multiprocessors;
  int max_threads_per_block;
  int max_block_dim[3];
  int max_grid_dim[3];
  int max_regs_per_block;
  int max_regs_per_sm;
  int max_smem_per_block; /* bytes, without opt-in */
  int max_smem_per_block_optin;
  int max_smem_per_sm;
  int max_threads_per_sm;
  int warp_size;
  int driver_version; /* 13000 for CUDA 13.0 */
  size_t total_mem;
  int cooperative_launch; /* takes cooperative launches (grid-wide sync) */
  int cluster_launch;     /* takes thread-block clusters (sm_90 and later) */
  /* The driver's compute mode: 0 default (any process may open the GPU),
   * 2 prohibited, 3 exclusive to one process (CUcomputemode). */
  int compute_mode;
  /* The CUDA devices the driver sees (ordinals 0 .. device_count - 1). */
  int device_count;
} ks_device_info;

/* Errors: KS_ENODRIVER, KS_ENODEVICE, KS_EDRIVER. */
KS_API ks_status ks_device_query(ks_ctx *ctx, ks_device_info *out);

/* ---- templates ------------------------------------------------------ */

/* Number and names of the templates built into the library. */
KS_API size_t ks_builtin_count(void);
KS_API const char *ks_builtin_name(size_t i);

/* Loads a template: a built-in name ("conv1d") or a path to a .ll or .bc
 * file. The IR is parsed, verified and checked to be NVPTX; its kernels and
 * parameters are discovered (with ctx's disk cache, bytes that loaded
 * before are described from the cache instead, without parsing; ctx may be
 * NULL: no cache). The template is independent of ctx's lifetime
 * only for reading its description; specialize with the same ctx.
 * Bitcode from outside the library is first read in a child process (a
 * fork), since LLVM's bitcode reader may crash on damaged bitcode; IR the
 * NVPTX backend could never compile, whatever the values, is refused here
 * (KS_ECODEGEN) rather than left to end the process in codegen.
 * Errors: KS_EIO, KS_EPARSE, KS_EVERIFY, KS_ETARGET, KS_ETEMPLATE,
 * KS_ECODEGEN. */
KS_API ks_status ks_template_load(ks_ctx *ctx, const char *name_or_path,
                                  ks_template **out);
/* The same from memory (bitcode or NUL-free IR text of len bytes); name is
 * used in messages. The bytes are copied. */
KS_API ks_status ks_template_load_mem(ks_ctx *ctx, const char *name,
                                      const void *data, size_t len,
                                      ks_template **out);
KS_API void ks_template_destroy(ks_template *t);

KS_API const char *ks_template_name(const ks_template *t);
KS_API size_t ks_template_kernel_count(const ks_template *t);
/* Kernel i's symbol: "conv1d", or a C++ kernel's mangled name
 * ("_Z5scaleIfLi4EEvPT_i"). */
KS_API const char *ks_template_kernel_name(const ks_template *t, size_t i);
/* Kernel i's name as people write it: a C++ kernel's demangled name with
 * its argument list ("scale<float, 4>(float*, int)"), else its symbol.
 * Lives as long as t; NULL for an i out of range.
 *
 * C++ templates are how a kernel is specialized on a type: compile the
 * instantiations wanted (`template __global__ void scale<float, 4>(float*,
 * int);` or launches that instantiate them) into the template file, and
 * pick one with ks_spec_req.kernel, which takes the symbol, the demangled
 * name with or without the argument list ("scale<float,4>": blanks after
 * commas do not matter), or a prefix of it that only one kernel has
 * ("scale" when there is one instantiation). Scalar arguments of every
 * instantiation are then bound like any other (ks_binding). */
KS_API const char *ks_template_kernel_display(const ks_template *t, size_t i);
/* One-line description from the template's KS_DOC marking, or "". */
KS_API const char *ks_template_kernel_doc(const ks_template *t, size_t i);
/* Non-zero when kernel i synchronizes the whole grid: it, or a function it
 * calls, reads the driver's grid workspace (%envreg), as the dialect's
 * ks_grid_sync() and cooperative groups' this_grid().sync() do. Its
 * launches are then cooperative (ks_launch_ex), all blocks resident at
 * once. A specialization whose bindings remove every grid barrier loses
 * the need: ks_kernel_info.grid_sync says what the compiled kernel needs.
 * 0 for an i out of range. */
KS_API int ks_template_kernel_cooperative(const ks_template *t, size_t i);

/* The type of a scalar argument. An integer's signedness comes from the
 * IR where it says (clang marks bool, unsigned char and unsigned short
 * zeroext, signed char and short signext) and from a C++ kernel's symbol
 * (its parameter types: `unsigned int`, `unsigned long long`, ...).
 * Where neither says (an int or long argument of an extern "C" kernel),
 * ks_param_info.sign_unknown is set and a value of either reading is
 * taken, as a C caller's conversion would ([-2^31, 2^32 - 1] for 32
 * bits): 3000000000 and -1294967296 bind the same bits. */
typedef enum ks_type {
  KS_TYPE_I32,
  KS_TYPE_I64,
  KS_TYPE_F32,
  KS_TYPE_F64,
  KS_TYPE_I8,
  KS_TYPE_I16,
  KS_TYPE_F16,
  KS_TYPE_BOOL /* i1: 0 or 1 ("true" and "false" as text) */
} ks_type;

/* How a parameter relates to the launch: binding it also fixes the block. */
enum {
  KS_PARAM_BLOCK_X = 1u << 0, /* blockDim.x == value */
  KS_PARAM_BLOCK_Y = 1u << 1, /* blockDim.y == value */
};

/* A parameter: any scalar argument of a kernel. A marked one (KS_PARAM in
 * kspec_device.h) has a default, its own range and maybe block ties; an
 * unmarked one has the range of its type and no default (unbound, it stays
 * an argument). */
typedef struct ks_param_info {
  size_t size;        /* set by the caller: sizeof(ks_param_info) */
  const char *name;   /* argument name, "FILTER_LEN"; "@3" for an argument
                         the IR has no name for (bind it by position) */
  const char *kernel; /* owning kernel */
  ks_type type;
  unsigned arg_index;   /* position among the kernel's arguments */
  unsigned flags;       /* KS_PARAM_* */
  double def, min, max; /* default (0 when unmarked) and inclusive range */
  int marked;           /* non-zero: a KS_PARAM marking describes it */
  int is_unsigned;      /* an unsigned integer (see ks_type) */
  int sign_unknown;     /* an integer of unknown signedness (see ks_type) */
} ks_param_info;

/* Parameters of kernel i (strings live as long as the template): the
 * marked ones first, in the order of their markings, then every other
 * scalar argument in the order of the arguments. Pointer and by-value
 * struct arguments are not parameters. */
KS_API size_t ks_template_param_count(const ks_template *t, size_t kernel);
KS_API ks_status ks_template_param(const ks_template *t, size_t kernel,
                                   size_t i, ks_param_info *out);
KS_API const char *ks_type_name(ks_type ty);

/* ---- specialization ------------------------------------------------- */

typedef enum ks_value_kind {
  KS_VALUE_INT,  /* v.i */
  KS_VALUE_REAL, /* v.f */
  KS_VALUE_TEXT  /* v.s, parsed by the parameter's type */
} ks_value_kind;

/* A value for a scalar argument, marked or not. The argument is named
 * (name, which the IR keeps only when compiled with clang's
 * -fno-discard-value-names) or given by position: name "@3", or name NULL
 * and arg 3 (counted from 0 among all the kernel's arguments). The value
 * must lie in the argument's range (ks_param_info). However a request
 * spells its bindings, the same values make the same kernel (one cache
 * key). Binding a pointer or a by-value struct is KS_EPARAM (a read-only
 * buffer's contents can be baked instead: ks_bake). */
typedef struct ks_binding {
  const char *name;
  ks_value_kind kind;
  union {
    int64_t i;
    double f;
    const char *s;
  } v;
  int arg; /* the position, when name is NULL */
} ks_binding;

/* Parses "NAME=VALUE" (or "@POSITION=VALUE") into a text binding pointing
 * into text (not copied). Errors: KS_EPARAM. */
KS_API ks_status ks_binding_parse(const char *text, ks_binding *out,
                                  char *name_buf, size_t name_cap);

/* Launch bounds; 0 leaves a field unset. block[] fixes blockDim (folded into
 * the code and emitted as .reqntid); maxntid becomes .maxntid, minctasm
 * .minnctapersm, maxnreg .maxnreg. */
typedef struct ks_launch_bounds {
  unsigned block[3];
  unsigned maxntid;
  unsigned minctasm;
  unsigned maxnreg;
} ks_launch_bounds;

/* The contents of a read-only buffer argument, known when specializing
 * (`--bake f=0.1,0.2,0.4`): loads of its first n elements at indices known
 * after binding become immediates. The kernel must then be launched with a
 * buffer holding exactly these values (converted to its element type, as a
 * C cast does), which nothing changes while it runs (no other argument may
 * overlap it and be written). A kernel that writes the argument itself, or
 * loads it with more than one type, is left as it is (ks_kernel_explain
 * says so); loads at other indices stay loads.
 *
 * arg may also name a module global (when no argument has that name; see
 * "module globals" below) that the kernel only reads: a __constant__
 * filter's taps, a __device__ table. values then gives every number it
 * holds, in memory order (a struct's fields in order, arrays element by
 * element): KS_EPARAM unless n is exactly that count. values NULL and n 0
 * bake the initializer the template gives it (KS_EPARAM when it has none:
 * all zero, which is what clang gives a __constant__ the host sets). Loads of
 * its numbers at offsets known after binding become immediates, and the
 * specialization's own copy of the global starts with the baked values,
 * so the loads left read them too: do not write a baked global
 * (ks_kernel_global_write). A global the kernel writes (a store, an
 * atomic, its address passed on) is KS_EPARAM, as is a value its type
 * cannot hold. */
typedef struct ks_bake {
  const char *arg; /* the pointer argument's or the global's name */
  const double *values;
  size_t n;
} ks_bake;

/* Floating-point modes of a specialization (ks_spec_req.fp), as nvcc's
 * flags; 0 is nvcc's default (denormals kept, division and square root
 * rounded as IEEE 754 says). They apply to the kernel's own arithmetic and
 * to the libdevice functions it calls, whose __nvvm_reflect queries
 * (__CUDA_FTZ, __CUDA_PREC_DIV, __CUDA_PREC_SQRT) they answer. */
enum {
  KS_FP_FTZ = 1u << 0,         /* --ftz=true: f32 denormals flushed to 0 */
  KS_FP_APPROX_DIV = 1u << 1,  /* --prec-div=false: f32 division to 2 ulp */
  KS_FP_APPROX_SQRT = 1u << 2, /* --prec-sqrt=false: approximate sqrtf */
  /* --use_fast_math: the three above, division as div.approx (as
   * __fdividef), and libdevice's float functions with a fast form in that
   * form (expf as __expf: __nv_fast_expf, sinf, cosf, tanf, logf, log2f,
   * log10f, exp10f, powf, sincosf) */
  KS_FP_FAST_MATH = 1u << 3,
  KS_FP_ALL = 15u
};

typedef struct ks_spec_req {
  /* The kernel: symbol, demangled name or unambiguous prefix (see
   * ks_template_kernel_display); NULL: the template's only kernel. */
  const char *kernel;
  const ks_binding *bindings; /* parameters to fold */
  size_t nbindings;
  ks_launch_bounds bounds;
  /* Non-NULL: the IR after this pipeline stage is kept (ks_kernel_ir). */
  const char *dump_stage;
  /* Optional passes to switch off, by name (ks_stage_optional). */
  const char *const *no_pass;
  size_t nno_pass;
  const ks_bake *bakes;
  size_t nbakes;
  /* Non-zero: let ptxas spill registers to shared memory before local
   * memory (`.pragma "enable_smem_spilling"`, PTX ISA 9.0, CUDA 13; the
   * PTX's .version is raised to 9.0). Needs launch bounds (a fixed block or
   * maxntid), sm_75 or later, a loader that accepts PTX ISA 9.0 and a
   * kernel without dynamic shared memory: KS_EPARAM otherwise. */
  int smem_spill;
  /* Floating-point modes, KS_FP_* bits (`kspec --ftz`, --prec-div=0,
   * --prec-sqrt=0, --fast-math); 0: nvcc's defaults. Part of the cache key.
   * Other bits: KS_EPARAM. */
  unsigned fp;
  /* Pointer arguments, by name, whose every read is a sampling function
   * of the dialect (kspec_device.h's ks_sample1d/2d/3d; `kspec --tex
   * ARG`): those reads become hardware texture fetches, the texture object
   * made by ks_launch from the launch's own arguments (ks_launch_plan.tex_*;
   * 3-D: over a copy of the array that every launch makes first). Part of
   * the cache key. An argument the kernel writes, reads other than
   * through the sampling functions or samples with what the hardware
   * cannot (a filter or size not known from the arguments, linear
   * filtering of integers read as values) is KS_EPASS, naming it. */
  const char *const *tex;
  size_t ntex;
} ks_spec_req;

/* The pipeline's stage names, in order ("input", "bind", ...). */
KS_API size_t ks_stage_count(void);
KS_API const char *ks_stage_name(size_t i);
/* Non-zero when stage i is an optional pass that a request can switch off
 * (ks_spec_req.no_pass, `kspec --no-pass NAME`). */
KS_API int ks_stage_optional(size_t i);

/* Specializes a kernel of t: binds values and launch bounds, optimizes, emits
 * PTX. The kernel is owned by ctx and cached: an identical request returns
 * the same kernel. Unbound parameters stay arguments, so the generic and
 * the specialized kernel take the same argument list. What LLVM's NVPTX
 * backend would end the process on is refused before codegen (KS_ECODEGEN);
 * inline asm and llvm.nvvm.* intrinsics that only some targets have are
 * compiled in a child process (a fork), whose failure is KS_ECODEGEN too.
 * Static shared memory over 48 KiB a block or constant memory over 64 KiB
 * is KS_EBOUNDS.
 * Errors: KS_ENOKERNEL, KS_EPARAM, KS_ERANGE, KS_EBOUNDS, KS_EPASS,
 * KS_ECODEGEN, KS_ENOMEM. */
KS_API ks_status ks_specialize(ks_ctx *ctx, const ks_template *t,
                               const ks_spec_req *req, ks_kernel **out);

/* ---- asynchronous specialization --------------------------------------
 *
 * The pattern: start the specialized compile in the background, launch the
 * generic kernel meanwhile, switch when it is ready:
 *
 *   ks_future *f;
 *   ks_specialize_async(ctx, t, &req, &f);
 *   for (...)
 *     ks_launch(ks_future_kernel_or(f, generic), grid, block, 0, s, args);
 *   ks_future_free(f);
 *
 * The compile runs ks_specialize on one of the context's worker threads
 * (ks_ctx_opts.jobs), so it shares the caches and their single flight: an
 * asynchronous and a synchronous request for the same key compile once. */

typedef struct ks_future ks_future;

/* Starts specializing a kernel of t in the background; *out gets a future
 * to poll, wait for and free. req is copied deeply (names, values, bakes):
 * the caller's memory may go at once; t must stay until ks_future_free.
 * Every error of the specialization itself is reported by ks_future_wait.
 * Errors: KS_EINVAL (NULL argument, no_pass or bakes NULL with a count),
 * KS_ENOMEM, KS_EDRIVER (no worker thread could be started). */
KS_API ks_status ks_specialize_async(ks_ctx *ctx, const ks_template *t,
                                     const ks_spec_req *req, ks_future **out);
/* Non-zero once the compile has finished (well or not). Never blocks. */
KS_API int ks_future_ready(const ks_future *f);
/* Blocks until the compile has finished and returns its status; *k (may be
 * NULL) gets the kernel, owned by the context, or NULL on failure, when
 * ks_errmsg gives the compile's message. May be called again, from any
 * thread. */
KS_API ks_status ks_future_wait(ks_future *f, ks_kernel **k);
/* The specialized kernel once it is ready and compiled well, else
 * fallback (also after a failure). Never blocks: call it before every
 * launch. */
KS_API ks_kernel *ks_future_kernel_or(const ks_future *f, ks_kernel *fallback);
/* Frees f. A compile still queued is dropped; one running is waited for
 * (so that nothing uses t or ctx after this returns); a kernel already
 * made stays in the context's cache. NULL is a no-op. */
KS_API void ks_future_free(ks_future *f);

/* ---- prewarming ----------------------------------------------------------
 *
 * A context with ks_ctx_opts.record (or KSPEC_RECORD=FILE) appends one line
 * per specialization it compiles or reads from the disk cache (not memory
 * hits), with a single write on a file opened O_APPEND, so that several
 * processes may record into one file:
 *
 *   kspec-req-1 conv1d 9f...e1 kernel=conv1d block=256,0,0 maxntid=0
 *     minctasm=0 maxnreg=0 D:FILTER_LEN=32 no_pass=unroll bake:w=0.5,0.25
 *
 * (one line): the template (a built-in name or an absolute path) and its
 * content hash, the kernel, the launch bounds as requested, then the
 * bindings, the passes switched off and the baked buffers (values as
 * "%.17g", exact). Spaces, controls, bytes outside ASCII, '%', ',' and '='
 * in names and values are written %XX. dump_stage is not recorded. */

typedef struct ks_prewarm_result {
  size_t size;         /* set by the caller: sizeof(ks_prewarm_result) */
  uint64_t requests;   /* lines read (duplicates included) */
  uint64_t compiled;   /* compiled now (and stored in the disk cache) */
  uint64_t cached;     /* already in the disk cache */
  uint64_t duplicates; /* the same request as an earlier line */
  uint64_t failed;     /* could not be read, loaded or compiled */
} ks_prewarm_result;

/* Compiles every request of a recorded file into ctx's caches (the disk
 * cache included, so that later processes find them), on ctx's worker
 * threads, for ctx's architecture. Each failed line is reported as
 * on_fail(arg, line number, "why") (on_fail may be NULL) and counted; it
 * does not stop the others. Errors: KS_EINVAL, KS_EIO (the file cannot be
 * read), KS_ENOMEM. */
KS_API ks_status ks_prewarm(ks_ctx *ctx, const char *file,
                            void (*on_fail)(void *arg, unsigned long line,
                                            const char *why),
                            void *arg, ks_prewarm_result *out);

/* ---- caches ---------------------------------------------------------- */

/* What a context's caches did since it was created. Every ks_specialize
 * that gets past checking its request counts once, as a memory hit, a disk
 * hit or a miss. */
typedef struct ks_cache_counters {
  size_t size;          /* set by the caller: sizeof(ks_cache_counters) */
  uint64_t memory_hits; /* served from memory, waits included */
  uint64_t waits;       /* of those, requests that waited for another
                           thread compiling the same key */
  uint64_t disk_hits;   /* served from the disk cache */
  uint64_t misses;      /* found in no cache: compiled */
  uint64_t compiles;    /* compilations run (failed ones included) */
  uint64_t corrupt;     /* disk entries found damaged, truncated or
                           foreign: missed, rebuilt, never loaded */
  uint64_t disk_writes; /* entries written to the disk cache */
  uint64_t evictions;   /* entries this context removed to stay under the
                           size limit */
  int disk;             /* non-zero while the disk cache is in use */
  double compile_ms;    /* time spent compiling */
  double saved_ms;      /* the original compile time of every kernel served
                           from a cache */
  /* Loads (ks_kernel_load) with a disk cache: */
  uint64_t cubin_hits;    /* the cubin loaded from the disk cache */
  uint64_t cubin_misses;  /* no cubin there: ptxas made one (stored), or
                             without ptxas the PTX was loaded */
  uint64_t cubin_dropped; /* cubin entries the driver refused: removed, the
                             PTX loaded instead (also counted as misses) */
  /* Template loads with a disk cache: */
  uint64_t template_hits;   /* the description read from the disk cache,
                               no parsing */
  uint64_t template_misses; /* parsed, checked and described; stored */
  /* With a shared cache (ks_ctx_share, kspec_mpi.h): */
  uint64_t remote_hits;  /* specializations another process compiled */
  uint64_t cubin_remote; /* cubins another process's ptxas made */
} ks_cache_counters;

/* Fills *out with ctx's counters. Errors: KS_EINVAL. */
KS_API ks_status ks_cache_stats(const ks_ctx *ctx, ks_cache_counters *out);

/* A cache shared between processes, consulted after the memory and disk
 * caches miss and before anything is built: kspec_mpi.h's
 * ks_ctx_share_mpi plugs one over an MPI communicator; any other
 * transport (a key-value server) fits the same three calls. Entries are
 * opaque blobs the library writes and checks itself (a damaged or foreign
 * blob is a miss, never a wrong kernel), under 128-bit keys: kind
 * KS_SHARE_SPEC is a specialization (its PTX and description; the key is
 * the request's cache key), KS_SHARE_CUBIN the cubin of one (its key
 * covers the device model and the driver, so only processes with the same
 * ones share it). */
enum { KS_SHARE_SPEC = 0, KS_SHARE_CUBIN = 1 };
enum { KS_SHARE_BUILD = 0, KS_SHARE_HIT = 1 };
typedef struct ks_share_ops {
  /* KS_SHARE_HIT with *blob (malloc'd, *len bytes; the library frees it),
   * or KS_SHARE_BUILD: build it here, then put it. *owner: non-zero when
   * this process owns the key, the only one that writes it to the disk
   * cache (so that a directory all processes share gets each entry once).
   * note (cap bytes): a line the library keeps as the context's warning
   * (a peer that did not answer), "" for none. Called from any thread. */
  int (*get)(void *arg, int kind, const uint64_t key[2], void **blob,
             size_t *len, int *owner, char *note, size_t cap);
  /* After building key here: its blob, or NULL (the build failed). */
  void (*put)(void *arg, int kind, const uint64_t key[2], const void *blob,
              size_t len);
  /* The library no longer calls get or put (ks_ctx_destroy, or another
   * ks_ctx_share); may be NULL. */
  void (*detach)(void *arg);
} ks_share_ops;

/* Plugs ops (copied) with arg into ctx, detaching the one before; ops NULL
 * unplugs. Call it before the context's first specializations, while no
 * other thread uses ctx. Without it nothing is asked (no cost).
 * Errors: KS_EINVAL (NULL ctx, ops without get or put). */
KS_API ks_status ks_ctx_share(ks_ctx *ctx, const ks_share_ops *ops, void *arg);
/* The disk cache's directory, or NULL when ctx has no disk cache. */
KS_API const char *ks_cache_dir(const ks_ctx *ctx);

/* The disk cache's entries and their bytes, and its size limit.
 * Errors: KS_EINVAL (no disk cache: the message says why), KS_EIO. */
typedef struct ks_cache_usage {
  size_t size; /* set by the caller: sizeof(ks_cache_usage) */
  uint64_t entries, bytes, limit;
} ks_cache_usage;
KS_API ks_status ks_cache_usage_get(ks_ctx *ctx, ks_cache_usage *out);
/* Checks every entry of the disk cache (as a read does) and removes the
 * damaged ones; good and removed (optional) count them. Errors: as
 * ks_cache_usage_get. */
KS_API ks_status ks_cache_verify(ks_ctx *ctx, uint64_t *good,
                                 uint64_t *removed);
/* Removes every entry of the disk cache. Errors: as ks_cache_usage_get. */
KS_API ks_status ks_cache_clear(ks_ctx *ctx, uint64_t *removed);
/* Says, into buf, whether req would be found in the disk cache and, when
 * not, how it differs from the nearest entry: "hit", or "miss: FILTER_LEN
 * 31 != 32" (the request's value first), "miss: template conv1d changed",
 * "miss: the cache is empty". The request is checked as by ks_specialize.
 * Errors: those of the request's checks, and as ks_cache_usage_get. */
KS_API ks_status ks_cache_why_miss(ks_ctx *ctx, const ks_template *t,
                                   const ks_spec_req *req, char *buf,
                                   size_t cap);

/* The PTX text (NUL-terminated; len excludes the NUL). */
KS_API ks_status ks_kernel_ptx(const ks_kernel *k, const char **ptx,
                               size_t *len);
/* The IR text after req->dump_stage; KS_EINVAL when the request named no
 * stage (the IR is not kept otherwise). */
KS_API ks_status ks_kernel_ir(const ks_kernel *k, const char **ir, size_t *len);
/* What the passes did to this specialization and what they declined, with
 * the reason: lines "pass: text", NUL-terminated, possibly empty. */
KS_API const char *ks_kernel_explain(const ks_kernel *k);
/* Why a launch of k (specialized with ks_spec_req.tex) sampled in
 * software: the first launch that could make no texture object (a pitch
 * or address off the device's texture alignment, a size over its limits,
 * a driver that refused) says so here, once; NULL when none did. The
 * string lives as long as k. */
KS_API const char *ks_kernel_launch_note(ks_kernel *k);
/* The kernel's symbol name in the PTX. */
KS_API const char *ks_kernel_name(const ks_kernel *k);

/* The most buffers of one kernel with constant copies (ks_launch_plan). */
#define KS_CMEM_MAX 4
/* The most hardware textures of one kernel, and their element formats
 * (ks_launch_plan.tex_format). */
#define KS_TEX_MAX 4
enum { KS_TEX_F32, KS_TEX_F16, KS_TEX_U8, KS_TEX_S8, KS_TEX_U16, KS_TEX_S16 };

/* What a launch of a specialized kernel must do beyond the user's grid,
 * block and arguments: the passes that change how a kernel launches make
 * it, ks_launch_ex follows it, and a program that launches the PTX itself
 * (cuLaunchKernel) must do the same. A kernel that needs nothing has
 * coarsen_x, coarsen_y and grid_coarsen 1 and const_copies 0. */
typedef struct ks_launch_plan {
  /* Thread coarsening: each thread of the launched kernel runs coarsen_x
   * threads of the block along x (the tcoarsen pass) and coarsen_y along y
   * (smem_promote's store exchange), so ks_launch, given the block the
   * kernel was specialized for (ks_kernel_info.reqntid), launches
   * ks_kernel_info.launch_block = (reqntid[0] / coarsen_x, reqntid[1] /
   * coarsen_y, reqntid[2]), the PTX's .reqntid, with the same grid. */
  unsigned coarsen_x;
  unsigned coarsen_y;
  /* Grid coarsening (the gcoarsen pass): each block of the launched
   * kernel runs grid_coarsen consecutive blocks of the grid along x, so
   * ks_launch, given grid G along x, launches ceil(G / grid_coarsen)
   * blocks and appends G as one more argument (an unsigned 32-bit int)
   * after the kernel's own: a pointer to G after the pointers to its
   * arguments. */
  unsigned grid_coarsen;
  /* Constant copies (the const_promote pass): a read-only buffer argument
   * whose loads are all at offsets known at specialization (filter taps)
   * is read from a __constant__ copy. Before each launch, ks_launch copies
   * the first const_copy_bytes[i] bytes of the buffer that pointer argument
   * const_copy_arg[i] points to into the module's .const symbol
   * ks_cmem_<const_copy_arg[i]>, on the launch's stream, after the
   * kernel's previous launch (whatever its stream) has finished; the
   * buffer must hold those bytes (a launch with a smaller one fails with
   * KS_ELAUNCH naming the argument; a NULL pointer is not copied). A
   * program that launches the PTX itself does it with cuModuleGetGlobal
   * and cuMemcpyDtoDAsync, and must not run two launches of one module at
   * once. Elements from const_copies on are 0. */
  unsigned const_copies;
  unsigned const_copy_arg[KS_CMEM_MAX];
  unsigned const_copy_bytes[KS_CMEM_MAX];
  /* Hardware textures (the tex stage, ks_spec_req.tex): the kernel takes
   * one more argument per texture, a CUtexObject (unsigned 64-bit), after
   * its own and before grid coarsening's: texture i samples pointer
   * argument tex_arg[i] as tex_dims[i] (1, 2 or 3) dimensions of elements
   * tex_format[i] (KS_TEX_*, above), filter tex_filter[i] (the
   * dialect's KS_NEAREST or KS_LINEAR, | KS_NORMALIZED: 8- and 16-bit
   * integers read as normalized floats, else as integers) and address
   * mode tex_mode[i] (KS_CLAMP 0, KS_WRAP 1, KS_MIRROR 2, KS_BORDER 3;
   * wrap and mirror with normalized coordinates, as the hardware has
   * them). Its width, height, depth and pitch (elements; a 1-D texture is
   * one row, a 2-D one of depth 1; a 3-D slice is pitch * height) are, for
   * j = 4 i + 0, 1, 2, 3: argument tex_size_arg[j] - 1 (a 32-bit int)
   * where tex_size_arg[j] is non-zero, else tex_size_value[j]. 1-D and 2-D
   * textures are objects over the pointer's memory (pitch2D); a 3-D one is
   * an object over a CUDA 3-D array of width x height x depth, into which
   * the launch first copies the array (cuMemcpy3DAsync from the pointer,
   * on the launch's stream, after the kernel's previous launch has
   * finished: the kernel reads the memory's current contents). A texture
   * object of 0 makes the kernel sample in software. */
  unsigned texs;
  unsigned tex_arg[KS_TEX_MAX];
  unsigned tex_dims[KS_TEX_MAX];
  unsigned tex_format[KS_TEX_MAX];
  unsigned tex_filter[KS_TEX_MAX];
  unsigned tex_mode[KS_TEX_MAX];
  unsigned tex_size_arg[4 * KS_TEX_MAX];
  unsigned tex_size_value[4 * KS_TEX_MAX];
} ks_launch_plan;

typedef struct ks_kernel_info {
  size_t size;         /* set by the caller: sizeof(ks_kernel_info) */
  unsigned reqntid[3]; /* 0 when not fixed */
  unsigned maxntid;
  unsigned minctasm;
  unsigned maxnreg;
  double compile_ms;   /* template to PTX (when it came from the disk
                          cache, the original compile's time) */
  unsigned smem_bytes; /* static shared memory of the specialized IR */
  int est_regs;        /* registers per thread kspec estimated (the
                          regpressure stage); 0 when it did not run */
  int from_disk;       /* the PTX came from the disk cache */
  /* After loading (0 before): figures from the driver. */
  int loaded;
  int regs;
  int static_smem;
  int local_bytes;
  int max_threads; /* of the real block (launch_block) */
  int from_cubin;  /* loaded from a cached cubin (no PTX compiled) */
  /* What a launch must do beyond the user's grid, block and arguments,
   * and the block it launches for a fixed one (reqntid divided by the
   * plan's thread coarsening; reqntid when there is none). */
  ks_launch_plan plan;
  unsigned launch_block[3];
  /* Non-zero: the kernel synchronizes the whole grid (it reads the
   * driver's grid workspace, %envreg, as the dialect's ks_grid_sync() and
   * cooperative groups' this_grid().sync() do), which only a cooperative
   * launch sets up: ks_launch and ks_launch_ex launch it cooperatively
   * whether or not ks_launch_attrs.cooperative asks, and refuse a grid
   * larger than can be resident (ks_kernel_max_coresident_grid). */
  int grid_sync;
} ks_kernel_info;
KS_API ks_status ks_kernel_info_get(const ks_kernel *k, ks_kernel_info *out);

/* Loads the PTX on the device (done by ks_launch when needed). The driver's
 * JIT error log is part of the message on failure.
 * Errors: KS_ENODRIVER, KS_ENODEVICE, KS_ELOAD, KS_EDRIVER. */
KS_API ks_status ks_kernel_load(ks_kernel *k);

typedef struct ks_dim3 {
  unsigned x, y, z;
} ks_dim3;

/* What a launch asks for beyond its grid, block and arguments. Zeroed,
 * it is a plain launch on the default stream. */
typedef struct ks_launch_attrs {
  /* Bytes of dynamic shared memory per block. Over the device's default
   * per-block limit (48 KiB, less the kernel's static shared memory), the
   * kernel's MAX_DYNAMIC_SHARED_SIZE_BYTES attribute is raised first, to
   * the largest size asked so far (once per size, thread-safe); over the
   * opt-in limit (227 KiB on an H100, static included): KS_EBOUNDS. */
  unsigned smem;
  void *stream; /* a CUstream; NULL: the default stream */
  /* Non-zero: a cooperative launch (grid-wide synchronization, as
   * cooperative groups' grid.sync() needs): cuLaunchKernelEx with
   * CU_LAUNCH_ATTRIBUTE_COOPERATIVE, or cuLaunchCooperativeKernel where
   * the driver lacks it. Every block must be resident at once: a grid
   * over ks_kernel_max_coresident_grid is KS_EBOUNDS, the message giving
   * the grid, the maximum and its blocks per SM x SMs. A kernel whose PTX
   * reads the grid workspace (ks_kernel_info.grid_sync: ks_grid_sync(),
   * this_grid().sync()) is always launched this way, whatever this field
   * says; a grid barrier of the kernel's own making (a counter in global
   * memory) is not seen: set it. The grid is never shrunk to fit (only a
   * kernel that strides over its data by the grid's size would still
   * cover it all): ask ks_kernel_max_coresident_grid and launch at most
   * that. The gcoarsen pass never coarsens a grid-synchronized kernel (a
   * barrier needs fences and atomics it declines). */
  int cooperative;
  /* Thread-block clusters (sm_90 and later): blocks per cluster along
   * x, y, z; all 0: none; a 0 beside a non-zero one counts as 1. The grid
   * must be a multiple of it in every dimension and the cluster at most 8
   * blocks (KS_EBOUNDS); a device without clusters is KS_EARCH. */
  unsigned cluster[3];
} ks_launch_attrs;

/* Launches k with the attributes a (NULL: none). args are as for
 * cuLaunchKernel: one pointer per kernel argument. The block is checked
 * against the kernel's bounds and the device's limits first. block is the
 * block the kernel was specialized for; the launch follows the kernel's
 * ks_launch_plan (ks_kernel_info.plan): a coarsened kernel is launched
 * with its real block, launch_block, and the same grid; a grid-coarsened
 * one with ceil(grid.x / grid_coarsen) blocks along x and grid.x as a
 * hidden last argument, after args' own; constant copies are made first.
 * Clusters and co-residency are judged on the grid really launched.
 * Everything is checked before the device is touched, so a refused launch
 * copies nothing.
 * Errors: KS_EBOUNDS (geometry, shared memory, cluster shape, a
 * cooperative grid too large, a grid-synchronized kernel's included),
 * KS_EARCH (the device takes no cooperative or cluster launch),
 * KS_ENODRIVER (a cluster launch on a driver without cuLaunchKernelEx),
 * KS_ELAUNCH (the driver refused), KS_EINVAL (NULL args where the kernel
 * has arguments and a hidden one is appended), KS_ENOMEM and those of
 * ks_kernel_load. */
KS_API ks_status ks_launch_ex(ks_kernel *k, ks_dim3 grid, ks_dim3 block,
                              const ks_launch_attrs *a, void **args);

/* ks_launch_ex with smem bytes of dynamic shared memory on stream (a
 * CUstream; NULL: the default stream) and no other attribute (a kernel
 * that synchronizes the grid is still launched cooperatively). */
KS_API ks_status ks_launch(ks_kernel *k, ks_dim3 grid, ks_dim3 block,
                           unsigned smem, void *stream, void **args);

/* The driver's blocks of k resident per SM (cuOccupancyMaxActiveBlocks-
 * PerMultiprocessor on the loaded kernel; loads it) with block threads
 * (the block k was specialized for, when it was; a coarsened kernel is
 * asked about its real block) and dyn_smem bytes of dynamic shared memory
 * (over 48 KiB, the kernel's attribute is raised as ks_launch_ex does).
 * Errors: KS_EBOUNDS (block 0, not k's fixed block, over its maxntid;
 * dyn_smem over the opt-in limit), KS_EINVAL and those of ks_kernel_load. */
KS_API ks_status ks_kernel_max_active_blocks(ks_kernel *k, unsigned block,
                                             unsigned dyn_smem,
                                             int *blocks_per_sm);

/* The largest grid (blocks in all, x*y*z) ks_launch_ex takes in a
 * cooperative launch of k with block and dyn_smem: blocks per SM (as
 * ks_kernel_max_active_blocks) x the device's SMs; for a grid-coarsened
 * kernel, times plan.grid_coarsen, as the grid given is the user's. 0
 * when the block cannot run at all.
 * Errors: those of ks_kernel_max_active_blocks. */
KS_API ks_status ks_kernel_max_coresident_grid(ks_kernel *k, unsigned block,
                                               unsigned dyn_smem,
                                               unsigned *blocks);

/* ---- resources and occupancy ------------------------------------------ */

/* Where a kernel's figures come from. */
typedef enum ks_res_source {
  KS_RES_ANY = 0, /* as a request: the best available; never a result */
  KS_RES_PTXAS,   /* `ptxas -v` on the PTX, for the context's architecture */
  KS_RES_DRIVER   /* cuFuncGetAttribute on the loaded kernel */
} ks_res_source;

/* What the kernel really needs, per thread and per block. A field the
 * source does not report is -1: the driver reports no spills, and ptxas
 * for sm_90 and later (CUDA 12.x/13) no constant banks. */
typedef struct ks_kernel_resources {
  size_t size; /* set by the caller: sizeof(ks_kernel_resources) */
  ks_res_source source;
  char arch[16];    /* the architecture the figures are for */
  int regs;         /* registers per thread */
  int spill_stores; /* bytes per thread stored to local memory by spills */
  int spill_loads;  /* bytes per thread loaded back */
  int stack_frame;  /* bytes of local memory per thread (the driver's
                       LOCAL_SIZE_BYTES) */
  int static_smem;  /* bytes of static shared memory per block */
  int const_bytes;  /* bytes of user constant memory (not the parameter
                       bank) */
} ks_kernel_resources;

/* The kernel's real register, spill, stack, shared and constant figures.
 * want KS_RES_ANY: the driver's when the kernel is loaded, else ptxas's,
 * else (ptxas not found) the driver's after loading the kernel. ptxas is
 * $KSPEC_PTXAS, else `ptxas` on PATH, else /usr/local/cuda/bin/ptxas; it
 * runs once per kernel (30 s at most) and its figures are kept.
 * KS_RES_DRIVER loads the kernel.
 * Errors: KS_ENODRIVER (neither ptxas nor a driver; for KS_RES_PTXAS: no
 * ptxas), KS_EARCH (ptxas does not know the architecture), KS_ELOAD
 * (ptxas rejected the PTX, failed or timed out) and those of
 * ks_kernel_load. */
KS_API ks_status ks_kernel_resources_get(ks_kernel *k, ks_res_source want,
                                         ks_kernel_resources *out);

/* What limits the blocks resident on one SM: bits of ks_occupancy.limiters. */
enum {
  KS_LIMIT_WARPS = 1u << 0,  /* threads (warp slots) per SM */
  KS_LIMIT_REGS = 1u << 1,   /* the register file */
  KS_LIMIT_SMEM = 1u << 2,   /* shared memory */
  KS_LIMIT_BLOCKS = 1u << 3, /* the blocks-per-SM limit */
};

/* Input of the occupancy calculator. */
typedef struct ks_occ_input {
  unsigned block; /* threads per block */
  int regs;       /* registers per thread (0..255) */
  unsigned smem;  /* static + dynamic shared memory per block, bytes */
  int smem_optin; /* non-zero: the opt-in per-block limit applies
                     (cuFuncSetAttribute MAX_DYNAMIC_SHARED_SIZE, as
                     ks_launch sets it over 48 KiB); 0: the default
                     48 KiB */
} ks_occ_input;

typedef struct ks_occupancy {
  size_t size;       /* set by the caller: sizeof(ks_occupancy) */
  int blocks_per_sm; /* resident blocks per SM; 0: the block cannot run */
  int warps_per_sm;  /* resident warps */
  int max_warps_sm;  /* the SM's warp slots */
  double occupancy;  /* warps_per_sm / max_warps_sm */
  unsigned limiters; /* KS_LIMIT_* of every resource at the minimum;
                        0 from the driver, which does not say */
  /* Blocks each resource alone allows (-1 from the driver). */
  int by_warps, by_regs, by_smem, by_blocks;
  int regs_per_block; /* registers allocated to a block (granularity) */
  int smem_per_block; /* shared memory allocated, reservation included */
} ks_occupancy;

/* The offline occupancy calculator: the CUDA occupancy rules over the
 * limits of architecture arch ("sm_90"), no device needed.
 * Errors: KS_EARCH (unknown arch), KS_EBOUNDS (block 0 or over the
 * architecture's threads per block, regs over 255), KS_EINVAL. */
KS_API ks_status ks_occupancy_calc(const char *arch, const ks_occ_input *in,
                                   ks_occupancy *out);

/* The occupancy of k launched with block threads and dyn_smem bytes of
 * dynamic shared memory (over 48 KiB as a launch allows it: the opt-in
 * limit applies, and with the driver the kernel's attribute is raised as
 * ks_launch_ex does). src KS_RES_DRIVER: the driver's own answer
 * (cuOccupancyMaxActiveBlocksPerMultiprocessor; loads k). Otherwise the
 * calculator over k's resources from src (ks_kernel_resources_get), with
 * the device's limits when one of the context's architecture is open.
 * Errors: KS_EBOUNDS (block 0, not k's fixed block, over its maxntid or the
 * limits) and those of ks_kernel_resources_get. */
KS_API ks_status ks_kernel_occupancy(ks_kernel *k, unsigned block,
                                     unsigned dyn_smem, ks_res_source src,
                                     ks_occupancy *out);

/* The block size that maximizes occupancy (the largest of those that tie)
 * and the smallest grid that fills the device at that occupancy (0 without
 * a device for the calculator). src as for ks_kernel_occupancy;
 * KS_RES_DRIVER asks cuOccupancyMaxPotentialBlockSize. A kernel with a
 * fixed block gets that block. */
KS_API ks_status ks_kernel_best_block(ks_kernel *k, unsigned dyn_smem,
                                      ks_res_source src, unsigned *block,
                                      int *min_grid);

/* ---- auto-tuning -----------------------------------------------------
 *
 * ks_tune sweeps a space of variants of one kernel: launch bounds, the
 * block size and template values. It compiles every variant first, in
 * parallel (ks_specialize_async), prunes what the compile-time figures
 * rule out, then measures the rest through the caller's `measure`
 * callback, each after its `check`, and keeps the fastest variant that
 * beats the best so far by more than the measured noise. Every variant
 * gets a class and a reason; failures never end the sweep. Results are
 * stored per device, driver, template, fixed values and problem under
 * <cache dir>/tune/, one file per problem, rewritten atomically after
 * every measured variant, so that an interrupted sweep resumes and
 * ks_tune_lookup finds the winner later without measuring. */

enum { KS_TUNE_MAX_DIMS = 8, KS_TUNE_MAX_GPUS = 64 };

/* One swept dimension: "maxntid", "minctasm", "maxnreg", "block" (threads
 * per block, folded into the code as .reqntid) or a parameter, by name or
 * position ("@3"). Parameters, swept or fixed, are stored by position:
 * a problem swept with "n" is found by a lookup with "@3", and a
 * parameter that fixes the block sets the launch's threads either way.
 * "tex:ARG" (ARG a pointer argument's name or "@N") sweeps hardware
 * textures for ARG (ks_spec_req.tex): 0 software; 1 hardware only where
 * it returns the software's result bit for bit (nearest sampling, clamp
 * or border, of floats, halves or integers read as values), a variant
 * sampling otherwise being excluded, so that the tuner never trades
 * accuracy by itself; 2 hardware whatever the sampling (linear filtering
 * within D/256 of the texels' range: the check must allow it). The
 * baseline samples in software. */
typedef struct ks_tune_dim {
  const char *name;
  const int64_t *values;
  size_t n;
} ks_tune_dim;

/* One variant of the space. */
typedef struct ks_tune_point {
  int64_t v[KS_TUNE_MAX_DIMS]; /* the value of each of the space's dims */
  ks_launch_bounds bounds;     /* its launch bounds */
  /* Threads per block to launch with: the "block" dim; else the fixed
   * bounds.block; else what parameters fixing the block say (BLOCK_X times
   * BLOCK_Y); else maxntid; else 256. */
  unsigned threads;
} ks_tune_point;

typedef struct ks_tune_space {
  const char *kernel;      /* NULL: the template's only kernel */
  const ks_binding *fixed; /* values every variant binds */
  size_t nfixed;
  ks_launch_bounds bounds; /* bounds every variant has (dims override) */
  const ks_tune_dim *dims; /* the product of these is the space */
  size_t ndims;            /* at most KS_TUNE_MAX_DIMS */
  /* Optional constraint: 0 leaves the point out (class "excluded"). */
  int (*valid)(const ks_tune_point *p, void *arg);
  void *valid_arg;
  /* Floating-point modes of every variant (ks_spec_req.fp); part of the
   * stored results' key when not 0. */
  unsigned fp;
} ks_tune_space;

/* What became of a variant. */
#define KS_TUNE_CLASS_LIST(X)                                                  \
  X(MEASURED, "measured")                                                      \
  X(EXCLUDED, "excluded")                                                      \
  X(PRUNED, "pruned")                                                          \
  X(COMPILE_ERROR, "compile error")                                            \
  X(OVER_RESOURCES, "over resources")                                          \
  X(LAUNCH_FAILURE, "launch failure")                                          \
  X(WRONG_RESULT, "wrong result")                                              \
  X(TIMEOUT, "timeout")                                                        \
  X(DEVICE_FAULT, "device fault")                                              \
  X(NOT_RUN, "not run")

typedef enum ks_tune_class {
#define KS_TUNE_CLASS_ENUM(name, text) KS_TUNE_##name,
  KS_TUNE_CLASS_LIST(KS_TUNE_CLASS_ENUM)
#undef KS_TUNE_CLASS_ENUM
      KS_TUNE_CLASS_COUNT
} ks_tune_class;

/* "measured", "compile error", ...; "?" outside the list. Static. */
KS_API const char *ks_tune_class_name(ks_tune_class c);

/* Runs variant k once on the caller's data and gives its time in *ms
 * (device events around one launch, say). Returns KS_OK, or a failure:
 * KS_EBOUNDS (over resources), KS_ETIMEOUT, KS_EFAULT (the context is
 * lost: illegal address, ...), anything else is a launch failure (a
 * driver message naming a sticky error, CUDA_ERROR_ILLEGAL_ADDRESS and
 * the like, counts as a device fault). why (cap bytes) may take a line. */
typedef ks_status (*ks_tune_measure_fn)(void *arg, ks_kernel *k,
                                        const ks_tune_point *p, double *ms,
                                        char *why, size_t cap);
/* Runs k once and compares its output with a reference: KS_OK, KS_ERANGE
 * (wrong result, why says where) or a failure as for measure. */
typedef ks_status (*ks_tune_check_fn)(void *arg, ks_kernel *k,
                                      const ks_tune_point *p, char *why,
                                      size_t cap);

struct ks_tune_entry;

/* One sweep spread over several processes (kspec_mpi.h's ks_tune_mpi
 * makes it; any other transport fits). After compiling and pruning, plan
 * gets the problem's key (the store's: device, template, kernel, fixed
 * values, problem), every variant's key (vkeys[i], the store's spelling,
 * n of them: the space's, then the baseline's when asked for) and in
 * mine[i] whether this process has variant i left to measure (not
 * pruned, failed or taken from its store); it leaves in mine[i] this
 * process's share, and says whether this process leads (*lead: it alone
 * measures the finalists again and writes the store) and how many
 * processes measure (*spread). Any other status than KS_OK ends the
 * sweep before anything is measured (its message is the sweep's).
 * problem is NULL when this process cannot measure (its GPU's worker did
 * not start, or cannot run the code: ks_errmsg(NULL) says why): plan must
 * then fail on every process, since none may wait for it later. After
 * this process measured its share, gather gets all n entries and the
 * share: on the lead it fills in the others' entries, elsewhere it sends
 * this process's. */
typedef struct ks_tune_team {
  void *arg;
  ks_status (*plan)(void *arg, const char *problem, const char *const *vkeys,
                    size_t n, unsigned char *mine, int *lead, int *spread);
  ks_status (*gather)(void *arg, struct ks_tune_entry *entries, size_t n,
                      const unsigned char *mine);
} ks_tune_team;

typedef struct ks_tune_opts {
  ks_tune_measure_fn measure; /* required */
  ks_tune_check_fn check;     /* optional; run before measuring */
  void *arg;                  /* passed to measure, check and progress */
  /* The figures pruning uses. NULL: ks_kernel_resources_get(k,
   * KS_RES_PTXAS); no figures (no ptxas) means no pruning by spills or
   * occupancy. out->size is the library's sizeof(ks_kernel_resources). */
  ks_status (*resources)(void *arg, ks_kernel *k, ks_kernel_resources *out);
  unsigned warmup;   /* runs discarded first; 0: 3 */
  unsigned window;   /* the median is stable when the last `window`
                        running medians lie within `stable`; 0: 5 */
  unsigned max_runs; /* at most this many timed runs; 0: 100 */
  double stable;     /* relative; 0: 0.01 */
  /* The noise rule: a variant beats another when its median is lower by
   * more than the noise, the larger of the two interquartile ranges and
   * min_gain times the other's median (0: 0.01). The variants the fastest
   * does not beat by twice the noise are its ties, and the winner is the
   * first of them in the space's order (the fastest itself when it beats
   * every earlier one by that much), so that variants the measurements
   * cannot order give the same winner from run to run. */
  double min_gain;
  /* Non-zero: measure and check run in a child process (fork, once per
   * worker; a socket pair carries one request and one answer per
   * variant). A variant that takes longer than timeout_ms (0: 10000)
   * in all, or kills the child, is classified timeout or device fault and
   * the child is replaced. The callbacks must then use no device state of
   * the parent (the child initializes its own; CUDA does not survive a
   * fork, so the parent must not have used the driver). Without isolation
   * there is no watchdog. */
  int isolate;
  double timeout_ms;
  /* The store's key: the device model and driver (NULL/0: with gpus,
   * those of the GPUs as their workers found them; else queried from
   * ctx's device unless isolate is set or the context has no driver, else
   * "none"), and the problem (the caller's words: "n=67108864"). */
  const char *device;
  int driver_version;
  const char *problem;
  /* The store's directory. NULL: <ks_cache_dir>/tune (none without a disk
   * cache); "": no store. */
  const char *store_dir;
  int fresh; /* non-zero: ignore stored measurements (still store) */
  /* Non-zero: also measure the baseline, the space's own bounds with the
   * swept parameters at their defaults (result.baseline), for the gain of
   * the winner; it never wins and is not pruned. */
  int baseline;
  /* Called after each variant is settled (measured, reused or failed); a
   * non-zero return stops the sweep: the variants left are "not run", the
   * store keeps what was measured. */
  int (*progress)(void *arg, size_t done, size_t total,
                  const struct ks_tune_entry *e);
  /* The GPUs to measure on, by device ordinal (at most KS_TUNE_MAX_GPUS,
   * each once), one isolated worker process each (isolate is implied):
   * every worker opens the context's device as that GPU, so ctx must not
   * have opened the driver (give ks_ctx_opts.arch and ptx_isa); callbacks
   * that make their own CUDA state ask ks_tune_worker_gpu. The workers
   * fork before the compiles and open their GPUs meanwhile (each
   * variant's kernel is handed to its worker with it), so the callbacks
   * see this process's state as it was when ks_tune was called; each
   * says what its GPU is (the store's device and driver, unless given
   * here: ks_tune_result.device). Measuring starts at the first hello,
   * the other GPUs joining as theirs come; one still opening when every
   * variant is measured is let go. A GPU the driver does not have is
   * KS_EINVAL at the first hello; GPUs of different models KS_EINVAL, a
   * GPU that cannot run the context's code KS_EARCH, when its hello
   * comes: the sweep ends, with nothing stored. Each idle
   * worker takes the next variant of one queue, so a slower GPU takes
   * fewer; compiles are shared (they do not depend on the GPU). With more
   * than one GPU, timings of different GPUs are not compared: the
   * finalists (the fastest and its ties, see min_gain: at least the
   * runner-up, at most 8) are measured again (timed;
   * check is not called again) on the first GPU still running, which
   * picks the winner. A GPU whose worker
   * faults or hangs gets a fresh worker; one whose worker cannot start
   * again is dropped and the others go on. NULL/0: one worker (isolate)
   * on the context's device, or none. A GPU named twice is KS_EINVAL
   * before anything runs. */
  const int *gpus;
  size_t ngpus;
  /* Non-NULL: this process measures its share of a sweep spread over
   * several (see ks_tune_team). */
  const ks_tune_team *team;
  /* Called first in each measuring worker process (isolate, gpus), before
   * it opens its GPU (ks_tune_worker_gpu says which): the callbacks' own
   * preparation, started here, overlaps the driver's (a workload's inputs
   * and reference made on a thread of the worker). A failure (why: cap
   * bytes) ends the worker before any variant. NULL: none. */
  ks_status (*worker_init)(void *arg, char *why, size_t cap);
} ks_tune_opts;

/* A variant's outcome. The library allocates these (ks_tune_result) and
 * hands them to progress: size is the library's sizeof(ks_tune_entry). */
typedef struct ks_tune_entry {
  size_t size; /* set by the library */
  ks_tune_point point;
  ks_tune_class cls;
  int stored;                      /* the measurement came from the store */
  unsigned runs;                   /* timed runs */
  double median, min, max, q1, q3; /* ms */
  int regs, spills; /* registers per thread, spilled bytes (stores +
                       loads) per thread; -1 unknown */
  int warps;        /* resident warps per SM; -1 unknown */
  int instrs;       /* PTX instructions; -1 unknown */
  char reason[192]; /* why it was pruned or failed, or "" */
  int gpu;          /* the device ordinal that measured it (opts.gpus); -1: the
                       context's device, in process, or not measured */
  int finalist;     /* measured again on one GPU among the finalists */
} ks_tune_entry;

typedef struct ks_tune_result {
  size_t size; /* set by the caller: sizeof(ks_tune_result) */
  /* Every point of the space, in order (the last dim varies fastest), each
   * entries[0].size bytes long: entries[i] is entry i for a program built
   * against this library's kspec.h, ks_tune_result_entry(r, i) for any. */
  ks_tune_entry *entries;
  size_t n;
  ks_tune_entry *baseline; /* opts.baseline's entry (after the n), or NULL */
  long best;               /* index of the winner, -1 when none */
  size_t measured;         /* measured now */
  size_t reused;           /* taken from the store */
  char store[512];         /* the store's file, "" when none */
  size_t finalists;        /* measured again on one GPU (opts.gpus) */
  /* Where the sweep's time went, in milliseconds: compiling every
   * variant; their figures (ptxas) and pruning, while the measuring
   * workers open their GPUs; waiting for the workers after that;
   * checking and timing (with a team, gathering the others' results
   * too); the finalists measured again (opts.gpus, or a team). */
  double compile_ms, figures_ms, start_ms, measure_ms, finalists_ms;
  /* With opts.gpus: the GPUs' model and driver, as their workers found
   * them, and the target a context made for them compiles for (the
   * architecture and PTX ISA ks_ctx_create chooses with their driver);
   * "" and 0 otherwise. A sweep refused with KS_EARCH (the context's code
   * cannot run on them) says here what would. */
  char device[128];
  int driver_version;
  char arch[16];
  unsigned ptx_isa;
} ks_tune_result;

/* Sweeps space for a kernel of t (see above). *out is filled even when
 * the sweep stops early; free it with ks_tune_result_free.
 * Errors: KS_EINVAL (no measure, a dim without values or with an unknown
 * name, more than KS_TUNE_MAX_DIMS dims, a space over 100000 points),
 * KS_ENOKERNEL, KS_ENOMEM. Variants that fail are not errors. */
KS_API ks_status ks_tune(ks_ctx *ctx, const ks_template *t,
                         const ks_tune_space *space, const ks_tune_opts *opts,
                         ks_tune_result *out);
KS_API void ks_tune_result_free(ks_tune_result *r);
/* In a measuring worker of ks_tune started for one of opts.gpus (a child
 * process), that GPU's device ordinal; -1 in any other process. For
 * callbacks that set up their own CUDA state (cudaSetDevice). */
KS_API int ks_tune_worker_gpu(void);
/* Entry i of r (i < r->n), whatever the size of the library's entries; NULL
 * out of range. */
KS_API const ks_tune_entry *ks_tune_result_entry(const ks_tune_result *r,
                                                 size_t i);

/* The stored winner of a problem: its bounds, threads and the values of
 * the swept parameters (bindings[i].name points into names[i]: the
 * parameter's name, or "@N" for an argument the IR has no name for). */
typedef struct ks_tune_best {
  size_t size; /* set by the caller: sizeof(ks_tune_best) */
  ks_launch_bounds bounds;
  unsigned threads;
  double median_ms;
  size_t nbindings;
  ks_binding bindings[KS_TUNE_MAX_DIMS];
  char names[KS_TUNE_MAX_DIMS][64];
  /* The pointer arguments (bit N: argument N) whose sampling the winner
   * does in hardware (a "tex:ARG" dim at 1 or 2): ks_spec_req.tex "@N". */
  uint64_t tex;
} ks_tune_best;

/* Finds the winner stored for the problem space and opts describe (the
 * kernel, fixed values, device, driver, problem, store_dir; the dims and
 * callbacks are not used), without measuring anything. Build the tuned
 * request from space->bounds overridden by best.bounds, and the fixed
 * values plus best.bindings.
 * Errors: KS_EINVAL (no store, nothing stored for this problem: the
 * message says which file was looked for), KS_ENOKERNEL, KS_EIO. */
KS_API ks_status ks_tune_lookup(ks_ctx *ctx, const ks_template *t,
                                const ks_tune_space *space,
                                const ks_tune_opts *opts, ks_tune_best *out);

/* Specializes the tuned variant of a problem: ks_tune_lookup, then
 * ks_specialize with the space's fixed values and bounds overridden by the
 * stored winner's, without measuring anything. *threads (when not NULL)
 * gets the threads per block the winner was measured with.
 * Errors: those of ks_tune_lookup (nothing stored: KS_EINVAL) and of
 * ks_specialize. */
KS_API ks_status ks_specialize_tuned(ks_ctx *ctx, const ks_template *t,
                                     const ks_tune_space *space,
                                     const ks_tune_opts *opts, ks_kernel **out,
                                     unsigned *threads);

/* ---- device memory and timing (for tools, tests and benchmarks) ----- */

typedef uint64_t ks_devptr;
KS_API ks_status ks_mem_alloc(ks_ctx *ctx, size_t bytes, ks_devptr *out);
/* Frees p (0 is a no-op). The texture objects launches of the context's
 * kernels made over that allocation (ks_spec_req.tex), and 3-D textures'
 * arrays, are destroyed first: launches using them must have finished. */
KS_API void ks_mem_free(ks_ctx *ctx, ks_devptr p);
KS_API ks_status ks_memcpy_htod(ks_ctx *ctx, ks_devptr dst, const void *src,
                                size_t bytes);
KS_API ks_status ks_memcpy_dtoh(ks_ctx *ctx, void *dst, ks_devptr src,
                                size_t bytes);
KS_API ks_status ks_memcpy_dtod(ks_ctx *ctx, ks_devptr dst, ks_devptr src,
                                size_t bytes);
KS_API ks_status ks_memset8(ks_ctx *ctx, ks_devptr dst, unsigned char v,
                            size_t bytes);
/* Waits for all work on the context's device; reports asynchronous faults. */
KS_API ks_status ks_synchronize(ks_ctx *ctx);
/* Records a start event on the default stream; ks_timer_stop records the
 * end, waits, and gives the milliseconds between them. Each thread has its
 * own timer on a context (its events are kept until ks_ctx_destroy): a
 * thread's stop pairs with its own last start, so several threads may time
 * at once. What they time is the default stream's work between the two
 * events, other threads' launches on it included. A stop before the
 * thread's first start is KS_EINVAL. */
KS_API ks_status ks_timer_start(ks_ctx *ctx);
KS_API ks_status ks_timer_stop(ks_ctx *ctx, float *ms);

/* ---- module globals --------------------------------------------------
 *
 * A template's module-scope variables: __constant__ (addrspace 4) and
 * __device__ (addrspace 1) ones, the tables, filter taps and counters a
 * kernel reads and writes besides its arguments. Each specialization is a
 * module of its own, with its own storage for every global: two different
 * specializations (or a specialized kernel and the generic one) do not
 * share a global's storage, so a value written through one kernel is not
 * seen by another. Two equal requests are one specialization: ks_specialize
 * returns the same cached kernel, whose globals they therefore share (a
 * value written for one is what the other reads). Set a global through
 * every kernel that reads it, after ks_specialize and before its launches. A
 * read-only global can also be baked (ks_bake): its values become immediates.
 */

typedef struct ks_global_info {
  size_t size;      /* set by the caller: sizeof(ks_global_info) */
  const char *name; /* the symbol, as cuModuleGetGlobal takes it */
  const char *type; /* as C would write it: "float[9]", "int", "struct
                       coeffs {float, int, float[4]}" (the IR has no
                       signedness: "int" is int or unsigned) */
  size_t bytes;
  int constant; /* __constant__ (addrspace 4); else __device__ */
  int written;  /* a kernel of the template may write it (a store, an
                   atomic, its address passed on) */
  int has_init; /* it has a non-zero initializer */
} ks_global_info;

/* The template's globals, in the order of the IR (strings live as long as
 * the template). LLVM's and clang's own variables (llvm.*, names starting
 * with "__", private string constants) and shared memory are not listed. */
KS_API size_t ks_template_global_count(const ks_template *t);
/* Errors: KS_EINVAL (i out of range, NULL argument). */
KS_API ks_status ks_template_global(const ks_template *t, size_t i,
                                    ks_global_info *out);

/* The device address and size of k's global name in k's loaded module
 * (loading k first when needed; cuModuleGetGlobal). A global the
 * specialization no longer has (an unused internal one) is not found.
 * Either of ptr and bytes may be NULL.
 * Errors: KS_EINVAL (no such global in k's module, NULL k or name),
 * KS_EDRIVER (the driver or the context failed) and those of
 * ks_kernel_load. */
KS_API ks_status ks_kernel_global(ks_kernel *k, const char *name,
                                  ks_devptr *ptr, size_t *bytes);
/* Copies bytes bytes from host memory src into k's global name at byte
 * offset, on stream (a CUstream; NULL: the default stream), ordered
 * before the launches queued after it on that stream. src may be reused
 * when this returns.
 * Errors: KS_ERANGE ([offset, offset + bytes) outside the global),
 * KS_EDRIVER, KS_EINVAL and those of ks_kernel_global. */
KS_API ks_status ks_kernel_global_write(ks_kernel *k, const char *name,
                                        size_t offset, const void *src,
                                        size_t bytes, void *stream);
/* Copies bytes bytes of k's global name from byte offset into host memory
 * dst, on stream, after the work queued before it there. Into pageable
 * memory (malloc's) the copy has finished when this returns; into
 * page-locked memory, once the stream has reached it (synchronize it).
 * Errors: as ks_kernel_global_write. */
KS_API ks_status ks_kernel_global_read(ks_kernel *k, const char *name,
                                       size_t offset, void *dst, size_t bytes,
                                       void *stream);

#ifdef __cplusplus
}
#endif
#endif /* KSPEC_H */
