#!/bin/sh
# tune_tool_test.sh - `kspec tune` over the mocked driver's GPUs: which
# processes open which GPUs (the mock's KSPEC_MOCK_LOG), what the workers
# load, and the refusals before anything is measured.
#
#   sh tune_tool_test.sh path/to/kspec path/to/libkspec_cuda_mock.so \
#      path/to/kspec_ptxas_mock
#
# - a sweep over N GPUs opens each once, in N worker processes: no other
#   process (a probe of the GPUs) opens any;
# - a GPU the driver does not have, or GPUs of two models: status 1, one
#   line, no store written;
# - GPUs that cannot run sm_90 code (an sm_80): the sweep is compiled again
#   for them and runs;
# - --gpus all: the GPUs counted first, each measures;
# - the workers load the cubins the parent's figures made (the mock's
#   ptxas: KSPEC_PTXAS), running no ptxas of their own for the variants;
#   cubins the driver refuses: the PTX loaded instead.
# (The mock runs no kernel: every variant's check fails, which is enough
# to see who measured what.)
set -u
KSPEC=${1:?usage: tune_tool_test.sh KSPEC MOCK_LIB}
KSPEC_LIBCUDA=${2:?usage: tune_tool_test.sh KSPEC MOCK_LIB MOCK_PTXAS}
MOCK_PTXAS=${3:?usage: tune_tool_test.sh KSPEC MOCK_LIB MOCK_PTXAS}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/kspec_tune_tool.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
KSPEC_MOCK_LOG=$TMP/log
KSPEC_MOCK_DEVICES=4
export KSPEC_LIBCUDA KSPEC_MOCK_LOG KSPEC_MOCK_DEVICES
unset KSPEC_CACHE KSPEC_CACHE_MAX KSPEC_MOCK_SM KSPEC_MOCK_OTHER \
  KSPEC_MOCK_PTXAS_SM KSPEC_MOCK_PTXAS_FAIL
SWEEP="tune conv1d -D FILTER_LEN=8 --sweep maxntid=64,128,256 --size 4096"
failures=0

bad() {
  echo "FAIL: $*"
  echo "  stderr: $(head -c 800 "$TMP/err")"
  echo "  log: $(sort "$KSPEC_MOCK_LOG" 2>/dev/null | uniq -c | head -20)"
  failures=$((failures + 1))
}

# run STATUS ARGS...: a sweep from an empty cache, its exit status checked
run() {
  want=$1
  shift
  rm -rf "$TMP/cache" "$KSPEC_MOCK_LOG"
  KSPEC_CACHE_DIR=$TMP/cache "$KSPEC" "$@" >"$TMP/out" 2>"$TMP/err"
  got=$?
  last="kspec $*"
  [ "$got" -eq "$want" ] || bad "$last: status $got, want $want"
}

# the primary contexts retained: "PID DEVICE" lines
retains() { awk '$1 == "retain" {print $2, $3}' "$KSPEC_MOCK_LOG"; }

# opened N PIDS DEVICES: N contexts, in PIDS processes, on DEVICES devices
opened() {
  n=$(retains | wc -l)
  pids=$(retains | awk '{print $1}' | sort -u | wc -l)
  devs=$(retains | awk '{print $2}' | sort -u | tr '\n' ' ')
  [ "$n" -eq "$1" ] && [ "$pids" -eq "$2" ] && [ "$devs" = "$3" ] ||
    bad "$last: $n contexts in $pids processes on devices '$devs'," \
      "want $1 in $2 on '$3'"
}

no_store() {
  [ ! -e "$TMP/cache/tune" ] || bad "$last: a store was written"
}

# Four GPUs: four workers, each opening its own GPU once; nothing else.
# shellcheck disable=SC2086
run 0 $SWEEP --gpus 0,1,2,3
opened 4 4 "0 1 2 3 "
grep -q '^gpus: 0 (' "$TMP/out" || bad "$last: no gpus line"
grep -q '^time: set-up ' "$TMP/out" || bad "$last: no time line"
ls "$TMP"/cache/tune/*.tune >/dev/null 2>&1 || bad "$last: no store"

# No --gpus: one worker, on GPU 0.
# shellcheck disable=SC2086
run 0 $SWEEP
opened 1 1 "0 "

# A GPU the driver does not have: refused with its message, nothing stored.
# shellcheck disable=SC2086
run 1 $SWEEP --gpus 0,7
grep -q '^kspec: tune: GPU 7: .*the driver sees 4' "$TMP/err" ||
  bad "$last: no message naming GPU 7"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || bad "$last: more than one line"
no_store

# Two models: refused, nothing stored.
# shellcheck disable=SC2086
KSPEC_MOCK_OTHER=1 run 1 $SWEEP --gpus 0,1
grep -q 'tune one model at a time' "$TMP/err" || bad "$last: no message"
no_store

# sm_80 GPUs: compiled again for them, then measured; each GPU opened once
# a round.
# shellcheck disable=SC2086
KSPEC_MOCK_SM=80 run 0 $SWEEP --gpus 0,1
grep -q 'runs sm_80 code (PTX ISA 8.5), not sm_90: compiling again' \
  "$TMP/err" || bad "$last: no note of the second compile"
opened 4 4 "0 1 "
grep -q '^measured 4, reused 0' "$TMP/out" || bad "$last: not measured"
# ... unless --arch says what to compile for
# shellcheck disable=SC2086
KSPEC_MOCK_SM=80 run 1 $SWEEP --gpus 0,1 --arch sm_90
grep -q 'cannot run code for sm_90' "$TMP/err" || bad "$last: no message"
no_store

# --gpus all: counted (a child opens them), then a worker each.
# shellcheck disable=SC2086
KSPEC_MOCK_DEVICES=3 run 0 $SWEEP --gpus all
grep -q '^gpus: 0 (.*) 1 (.*) 2 (' "$TMP/out" || bad "$last: not 3 GPUs"

# Cubins: the parent's figures run (the mock's ptxas) makes one per variant
# (3 and the baseline), the workers load them; the workers make only their
# checker's (one or two: the second may find the first's in the disk
# cache), and load it (2). Without the mock's ptxas the figures run the
# real one, whose cubins the mock cannot load.
KSPEC_PTXAS=$MOCK_PTXAS
KSPEC_MOCK_PTXAS_LOG=$TMP/ptxas
export KSPEC_PTXAS KSPEC_MOCK_PTXAS_LOG
rm -f "$KSPEC_MOCK_PTXAS_LOG"
# shellcheck disable=SC2086
run 0 $SWEEP --gpus 0,1
made=$(wc -l <"$KSPEC_MOCK_PTXAS_LOG")
cubins=$(grep -c '^load .* cubin' "$KSPEC_MOCK_LOG")
[ "$made" -ge 5 ] && [ "$made" -le 6 ] && [ "$cubins" -eq 6 ] ||
  bad "$last: $made cubins made, $cubins loaded; want 5 or 6, and 6"
# cubins the mocked sm_90 refuses (made for sm_80): the PTX instead
rm -f "$KSPEC_MOCK_PTXAS_LOG"
# shellcheck disable=SC2086
KSPEC_MOCK_PTXAS_SM=80 run 0 $SWEEP --gpus 0,1
cubins=$(grep -c '^load .* cubin' "$KSPEC_MOCK_LOG")
ptx=$(grep -c '^load .* ptx' "$KSPEC_MOCK_LOG")
[ "$cubins" -eq 0 ] && [ "$ptx" -ge 6 ] ||
  bad "$last: $cubins cubins and $ptx PTX loaded; want none and 6"
grep -q '^measured 4, reused 0' "$TMP/out" || bad "$last: not measured"

echo "$failures failures"
[ "$failures" -eq 0 ]
