#!/bin/sh
# Runs tests/data/hist64.ll, versioned by smem_promote's run-time alias
# check (passes/alias.c), on the CPU: the NVPTX IR after smem_promote is
# turned into host IR (special registers become calls to alias_grid.c's
# functions, the barrier a counting call, the shared copy a host global)
# and built with AddressSanitizer. The privatized version must run where
# bins and data are disjoint, the original where they overlap, and both
# must count right (alias_grid.c).
#
#   alias_sim.sh KSPEC CLANG SRCDIR WORKDIR
# Exit 77 (skipped) where the host compiler cannot build with ASan.
set -e
kspec=$1 clang=$2 src=$3 work=$4
mkdir -p "$work"
cd "$work"

. "$src/sim_lib.sh"
need_asan "$clang"

# name, kspec options, the n bound (0: none)
run() {
  name=$1 opts=$2 n=$3
  # shellcheck disable=SC2086
  "$kspec" ir "$src/../data/hist64.ll" --kernel hist64 $opts \
    --stage smem_promote -o "$name.ll"
  grep -q '^ks\.alias:' "$name.ll" || { echo "$name: not versioned"; exit 1; }
  host_ir "$name.ll" "$name.h1.ll"
  sed -e 's/ addrspace(3)//g' \
      -e 's/@llvm\.nvvm\.barrier0/@sim_barrier/g' \
      -e 's/^\(declare void @sim_barrier()\) #[0-9]*/\1/' \
      -e '/^attributes #0 /s/ memory([^)]*)//' "$name.h1.ll" >"$name.host.ll"
  "$clang" -O1 -fsanitize=address -Wno-override-module -Wno-pass-failed \
    -c "$name.host.ll" -o "$name.o"
  "$clang" -O1 -fsanitize=address "$src/alias_grid.c" "$name.o" -o "$name"
  ./"$name" "$n"
}

run generic "" 0
run block1_bound "--block 1 -D @2=5000" 5000
