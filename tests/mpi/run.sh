#!/bin/sh
# run.sh - the `mpi` tests (ctest -L mpi): kspec_mpi's programs under
# mpirun, oversubscribed (this machine may have 2 cores for 64 ranks) and
# allowed to run as root (CI does). The mocked driver stands in for CUDA.
#
#   sh run.sh MPIEXEC MOCK_LIB NP PROGRAM MODE
#
# MODE: keys (every rank asks for the same 12 kernels), disk (the same
# with one disk cache directory for all), single (MPI without threads:
# refused), stuck (rank 1 stops for good: the others finish alone), early
# (rank 0 leaves first: the others do not wait for it), split
# and disagree (mpi_tune's), tool (`kspec tune --mpi` with one rank),
# toolgpus (`kspec tune --mpi --gpus` over two ranks, each probing its
# own GPU; a GPU that does not exist stops every rank).
set -u
MPIEXEC=${1:?usage: run.sh MPIEXEC MOCK_LIB NP PROGRAM MODE}
MOCK=$2
NP=$3
PROG=$4
MODE=$5
TMP=$(mktemp -d "${TMPDIR:-/tmp}/kspec_mpi_test.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
KSPEC_LIBCUDA=$MOCK
KSPEC_MOCK_DEVICES=2
KSPEC_CACHE_DIR=$TMP/cache
KSPEC_MPI_TIMEOUT=${KSPEC_MPI_TIMEOUT:-30}
export KSPEC_LIBCUDA KSPEC_MOCK_DEVICES KSPEC_CACHE_DIR KSPEC_MPI_TIMEOUT
run() {
  "$MPIEXEC" --oversubscribe --allow-run-as-root -x KSPEC_LIBCUDA \
    -x KSPEC_MOCK_DEVICES -x KSPEC_CACHE_DIR -x KSPEC_MPI_TIMEOUT \
    -np "$@"
}

case $MODE in
keys | single | early) run "$NP" "$PROG" "$MODE" ;;
disk) mkdir -p "$TMP/shared" && run "$NP" "$PROG" keys "$TMP/shared" ;;
split | disagree) run "$NP" "$PROG" "$MODE" "$TMP" ;;
stuck)
  # Rank 1 stops (SIGSTOP) after its first kernel; the others must finish
  # every kernel, past the 5 s timeout, and say so. Then rank 1 is killed,
  # which ends the job (the others may wait for it in MPI_Finalize). At
  # 2 s, a live rank of four on two busy cores sometimes answered late and
  # was the one named.
  KSPEC_MPI_TIMEOUT=5
  export KSPEC_MPI_TIMEOUT
  run "$NP" "$PROG" stuck "$TMP" >"$TMP/out" 2>&1 &
  job=$!
  want=$((NP - 1))
  i=0
  while [ "$(ls "$TMP" | grep -c '^rank\.')" -lt "$want" ] && [ $i -lt 240 ]; do
    sleep 0.5
    i=$((i + 1))
  done
  [ -f "$TMP/stuck.pid" ] && kill -KILL "$(cat "$TMP/stuck.pid")" 2>/dev/null
  i=0
  while kill -0 $job 2>/dev/null && [ $i -lt 60 ]; do
    sleep 0.5
    i=$((i + 1))
  done
  kill $job 2>/dev/null
  done_ok=$(cat "$TMP"/rank.* 2>/dev/null | grep -c '^ok ')
  said=$(cat "$TMP"/rank.* 2>/dev/null | grep -c 'rank 1 did not answer')
  echo "stuck: $done_ok of $want ranks finished, $said said rank 1 did not answer"
  cat "$TMP"/rank.* 2>/dev/null | head -3
  [ "$done_ok" -eq "$want" ] && [ "$said" -ge 1 ] || {
    echo FAIL
    cat "$TMP/out" | head -20
    exit 1
  }
  echo ok
  ;;
tool)
  # One rank: it works, measuring alone, and says so (the mock runs no
  # kernel: each variant, the baseline too, is a wrong result).
  run 1 "$PROG" tune conv1d -D FILTER_LEN=8 --sweep maxntid=64,128 \
    --size 4096 --mpi >"$TMP/out" 2>&1
  cat "$TMP/out"
  grep -q -- "--mpi with one rank" "$TMP/out" &&
    grep -q "^measured 3, reused 0" "$TMP/out" || {
    echo FAIL
    exit 1
  }
  echo ok
  ;;
toolgpus)
  # Two ranks on the mock's two GPUs: each measures on its own (rank 0's
  # table names both); then a list naming GPU 5, rank 1's: its worker
  # cannot open it, the plan fails on every rank, rank 0 says why, once,
  # and the job ends with an error instead of waiting.
  sweep="tune conv1d -D FILTER_LEN=8 --sweep maxntid=64,128,256 --size 4096"
  # shellcheck disable=SC2086
  run 2 "$PROG" $sweep --gpus 0,1 --mpi >"$TMP/out" 2>&1
  rc=$?
  cat "$TMP/out"
  [ $rc -eq 0 ] && grep -q '\[gpu 0\]' "$TMP/out" &&
    grep -q '\[gpu 1\]' "$TMP/out" || {
    echo FAIL: rc $rc, want both GPUs in the table
    exit 1
  }
  # shellcheck disable=SC2086
  timeout 120 "$MPIEXEC" --oversubscribe --allow-run-as-root -x KSPEC_LIBCUDA \
    -x KSPEC_MOCK_DEVICES -x KSPEC_CACHE_DIR -np 2 \
    "$PROG" $sweep --gpus 0,5 --mpi >"$TMP/out" 2>&1
  rc=$?
  cat "$TMP/out"
  said=$(grep -c 'rank 1 cannot measure: tune: GPU 5: .*no CUDA device 5' \
    "$TMP/out")
  [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$said" -eq 1 ] || {
    echo "FAIL: rc $rc (124: it hung), said $said times, want once"
    exit 1
  }
  echo ok
  ;;
*) echo "run.sh: unknown mode $MODE" && exit 2 ;;
esac
