#!/bin/sh
# tool_test.sh - the kspec command line: exit statuses (0 success, 1
# failure, 2 bad usage), its output, and one-line "kspec: " errors.
#
#   sh tool_test.sh path/to/kspec path/to/tests/data
#
# Never opens the CUDA driver: every command that compiles names its target.
set -u
KSPEC=${1:?usage: tool_test.sh KSPEC DATA_DIR}
DATA=${2:?usage: tool_test.sh KSPEC DATA_DIR}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/kspec_tool_test.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
# the disk cache lives in the test's directory, never in the user's home
KSPEC_CACHE_DIR=$TMP/cache
export KSPEC_CACHE_DIR
unset KSPEC_CACHE KSPEC_CACHE_MAX
TARGET="--arch sm_90 --ptx-isa 85"
failures=0
checks=0

bad() {
  echo "FAIL: $*"
  echo "  stdout: $(head -c 600 "$TMP/out")"
  echo "  stderr: $(head -c 600 "$TMP/err")"
  failures=$((failures + 1))
}

# expect STATUS ARGS...: runs kspec ARGS, checks its exit status.
expect() {
  want=$1
  shift
  checks=$((checks + 1))
  "$KSPEC" "$@" >"$TMP/out" 2>"$TMP/err"
  got=$?
  last="kspec $*"
  # under the sanitizer build (tools/check.sh) a report fails the command
  # whatever its status: a leak on a path that exits 1 keeps status 1
  if grep -qE 'Sanitizer|runtime error:' "$TMP/err"; then
    bad "$last: sanitizer report"
    return 1
  fi
  if [ "$got" -ne "$want" ]; then
    bad "$last: exit $got, want $want"
    return 1
  fi
  return 0
}

# The last command's stdout contains (or, with -v, lacks) a fixed string.
out_has() {
  grep -qF -- "$1" "$TMP/out" || bad "$last: stdout lacks '$1'"
}
out_lacks() {
  grep -qF -- "$1" "$TMP/out" && bad "$last: stdout has '$1'"
}

# A failure: exit 1, stdout empty, one stderr line "kspec: ..." with $1.
expect_failure() {
  needle=$1
  shift
  expect 1 "$@" || return
  [ "$(wc -l <"$TMP/err")" -eq 1 ] || bad "$last: stderr is not one line"
  head -n 1 "$TMP/err" | grep -q '^kspec: ' ||
    bad "$last: stderr does not start with 'kspec: '"
  grep -qF -- "$needle" "$TMP/err" || bad "$last: stderr lacks '$needle'"
  [ -s "$TMP/out" ] && bad "$last: printed on stdout"
}

# Bad usage: exit 2, the first stderr line "kspec: ...".
expect_usage() {
  expect 2 "$@" || return
  head -n 1 "$TMP/err" | grep -q '^kspec: ' ||
    bad "$last: stderr does not start with 'kspec: '"
}

# ---- list and info ----------------------------------------------------------
expect 0 list
for t in conv1d sepfilter_rows sepfilter_cols histogram reduce_sum transpose \
  stencil1d blackscholes sepfilter_fused resize resize3d
do
  grep -q "^$t " "$TMP/out" || bad "kspec list: no line for $t"
done
[ "$(wc -l <"$TMP/out")" -eq 11 ] || bad "kspec list: not eleven lines"

expect 0 info conv1d
out_has "kernel conv1d"
out_has "FILTER_LEN"
out_has "int32"
expect 0 info reduce_sum
out_has "BLOCK"
out_has "fixes block x"
out_lacks "cooperative"
# a kernel that reads the grid workspace (%envreg) is marked cooperative
expect 0 info "$DATA/gridws.ll"
out_has "  cooperative: synchronizes the grid; launched cooperatively, at most the blocks that can be resident at once"
# the dialect's ks_grid_sync(), a function the kernel calls
expect 0 info sepfilter_fused
out_has "  cooperative: synchronizes the grid"
out_has "@6   RADIUS       int32  default 8      range [1, 32]"
expect 0 info "$DATA/saxpy.ll"
out_has "kernel saxpy"
out_has "@0   -            int32  range [-2147483648, 4294967295]  (unmarked: no default; signedness unknown: signed or unsigned)"
out_has "@1   -            float  range"
expect 0 info conv1d
out_has "@3   n            int32  range [-2147483648, 4294967295]  (unmarked: no default; signedness unknown: signed or unsigned)"
out_has "@4   FILTER_LEN   int32  default 32     range [1, 128]"
expect 0 info "$DATA/user_tmpl.ll"
out_has "kernel scale<float, 4>(float*, int)"
out_has "  symbol _Z5scaleIfLi4EEvPT_i"
out_has "kernel sizes(unsigned int, unsigned long long, long long, int, float*)"
out_has "@0   -            uint32 range [0, 4294967295]  (unmarked: no default)"
out_has "@1   -            uint64 range [0, 18446744073709551615]  (unmarked: no default)"
out_has "@2   -            int64  range [-9223372036854775808, 9223372036854775807]  (unmarked: no default)"
expect 0 info "$DATA/user_args.ll"
out_has "@1   us           uint16 range [0, 65535]"
out_has "@5   big          int64  range [-9223372036854775808, 18446744073709551615]  (unmarked: no default; signedness unknown: signed or unsigned)"

# ---- help -------------------------------------------------------------------
for args in "--help" "-h" "help" "list --help" "info --help" "ptx --help" \
  "ir --help" "run --help" "stats --help"; do
  # shellcheck disable=SC2086
  expect 0 $args && { head -n 1 "$TMP/out" | grep -q '^usage: kspec' ||
    bad "kspec $args: no usage line"; }
done
expect 0 ir --help
out_has "bind"
out_has "input"
expect 0 ptx --help
out_has "--maxntid"
out_has "--smem-spill"

# ---- bad usage: exit 2 --------------------------------------------------------
expect_usage
expect_usage frobnicate
expect_usage ptx
expect_usage ir
expect_usage info
expect_usage list extra
expect_usage ptx conv1d histogram
expect_usage ptx conv1d --bogus
expect_usage ptx conv1d --maxntid abc
expect_usage ptx conv1d --maxntid -1
expect_usage ptx conv1d --minctasm 1x
expect_usage ptx conv1d --block 0
expect_usage ptx conv1d --block 1,2,3,4
# what is past 63 bytes is checked too, not cut off
expect_usage ptx conv1d --block "1,1,1$(printf %070d 0 | tr 0 x)Z"
expect_usage ptx conv1d -D FILTER_LEN
expect_usage ptx conv1d -D =4
expect_usage ptx conv1d --arch

# ---- failures: exit 1, one line --------------------------------------------------
expect_failure "no_such_template" ptx no_such_template $TARGET
expect_failure "no_such_template" info no_such_template
expect_failure "FILTER_LEN" ptx conv1d $TARGET -D FILTER_LEN=0
expect_failure "FILTER_LEN" ptx conv1d $TARGET -D FILTER_LEN=abc
expect_failure "NOPE" ptx conv1d $TARGET -D NOPE=3
expect_failure "sm_99" ptx conv1d --arch sm_99
expect_failure "nope" ir conv1d $TARGET --stage nope
expect_failure "300" ptx conv1d $TARGET --maxnreg 300
expect_failure "2048" ptx conv1d $TARGET --block 2048
expect_failure "nosuch" ptx conv1d $TARGET --kernel nosuch
expect_failure "$TMP/missing.ll" ptx "$TMP/missing.ll" $TARGET
: >"$TMP/empty.ll"
expect_failure "empty" ptx "$TMP/empty.ll" $TARGET
printf 'not IR at all\n' >"$TMP/junk.ll"
expect_failure "parse" info "$TMP/junk.ll"
expect_failure "not a pass that can be switched off" ptx conv1d $TARGET \
  --no-pass optimize
expect_failure "no argument 'g'" explain conv1d $TARGET --bake g=1,2
expect_failure "'n' is not a buffer" ptx conv1d $TARGET --bake n=1
# shared-memory spilling: PTX ISA 9.0, launch bounds, sm_75+; a run's
# request takes it too (the error comes before any driver is needed)
expect_failure "--smem-spill needs PTX ISA 9.0 (CUDA 13 driver); --ptx-isa 85" \
  ptx stencil1d $TARGET --block 256 --smem-spill
expect_failure "--smem-spill needs PTX ISA 9.0 (CUDA 13 driver)" \
  explain stencil1d $TARGET --block 256 --smem-spill
expect_failure "--smem-spill needs launch bounds" \
  ptx stencil1d --arch sm_90 --ptx-isa 90 --smem-spill
expect_failure "needs sm_75 or later" \
  ptx stencil1d --arch sm_61 --ptx-isa 90 --block 256 --smem-spill
expect_failure "9.0 for shared-memory spilling" \
  ptx stencil1d --arch sm_90 --ptx-isa 88 --block 256 --smem-spill
expect 0 ptx stencil1d --arch sm_90 --ptx-isa 90 --block 1024 -D RADIUS=64 \
  --no-pass regpressure --smem-spill &&
  out_has '.pragma "enable_smem_spilling";' && out_has ".version 9.0"
expect 0 ptx stencil1d $TARGET --block 1024 -D RADIUS=64 &&
  out_lacks "enable_smem_spilling" && out_has ".version 8.5"
# floating-point modes (--ftz, --prec-div, --prec-sqrt, --fast-math) and
# libdevice: blackscholes calls expf and logf
expect 0 explain blackscholes $TARGET --block 256 &&
  out_has "math: libdevice functions linked: __nv_logf (for llvm.log.f32), __nv_expf (for llvm.exp.f32); from "
expect 0 explain blackscholes $TARGET --ftz --prec-div=0 --prec-sqrt=0 &&
  out_has "math: floating point: f32 denormals flushed to zero, approximate f32 division, approximate sqrtf"
expect 0 ptx blackscholes $TARGET --fast-math &&
  out_has "ex2.approx.ftz.f32" && out_has "div.approx.ftz.f32" &&
  out_has "sqrt.approx.ftz.f32" && out_has "mul.rn.ftz.f32"
expect 0 ptx blackscholes $TARGET --ftz=false --prec-sqrt=1 &&
  out_has "sqrt.rn.f32" && out_has "div.rn.f32" && out_lacks "mul.rn.ftz.f32"
expect_usage ptx blackscholes $TARGET --prec-div=2
# the fused separable filter's grid barrier reads the driver's workspace;
# the tool says how a program launching the PTX itself must launch it
expect 0 ptx sepfilter_fused $TARGET -D RADIUS=8 --block 32,8 &&
  out_has "%envreg1" && out_has "%envreg2"
grep -qF "kspec: note: the kernel synchronizes the grid: launch it" "$TMP/err" ||
  bad "ptx sepfilter_fused: no note on stderr"
# the screen vouches for %envreg reads: codegen stays in this process
expect 0 explain sepfilter_fused $TARGET -D RADIUS=8 --block 32,8 &&
  out_has "time: " && out_lacks "child process"
expect_usage ptx blackscholes $TARGET --prec-sqrt
expect_usage ptx blackscholes $TARGET --ftz=maybe
expect_usage ptx blackscholes $TARGET --fast-math=1
head -c 100 /dev/urandom >"$TMP/notbc.bc"
export KSPEC_LIBDEVICE="$TMP/notbc.bc"
expect_failure \
  "libdevice: blackscholes: calls __nv_logf, which needs libdevice: $TMP/notbc.bc is not LLVM bitcode" \
  ptx blackscholes $TARGET
KSPEC_LIBDEVICE="$TMP/nothing.bc"
expect_failure "\$KSPEC_LIBDEVICE=$TMP/nothing.bc: no such file" \
  ptx blackscholes $TARGET
expect 0 ptx conv1d $TARGET # no math: no search
unset KSPEC_LIBDEVICE
expect_usage ptx conv1d $TARGET --bake f=1,x
expect_usage ptx conv1d $TARGET --bake f=
expect_usage run conv1d $TARGET --bake f=1

# ---- success ----------------------------------------------------------------------
expect 0 ptx conv1d $TARGET -D FILTER_LEN=16 --block 128 --maxnreg 64
out_has ".entry conv1d("
out_has ".reqntid 32, 1, 1" # coarsened by 4: the real block
out_has ".maxnreg 64"
out_has ".target sm_90"
out_lacks "[conv1d_param_4]"
# what a program launching the PTX itself must do, on stderr
grep -qF "note: launch with block 32x1x1" "$TMP/err" ||
  bad "$last: no note of the real block"
grep -qF "copy the first 64 bytes of argument 1's buffer to .const ks_cmem_1" \
  "$TMP/err" || bad "$last: no note of the constant copy"
expect 0 ptx conv1d $TARGET
out_has "[conv1d_param_4]"
out_lacks ".reqntid"
[ -s "$TMP/err" ] && bad "$last: a note for a kernel that needs none"
expect 0 ptx transpose $TARGET -D TILE=16
out_has ".reqntid 16, 4, 1" # 4 rows per thread (store exchange): the real block
expect 0 ptx conv1d $TARGET -D FILTER_LEN=9 -o "$TMP/out.ptx"
[ -s "$TMP/out" ] && bad "ptx -o: printed on stdout"
grep -qF ".entry conv1d(" "$TMP/out.ptx" 2>/dev/null || bad "ptx -o: no PTX"
expect 0 ir conv1d $TARGET -D FILTER_LEN=4 --stage bind
out_has "define"
out_lacks "llvm.global.annotations"
expect 0 ir conv1d $TARGET
out_has "define"
expect 0 ptx "$DATA/saxpy.ll" $TARGET --maxntid 128
out_has ".entry saxpy("
out_has ".maxntid 128, 1, 1"
expect 0 explain conv1d $TARGET -D FILTER_LEN=5 --no-pass smem_promote
out_has "conv1d: kernel conv1d on sm_90"
out_has "smem_promote: switched off"
out_has "static shared memory:"
expect 0 explain reduce_sum $TARGET
out_lacks "switched off"
# the last line says whether any optional pass changed the kernel
expect 0 explain reduce_sum $TARGET --block 256
[ "$(tail -n 1 "$TMP/out")" = "summary: changed by gcoarsen" ] ||
  bad "$last: last line is not 'summary: changed by gcoarsen'"
expect 0 explain reduce_sum $TARGET --block 256 --no-pass gcoarsen \
  --no-pass const_promote
[ "$(tail -n 1 "$TMP/out" | cut -c1-45)" = \
  "summary: no optional pass changed the kernel:" ] ||
  bad "$last: last line does not say no optional pass changed the kernel"
expect 0 ptx conv1d --help
out_has "--no-pass NAME"
out_has "smem_promote, const_promote"

# ---- smem_promote: histogram's atomics privatized, or not when switched off ----
expect 0 explain histogram $TARGET -D BINS=256 --block 256
out_has "smem_promote: promoted hist: 256 bins x 4 B x 8 copies (one per warp) = 8192 B of shared memory"
out_has "static shared memory: 8192 bytes"
expect 0 explain histogram $TARGET
out_has "smem_promote: declined hist:"
expect 0 explain histogram $TARGET -D BINS=256 --block 256 --no-pass smem_promote
out_has "smem_promote: switched off"
out_lacks "promoted hist"
expect 0 ptx histogram $TARGET -D BINS=256 --block 256
out_has "ks_smem_hist[8192]"
out_has "atom.shared.add.u32"
out_has "bar.sync"
out_has "red.global.add.u32" # the merge: its old value unused (ptxedit.c)
expect 0 ptx histogram $TARGET -D BINS=256 --block 256 --no-pass smem_promote
out_has "red.global.add.u32"
out_lacks "atom.shared"
out_lacks "bar.sync"

# ---- const_promote: baked taps and the read-only path -----------------------
# (window staging off: it would move x to shared memory)
TAPS="f=0.1,0.2,0.4,0.2,0.1"
expect 0 ptx conv1d $TARGET -D FILTER_LEN=5 --block 256 --bake $TAPS \
  --no-pass smem_promote --no-pass tcoarsen
out_lacks "[conv1d_param_1]"
out_has "0f3DCCCCCD"
out_has "0f3ECCCCCD"
out_has "ld.global.nc.f32"
[ "$(grep -c 'ld\.global' "$TMP/out")" -eq 5 ] ||
  bad "$last: want 5 global loads (x only)"
expect 0 ptx conv1d $TARGET -D FILTER_LEN=5 --block 256 --bake $TAPS \
  --no-pass const_promote --no-pass smem_promote --no-pass tcoarsen
out_has "[conv1d_param_1]"
out_lacks "0f3DCCCCCD"
out_lacks "ld.global.nc"
[ "$(grep -c 'ld\.global\.f32' "$TMP/out")" -eq 10 ] ||
  bad "$last: want 10 global loads (x and f)"
expect 0 explain conv1d $TARGET -D FILTER_LEN=5 --bake $TAPS
out_has "const_promote: f: 5 loads baked to float constants (5 values)"
out_has "const_promote: x: 5 loads read-only, marked for ld.global.nc"
expect_failure "kernel 'conv1d' has no argument 'g'" ptx conv1d $TARGET \
  -D FILTER_LEN=5 --bake g=1
expect_failure "argument 'n' is not a buffer" ptx conv1d $TARGET \
  -D FILTER_LEN=5 --bake n=1
expect_usage ptx conv1d $TARGET --bake f=1,x

# ---- the globals the passes add take names PTX accepts -------------------------
# clang -O2 names no argument; the tile of argument 1 was "ks_window_argument
# 1", which the backend screen refused
expect 0 ptx "$DATA/unnamed.ll" $TARGET --block 64
out_has ".shared .align 16 .b8 ks_window_arg1[520];"
out_has "ld.shared.u64"

# ---- markings on a kernel whose arguments clang left unnamed ---------------------
# (clang drops value names unless told -fno-discard-value-names): the
# error says so; integer ranges print as integers
marked() { # $1: the kernel's argument list
  cat <<EOT
target triple = "nvptx64-nvidia-cuda"
@.str = private unnamed_addr constant [40 x i8] c"kspec.param N 7 -2147483648 99999999999\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @k, ptr @.str, ptr null, i32 0, ptr null }], section "llvm.metadata"
define void @k($1) {
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
EOT
}
marked "ptr %0, i64 %1" >"$TMP/unnamed_param.ll"
expect_failure "parameter 'N' is not an argument of the kernel (its arguments have no names in the IR: compile the template with clang's -fno-discard-value-names)" \
  info "$TMP/unnamed_param.ll"
marked "ptr %x, i64 %N" >"$TMP/named_param.ll"
expect 0 info "$TMP/named_param.ll"
out_has "range [-2147483648, 99999999999]"
expect_failure "N=100000000000 out of range [-2147483648, 99999999999]" \
  ptx "$TMP/named_param.ll" $TARGET -D N=100000000000
expect_failure "kernel 'pair' has no argument 'x' (its arguments have no names in the IR" \
  ptx "$DATA/unnamed.ll" $TARGET --bake x=1

# ---- any scalar argument of a user's kernel, by name or position; C++ names --
expect 0 ptx "$DATA/user_args.ll" $TARGET --kernel scaled_sum -D @0=4096 -D taps=8
out_has "4095;"
out_lacks "[scaled_sum_param_0]"
expect 0 ptx "$DATA/user_tmpl.ll" $TARGET --kernel "scale<float,4>" -D @1=1000
out_has ".entry _Z5scaleIfLi4EEvPT_i("
out_has "999;"
expect_failure "kernel name 'scale' is ambiguous: scale<float, 4>(float*, int), scale<int, 4>(int*, int)" \
  ptx "$DATA/user_tmpl.ll" $TARGET --kernel scale
expect_failure "position @7 is out of range: kernel 'scaled_sum' has 5 arguments" \
  ptx "$DATA/user_args.ll" $TARGET --kernel scaled_sum -D @7=1
expect_failure "argument 'x' (@3) of kernel 'scaled_sum' is a pointer: it takes no number (give a read-only buffer's contents with --bake" \
  ptx "$DATA/user_args.ll" $TARGET --kernel scaled_sum -D x=1
expect_failure "us=65536 out of range [0, 65535]" \
  ptx "$DATA/user_args.ll" $TARGET --kernel kinds -D us=65536
# an unsigned int: its range from the C++ symbol; an extern "C" int: either
expect 0 ptx "$DATA/user_tmpl.ll" $TARGET --kernel sizes -D @0=3000000000
out_has ", -1294967297;" # i >= 3000000000: i > 2999999999, as u32 bits
expect_failure "@0=-1 out of range [0, 4294967295]" \
  ptx "$DATA/user_tmpl.ll" $TARGET --kernel sizes -D @0=-1
expect 0 ptx "$DATA/user_args.ll" $TARGET --kernel scaled_sum -D n=3000000000
expect_failure "n=4294967296 out of range [-2147483648, 4294967295]" \
  ptx "$DATA/user_args.ll" $TARGET --kernel scaled_sum -D n=4294967296
expect_failure "compile it with clang's -fno-discard-value-names, or bind by position (@0..@3)" \
  ptx "$DATA/saxpy.ll" $TARGET -D n=5
expect_failure "n bound twice (as 'n' and as '@0'" \
  ptx "$DATA/user_args.ll" $TARGET --kernel scaled_sum -D n=5 -D @0=5

# ---- a kernel with launch bounds of its own (__launch_bounds__(128, 2)) -----------
cat >"$TMP/own_bounds.ll" <<'EOT'
target triple = "nvptx64-nvidia-cuda"
define void @lb(ptr %p) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  store i32 %t, ptr %p
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
!nvvm.annotations = !{!0, !1, !2}
!0 = !{ptr @lb, !"kernel", i32 1}
!1 = !{ptr @lb, !"maxntidx", i32 128}
!2 = !{ptr @lb, !"minctasm", i32 2}
EOT
expect 0 ptx "$TMP/own_bounds.ll" $TARGET --block 96
out_has ".reqntid 96, 1, 1"
out_has ".minnctapersm 2"
out_lacks ".maxntid"
out_lacks "%ntid.x"
expect_failure "a block of 256 threads exceeds the .maxntid 128 kernel 'lb' declares" \
  ptx "$TMP/own_bounds.ll" $TARGET --block 256

# ---- baked values: a subnormal is a value; one a float cannot hold is not baked ----
expect 0 explain conv1d $TARGET -D FILTER_LEN=2 --bake f=1e-310,0.5
out_has "const_promote: f: 2 loads baked to float constants (2 values)"
expect 0 explain conv1d $TARGET -D FILTER_LEN=2 --bake f=1e39,0.5
out_has "const_promote: f: 1 loads kept: baked value not a float"
expect_usage ptx conv1d $TARGET -D FILTER_LEN=2 --bake f=1e999,0.5

# ---- codegen without its vectorizer and loop strength reduction ------------------
# (jit/codegen/target.c). Adjacent constant taps, which the optimize stage's screen
# passes by: codegen's vectorizer would have merged them.
IRDIR=$DATA/../ir
expect 0 ptx "$IRDIR/vectorize_declines.ll" --kernel taps $TARGET
[ "$(grep -c 'ld\.const\.f32' "$TMP/out")" -eq 2 ] ||
  bad "$last: want 2 scalar constant loads"
out_lacks "ld.const.v2"
# where the screen finds adjacent loads, the optimize stage merges them
expect 0 ptx "$IRDIR/vectorize.ll" --kernel quad $TARGET
out_has "ld.global.nc.v4.f32"
# The histogram's vector loop computes each address from its index, as
# written: loop strength reduction would make it a pointer stepped by the
# stride, its multiply out of the loop.
expect 0 ptx histogram $TARGET -D BINS=256 --block 256
[ "$(grep -B2 'ld\.global\.nc\.v4\.u32' "$TMP/out" |
  grep -c 'mul\.wide\.u32.*, 16;')" -eq 1 ] ||
  bad "$last: want the vector load's address multiplied in the loop"

# ---- the disk cache -------------------------------------------------------------
err_has() {
  grep -qF -- "$1" "$TMP/err" || bad "$last: stderr lacks '$1'"
}
expect 0 cache path
out_has "$TMP/cache"
expect 0 cache --help
out_has "usage: kspec cache"
out_has "verify"
expect_usage cache
expect_usage cache frob
expect_usage cache stats extra
expect 0 cache clear
expect 0 cache stats
out_has "entries    0"
out_has "limit      268435456"
expect 0 ptx conv1d $TARGET -D FILTER_LEN=32 --block 256 --why-miss
err_has "kspec: cache: miss: the cache is empty"
out_has ".entry conv1d("
expect 0 ptx conv1d $TARGET -D FILTER_LEN=32 --block 256 --why-miss
err_has "kspec: cache: hit"
expect 0 explain conv1d $TARGET -D FILTER_LEN=32 --block 256
out_has "from the disk cache"
expect 0 ptx conv1d $TARGET -D FILTER_LEN=31 --block 256 --why-miss
err_has "miss: FILTER_LEN 31 != 32 (nearest of 1 entry)"
expect 0 explain conv1d $TARGET -D FILTER_LEN=31 --block 128 --why-miss
err_has "block 128,1,1 != 256,1,1"
expect 0 ptx conv1d $TARGET -D FILTER_LEN=31 --block 128 --no-pass \
  smem_promote --why-miss
err_has "no_pass smem_promote != none"
expect 0 cache stats
out_has "entries    5" # 4 PTX, conv1d's description

for f in "$TMP"/cache/*.kspec; do
  printf 'X' | dd of="$f" bs=1 seek=200 conv=notrunc 2>/dev/null
  break
done
expect 0 cache verify
out_has "5 entries checked: 4 good, 1 damaged and removed"
expect 0 cache clear
out_has "4 entries removed"
expect 0 cache stats
out_has "entries    0"
chmod 777 "$TMP/cache"
expect 0 ptx conv1d $TARGET -D FILTER_LEN=4
err_has "kspec: warning: cache: refusing $TMP/cache"
out_has ".entry conv1d("
expect_failure "writable by group or others" cache stats
chmod 700 "$TMP/cache"
KSPEC_CACHE=off
export KSPEC_CACHE
expect_failure "no disk cache" cache path
unset KSPEC_CACHE
# ---- the prewarm list: record, prewarm into a fresh cache, hit ----
KSPEC_RECORD=$TMP/rec.txt
export KSPEC_RECORD
expect 0 ptx conv1d $TARGET -D FILTER_LEN=12 --block 256
expect 0 ptx conv1d $TARGET -D FILTER_LEN=12 --block 256 # a disk hit
expect 0 ptx conv1d $TARGET -D FILTER_LEN=5 --no-pass smem_promote \
  --bake f=1,2,3,4,5
unset KSPEC_RECORD
[ "$(wc -l <"$TMP/rec.txt")" -eq 3 ] || bad "KSPEC_RECORD: want 3 lines"
grep -q "^kspec-req-1 conv1d [0-9a-f]\{32\} kernel=conv1d block=256,0,0 .* D:FILTER_LEN=12$" \
  "$TMP/rec.txt" || bad "KSPEC_RECORD: unexpected line format"
KSPEC_CACHE_DIR=$TMP/cache2
expect 0 prewarm "$TMP/rec.txt" $TARGET -j 2
out_has "3 requests for sm_90"
out_has "2 compiled, 0 already cached, 1 repeated, 0 failed"
expect 0 prewarm "$TMP/rec.txt" $TARGET
out_has "0 compiled, 2 already cached, 1 repeated, 0 failed"
expect 0 explain conv1d $TARGET -D FILTER_LEN=5 --no-pass smem_promote \
  --bake f=1,2,3,4,5
out_has "from the disk cache"
echo "kspec-req-1 conv1d 00 kernel=conv1d" >>"$TMP/rec.txt"
expect 1 prewarm "$TMP/rec.txt" $TARGET
err_has "rec.txt:4: template conv1d changed since it was recorded"
out_has "1 failed"
expect_failure "cannot open" prewarm "$TMP/none.txt" $TARGET
expect_usage prewarm
expect_usage prewarm "$TMP/rec.txt" extra
expect_usage prewarm -j 0 "$TMP/rec.txt"
expect 0 prewarm --help
out_has "usage: kspec prewarm FILE"
KSPEC_CACHE_DIR=$TMP/cache
# ---- coarsen: histogram's loop reads 16 samples per 16-byte load ----
expect 0 explain histogram $TARGET -D BINS=256 --block 256
# (the loop's name, i.0 and a suffix LLVM picks, is left out)
out_has "coarsen: coarsened loop i.0"
out_has ": 16 elements of data (1 B) per 16-byte load"
expect 0 ptx histogram $TARGET -D BINS=256 --block 256
out_has "ld.global.nc.v4.u32"
out_has "atom.shared.add.u32"
expect 0 ptx histogram $TARGET -D BINS=256 --block 256 --no-pass coarsen
out_lacks "ld.global.nc.v4"
out_has "atom.shared.add.u32"
# ---- stats: real figures and occupancy ----------------------------------------
expect 0 stats --help
out_has "usage: kspec stats"
out_has "--json"
expect 0 --help
out_has "stats TEMPLATE"
expect_usage stats
expect_usage stats conv1d histogram
expect_usage stats conv1d --bogus
expect_usage stats conv1d --block "1,1,1$(printf %070d 0 | tr 0 x)Z"
expect_usage stats conv1d --smem x
expect_usage stats conv1d --block 0
expect_failure "sm_99" stats conv1d --arch sm_99 --no-driver
expect_failure "2048" stats conv1d $TARGET --block 2048 --no-driver
expect_failure "no_such_template" stats no_such_template $TARGET --no-driver
# No ptxas and no driver: one line naming both.
KSPEC_PTXAS=$TMP/missing_ptxas
export KSPEC_PTXAS
expect_failure "KSPEC_PTXAS=$TMP/missing_ptxas" stats conv1d $TARGET \
  --no-driver
grep -qF "no driver" "$TMP/err" || bad "$last: stderr lacks 'no driver'"

# A fake ptxas with known figures: the table and the occupancy follow them
# (64 registers, 256 threads: 4 blocks by registers; 2048 + 1024 bytes of
# shared memory a block).
cat >"$TMP/ptxas" <<'EOF2'
#!/bin/sh
k=$(sed -n 's/^.*\.entry \([A-Za-z0-9_]*\)(.*$/\1/p' "$5")
echo "ptxas info    : Compiling entry function '$k' for 'sm_90'"
echo "ptxas info    : Function properties for $k"
echo "    24 bytes stack frame, 16 bytes spill stores, 8 bytes spill loads"
echo "ptxas info    : Used 64 registers, used 1 barriers, 2048 bytes smem"
EOF2
chmod +x "$TMP/ptxas"
KSPEC_PTXAS=$TMP/ptxas
expect 0 stats conv1d $TARGET -D FILTER_LEN=8 --block 256 --no-driver
out_has "conv1d: kernel conv1d on sm_90, FILTER_LEN=8, block 256x1x1"
out_has " registers (regpressure, from the IR)"
out_has "registers       64"
out_has "spill stores    16 B"
out_has "spill loads     8 B"
out_has "stack frame     24 B"
out_has "static smem     2048 B"
# coarsened by 4: 64 real threads of 64 registers per block
out_has "    256         16        32      50.0%  registers"
out_lacks "  128 "
out_has "co-resident grid: 2112 blocks of 256 threads (calculator: 16 per SM x 132 SMs, those of an H100 SXM, sm_90's usual part; no driver)"
expect 0 stats conv1d $TARGET --no-driver --maxntid 300
out_has "    128          8        32      50.0%  registers"
out_has "    256          4        32      50.0%  registers"
out_lacks "  512 "
# over 48 KiB, as ks_launch raises the kernel's limit; over the opt-in one
expect 0 stats conv1d $TARGET --no-driver --smem 60000
out_has "    128          3        12      18.8%  shared memory"
expect 0 stats conv1d $TARGET --no-driver --smem 240000
out_has "      0         0       0.0%  shared memory"
expect 0 stats conv1d $TARGET -D FILTER_LEN=8 --no-driver --json
[ "$(wc -l <"$TMP/out")" -eq 1 ] || bad "$last: not one line"
out_has '"template":"conv1d"'
out_has '"bindings":{"FILTER_LEN":"8"}'
out_has '"source":"calculator","part":"an H100 SXM"}'
out_has '"regs":64,"spill_stores":16,"spill_loads":8,"stack_frame":24'
out_has '"static_smem":2048,"const_bytes":null'
out_has '{"block":1024,"blocks_per_sm":1,'
out_has '"limited_by":["registers"]'
out_has '"driver":{"error":"not asked (--no-driver)"}'
if command -v python3 >/dev/null; then
  python3 -m json.tool "$TMP/out" >/dev/null 2>&1 || bad "$last: not JSON"
  # Strings the user gave are escaped: a template named by a strange path.
  cp "$DATA/saxpy.ll" "$TMP/we\"ird\\name.ll"
  expect 0 stats "$TMP/we\"ird\\name.ll" $TARGET --no-driver --json
  python3 -m json.tool "$TMP/out" >/dev/null 2>&1 || bad "$last: not JSON"
  out_has '"kernel":"saxpy"'
  expect 0 stats conv1d $TARGET -D FILTER_LEN=8 --no-driver --json \
    --kernel conv1d
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); \
assert [o["block"] for o in d["occupancy"]] == [128, 256, 512, 1024]; \
assert d["occupancy"][1]["blocks_allowed_by"]["shared_memory"] == 76' \
    "$TMP/out" || bad "$last: unexpected JSON"
fi
unset KSPEC_PTXAS

# The real ptxas, where there is one.
ptxas=$(command -v ptxas || true)
[ -n "$ptxas" ] || [ ! -x /usr/local/cuda/bin/ptxas ] ||
  ptxas=/usr/local/cuda/bin/ptxas
if [ -n "$ptxas" ]; then
  expect 0 stats conv1d $TARGET -D FILTER_LEN=32 --block 256 --no-driver
  out_has "ptxas (sm_90)"
  out_has "spill stores    0 B"
  out_has "limited by"
  expect 0 stats histogram $TARGET -D BINS=256 --block 256 --no-driver --json
  out_has '"static_smem":8192'
  out_has '"spill_stores":0'
  if command -v python3 >/dev/null; then
    python3 -m json.tool "$TMP/out" >/dev/null 2>&1 || bad "$last: not JSON"
  fi
else
  echo "note: no ptxas, the stats checks with the real one are skipped"
fi

# ---- tune: argument errors (before any device is looked for) -----------------
# one line each: "kspec: tune: ..."
tune_usage() {
  needle=$1
  shift
  expect 2 "$@" || return
  [ "$(wc -l <"$TMP/err")" -eq 1 ] || bad "$last: stderr is not one line"
  head -n 1 "$TMP/err" | grep -q '^kspec: tune: ' ||
    bad "$last: stderr does not start with 'kspec: tune: '"
  grep -qF -- "$needle" "$TMP/err" || bad "$last: stderr lacks '$needle'"
  [ -s "$TMP/out" ] && bad "$last: printed on stdout"
}
tune_usage "--sweep NOPE: not maxntid, minctasm, maxnreg, block, tex:ARG or a parameter of conv1d" \
  tune conv1d --sweep NOPE=1,2
tune_usage "--sweep maxntid=: empty list" tune conv1d --sweep maxntid=
tune_usage "'12x' is not a number" tune conv1d --sweep maxntid=12x,3
tune_usage "'-4' is not a number" tune conv1d --sweep minctasm=1,-4
tune_usage "an empty value" tune conv1d --sweep maxntid=64,,128
tune_usage "want NAME=V,V,..." tune conv1d --sweep maxntid
tune_usage "nothing to sweep" tune conv1d
tune_usage "missing TEMPLATE" tune --sweep maxntid=64
tune_usage "--sweep needs a value" tune conv1d --sweep
tune_usage "--gpus 1,3,1: GPU 1 is named twice" \
  tune conv1d --sweep maxntid=64 --gpus 1,3,1
tune_usage "--gpus 0,x: want all or device ordinals" \
  tune conv1d --sweep maxntid=64 --gpus 0,x
tune_usage "--gpus -1: want all or device ordinals" \
  tune conv1d --sweep maxntid=64 --gpus -1
tune_usage "--gpus given twice" \
  tune conv1d --sweep maxntid=64 --gpus 0 --gpus 1
expect 0 tune --help
out_has "kspec tune --show"
expect 0 tune --show
out_has "no stored results in $KSPEC_CACHE_DIR/tune"

# ---- module globals ------------------------------------------------------------
expect 0 info "$DATA/globals.ll"
out_has "globals"
out_has "  taps         __constant__     36 bytes  float[9] (read-only, initialized)"
out_has "  co           __constant__     24 bytes  struct coeffs {float, int, float[4]} (read-only)"
out_has "  counter      __device__        4 bytes  int (written by a kernel)"
out_has "  lut          __device__       32 bytes  int[8] (written by a kernel, initialized)"
out_has "  scratch      __device__      128 bytes  float[32] (written by a kernel)"
expect 0 info conv1d
out_lacks "globals"
# a __constant__ filter baked from its initializer: immediates, no load
expect 0 ptx "$DATA/globals.ll" $TARGET --kernel conv3x3 --bake taps
out_has "fma.rn.f32"
out_has "0f3E800000"
out_lacks "[taps"
expect 0 explain "$DATA/globals.ll" $TARGET --kernel conv3x3 \
  --bake taps=1,2,3,4,5,6,7,8,9
out_has "const_promote: global taps: 9 loads became constants (from baked values)"
expect_failure "bake: globals: kernel 'conv3x3' writes global 'counter'" \
  ptx "$DATA/globals.ll" $TARGET --kernel conv3x3 --bake counter
expect_failure "global 'taps' (float[9]) holds 9 values; the bake gives 2" \
  ptx "$DATA/globals.ll" $TARGET --kernel conv3x3 --bake taps=1,2
expect_failure "and the template no global of that name" \
  ptx "$DATA/globals.ll" $TARGET --kernel conv3x3 --bake tap

echo "$checks commands, $failures failures"
[ "$failures" -eq 0 ]
