#!/bin/sh
# tools/fuzz.sh - builds the fuzz build (KSPEC_FUZZ: clang-19, libFuzzer,
# ASan, UBSan) when needed and runs each fuzz target from its committed
# corpus (tests/fuzz/corpus/TARGET) for N seconds, one after the other.
#
#   tools/fuzz.sh [--build DIR] [--seconds N] [TARGET...]
#
#   --build DIR  the fuzz build (default: build-fuzz)
#   --seconds N  per target (default 60)
#   TARGET...    template, args, entry (default: all)
#
# New interesting inputs go to a scratch directory, DIR/fuzz-out/TARGET/new
# (merge the ones worth keeping into the corpus with kspec-fuzz -merge=1);
# the committed corpus is never written. Exit status 1 when any target
# found a crash, a leak or a timeout; the summary says where each
# reproducer is and how to run it.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build-fuzz"
seconds=60
while [ $# -gt 0 ]; do
  case "$1" in
  --build) build=${2:?}; shift ;;
  --seconds) seconds=${2:?}; shift ;;
  -h|--help) sed -n '6,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  -*) echo "fuzz: unknown option $1" >&2; exit 2 ;;
  *) break ;;
  esac
  shift
done
cc=$(command -v clang-19 || true)
[ -n "$cc" ] || { echo "fuzz: clang-19 not found (tools/setup.sh installs it)" >&2; exit 2; }
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DKSPEC_FUZZ=ON -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
cmake --build "$build" -j "$(nproc)" --target kspec-fuzz
exec sh "$root/tests/fuzz/run.sh" --serial --seconds "$seconds" \
  --bin "$build/tests/fuzz/kspec-fuzz" --corpus "$root/tests/fuzz/corpus" \
  --targets "$root/tests/fuzz/targets.txt" --out "$build/fuzz-out" "$@"
