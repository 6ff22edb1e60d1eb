#!/bin/sh
# tools/fuzz-pack.sh - packs the fuzz targets for a machine without LLVM or
# clang (the GPU machine, with many cores): kspec-fuzz with LLVM, zlib and
# zstd linked statically (KSPEC_LLVM_STATIC), ASan, UBSan and libFuzzer
# inside, needing only the C and C++ run-times, and stripped, with the
# committed corpora and the runner, into .dev/fuzz:
#
#   .dev/fuzz/kspec-fuzz     every target (KSPEC_FUZZ_TARGET picks one)
#   .dev/fuzz/corpus/NAME/   the seeds of each target
#   .dev/fuzz/targets.txt    the targets and their libFuzzer options
#   .dev/fuzz/run.sh         runs them all at once (tests/fuzz/run.sh)
#
# There, from the repository's root (the pack carried as .dev/fuzz):
#   .dev/fuzz/run.sh --seconds 480 --jobs 5 --tar
# runs the three targets side by side, 5 processes each, 8 minutes, and
# leaves in $OUT/fuzz/TARGET/ the reproducers of anything found and
# TARGET.tar.gz (new inputs, logs); $OUT/fuzz/summary.txt has the numbers.
# The unstripped binary stays in build-fuzz-static/tests/fuzz/ to read the
# stack traces of what comes back (addr2line -e ... ADDRESS).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
b="$root/build-fuzz-static"
p="$root/.dev/fuzz"
cc=$(command -v clang-19 || true)
cxx=$(command -v clang++-19 || true)
[ -n "$cc" ] && [ -n "$cxx" ] ||
  { echo "fuzz-pack: clang-19 and clang++-19 are needed" >&2; exit 2; }
cmake -S "$root" -B "$b" -DKSPEC_FUZZ=ON -DKSPEC_LLVM_STATIC=ON \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$b" -j "$(nproc)" --target kspec-fuzz
rm -rf "$p"
mkdir -p "$p"
strip -o "$p/kspec-fuzz" "$b/tests/fuzz/kspec-fuzz"
cp -r "$root/tests/fuzz/corpus" "$p/corpus"
cp "$root/tests/fuzz/targets.txt" "$p/targets.txt"
cp "$root/tests/fuzz/run.sh" "$p/run.sh"
chmod +x "$p/run.sh" "$p/kspec-fuzz"
# Beyond the C and C++ run-times (any machine with Python has them),
# nothing may be needed there.
extra=$(readelf -d "$p/kspec-fuzz" | sed -n "s/.*NEEDED.*\\[\\(.*\\)\\]/\\1/p" |
  grep -vE '^(libc\.|libm\.|libpthread\.|libdl\.|librt\.|libresolv\.|libgcc_s\.|libstdc\+\+\.)' || true)
if [ -n "$extra" ]; then
  echo "fuzz-pack: kspec-fuzz needs more than the C library: $extra" >&2
  exit 1
fi
KSPEC_FUZZ_TARGET=entry "$p/kspec-fuzz" -runs=0 "$p/corpus/entry" >/dev/null 2>&1 ||
  { echo "fuzz-pack: the packed binary does not run" >&2; exit 1; }
size=$(du -sm "$p" | cut -f1)
du -sh "$p"
[ "$size" -lt 60 ] || { echo "fuzz-pack: $p is ${size} MB, over 60" >&2; exit 1; }
