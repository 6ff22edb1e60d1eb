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
# at. The passes made of parts are also counted part by part, each part
# known by its lines' wording (below, in part()): smem_promote's sizing,
# privatization (atomics), staging (windows), exchange (stores) and local
# (private arrays), const_promote's nc (read-only path), cmem (constant
# copy) and bake. Every decline reason is listed per pass and part: the
# cases that gave it (once per case, without the object declined:
# "declined A: index not understood" counts as "index not understood")
# and the lines (once per object: a case with 12 loads declined for one
# reason gives 12). No ptxas, no GPU: a run takes about half a minute.
set -eu
BUILD=${1:-build}
MODE=${2:-bound}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
KS_CORPUS_EXPLAIN=1 KSPEC_PTXAS=none "$BUILD/tests/test_kernels" \
  "$ROOT/tests/kernels/MANIFEST" "$BUILD/tests/kernels" names |
  awk -v mode="$MODE" '
  BEGIN {
    npass = split("tcoarsen unclamp coarsen gcoarsen smem_promote " \
                  "const_promote minmax shfl regpressure", passes, " ")
    parts["smem_promote"] = "size privatize stage exchange local"
    parts["const_promote"] = "nc cmem bake"
    # the reasons of smem_atomics.c (privatization); the other plain
    # "declined X: why" lines of smem_promote are window staging'"'"'s
    atomics = "atomic|overlap|its index|^the kernel |^it is |coarsened$|" \
              "whole elements apart|out of memory"
  }
  # Sets KIND (fired, declined or nothing), PART and WHY of line text of
  # pass p. PART is "" for a pass without parts.
  function part(p, text,    w) {
    KIND = "nothing"; PART = ""; WHY = ""
    if (p == "smem_promote") {
      if (text ~ /^exchanged /) return mark_fired("exchange")
      if (text ~ /^declined exchange of [^:]*: /) return mark_declined("exchange", text)
      if (text ~ /^sized /) return mark_fired("size")
      if (text ~ /^kept .* at [0-9]+ elements: /) return mark_declined("size", text)
      if (text ~ /^moved .* from local to shared/) return mark_fired("local")
      if (text ~ /^kept .* in local memory: /) return mark_declined("local", text)
      if (text ~ /^promoted /) return mark_fired("privatize")
      if (text ~ /^staged /) return mark_fired("stage")
      if (text ~ /^declined window staging: /) return mark_declined("stage", text)
      if (text ~ /^declined [^:]*: /) {
        w = text; sub(/^declined [^:]*: /, "", w)
        return mark_declined(w ~ atomics ? "privatize" : "stage", text)
      }
      return
    }
    if (p == "const_promote") {
      if (text ~ /loads read-only, marked/) return mark_fired("nc")
      if (text ~ /^declined ld\.global\.nc: /) return mark_declined("nc", text)
      if (text ~ /loads kept coherent: /) {
        sub(/^.*loads kept coherent: /, "", text)
        return mark_why("nc", "kept coherent: " text)
      }
      if (text ~ /not read-only: it is stored to$/) return  # an output
      if (text ~ /not read-only: /) {
        sub(/^.*not read-only: /, "", text)
        return mark_why("nc", "not read-only: " text)
      }
      if (text ~ /loads read constant memory/) return mark_fired("cmem")
      if (text ~ /not copied to constant memory: /) {
        sub(/^.*not copied to constant memory: /, "", text)
        return mark_why("cmem", text)
      }
      if (text ~ /baked to|became constants/) return mark_fired("bake")
      if (text ~ /^declined bake/) return mark_declined("bake", text)
      if (text ~ /loads kept: /) {
        sub(/^.*loads kept: /, "", text)
        return mark_why("bake", text)
      }
      return
    }
    if (text ~ /^declined /) return mark_declined("", text)
  }
  function mark_fired(q) { KIND = "fired"; PART = q }
  function mark_declined(q, text) {
    sub(/^declined /, "", text)
    if (text ~ /^[^:]*: /) sub(/^[^:]*: /, "", text)
    mark_why(q, text)
  }
  function mark_why(q, text) {
    KIND = "declined"; PART = q
    sub(/, so .*/, "", text)
    WHY = substr(text, 1, 100)
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
      next
    }
    part(p, text)
    if (KIND == "nothing") next
    q = PART == "" ? p : p "." PART
    if (KIND == "fired") { pfired[c, q] = 1; next }
    declined[c, p] = 1
    pdeclined[c, q] = 1
    for (k = 0; k < 2; k++) {
      g = k ? q : p
      if (!((g, WHY) in why)) reasons[g] = reasons[g] SUBSEP WHY
      if (!((c, g, WHY) in seen)) { seen[c, g, WHY] = 1; why[g, WHY]++ }
      lines[g, WHY]++
      if (PART == "") break
    }
  }
  function row(name, f, d, o) { printf "%-24s %6d %9d %8d\n", name, f, d, o }
  END {
    for (c in cases) ncases++
    printf "%d cases, mode %s\n", ncases, mode
    printf "%-24s %6s %9s %8s\n", "pass (part)", "fired", "declined", "nothing"
    for (i = 1; i <= npass; i++) {
      p = passes[i]; f = d = o = 0
      for (c in cases)
        if ((c, p) in fired) f++
        else if ((c, p) in declined) d++
        else o++
      row(p, f, d, o)
      np = split(parts[p], pp, " ")
      for (j = 1; j <= np; j++) {
        q = p "." pp[j]; f = d = o = 0
        for (c in cases)
          if ((c, q) in pfired) f++
          else if ((c, q) in pdeclined) d++
          else o++
        row("  " q, f, d, o)
      }
    }
    any = 0
    for (c in cases) {
      hit = 0
      for (i = 1; i <= npass; i++) if ((c, passes[i]) in fired) hit = 1
      any += hit
    }
    printf "cases some pass changed: %d of %d\n", any, ncases
    printf "\nwhy they declined (cases, lines: once per object declined):\n"
    for (i = 1; i <= npass; i++) {
      p = passes[i]
      np = split(parts[p], pp, " ")
      for (j = 0; j <= np; j++) {
        q = j ? p "." pp[j] : p
        if (j == 0 && np) continue
        n = split(reasons[q], r, SUBSEP)
        for (k = 2; k <= n; k++)
          printf "%-24s %4d %5d  %s\n", q, why[q, r[k]], lines[q, r[k]], \
                 r[k] | "sort -s -k1,1 -k2,2nr -k3,3nr"
      }
      close("sort -s -k1,1 -k2,2nr -k3,3nr")
    }
  }'
