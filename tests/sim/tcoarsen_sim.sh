#!/bin/sh
# Runs kspec's conv1d, coarsened by tcoarsen, on the CPU: the NVPTX IR
# after the tcoarsen stage, and after the whole pipeline without window
# staging (no shared memory, no barrier), is turned into host IR (special
# registers become calls to conv_grid.c, which runs every real thread of a
# simulated grid one after another) and built with AddressSanitizer. Every
# output must be right and written once, for sizes where the last real
# threads hold 0..4 of their virtual threads' outputs (the serial copy),
# and no access may go past x or y.
#
#   tcoarsen_sim.sh KSPEC CLANG SRCDIR WORKDIR
# Exit 77 (skipped) where the host compiler cannot build with ASan.
set -e
kspec=$1 clang=$2 src=$3 work=$4
mkdir -p "$work"
cd "$work"

. "$src/sim_lib.sh"
need_asan "$clang"

# name, kspec options, block, taps
run() {
  name=$1 opts=$2 block=$3 taps=$4
  "$kspec" ir conv1d -D FILTER_LEN="$taps" --block "$block" $opts -o "$name.ll"
  grep -q 'ks.tc.lock' "$name.ll" || { echo "$name: not coarsened"; exit 1; }
  host_ir "$name.ll" "$name.host.ll"
  "$clang" -O1 -fsanitize=address -Wno-override-module -Wno-pass-failed \
    -c "$name.host.ll" -o "$name.o"
  "$clang" -O1 -fsanitize=address "$src/conv_grid.c" "$name.o" -o "$name"
  ./"$name" "$block" "$taps"
}

run taps32 "--stage tcoarsen" 256 32
run taps7 "--stage tcoarsen" 128 7
run taps3 "--stage tcoarsen" 128 3
run taps32_all "--no-pass smem_promote --stage regpressure" 256 32
run taps5_all "--no-pass smem_promote --stage regpressure" 512 5
