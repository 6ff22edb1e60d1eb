#!/bin/sh
# tools/check.sh - the checks CI runs after tools/setup.sh, each in its own
# build directory, timed:
#
#   build  the normal build (./build) and the whole test suite
#   asan   AddressSanitizer + UBSan (./build-asan, clang-19, UBSan fatal)
#          and the whole test suite under it, LeakSanitizer on: a leak,
#          an invalid access or undefined behaviour fails the test (the
#          kspec tool's runs in tests/tool_test.sh included)
#   tsan   ThreadSanitizer (./build-tsan, clang-19): the stress test
#          (8 threads specializing, loading and launching through one
#          context over the mocked driver), 5 times, halting on the first
#          race;
#          tools/tsan.supp lists the false positives of uninstrumented
#          libraries, each with its reason
#   fuzz   the libFuzzer build (./build-fuzz, clang-19, ASan + UBSan): the
#          committed corpora replayed (ctest -L fuzz), then every target
#          fuzzed for KSPEC_CHECK_FUZZ_S seconds (default 60) by
#          tools/fuzz.sh; a crash, leak or timeout fails the part
#   static the static libkspec as the GPU machine gets it (./build-check-
#          static, Release: LLVM linked in by ld.lld in the symbol order,
#          laid out by llvm-bolt, stripped), and its kspec tool's PTX over
#          tools/ptx_identity.sh's grid, which must be byte for byte that
#          of ./build's (the shared libLLVM, as linked): a layout that
#          changed what the code does shows here
#
#   tools/check.sh [--clean] [build] [asan] [tsan] [fuzz] [static]
#                                                        (default: all)
#
# --clean removes the sanitizer build directories first (./build is kept:
# setup.sh made it). Every part runs even when an earlier one failed; the
# exit status is 1 when any failed. KSPEC_CHECK_JOBS sets the build's
# parallelism (default: the CPUs).
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
jobs=${KSPEC_CHECK_JOBS:-$(nproc)}
clang=${KSPEC_CHECK_CC:-clang-19}
clean=0
parts=""
for a in "$@"; do
  case $a in
  --clean) clean=1 ;;
  build | asan | tsan | fuzz | static) parts="$parts $a" ;;
  *)
    echo "usage: tools/check.sh [--clean] [build] [asan] [tsan] [fuzz]" \
      "[static]" >&2
    exit 2
    ;;
  esac
done
[ -n "$parts" ] || parts="build asan tsan fuzz static"

now() { date +%s; }
failed=""
summary=""

# run NAME COMMAND...: runs a part, times it, remembers a failure.
run() {
  name=$1
  shift
  echo "==== check: $name" >&2
  t0=$(now)
  "$@"
  rc=$?
  t=$(($(now) - t0))
  if [ "$rc" -eq 0 ]; then
    summary="$summary$(printf '%-6s ok     %4ds' "$name" "$t")
"
  else
    summary="$summary$(printf '%-6s FAILED %4ds' "$name" "$t")
"
    failed="$failed $name"
  fi
}

configure_build() { # DIR [cmake arguments]: configure and build everything
  dir=$1
  shift
  cmake -S "$root" -B "$root/$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" &&
    cmake --build "$root/$dir" -j "$jobs"
}

part_build() {
  configure_build build &&
    ctest --test-dir "$root/build" --output-on-failure -j2 &&
    mpi_tests_exist
}

# The mpi tests (label mpi) are part of the suite where CMake found MPI:
# setup.sh installs OpenMPI, so their absence is a failure here.
mpi_tests_exist() {
  ctest --test-dir "$root/build" -N -L mpi | grep -q 'Total Tests: [1-9]' || {
    echo "check: no mpi tests (OpenMPI not found: run tools/setup.sh)" >&2
    return 1
  }
}

part_asan() {
  configure_build build-asan -DKSPEC_SANITIZE=ON \
    -DCMAKE_C_COMPILER="$clang" &&
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
      UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      ctest --test-dir "$root/build-asan" --output-on-failure -j2 -LE mpi
  # (not the mpi tests: OpenMPI's own allocations would read as leaks)
}

part_tsan() {
  # only what the stress test needs is built
  cmake -S "$root" -B "$root/build-tsan" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DKSPEC_TSAN=ON -DCMAKE_C_COMPILER="$clang" &&
    cmake --build "$root/build-tsan" -j "$jobs" --target test_stress &&
    TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$root/tools/tsan.supp" \
      ctest --test-dir "$root/build-tsan" --output-on-failure -R '^stress$' \
        --repeat until-fail:5 # other interleavings: a few seconds each
}

part_fuzz() {
  # only the fuzzer is built: the replays and tools/fuzz.sh run it
  cmake -S "$root" -B "$root/build-fuzz" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DKSPEC_FUZZ=ON -DCMAKE_C_COMPILER="$clang" &&
    cmake --build "$root/build-fuzz" -j "$jobs" --target kspec-fuzz &&
    ctest --test-dir "$root/build-fuzz" --output-on-failure -j2 -L fuzz &&
    "$root/tools/fuzz.sh" --build "$root/build-fuzz" \
      --seconds "${KSPEC_CHECK_FUZZ_S:-60}"
}

part_static() {
  # ./build's kspec is the reference: build it first where part build did not.
  # Both tools set LLVM's options (the shared one by ks_llvm_own_process, the
  # static library always): the same codegen, built and linked two ways.
  d=$(mktemp -d) &&
    cmake -S "$root" -B "$root/build-check-static" -DKSPEC_LLVM_STATIC=ON \
      -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF &&
    cmake --build "$root/build-check-static" -j "$jobs" --target kspec-tool &&
    cmake --build "$root/build" -j "$jobs" --target kspec-tool &&
    sh "$root/tools/ptx_identity.sh" "$root/build/tools/kspec" "$d/shared" &&
    sh "$root/tools/ptx_identity.sh" "$root/build-check-static/tools/kspec" \
      "$d/static" &&
    diff -r "$d/shared" "$d/static" >"$d/diff" &&
    echo "check: static: $(ls "$d/static" | grep -c '\.ptx$') requests," \
      "the same PTX and messages as ./build's" >&2
  rc=$?
  [ "$rc" -eq 0 ] || head -40 "$d/diff" >&2 2>/dev/null
  rm -rf "$d"
  return "$rc"
}

command -v "$clang" >/dev/null 2>&1 || {
  echo "check: $clang not found (tools/setup.sh installs it)" >&2
  exit 1
}
if [ "$clean" -eq 1 ]; then
  rm -rf "$root/build-asan" "$root/build-tsan" "$root/build-fuzz" \
    "$root/build-check-static"
fi
t_all=$(now)
for p in $parts; do
  run "$p" "part_$p"
done
echo "==== check: summary" >&2
printf '%s' "$summary" >&2
printf '%-6s        %4ds\n' total "$(($(now) - t_all))" >&2
if [ -n "$failed" ]; then
  echo "check: FAILED:$failed" >&2
  exit 1
fi
echo "check: all passed" >&2
