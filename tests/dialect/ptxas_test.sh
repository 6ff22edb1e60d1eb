#!/bin/sh
# tests/dialect/ptxas_test.sh - one group of the dialect (a .cu of
# tests/dialect, compiled to bitcode at build time with the templates'
# flags) through kspec:
#
#   ptxas_test.sh KSPEC SRC.cu BITCODE OUTDIR
#
# Every kernel of SRC.cu (its `KS_KERNEL void NAME(` lines) is specialized
# for sm_80 and sm_90, generic and with a block of 256, and ptxas
# ($KSPEC_PTXAS, else ptxas on PATH, else /usr/local/cuda/bin/ptxas; left
# out when there is none or KSPEC_PTXAS=none) must take each PTX. Each
# `// PTX(NAME): REGEX` line of SRC.cu must match NAME's PTX for sm_90
# (grep -E), and each `// EXPLAIN(NAME): REGEX` line its `kspec explain`
# for sm_90 (the libdevice functions linked, for math). A group that
# calls libdevice where there is none is skipped (exit 77).
set -u
kspec=$1
src=$2
bc=$3
out=$4
mkdir -p "$out"
ptxas=${KSPEC_PTXAS:-}
if [ -z "$ptxas" ]; then
  ptxas=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
fi
[ "$ptxas" = none ] || [ -x "$ptxas" ] || ptxas=none
kernels=$(sed -n 's/^KS_KERNEL void \([A-Za-z_0-9]*\).*/\1/p' "$src")
[ -n "$kernels" ] || {
  echo "no kernels in $src"
  exit 1
}
bad=0
fail() {
  echo "FAIL: $*"
  bad=$((bad + 1))
}
# expect KIND KERNEL FILE: every `// KIND(KERNEL): REGEX` line matches FILE
expect() {
  sed -n "s|^// $1($2): ||p" "$src" >"$out/$2.$1.want"
  while IFS= read -r re; do
    grep -Eq -- "$re" "$3" || fail "$2: no match for '$re' in $3"
  done <"$out/$2.$1.want"
}
n=0
for k in $kernels; do
  for arch in sm_80 sm_90; do
    for blk in "" 256; do
      f="$out/$k.$arch${blk:+.b$blk}.ptx"
      set -- --kernel "$k" --arch "$arch"
      [ -z "$blk" ] || set -- "$@" --block "$blk"
      if ! "$kspec" ptx "$bc" "$@" -o "$f" 2>"$f.err"; then
        if grep -q "which needs libdevice" "$f.err"; then
          echo "skipped: $(cat "$f.err")" # no libdevice on this machine
          exit 77
        fi
        fail "$k $arch ${blk:+block $blk}: kspec ptx: $(cat "$f.err")"
        continue
      fi
      n=$((n + 1))
      if [ "$ptxas" != none ] &&
        ! "$ptxas" -arch="$arch" "$f" -o "$f.cubin" 2>"$f.ptxas"; then
        fail "$k $arch ${blk:+block $blk}: ptxas: $(head -3 "$f.ptxas")"
      fi
    done
  done
  expect PTX "$k" "$out/$k.sm_90.ptx"
  if grep -q "^// EXPLAIN($k): " "$src"; then
    "$kspec" explain "$bc" --kernel "$k" --arch sm_90 >"$out/$k.explain" 2>&1 ||
      fail "$k: kspec explain: $(tail -1 "$out/$k.explain")"
    expect EXPLAIN "$k" "$out/$k.explain"
  fi
done
[ "$ptxas" != none ] || echo "ptxas: none found, PTX not assembled"
echo "$n specializations of $(echo $kernels | wc -w) kernels, $bad failures"
[ "$bad" -eq 0 ]
