#!/bin/sh
# tools/multi_gpu_bench.sh - BENCHMARKS.md's table "Tuning on several GPUs"
# (issue 35 item 5): one sweep (conv1d with 32 taps, maxntid 32..1024 by
# 16, 63 variants: each launches its own block, so none is pruned,
# and all share one workload, whose CPU reference each worker computes
# once) on 1, 2 and 4 GPUs, with `--gpus` (one process, a worker per GPU)
# and with `mpirun -np N ... --mpi` (a rank per GPU; --bind-to none, else
# OpenMPI binds each rank to one core and the rank's compiles, ptxas runs
# and CPU reference share it), RUNS runs each
# (default 3), every run from an empty cache and store (nothing compiled
# or measured before). A sweep of template values would rebuild the
# workload, and its reference, whenever a worker's next variant has other
# values: that is the tool's cost, not the GPUs'.
#
#   tools/multi_gpu_bench.sh [KSPEC] [RUNS]
#
# KSPEC_BENCH_STEP=S sets the step of maxntid (default 16: 63 variants;
# 4: 249), the measuring a sweep hands out against what it pays once.
# KSPEC_BENCH_SIZE=N sets the problem size (`kspec tune --size`; default
# the workload's): a larger problem makes each variant's check and timing
# longer against what a sweep pays once (compiles, each worker's context
# and CPU reference). KSPEC_BENCH_LIMIT=S ends a run that takes longer
# than S seconds (default 300) as FAILED, so that one stuck run does not
# take the rest with it.
#
# KSPEC: the kspec tool (default .dev/gpu/bin/kspec, else build/tools/kspec;
# the --mpi rows need one built with kspec_mpi, and mpirun on the PATH).
# Prints one line per run (with kspec tune's phases: set-up, compiles,
# figures while the workers open their GPUs, waiting for the workers,
# measuring and how often a GPU answered after its first variant,
# finalists), then the table: mode, GPUs, wall time (median of the runs,
# min-max), each run's wall time, speed-up over the same mode's one GPU
# (its median over this one's), variants measured per second, and the
# winner of each run; then whether every run of every row had the same
# winner. KSPEC_BENCH_LOGS=DIR (default $OUT when set) keeps each run's
# output and errors there (MODE.GPUS.RUN.out, .err). GPUs the machine
# lacks (nvidia-smi -L; KSPEC_BENCH_GPUS=N overrides, for a dry run over
# the mocked driver) and --mpi without mpirun are said, not run.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
KSPEC=${1:-}
RUNS=${2:-3}
if [ -z "$KSPEC" ]; then
  KSPEC=$root/.dev/gpu/bin/kspec
  [ -x "$KSPEC" ] || KSPEC=$root/build/tools/kspec
fi
SWEEP="conv1d -D FILTER_LEN=32 --sweep maxntid=$(seq -s, 32 "${KSPEC_BENCH_STEP:-16}" 1024)"
[ -z "${KSPEC_BENCH_SIZE:-}" ] || SWEEP="$SWEEP --size $KSPEC_BENCH_SIZE"
limit=${KSPEC_BENCH_LIMIT:-300}
have=${KSPEC_BENCH_GPUS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')}
mpi=$(command -v mpirun || true)
# the ranks get the environment that keeps NVLink multicast off (KINDS.md)
pass=""
for v in NCCL_NVLS_ENABLE TORCH_SYMM_MEM_DISABLE_MULTICAST NVSHMEM_DISABLE_NVLS \
  KSPEC_LIBCUDA KSPEC_MOCK_DEVICES; do
  eval "[ -n \"\${$v+x}\" ]" && pass="$pass -x $v"
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kspec_mgpu.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
logs=${KSPEC_BENCH_LOGS:-${OUT:-}}
[ -z "$logs" ] || mkdir -p "$logs" || exit 1
echo "multi_gpu_bench: $KSPEC, $have GPUs, mpirun: ${mpi:-not found}," \
  "$RUNS runs per row, at most $limit s each"
echo "sweep: kspec tune $SWEEP"
nvidia-smi -L 2>/dev/null

# one MODE N RUN: a sweep from an empty cache; "MODE N RUN wall measured
# winner" into $tmp/runs
one() {
  mode=$1
  n=$2
  run=$3
  KSPEC_CACHE_DIR=$tmp/cache.$mode.$n.$run
  export KSPEC_CACHE_DIR
  gpus=$(seq -s, 0 $((n - 1)))
  t0=$(date +%s.%N)
  if [ "$mode" = gpus ]; then
    # shellcheck disable=SC2086
    timeout -k 5 "$limit" "$KSPEC" tune $SWEEP --gpus "$gpus" --csv \
      >"$tmp/out" 2>"$tmp/err"
  else
    # shellcheck disable=SC2086
    timeout -k 5 "$limit" \
      "$mpi" --allow-run-as-root --oversubscribe --bind-to none -np "$n" \
      -x KSPEC_CACHE_DIR \
      $pass "$KSPEC" tune $SWEEP --gpus "$gpus" --mpi --csv \
      >"$tmp/out" 2>"$tmp/err"
  fi
  rc=$?
  t1=$(date +%s.%N)
  wall=$(echo "$t1 $t0" | awk '{printf "%.2f", $1 - $2}')
  measured=$(grep -c ',measured,' "$tmp/out")
  # the CSV's columns: index,maxntid,threads,class,...,stored,best,reason
  winner=$(awk -F, 'NR > 1 && $15 == 1 {print "maxntid=" $2}' \
    "$tmp/out" | head -n 1)
  [ "$rc" -eq 0 ] || {
    winner="FAILED(rc=$rc)"
    head -n 5 "$tmp/err" >&2
  }
  echo "$mode $n $run $wall $measured ${winner:-none}" >>"$tmp/runs"
  # where the time went (kspec tune's "time:" line; rank 0's under mpirun)
  phases=$(grep '^time:' "$tmp/err" | head -n 1 | sed 's/^time: //')
  echo "$mode $n $run $wall $measured ${winner:-none} ${phases:+($phases)}"
  if [ -n "$logs" ]; then
    cp "$tmp/out" "$logs/$mode.$n.$run.out"
    cp "$tmp/err" "$logs/$mode.$n.$run.err"
  fi
  rm -rf "$KSPEC_CACHE_DIR"
}

for mode in gpus mpi; do
  if [ "$mode" = mpi ] && [ -z "$mpi" ]; then
    echo "mpi: mpirun not found here: the --mpi rows are not run"
    continue
  fi
  for n in 1 2 4; do
    if [ "$n" -gt "$have" ]; then
      echo "$mode $n: this machine has $have GPUs: not run"
      continue
    fi
    r=1
    while [ $r -le "$RUNS" ]; do
      one "$mode" "$n" "$r"
      r=$((r + 1))
    done
  done
done

echo
echo "| mode | GPUs | wall s (median; min-max) | runs s | speed-up | variants/s | winner |"
echo "|---|---|---|---|---|---|---|"
sort -k1,1 -k2,2n -k4,4n "$tmp/runs" | awk -v runs="$RUNS" '
  { key = $1 " " $2; n[key]++; w[key, n[key]] = $4; m[key] = $5;
    win[key] = win[key] (win[key] == "" ? "" : " ") $6; all[$6] = 1;
    if (!(key in order)) { order[key] = ++k; keys[k] = key } }
  END {
    nw = 0; for (x in all) nw++
    for (i = 1; i <= k; i++) {
      key = keys[i]; split(key, p, " "); c = n[key]
      med = (c % 2) ? w[key, (c + 1) / 2] : (w[key, c / 2] + w[key, c / 2 + 1]) / 2
      base[p[1]] = p[2] == 1 ? med : base[p[1]]
      sp = base[p[1]] ? sprintf("%.2fx (%.2f of 1 GPU)", base[p[1]] / med, med / base[p[1]]) : "-"
      runs = ""
      for (j = 1; j <= c; j++) runs = runs (j > 1 ? ", " : "") w[key, j]
      printf "| %s | %s | %.2f; %.2f-%.2f | %s | %s | %.1f | %s |\n", \
        (p[1] == "gpus" ? "--gpus" : "mpirun --mpi"), p[2], med, w[key, 1], \
        w[key, c], runs, sp, m[key] / med, win[key]
    }
    printf "\nwinners: %s\n", nw == 1 ? "the same in every run" : nw " different"
  }'
