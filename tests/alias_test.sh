#!/bin/sh
# tests/alias_test.sh - run-time alias checks (passes/alias.c) from the
# kspec tool to ptxas:
#
#   alias_test.sh KSPEC HIST64.LL [CORPUS_BC_DIR]
#
# tests/data/hist64.ll (a 64-bin histogram whose input is not
# __restrict__) generic, with a block of 256, with its size bound, and
# the corpus's histogram64 (bitcode with names, where built): explain
# names the alias check, the PTX has both versions (the shared-memory
# atomics of the privatized kernel, the global atomics of its merge and of
# the original), and ptxas ($KSPEC_PTXAS, else ptxas on PATH, else
# /usr/local/cuda/bin/ptxas; left out when there is none or
# KSPEC_PTXAS=none) takes it. Without smem_promote: neither check nor
# shared atomics.
set -u
kspec=$1
ll=$2
corpus=${3:-}
out=${TMPDIR:-/tmp}/ks_alias_test.$$
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT
ptxas=${KSPEC_PTXAS:-}
if [ -z "$ptxas" ]; then
  ptxas=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
fi
[ "$ptxas" = none ] || [ -x "$ptxas" ] || ptxas=none
bad=0
fail() {
  echo "FAIL: $*"
  bad=$((bad + 1))
}
# count FILE REGEX: lines of FILE matching REGEX
count() { grep -Ec -- "$2" "$1" || true; }
# check NAME TEMPLATE ARGS...: one specialization, versioned
check() {
  name=$1
  shift
  "$kspec" explain "$@" --arch sm_90 >"$out/$name.explain" 2>&1 ||
    fail "$name: explain: $(tail -1 "$out/$name.explain")"
  grep -q "smem_promote: alias check for .*the original kernel otherwise" \
    "$out/$name.explain" || fail "$name: no alias check in explain"
  "$kspec" ptx "$@" --arch sm_90 -o "$out/$name.ptx" 2>"$out/$name.err" ||
    fail "$name: ptx: $(cat "$out/$name.err")"
  [ "$(count "$out/$name.ptx" 'atom\.shared\.add\.u32')" -ge 1 ] ||
    fail "$name: no shared atomics"
  [ "$(count "$out/$name.ptx" '(atom|red)\.global\.add\.u32')" -ge 2 ] ||
    fail "$name: not both global atomics (merge, original)"
  if [ "$ptxas" != none ]; then
    "$ptxas" -arch=sm_90 "$out/$name.ptx" -o "$out/$name.cubin" \
      >"$out/$name.ptxas" 2>&1 || fail "$name: ptxas: $(cat "$out/$name.ptxas")"
  fi
  echo "ok: $name"
}
check generic "$ll" --kernel hist64
check block "$ll" --kernel hist64 --block 256
check bound "$ll" --kernel hist64 --block 128 -D @2=1000000
if [ -n "$corpus" ] && [ -f "$corpus/histogram64.bc" ]; then
  check corpus "$corpus/histogram64.bc" --kernel histogram64_naive \
    --block 256 -D n=16777216
  grep -q "alias check for bins: .*bins + \[0, 256) and data" \
    "$out/corpus.explain" || fail "corpus: the check does not name data and bins"
fi
"$kspec" explain "$ll" --kernel hist64 --block 256 --no-pass smem_promote \
  >"$out/off.explain" 2>&1 || fail "off: explain"
"$kspec" ptx "$ll" --kernel hist64 --block 256 --no-pass smem_promote \
  -o "$out/off.ptx" 2>/dev/null || fail "off: ptx"
! grep -q "alias check" "$out/off.explain" || fail "off: an alias check"
[ "$(count "$out/off.ptx" 'shared')" -eq 0 ] || fail "off: shared memory"
[ "$ptxas" != none ] || echo "note: no ptxas, the PTX was not assembled"
[ "$bad" -eq 0 ] || exit 1
echo "all ok"
