#!/bin/sh
# Runs kspec's histogram, as specialized up to the coarsen stage, on the
# CPU: the NVPTX IR is turned into host IR (special registers become calls
# to hist_grid.c, which runs every thread of a simulated grid one after
# another; there is no barrier or shared memory before smem_promote) and
# built with AddressSanitizer. Every sample must be counted exactly once,
# for sizes around the 16-byte chunks and data misaligned or not, and no
# load may read past the samples.
#
#   coarsen_sim.sh KSPEC CLANG SRCDIR WORKDIR
# Exit 77 (skipped) where the host compiler cannot build with ASan.
set -e
kspec=$1 clang=$2 src=$3 work=$4
mkdir -p "$work"
cd "$work"

. "$src/sim_lib.sh"
need_asan "$clang"

# name, kspec options, block sizes to simulate
run() {
  name=$1 opts=$2 blocks=$3
  "$kspec" ir histogram $opts --stage coarsen -o "$name.ll"
  grep -q 'load <4 x i32>' "$name.ll" || { echo "$name: not coarsened"; exit 1; }
  host_ir "$name.ll" "$name.host.ll"
  "$clang" -O1 -fsanitize=address -Wno-override-module -Wno-pass-failed \
    -c "$name.host.ll" -o "$name.o"
  "$clang" -O1 -fsanitize=address "$src/hist_grid.c" "$name.o" -o "$name"
  for b in $blocks; do
    ./"$name" "$b"
  done
}

run bins256_block256 "-D BINS=256 --block 256" 256
run generic "" "256 96 1"
