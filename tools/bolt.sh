#!/bin/sh
# tools/bolt.sh - lays out the static libkspec's code from a profile of
# specializations (KSPEC_BOLT; the build runs it after linking libkspec).
#
#   tools/bolt.sh LIBRARY TRAINER TOOLS_DIR [--strip]
#
# LIBRARY must be linked with --emit-relocs. llvm-bolt (Debian bolt-19,
# in TOOLS_DIR) makes an instrumented copy of it; TRAINER (kspec-train)
# specializes every built-in template on that copy, which records how often
# each branch of the library ran; llvm-bolt then rewrites LIBRARY from that
# profile: each function's blocks in the order they run, the code that never
# ran moved out of the way, and the functions that did, ordered so that
# callers lie near their callees. A specialization runs about 6 MB of LLVM's
# 25 MB of code; laid out this way, what it runs fits in under 3 MB.
# --strip strips the result. LIBRARY is replaced only when every step
# succeeded; its old contents are the input, so this must not run twice on
# one link (the build runs it once, right after the link).
set -eu
[ $# -ge 3 ] || {
  echo "usage: tools/bolt.sh LIBRARY TRAINER TOOLS_DIR [--strip]" >&2
  exit 2
}
lib=$1
train=$2
bin=$3
strip=${4:-}
d=$(mktemp -d "$lib.bolt.XXXXXX")
trap 'rm -rf "$d"' EXIT

# step NAME COMMAND...: runs a step, its output kept for an error.
step() {
  name=$1
  shift
  if ! "$@" >"$d/log" 2>&1; then
    cat "$d/log" >&2
    echo "bolt: $name failed on $lib (configure with -DKSPEC_BOLT=OFF to" \
      "build without it)" >&2
    exit 1
  fi
}

step instrument "$bin/llvm-bolt" "$lib" -instrument \
  --instrumentation-file="$d/profile.fdata" -o "$d/instrumented.so"
step training "$train" "$d/instrumented.so"
[ -s "$d/profile.fdata" ] || {
  echo "bolt: the training run left no profile" >&2
  exit 1
}
rm -f "$d/instrumented.so"
# Unstripped, the debug information is rewritten to match.
debug=-update-debug-sections
[ "$strip" = --strip ] && debug=""
# shellcheck disable=SC2086
step optimize "$bin/llvm-bolt" "$lib" -data="$d/profile.fdata" \
  -reorder-blocks=ext-tsp -reorder-functions=cdsort -split-functions \
  -split-all-cold -split-eh -icf=1 -use-gnu-stack -use-old-text $debug \
  -o "$d/out.so"
if [ "$strip" = --strip ]; then
  step strip "$bin/llvm-strip" "$d/out.so"
fi
chmod --reference="$lib" "$d/out.so"
mv -f "$d/out.so" "$lib"
