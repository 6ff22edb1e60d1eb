#!/bin/sh
# tools/symbol_order.sh - remakes cmake/kspec-symbol-order.txt, the order
# in which the static libkspec's linker lays out LLVM's functions
# (KSPEC_SYMBOL_ORDER): the functions a specialization runs, in the order
# it first runs them, so that each stage's code lies together.
#
#   tools/symbol_order.sh [BUILD_DIR]     (default ./build-order)
#
# Builds kspec statically, unstripped, in BUILD_DIR, then runs
# kspec-latency (the six built-in templates, without and with a block)
# under callgrind, dumping its counts every 40000 basic blocks. A function
# is listed at the first dump it appears in, when it appears in at least
# three (what only LLVM's start-up or one template runs is left out).
# Needs valgrind; takes a few minutes.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
b=${1:-$root/build-order}
cmake -S "$root" -B "$b" -DKSPEC_LLVM_STATIC=ON -DKSPEC_STRIP=OFF \
  -DKSPEC_SYMBOL_ORDER=OFF -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
  >/dev/null
cmake --build "$b" -j "$(nproc)" --target kspec-latency >/dev/null
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
for run in nb b; do
  opt=""
  [ "$run" = nb ] && opt=--no-block
  # shellcheck disable=SC2086
  valgrind --tool=callgrind --demangle=no --compress-strings=no \
    --compress-pos=no --dump-every-bb=40000 \
    --callgrind-out-file="$d/$run.out" "$b/tools/kspec-latency" --reps 1 \
    $opt >/dev/null 2>&1
done
files=""
for run in nb b; do
  files="$files $(ls "$d" | sed -n "s/^$run\.out\.\([0-9]*\)$/\1/p" | sort -n |
    sed "s|^|$d/$run.out.|")"
done
# shellcheck disable=SC2086
awk '
  FNR == 1 { delete here }
  /^ob=/ { lib = index($0, "libkspec") > 0 }
  /^fn=/ && lib {
    n = substr($0, 4)
    sub(/'"'"'[0-9]+$/, "", n)
    if (!(n in first)) { first[n] = ++k; name[k] = n }
    if (!(n in here)) { here[n] = 1; count[n]++ }
  }
  END { for (i = 1; i <= k; i++) if (count[name[i]] >= 3) print name[i] }
' $files >"$root/cmake/kspec-symbol-order.txt"
echo "symbol_order: $(wc -l <"$root/cmake/kspec-symbol-order.txt") functions in cmake/kspec-symbol-order.txt"
