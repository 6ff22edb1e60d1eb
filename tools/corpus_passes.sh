#!/bin/sh
# corpus_passes.sh - how often each optional pass changes the kernels of the
# corpus (tests/kernels) and why it declines, from what `kspec explain`
# says of each MANIFEST case (ks_kernel_explain, through test_kernels):
#
#   tools/corpus_passes.sh [BUILD_DIR] [MODE]
#
# MODE is generic, block or bound (the default: the case's block and its
# scalar arguments bound, as test_kernels specializes it). A pass "fired"
# where the explanation's summary line names it (it changed the kernel),
# "declined" where it did not and said why; the rest had nothing to look
# at. The reasons are counted once per case, without the object declined
# ("declined A: index not understood" counts as "index not understood").
# No ptxas, no GPU: a run takes about half a minute.
set -eu
BUILD=${1:-build}
MODE=${2:-bound}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
KS_CORPUS_EXPLAIN=1 KSPEC_PTXAS=none "$BUILD/tests/test_kernels" \
  "$ROOT/tests/kernels/MANIFEST" "$BUILD/tests/kernels" names |
  awk -v mode="$MODE" '
  BEGIN {
    npass = split("tcoarsen unclamp coarsen gcoarsen smem_promote " \
                  "const_promote minmax regpressure", passes, " ")
  }
  $1 == "explain" && $3 == mode {
    c = $2; cases[c] = 1
    line = $0; sub(/^explain [^ ]+ [^ ]+ /, "", line)
    p = line; sub(/: .*/, "", p)
    text = line; sub(/^[^:]*: /, "", text)
    if (p == "summary") {
      if (text ~ /^changed by /) {
        sub(/^changed by /, "", text)
        n = split(text, ch, ", ")
        for (k = 1; k <= n; k++) fired[c, ch[k]] = 1
      }
    } else if (text ~ /^declined /) {
      sub(/^declined /, "", text)
      if (text ~ /^[^:]*: /) sub(/^[^:]*: /, "", text)
      sub(/, so .*/, "", text)
      text = substr(text, 1, 100)
      if (!((c, p, text) in seen)) {
        seen[c, p, text] = 1
        if (!((p, text) in why))
          reasons[p] = reasons[p] SUBSEP text
        why[p, text]++
      }
      declined[c, p] = 1
    }
  }
  END {
    for (c in cases) ncases++
    printf "%d cases, mode %s\n", ncases, mode
    printf "%-14s %6s %9s %8s\n", "pass", "fired", "declined", "nothing"
    for (i = 1; i <= npass; i++) {
      p = passes[i]; f = d = o = 0
      for (c in cases)
        if ((c, p) in fired) f++
        else if ((c, p) in declined) d++
        else o++
      printf "%-14s %6d %9d %8d\n", p, f, d, o
      tf += f
    }
    any = 0
    for (c in cases) {
      hit = 0
      for (i = 1; i <= npass; i++) if ((c, passes[i]) in fired) hit = 1
      any += hit
    }
    printf "cases some pass changed: %d of %d\n", any, ncases
    printf "\nwhy they declined (cases):\n"
    for (i = 1; i <= npass; i++) {
      p = passes[i]
      n = split(reasons[p], r, SUBSEP)
      for (k = 2; k <= n; k++)
        printf "%-14s %4d  %s\n", p, why[p, r[k]], r[k] | "sort -k1,1 -k2,2nr"
    }
  }'
