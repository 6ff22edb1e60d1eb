#!/bin/sh
# tools/latency_ab.sh - specialization latency of two builds, A and B,
# alternating in batches so that both see the same moments of a noisy
# host:
#
#   tools/latency_ab.sh DIR_A DIR_B [BATCHES [REPS]] [-- PREFIX...]
#
# Each DIR holds a kspec-latency and the libkspec.so it links (a static
# build's, so that nothing else is needed). Each batch runs A, then B,
# `kspec-latency --reps REPS --no-block` over the six built-in templates
# (defaults 12 batches of 10); a PREFIX (e.g. `taskset -c 5`) goes before
# each command. Prints, per template, the median of the batch medians of
# A and B, the fastest single run of each, and the median of the paired
# ratios A/B.
set -eu
if [ $# -lt 2 ] || [ ! -x "$1/kspec-latency" ] || [ ! -x "$2/kspec-latency" ]; then
  echo "usage: tools/latency_ab.sh DIR_A DIR_B [BATCHES [REPS]] [-- PREFIX...]" >&2
  exit 2
fi
a=$1
b=$2
shift 2
batches=12
reps=10
if [ $# -gt 0 ] && [ "$1" != -- ]; then batches=$1 && shift; fi
if [ $# -gt 0 ] && [ "$1" != -- ]; then reps=$1 && shift; fi
[ $# -gt 0 ] && [ "$1" = -- ] && shift
for n in "$batches" "$reps"; do
  case "$n" in
  '' | *[!0-9]* | 0*)
    echo "latency_ab: BATCHES and REPS are positive integers" >&2
    exit 2
    ;;
  esac
done
log=$(mktemp)
trap 'rm -f "$log"' EXIT
i=0
while [ "$i" -lt "$batches" ]; do
  for side in A B; do
    d=$a
    [ "$side" = B ] && d=$b
    LD_LIBRARY_PATH=$d "$@" "$d/kspec-latency" --reps "$reps" --no-block \
      conv1d:FILTER_LEN=32 sepfilter_rows sepfilter_cols histogram \
      reduce_sum transpose 2>&1 | tail -6 | sed "s/^/$side /" >>"$log"
  done
  i=$((i + 1))
done
awk '
  function median(s, n,   v, k, i, j, t) {
    k = split(s, v, " ")
    for (i = 2; i <= k; i++)
      for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) {
        t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
      }
    return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
  }
  NF == 5 && ($1 == "A" || $1 == "B") {
    t = $2
    if (!(t in seen)) { seen[t] = 1; order[++n] = t }
    med[t, $1] = med[t, $1] " " $3
    if (!((t, $1) in lo) || $4 + 0 < lo[t, $1]) lo[t, $1] = $4 + 0
    if ($1 == "A") last[t] = $3
    else ratio[t] = ratio[t] " " last[t] / $3
  }
  END {
    printf "%-24s %9s %8s %9s %8s %8s  (ms)\n", "template", "A median", "A min",
           "B median", "B min", "A/B"
    for (i = 1; i <= n; i++) {
      t = order[i]
      printf "%-24s %9.2f %8.2f %9.2f %8.2f %8.3f\n", t, median(med[t, "A"]),
             lo[t, "A"], median(med[t, "B"]), lo[t, "B"], median(ratio[t])
    }
  }' "$log"
