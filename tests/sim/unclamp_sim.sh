#!/bin/sh
# Runs kspec's sepfilter_rows on the CPU: the NVPTX IR after the whole
# pipeline without window staging (no shared memory, no barrier), where
# tcoarsen ran 4 columns per thread and unclamp split the body into the
# interior copy without clamps and the clamped original, is turned into
# host IR (special registers become calls to rows_grid.c, which runs every
# real thread of a simulated grid one after another) and built with
# AddressSanitizer. Every output must be right, over image sizes whose
# blocks are all interior, all edge, or both, and no access may go past the
# buffers.
#
#   unclamp_sim.sh KSPEC CLANG SRCDIR WORKDIR
# Exit 77 (skipped) where the host compiler cannot build with ASan.
set -e
kspec=$1 clang=$2 src=$3 work=$4
mkdir -p "$work"
cd "$work"

. "$src/sim_lib.sh"
need_asan "$clang"

# name, block x, block y, radius
run() {
  name=$1 bx=$2 by=$3 radius=$4
  "$kspec" ir sepfilter_rows -D RADIUS="$radius" --block "$bx,$by" \
    --no-pass smem_promote --stage regpressure -o "$name.ll"
  grep -q 'ks.uc.fast' "$name.ll" || { echo "$name: not unclamped"; exit 1; }
  host_ir "$name.ll" "$name.host.ll"
  "$clang" -O1 -fsanitize=address -Wno-override-module -Wno-pass-failed \
    -c "$name.host.ll" -o "$name.o"
  "$clang" -O1 -fsanitize=address "$src/rows_grid.c" "$name.o" -o "$name"
  ./"$name" "$bx" "$by" "$radius"
}

run r8 32 8 8
run r1 32 8 1
run r3_64x4 64 4 3
run r13_128x2 128 2 13
