#!/bin/sh
# run.sh - runs kspec's fuzz targets from their corpora for a while and
# says what they found. tools/fuzz.sh runs it on the fuzz build here; the
# pack made by tools/fuzz-pack.sh carries it as run.sh next to kspec-fuzz
# and the corpora, for a machine without LLVM or clang.
#
#   run.sh [--seconds N] [--jobs J] [--serial] [--bin PATH] [--corpus DIR]
#          [--out DIR] [--tar] [TARGET...]
#
#   --seconds N  fuzzing time of each target (default 60)
#   --jobs J     libFuzzer processes per target (-jobs=J -workers=J; default 1)
#   --serial     one target after the other (default: all at once)
#   --bin PATH   the kspec-fuzz binary (default: next to this script)
#   --corpus DIR the corpora, DIR/TARGET/ (default: corpus/ next to it)
#   --out DIR    results (default: $OUT/fuzz when OUT is set, else ./fuzz-out)
#   --tar        pack each target's results into DIR/TARGET/TARGET.tar.gz,
#                leaving beside it only the reproducers (few files, for
#                machines that return few)
#   TARGET...    default: every target of targets.txt
#
# For each target, DIR/TARGET/ gets: new/, the inputs that found new
# coverage (to merge into the corpus: kspec-fuzz -merge=1 CORPUS new/);
# crash-*, leak-*, timeout-*, oom-*: reproducers of findings; log.txt, and
# with --jobs, fuzz-N.log of each process. The summary gives each target's
# executions, executions per second, new inputs and findings; the exit
# status is 1 when anything was found, 2 on bad usage.
set -u
here=$(cd "$(dirname "$0")" && pwd)
seconds=60 jobs=1 serial=0 tar=0 bin="$here/kspec-fuzz" corpus="$here/corpus"
out="${OUT:+$OUT/fuzz}"
out="${out:-$PWD/fuzz-out}"
targets_file="$here/targets.txt"
usage() { sed -n '7,21p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
  --seconds) seconds=${2:?}; shift ;;
  --jobs) jobs=${2:?}; shift ;;
  --serial) serial=1 ;;
  --bin) bin=${2:?}; shift ;;
  --corpus) corpus=${2:?}; shift ;;
  --out) out=${2:?}; shift ;;
  --targets) targets_file=${2:?}; shift ;;
  --tar) tar=1 ;;
  -h|--help) usage ;;
  -*) echo "run.sh: unknown option $1" >&2; usage ;;
  *) break ;;
  esac
  shift
done
[ -x "$bin" ] || { echo "run.sh: no fuzz binary at $bin" >&2; exit 2; }
[ -r "$targets_file" ] || { echo "run.sh: no $targets_file" >&2; exit 2; }
all=$(awk '!/^#/ && NF {print $1}' "$targets_file")
targets=${*:-$all}
for t in $targets; do
  echo "$all" | grep -qx "$t" ||
    { echo "run.sh: unknown target '$t' (targets: $(echo $all))" >&2; exit 2; }
done
mkdir -p "$out"
out=$(cd "$out" && pwd)

# One target: fuzz for $seconds in $out/$t.
fuzz_one() {
  t=$1
  d="$out/$t"
  rm -rf "$d"
  mkdir -p "$d/new"
  opts=$(awk -v t="$t" '$1 == t {$1 = ""; print}' "$targets_file")
  par=""
  [ "$jobs" -gt 1 ] && par="-jobs=$jobs -workers=$jobs"
  # shellcheck disable=SC2086
  (cd "$d" && KSPEC_FUZZ_TARGET="$t" "$bin" $opts $par \
    -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$d/" "$d/new" "$corpus/$t" >"$d/log.txt" 2>&1)
  echo $? >"$d/status"
}

# The numbers of one target's run, one line; its findings after it.
report() {
  t=$1
  d="$out/$t"
  logs="$d/log.txt" # with --jobs it repeats each process's fuzz-N.log
  ls "$d"/fuzz-*.log >/dev/null 2>&1 && logs=$(ls "$d"/fuzz-*.log)
  # shellcheck disable=SC2086
  stats=$(cat $logs | awk -F': ' '
    /^stat::number_of_executed_units/ {n += $2}
    /^stat::average_exec_per_sec/ {r += $2}
    /^stat::peak_rss_mb/ {if ($2 > m) m = $2}
    END {printf "%d %d %d", n, r, m}')
  set -- $stats
  new=$(ls "$d/new" | wc -l)
  found=$(ls "$d" | grep -E '^(crash|leak|timeout|oom)-' || true)
  printf '%-10s executions %-9s exec/s %-6s new inputs %-5s peak RSS %s MB  libFuzzer exit %s\n' \
    "$t" "$1" "$2" "$new" "$3" "$(cat "$d/status")"
  if [ -n "$found" ]; then
    for f in $found; do
      echo "  FINDING $d/$f"
      echo "    reproduce: KSPEC_FUZZ_TARGET=$t $bin $d/$f"
    done
    return 1
  fi
  # A process that ended without a reproducer (an LLVM exit, a signal).
  if [ "$(cat "$d/status")" != 0 ]; then
    echo "  FINDING without a reproducer: see $d/log.txt"
    return 1
  fi
  return 0
}

if [ "$serial" = 1 ]; then
  for t in $targets; do fuzz_one "$t"; done
else
  for t in $targets; do fuzz_one "$t" & done
  wait
fi

rc=0
summary="$out/summary.txt"
: >"$summary"
for t in $targets; do
  report "$t" >>"$summary" || rc=1
  if [ "$tar" = 1 ]; then
    (cd "$out/$t" && tar czf "../$t.tar.gz.tmp" . &&
      rm -rf new log.txt status fuzz-*.log && mv "../$t.tar.gz.tmp" "$t.tar.gz")
  fi
done
cat "$summary"
[ "$rc" = 0 ] && echo "no findings" || echo "FINDINGS: see above"
exit $rc
