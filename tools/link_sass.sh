#!/bin/sh
# link_sass.sh - what the driver's linker makes of kspec's PTX, against a
# whole-program compile of the same PTX (the driver's cuModuleLoadDataEx,
# and nvcc's -cubin). kspec makes the cubins of its disk cache with
# cuLinkCreate/cuLinkAddData/cuLinkComplete, and the driver compiles PTX
# given to its linker as relocatable code (ptxas -c, as nvcc -rdc=true),
# which ptxas optimizes less. Here ptxas -c plus nvlink stand in for the
# driver's linker.
#
#   tools/link_sass.sh FILE.ptx...      (e.g. KS_CORPUS_PTX=DIR test_kernels)
#
# One line a file: SASS instructions other than NOP, whole / linked; then
# the instructions that differ most often between the two modes: LDS.128
# and LDS.64 (shared loads ptxas merged, which it cannot where it does not
# know a shared array's address), ATOMG with its result discarded (RZ)
# where a whole-program compile gives REDG, and registers. Needs ptxas,
# nvlink and cuobjdump (PTXAS, NVLINK, CUOBJDUMP; default: on PATH, then
# /usr/local/cuda/bin). ARCH: sm_90 unless set.
set -eu
arch=${ARCH:-sm_90}
tool() {
  v=$(eval echo "\${$1:-}")
  if [ -n "$v" ]; then echo "$v"; return; fi
  command -v "$2" 2>/dev/null || echo "/usr/local/cuda/bin/$2"
}
ptxas=$(tool PTXAS ptxas)
nvlink=$(tool NVLINK nvlink)
cuobjdump=$(tool CUOBJDUMP cuobjdump)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# sass CUBIN: the instructions of its text sections, one a line, no NOPs.
sass() {
  "$cuobjdump" -sass "$1" | grep -E '^\s+/\*[0-9a-f]{4}\*/' |
    sed 's/;.*//; s/^ *\/\*[0-9a-f]*\*\/ *//' | grep -v '^NOP' || true
}
count() { grep -c -E "$1" "$2" || true; }
regs() { sed -n 's/.*Used \([0-9]*\) registers.*/\1/p' "$1" | head -1; }

printf '%-34s %13s %11s %11s %11s %9s\n' ptx "instr w/l" "LDS.128 w/l" \
  "LDS.64 w/l" "ATOM-RZ w/l" "regs w/l"
for f in "$@"; do
  n=$(basename "$f" .ptx)
  if ! "$ptxas" -v -arch="$arch" "$f" -o "$tmp/w.cubin" 2>"$tmp/w.log" ||
    ! "$ptxas" -v -c -arch="$arch" "$f" -o "$tmp/l.o" 2>"$tmp/l.log" ||
    ! "$nvlink" -arch="$arch" "$tmp/l.o" -o "$tmp/l.cubin" 2>/dev/null; then
    printf '%-34s refused\n' "$n"
    continue
  fi
  sass "$tmp/w.cubin" >"$tmp/w.sass"
  sass "$tmp/l.cubin" >"$tmp/l.sass"
  printf '%-34s %6d/%-6d %5d/%-5d %5d/%-5d %5d/%-5d %4s/%-4s\n' "$n" \
    "$(wc -l <"$tmp/w.sass")" "$(wc -l <"$tmp/l.sass")" \
    "$(count 'LDS(\.U)?\.128' "$tmp/w.sass")" \
    "$(count 'LDS(\.U)?\.128' "$tmp/l.sass")" \
    "$(count 'LDS(\.U)?\.64' "$tmp/w.sass")" \
    "$(count 'LDS(\.U)?\.64' "$tmp/l.sass")" \
    "$(count 'ATOMG.* PT, RZ,' "$tmp/w.sass")" \
    "$(count 'ATOMG.* PT, RZ,' "$tmp/l.sass")" \
    "$(regs "$tmp/w.log")" "$(regs "$tmp/l.log")"
done
