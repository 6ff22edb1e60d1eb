#!/bin/sh
# guard_test.sh TEST_KERNELS MANIFEST DIR - the never-slower guard on a
# kernel of the corpus where ptxas's whole-program compile holds registers
# down to an occupancy the generic kernel never had: nbody_step bound (its
# tile loop unrolled in full) gets `.minnctapersm` at the generic's blocks
# per SM (BENCHMARKS.md: 0.78x the generic's time, 1.03x without). Needs
# ptxas (77: skipped without).
set -u
prog=$1 manifest=$2 dir=$3
[ "${KSPEC_PTXAS:-}" = none ] && { echo "skipped: no ptxas"; exit 77; }
one=$(mktemp "${TMPDIR:-/tmp}/kspec_guard_XXXXXX")
trap 'rm -f "$one"' EXIT
grep '^nbody_step ' "$manifest" >"$one" || { echo "no nbody_step in $manifest"; exit 1; }
out=$(KS_CORPUS_EXPLAIN=1 "$prog" "$one" "$dir" names) || { echo "$out"; exit 1; }
line=$(echo "$out" | grep '^explain nbody_step bound guard: ') || {
  echo "$out"; echo "FAIL: no guard line for nbody_step bound"; exit 1; }
echo "$line"
case "$line" in
*"ptxas"*"not checked"* | *"not checked: "*"ptxas"*) echo "skipped: $line"; exit 77 ;;
*"above the generic's"*": .minnctapersm "*", the generic's blocks per SM: "*" 0 B spilled"*) exit 0 ;;
esac
echo "FAIL: the guard did not ask for the generic's occupancy"
exit 1
