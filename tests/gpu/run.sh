#!/bin/sh
# tests/gpu/run.sh - everything kspec runs on a GPU machine, in one go:
# the GPU tests, the occupancy calculator against the driver and `kspec
# stats`, `kspec run` on every template, compute-sanitizer (memcheck,
# racecheck, synccheck, initcheck), fault injection into the tuner
# and the benchmarks (kspec-bench, then kspec-bench-cuda against
# hand-written CUDA where tools/gpu-pack.sh could build it). Builds nothing:
# it uses the prefix made by tools/gpu-pack.sh (carried as .dev/gpu). Logs
# go to $OUT (or ./gpu-out).
#
#   KSPEC_GPU_PARTS="tests run sanitize bench corpus tex" (the default)
#   picks the parts, so that each fits in one call of the device tool;
#   "tex" times resize in software and with hardware textures (--tex src),
#   2-D and 3-D, nearest and linear (tex.md: seed 000 §9.3's table), and
#   tunes resize over the texture dim (tex_tune0.log, tex_tune1.log); "corpus"
#   runs the kernel corpus (tests/kernels) three ways, nvcc's cubin, kspec
#   generic and specialized, compared and timed (corpus.md); "cubin" runs
#   test_gpu_cubin from .dev/gpu-cubin, carried in a call of its own;
#   "faults" runs a tuner sweep with a faulting and a hanging variant.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
p="$root/.dev/gpu"
out="${OUT:-$root/gpu-out}"
mkdir -p "$out"
export LD_LIBRARY_PATH="$p/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export PATH="$p/bin:/usr/local/cuda/bin:$PATH"
status=0
summary=""
note() { summary="$summary\n$1"; }
parts=" ${KSPEC_GPU_PARTS:-tests run sanitize bench corpus tex} "
corpus="$p/share/kspec/corpus" # tools/gpu-pack.sh: bitcode, cubins, MANIFEST
part() { case "$parts" in *" $1 "*) return 0 ;; esac; return 1; }

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv \
  >"$out/device.txt" 2>&1
cat "$out/device.txt"

if part cubin; then
echo "== the cubin cache (.dev/gpu-cubin, carried on its own)"
# each step a fresh process on a private cache directory
if ! [ -x "$root/.dev/gpu-cubin/bin/test_gpu_cubin" ]; then
  status=1
  note "gpu cubin cache: not carried (.dev/gpu-cubin)"
elif KSPEC_CACHE_DIR="$out/cubin-cache" \
  "$root/.dev/gpu-cubin/bin/test_gpu_cubin" >"$out/gpu_cubin.log" 2>&1; then
  note "gpu cubin cache: PASS"
else
  status=1
  note "gpu cubin cache: FAIL (see gpu_cubin.log)"
fi
tail -8 "$out/gpu_cubin.log"
fi

if part tests; then
echo "== GPU tests"
if test_gpu_templates >"$out/gpu_tests.log" 2>&1; then
  note "gpu tests: PASS ($(grep -c '^\[       OK' "$out/gpu_tests.log") ok)"
else
  status=1
  note "gpu tests: FAIL (see gpu_tests.log)"
fi
tail -5 "$out/gpu_tests.log"
if test_gpu_window >"$out/gpu_window.log" 2>&1; then
  note "gpu window staging: PASS ($(tail -1 "$out/gpu_window.log"))"
else
  status=1
  note "gpu window staging: FAIL (see gpu_window.log)"
fi
tail -1 "$out/gpu_window.log"
if test_gpu_cmem >"$out/gpu_cmem.log" 2>&1; then
  note "gpu constant copies: PASS"
else
  status=1
  note "gpu constant copies: FAIL (see gpu_cmem.log)"
fi
tail -3 "$out/gpu_cmem.log"
if test_gpu_local "$root/tests/data/modes.ll" >"$out/gpu_local.log" 2>&1; then
  note "gpu private arrays in shared memory: PASS"
else
  status=1
  note "gpu private arrays in shared memory: FAIL (see gpu_local.log)"
fi
tail -4 "$out/gpu_local.log"
if test_gpu_shfl "$root/tests/data/treesum.ll" >"$out/gpu_shfl.log" 2>&1; then
  note "gpu warp-shuffle reductions: PASS"
else
  status=1
  note "gpu warp-shuffle reductions: FAIL (see gpu_shfl.log)"
fi
tail -4 "$out/gpu_shfl.log"
if test_gpu_tex "$p/share/kspec/dialect" >"$out/gpu_tex.log" 2>&1; then
  note "gpu textures (sampling in software and with --tex, every filter, mode, type; 1-D, 2-D, 3-D): PASS"
else
  status=1
  note "gpu textures: FAIL (see gpu_tex.log)"
fi
grep -E "FAIL|pitch 63|new contents|refused|runs:" "$out/gpu_tex.log" | tail -24
if test_gpu_alias "$root/tests/data/hist64.ll" >"$out/gpu_alias.log" 2>&1; then
  note "gpu run-time alias checks (histogram, disjoint and overlapping): PASS"
else
  status=1
  note "gpu run-time alias checks: FAIL (see gpu_alias.log)"
fi
tail -3 "$out/gpu_alias.log"
if test_gpu_fused >"$out/gpu_fused.log" 2>&1; then
  note "gpu sepfilter_fused (one cooperative kernel) = two passes bit for bit = CPU: PASS"
else
  status=1
  note "gpu sepfilter_fused: FAIL (see gpu_fused.log)"
fi
grep "^FAIL" "$out/gpu_fused.log"
tail -1 "$out/gpu_fused.log"
if test_gpu_byval "$root/tests/data/byval.ll" >"$out/gpu_byval.log" 2>&1; then
  note "gpu structs by value: PASS"
else
  status=1
  note "gpu structs by value: FAIL (see gpu_byval.log)"
fi
tail -13 "$out/gpu_byval.log"
if test_gpu_globals "$root/tests/data/globals.ll" >"$out/gpu_globals.log" 2>&1
then
  note "gpu module globals: PASS"
else
  status=1
  note "gpu module globals: FAIL (see gpu_globals.log)"
fi
tail -8 "$out/gpu_globals.log"
if test_gpu_launch "$root/tests/data/launch.ll" >"$out/gpu_launch.log" 2>&1
then
  note "gpu launches (cooperative grid sync, 100 KiB smem): PASS"
else
  status=1
  note "gpu launches: FAIL (see gpu_launch.log)"
fi
tail -4 "$out/gpu_launch.log"
if test_gpu_dialect "$p/share/kspec/dialect" >"$out/gpu_dialect.log" 2>&1
then
  note "gpu dialect (warp, atomics, half/bf16, bits, cache hints, grid sync, math within CUDA's bounds or nvcc's): PASS"
else
  status=1
  note "gpu dialect: FAIL (see gpu_dialect.log)"
fi
grep -E "^math:|FAIL" "$out/gpu_dialect.log"
tail -1 "$out/gpu_dialect.log"

echo "== occupancy: the offline calculator against the driver"
if test_gpu_occupancy >"$out/occupancy.log" 2>&1; then
  note "occupancy: PASS (calculator = driver on every case)"
else
  status=1
  note "occupancy: FAIL (see occupancy.log: MISMATCH lines)"
fi
grep -E "MISMATCH|PASSED|FAILED" "$out/occupancy.log" | head -20
for t in "conv1d -D FILTER_LEN=32" "histogram -D BINS=4096 --block 256" \
  "reduce_sum -D BLOCK=1024" "transpose -D TILE=32"; do
  # shellcheck disable=SC2086
  kspec stats $t >>"$out/stats.log" 2>&1 || {
    status=1
    note "kspec stats $t: FAIL"
  }
done
cat "$out/stats.log"

fi

if part run; then
echo "== kspec run, generic and specialized"
for t in "conv1d -D FILTER_LEN=32" "sepfilter_rows -D RADIUS=8" \
  "sepfilter_cols -D RADIUS=8" "sepfilter_fused -D RADIUS=8" \
  "sepfilter_fused -D RADIUS=3 --block 32,8 --size 8192" \
  "histogram -D BINS=256" \
  "reduce_sum -D BLOCK=256" "transpose -D TILE=32" \
  "blackscholes -D RISKFREE=0.02 -D VOLATILITY=0.3" \
  "blackscholes -D RISKFREE=0.02 -D VOLATILITY=0.3 --fast-math" \
  "blackscholes -D RISKFREE=0.05 -D VOLATILITY=1.5 --ftz --prec-div=0" \
  "resize -D FACTOR=2 -D FILTER=1" "resize -D FACTOR=3 -D FILTER=0 --tex src" \
  "resize -D FACTOR=2 -D FILTER=1 --tex src" "resize3d -D FILTER=1" \
  "resize3d -D FILTER=1 --tex src" "resize3d -D FILTER=0 -D FACTOR=3 --tex src"; do
  # shellcheck disable=SC2086
  if kspec run $t --compare >>"$out/run.log" 2>&1; then
    note "kspec run $t: ok"
  else
    status=1
    note "kspec run $t: FAIL"
  fi
  # shellcheck disable=SC2086
  if kspec run $t --no-pass smem_promote --no-pass const_promote \
    >>"$out/run.log" 2>&1; then
    note "kspec run $t (passes off): ok"
  else
    status=1
    note "kspec run $t (passes off): FAIL"
  fi
done
cat "$out/run.log"

fi

if part tex; then
echo "== textures: resize in software and with --tex src (seed 000 §9.3)"
{
  echo "| case | software ms | hardware ms | ratio | software GB/s | hardware GB/s |"
  echo "|---|---|---|---|---|---|"
} >"$out/tex.md"
while read -r tpl size factor filter; do
  [ -z "$tpl" ] && continue
  args="$tpl -D FACTOR=$factor -D FILTER=$filter --size $size --reps 50"
  # shellcheck disable=SC2086
  sw=$(kspec run $args 2>>"$out/tex.log" | tee -a "$out/tex.log" |
    awk '/^specialized/{print $2, $4}')
  # resize3d's hardware time includes the copy into its 3-D array
  # shellcheck disable=SC2086
  hw=$(kspec run $args --tex src 2>>"$out/tex.log" |
    tee -a "$out/tex.log" | awk '/^specialized/{print $2, $4, $NF}')
  [ -n "$sw" ] || { status=1; note "tex $args: FAIL"; continue; }
  set -- $sw $hw
  ratio=$(awk -v a="$1" -v b="$3" 'BEGIN{if (b > 0) printf "%.2f", a / b; else print "-"}')
  echo "| $tpl n=$size x$factor $([ "$filter" = 1 ] && echo linear || echo nearest) | $1 | $3 | $ratio | $2 | $4 |" >>"$out/tex.md"
done <<'TEX'
resize 4096 2 0
resize 4096 2 1
resize 8192 1 1
resize 256 4 1
resize3d 256 2 0
resize3d 256 2 1
TEX
cat "$out/tex.md"
grep "note:" "$out/tex.log" && note "tex: a launch sampled in software (tex.log)"
note "textures: tex.md"
# the tuner's texture dim: nearest may switch it on (1), bilinear only at 2
store=$(mktemp -d)
for f in 0 1; do
  # shellcheck disable=SC2086
  if KSPEC_CACHE_DIR="$store" kspec tune resize -D FACTOR=2 -D FILTER=$f \
    --sweep tex:src=0,1,2 --size 4096 >"$out/tex_tune$f.log" 2>&1; then
    note "tune resize FILTER=$f --sweep tex:src=0,1,2: $(grep "^best:" "$out/tex_tune$f.log" | head -1)"
  else
    status=1
    note "tune resize FILTER=$f tex: FAIL (tex_tune$f.log)"
  fi
  cat "$out/tex_tune$f.log"
done
rm -rf "$store"
fi

if part sanitize; then
echo "== compute-sanitizer: memcheck, racecheck, synccheck, initcheck;"
echo "   every template, generic and specialized, every optional pass on and off"
nopass="--no-pass tcoarsen --no-pass unclamp --no-pass coarsen"
nopass="$nopass --no-pass gcoarsen --no-pass smem_promote"
nopass="$nopass --no-pass const_promote --no-pass regpressure"
tools="memcheck racecheck synccheck initcheck"
cat >"$out/sanitize.cases" <<'CASES'
conv1d --size 100003
conv1d -D FILTER_LEN=1 --size 100003
conv1d -D FILTER_LEN=7 --size 100003
conv1d -D FILTER_LEN=32 --block 256 --size 100003
conv1d -D FILTER_LEN=128 --size 100003
sepfilter_rows --size 333
sepfilter_rows -D RADIUS=3 --size 333
sepfilter_rows -D RADIUS=8 --block 32,8 --size 333
sepfilter_rows -D RADIUS=32 --size 333
sepfilter_rows -D RADIUS=32 --block 32,8 --size 333
sepfilter_cols --size 333
sepfilter_cols -D RADIUS=3 --size 333
sepfilter_cols -D RADIUS=8 --block 32,8 --size 333
sepfilter_cols -D RADIUS=32 --size 333
sepfilter_fused --size 333
sepfilter_fused -D RADIUS=3 --size 333
sepfilter_fused -D RADIUS=8 --block 32,8 --size 333
sepfilter_fused -D RADIUS=32 --block 16,16 --size 1001
histogram --size 100003
histogram -D BINS=1 --size 100003
histogram -D BINS=100 --size 100003
histogram -D BINS=256 --block 256 --size 100003
histogram -D BINS=4096 --size 100003
reduce_sum --size 100003
reduce_sum -D BLOCK=100 --size 100003
reduce_sum -D BLOCK=1024 --size 100003
transpose --size 333
transpose -D TILE=7 --size 333
transpose -D TILE=16 --size 333
transpose -D TILE=32 --size 333
stencil1d --size 100003
stencil1d -D RADIUS=1 --size 100003
stencil1d -D RADIUS=64 --block 1024 --size 100003
blackscholes --size 100003
blackscholes -D VOLATILITY=1.5 --fast-math --size 100003
resize -D FILTER=1 --size 333
resize -D FILTER=1 --tex src --size 333
resize -D FILTER=0 -D FACTOR=3 --tex src --size 333
resize3d -D FILTER=1 --size 61
resize3d -D FILTER=1 --tex src --size 61
CASES
# One process per tool, the four at once: tool T writes one line per case
# and pass setting ("clean" or "**errors**") to T.res.
sanitize_tool() {
  : >"$out/$1.res"
  while read -r t; do
    [ -z "$t" ] && continue
    for passes in "" "$nopass"; do
      # shellcheck disable=SC2086
      if compute-sanitizer --tool "$1" --error-exitcode 3 \
        kspec run $t $passes --reps 1 >>"$out/$1.log" 2>&1; then
        echo "clean" >>"$out/$1.res"
      else
        echo "**errors**" >>"$out/$1.res"
      fi
    done
  done <"$out/sanitize.cases"
}
for tool in $tools; do
  sanitize_tool "$tool" &
done
wait
# A user's kernels: private arrays moved to shared memory (test_gpu_local,
# every variant, the pass on and off) and structs by value
# (test_gpu_byval), warp-shuffle reductions (test_gpu_shfl), 10007
# threads; module globals (test_gpu_globals, its
# own 517x263 image: it takes no size); the versioned histogram, both
# versions (test_gpu_alias, 10007 bytes).
for tool in $tools; do
  for t in local:modes shfl:treesum byval:byval globals:globals alias:hist64; do
    name=${t%%:*}
    if compute-sanitizer --tool "$tool" --error-exitcode 3 \
      "test_gpu_$name" "$root/tests/data/${t#*:}.ll" 10007 \
      >>"$out/$tool.$name.log" 2>&1; then
      note "$tool test_gpu_$name: clean"
    else
      status=1
      note "$tool test_gpu_$name: **errors** (see $tool.$name.log)"
    fi
  done
done
# sepfilter_fused's GPU test at side 333 (every radius; the two passes and
# grids of 1x1 and 3x2 blocks too): the grid barrier under every tool.
for tool in $tools; do
  if compute-sanitizer --tool "$tool" --error-exitcode 3 test_gpu_fused 333 \
    >>"$out/$tool.fused.log" 2>&1; then
    note "$tool test_gpu_fused 333: clean"
  else
    status=1
    note "$tool test_gpu_fused 333: **errors** (see $tool.fused.log)"
  fi
done
# The sampling functions, software and hardware (test_gpu_tex, 256 points
# a run).
for tool in $tools; do
  if compute-sanitizer --tool "$tool" --error-exitcode 3 \
    test_gpu_tex "$p/share/kspec/dialect" 256 >>"$out/$tool.tex.log" 2>&1; then
    note "$tool test_gpu_tex: clean"
  else
    status=1
    note "$tool test_gpu_tex: **errors** (see $tool.tex.log)"
  fi
done
{
  echo "| case | passes | memcheck | racecheck | synccheck | initcheck |"
  echo "|---|---|---|---|---|---|"
} >"$out/sanitize.md"
i=0
while read -r t; do
  [ -z "$t" ] && continue
  for passes in on off; do
    i=$((i + 1))
    row="| $t | $passes |"
    for tool in $tools; do
      r=$(sed -n "${i}p" "$out/$tool.res")
      row="$row ${r:-**not run**} |"
      if [ "$r" != clean ]; then
        status=1
        note "$tool $t (passes $passes): ${r:-not run}"
      fi
    done
    echo "$row" >>"$out/sanitize.md"
  done
done <"$out/sanitize.cases"
# The kernel corpus under memcheck: a subset of its smaller cases, each
# run once three ways (test_gpu_corpus --check), compared too.
corpus_cases="matmul_tiled16 box_filter_tex nbody_step scan_hs_f32_tail \
  scan_blelloch_512 histogram64 reduce_grid_sync reduce_block_i32 \
  stencil_const count_above"
# shellcheck disable=SC2086
if ! [ -f "$corpus/MANIFEST" ]; then
  status=1
  note "memcheck corpus: not packed ($corpus)"
elif compute-sanitizer --tool memcheck --error-exitcode 3 \
  test_gpu_corpus --check --manifest "$corpus/MANIFEST" --dir "$corpus" \
  $corpus_cases >"$out/memcheck.corpus.log" 2>&1; then
  note "memcheck corpus ($(echo $corpus_cases | wc -w) cases): clean"
else
  status=1
  note "memcheck corpus: **errors** or mismatches (see memcheck.corpus.log)"
fi
# The store exchange of a block that is not square (32x8) under racecheck:
# its tile and flags are shared memory.
xcases="transpose_int_f64"
# shellcheck disable=SC2086
if [ -f "$corpus/MANIFEST" ] &&
  compute-sanitizer --tool racecheck --error-exitcode 3 \
    test_gpu_corpus --check --manifest "$corpus/MANIFEST" --dir "$corpus" \
    $xcases >"$out/racecheck.corpus.log" 2>&1; then
  note "racecheck corpus ($xcases): clean"
else
  status=1
  note "racecheck corpus: **hazards** or mismatches (see racecheck.corpus.log)"
fi
for tool in $tools; do
  echo "$tool:"
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/$tool.log" | sort | uniq -c
done
cat "$out/sanitize.md"

fi

if part faults; then
echo "== fault injection: a tuner sweep with a faulting and a hanging variant"
store=$(mktemp -d)
if KSPEC_CACHE_DIR="$store" kspec tune conv1d -D FILTER_LEN=32 \
  --sweep maxntid=128,256,512 --sweep minctasm=1,2 \
  --inject fault=0 --inject hang=2 --timeout 2000 >"$out/faults.log" 2>&1 &&
  grep -q "device fault" "$out/faults.log" &&
  grep -q "timeout" "$out/faults.log"; then
  note "tune with a faulting and a hanging variant: completed, both classed"
else
  status=1
  note "tune with injected faults: FAIL (see faults.log)"
fi
cat "$out/faults.log"
rm -rf "$store"

fi

if part corpus; then
echo "== the kernel corpus: nvcc's cubin, kspec generic, kspec specialized"
if ! [ -f "$corpus/MANIFEST" ]; then
  status=1
  note "corpus: not packed ($corpus: tools/gpu-pack.sh needs nvcc and the CUDA 12.4 tree)"
elif test_gpu_corpus --manifest "$corpus/MANIFEST" --dir "$corpus" \
  >"$out/corpus.log" 2>&1; then
  note "corpus: PASS ($(grep -c '^ok ' "$out/corpus.log") cases matched nvcc, $(grep -c '^skip ' "$out/corpus.log") skipped)"
else
  status=1
  note "corpus: FAIL (see corpus.log: $(grep -c '^FAIL' "$out/corpus.log") cases)"
fi
sed -n '/^| case/,$p' "$out/corpus.log" >"$out/corpus.md"
grep -E "^(FAIL|skip)" "$out/corpus.log"
cat "$out/corpus.md"

fi

if part bench; then
echo "== benchmark"
if kspec-bench "$@" >"$out/bench.md" 2>&1; then
  note "kspec-bench: ok"
else
  status=1
  note "kspec-bench: FAIL (see bench.md)"
fi
cat "$out/bench.md"

echo "== fused vs two-pass separable filter (sepfilter_fused, one cooperative launch)"
if kspec-bench --fused >"$out/fused.md" 2>&1; then
  note "kspec-bench --fused: ok"
else
  status=1
  note "kspec-bench --fused: FAIL (see fused.md)"
fi
cat "$out/fused.md"

echo "== register pressure: stencil1d with the regpressure pass, without, and"
echo "   without but spilling to shared memory (--smem-spill)"
{
  echo "| stencil1d | regpressure | ms | regs | check |"
  echo "|---|---|---:|---:|---|"
  for cfg in "-D RADIUS=16 --block 1024" "-D RADIUS=64 --block 1024" \
    "-D RADIUS=64 --block 256" "-D RADIUS=16 --maxntid 1024 --minctasm 2"; do
    for pass in on off "off, --smem-spill"; do
      extra=""
      [ "$pass" = off ] && extra="--no-pass regpressure"
      [ "$pass" = "off, --smem-spill" ] &&
        extra="--no-pass regpressure --smem-spill"
      # shellcheck disable=SC2086
      line=$(kspec run stencil1d $cfg $extra --reps 30 2>&1 | grep specialized)
      ms=$(echo "$line" | awk '{print $2}')
      regs=$(echo "$line" | sed -n 's/.*regs \([0-9]*\).*/\1/p')
      chk=$(echo "$line" | grep -q "check ok" && echo ok || echo FAIL)
      echo "| $cfg | $pass | $ms | $regs | $chk |"
    done
  done
} >"$out/regpressure.md" 2>&1
cat "$out/regpressure.md"
if grep -q FAIL "$out/regpressure.md"; then
  status=1
  note "regpressure runs: FAIL (see regpressure.md)"
else
  note "regpressure runs: ok"
fi

echo "== latency: cold, fresh process from the disk cache, memory hit, NVRTC"
if kspec-bench --latency >"$out/latency.md" 2>&1; then
  note "kspec-bench --latency: ok"
else
  status=1
  note "kspec-bench --latency: FAIL (see latency.md)"
fi
cat "$out/latency.md"

echo "== benchmark against hand-written CUDA"
if ! command -v kspec-bench-cuda >/dev/null; then
  note "kspec-bench-cuda: not packed (no nvcc where gpu-pack.sh ran)"
elif kspec-bench-cuda "$@" >"$out/bench_cuda.log" 2>&1; then
  note "kspec-bench-cuda: ok (every variant checked; see bench_cuda.log)"
else
  status=1
  note "kspec-bench-cuda: FAIL (see bench_cuda.log)"
fi
cat "$out/bench_cuda.log" 2>/dev/null

fi

printf "== summary%b\n" "$summary"
exit $status
