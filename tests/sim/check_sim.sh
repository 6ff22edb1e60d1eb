#!/bin/sh
# Runs the workloads' compare on the device (tools/wl_check.ll's
# ks_wl_close, which ks_wl_check uses where a checker is given) on the
# CPU: kspec's IR of it, turned into host IR, over a simulated grid
# (check_grid.c), against the host's rule (tools/workloads.c's
# close_range) on outputs with planted mismatches.
#
#   check_sim.sh KSPEC CLANG SRCDIR WORKDIR
# Exit 77 (skipped) where the host compiler cannot build with ASan.
set -e
kspec=$1 clang=$2 src=$3 work=$4
mkdir -p "$work"
cd "$work"

. "$src/sim_lib.sh"
need_asan "$clang"

"$kspec" ir "$src/../../tools/wl_check.ll" --kernel ks_wl_close -o check.ll
host_ir check.ll check.host.ll
"$clang" -O1 -fsanitize=address -Wno-override-module -Wno-pass-failed \
  -c check.host.ll -o check.o
"$clang" -O1 -fsanitize=address "$src/check_grid.c" check.o -lm -o check_grid
./check_grid
