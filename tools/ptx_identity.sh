#!/bin/sh
# tools/ptx_identity.sh - the PTX of every built-in template over a grid of
# requests, one file a request, for comparing two builds byte for byte:
#
#   tools/ptx_identity.sh KSPEC_BINARY OUTDIR
#   diff -r OUTDIR_BEFORE OUTDIR_AFTER
#
# The grid: each template at its parameter's default, range ends and a
# middle value, and generic (nothing bound, with and without a block);
# each with no pass switched off and with each optional pass switched off;
# the defaults also for sm_70 and sm_80 and with launch bounds. A request
# that fails leaves its error message and exit status instead. The disk
# cache is off. The kspec tool sets LLVM's options (ks_llvm_own_process);
# KSPEC_LLVM_OPTIONS=off in the environment gives the code a host program
# gets by default from the shared build (BENCHMARKS.md).
set -u
kspec=$1
out=$2
mkdir -p "$out"
export KSPEC_CACHE=off
# template param lo mid def hi block
grid() {
  cat <<'G'
conv1d FILTER_LEN 1 7 32 128 256
sepfilter_rows RADIUS 1 3 8 32 32,8
sepfilter_cols RADIUS 1 3 8 32 32,8
sepfilter_fused RADIUS 1 3 8 32 32,8
histogram BINS 1 100 256 4096 256
reduce_sum BLOCK 1 64 256 1024 -
transpose TILE 1 8 32 32 -
stencil1d RADIUS 1 5 16 64 256
G
}
one() { # name args...
  name=$1
  shift
  "$kspec" ptx "$@" >"$out/$name.ptx" 2>"$out/$name.err"
  echo "rc $?" >>"$out/$name.err"
}
n=0
grid | while read -r t p lo mid def hi blk; do
  bl=""
  [ "$blk" != - ] && bl="--block $blk"
  for np in none tcoarsen coarsen gcoarsen smem_promote const_promote regpressure; do
    npo=""
    [ "$np" != none ] && npo="--no-pass $np"
    for v in $lo $mid $def $hi; do
      # shellcheck disable=SC2086
      one "$t.$p=$v.$np" "$t" -D "$p=$v" $bl $npo --arch sm_90
    done
    # shellcheck disable=SC2086
    one "$t.generic.$np" "$t" $npo --arch sm_90
    # shellcheck disable=SC2086
    [ -n "$bl" ] && one "$t.generic-block.$np" "$t" $bl $npo --arch sm_90
  done
  for a in sm_70 sm_80; do
    # shellcheck disable=SC2086
    one "$t.$p=$def.$a" "$t" -D "$p=$def" $bl --arch $a
  done
  # shellcheck disable=SC2086
  one "$t.$p=$def.bounds" "$t" -D "$p=$def" --maxntid 512 --minctasm 2 --arch sm_90
  # shellcheck disable=SC2086
  one "$t.$p=$def.maxnreg" "$t" -D "$p=$def" $bl --maxnreg 32 --arch sm_90
done
one conv1d.bake conv1d -D FILTER_LEN=5 --bake f=0.1,0.2,0.4,0.2,0.1 --block 256
one stencil1d.smem-spill stencil1d -D RADIUS=64 --block 1024 --smem-spill
one histogram.nonblock-multiple histogram -D BINS=256 --block 100
ls "$out" | grep -c '\.ptx$'
