#!/bin/sh
# tools/setup.sh - installs what kspec needs (Debian packages), then
# configures and builds it in ./build. Safe to run again: it installs only
# what is missing and rebuilds only what changed.
#
#   tools/setup.sh [extra cmake arguments]
set -eu

# libclang-rt-19-dev: the sanitizer run-times and libFuzzer of clang-19
# (tools/check.sh's ASan, UBSan and TSan builds, tools/fuzz.sh); clang-19
# only recommends it. lld-19: the static libkspec's linker, which lays
# LLVM's functions out in the order a specialization runs them
# (KSPEC_SYMBOL_ORDER; GNU ld 2.40 has no such option). bolt-19: llvm-bolt,
# which lays the static libkspec's code out from a profile of
# specializations (KSPEC_BOLT). python3-pip: fetches the CUDA 12.4 header
# wheels of the kernel corpus (tools/cuda-tree.sh). libopenmpi-dev,
# openmpi-bin: kspec_mpi (include/kspec_mpi.h) and its tests (label mpi,
# under mpirun).
PACKAGES="cmake make gcc pkg-config llvm-19-dev llvm-19-tools clang-19 \
libcmocka-dev libxxhash-dev zlib1g-dev libzstd-dev libedit-dev \
libcurl4-openssl-dev libxml2-dev clang-format-19 libclang-rt-19-dev lld-19 \
bolt-19 python3-pip libopenmpi-dev openmpi-bin"

missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
    missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "setup: installing$missing" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q $missing
fi

root=$(cd "$(dirname "$0")/.." && pwd)
# The CUDA 12.4 tree the kernel corpus compiles against (tests/kernels);
# without it (offline) those tests are skipped, and setup goes on.
sh "$root/tools/cuda-tree.sh" "$root/.dev/cuda-12.4" ||
  echo "setup: no CUDA 12.4 tree; the corpus tests (tests/kernels) will be skipped" >&2
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
cmake --build "$root/build" -j "$(nproc)"
