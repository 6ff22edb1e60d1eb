#!/bin/sh
# corpus_test.sh - kspec on malformed input: every case must end with its
# exit status (never a signal), one line on stderr naming the stage and
# holding the expected text, nothing on stdout, and no trace of LLVM
# ending the process or of a sanitizer.
#
#   sh corpus_test.sh KSPEC CORPUS_DIR TEMPLATE_BC [cases|cut|flip]
#
#   cases  every line of CORPUS_DIR/cases.txt (see there)
#   cut    TEMPLATE_BC (a built-in template's bitcode) cut short at every
#          length up to 64 bytes and at 100 more spread over the rest
#   flip   TEMPLATE_BC with 1 to 4 bits flipped, 100 times: kspec may
#          accept what still parses (status 0, PTX on stdout, nothing on
#          stderr) or refuse it (status 1, one line), nothing else
#
# Never opens the CUDA driver: every command that compiles names its
# target (kspec run fails before its buffers, or at the driver, in one
# line either way).
set -u
KSPEC=${1:?usage: corpus_test.sh KSPEC CORPUS_DIR TEMPLATE_BC [MODE]}
CORPUS=${2:?usage: corpus_test.sh KSPEC CORPUS_DIR TEMPLATE_BC [MODE]}
BC=${3:?usage: corpus_test.sh KSPEC CORPUS_DIR TEMPLATE_BC [MODE]}
MODE=${4:-cases}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/kspec_corpus.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
KSPEC_CACHE_DIR=$TMP/cache # never the user's cache
export KSPEC_CACHE_DIR
unset KSPEC_CACHE KSPEC_CACHE_MAX KSPEC_RECORD
T="--arch sm_90 --ptx-isa 85"
T60="--arch sm_60 --ptx-isa 60"
failures=0
checks=0

bad() {
  echo "FAIL: $last: $*"
  echo "  stdout: $(head -c 300 "$TMP/out")"
  echo "  stderr: $(head -c 600 "$TMP/err")"
  failures=$((failures + 1))
}

# run ARGS...: kspec ARGS, status in $got, output in $TMP/out and err.
run() {
  checks=$((checks + 1))
  last="kspec $*"
  "$KSPEC" "$@" >"$TMP/out" 2>"$TMP/err"
  got=$?
}

# What must never be seen, whatever the input.
no_traces() {
  [ "$got" -lt 128 ] || bad "ended by a signal (status $got)"
  for s in "LLVM ERROR" "Assertion" "AddressSanitizer" "LeakSanitizer" \
    "runtime error:" "Stack dump" "PLEASE submit a bug report"; do
    if grep -qF -- "$s" "$TMP/err" "$TMP/out"; then
      bad "output has '$s'"
    fi
  done
}

# A refusal: status want, no stdout, one stderr line "kspec: ..." with
# needle.
refused() {
  want=$1
  needle=$2
  no_traces
  [ "$got" -eq "$want" ] || bad "status $got, want $want"
  [ -s "$TMP/out" ] && bad "printed on stdout"
  [ "$(wc -l <"$TMP/err")" -eq 1 ] || bad "stderr is not one line"
  head -n 1 "$TMP/err" | grep -q '^kspec: ' || bad "stderr lacks 'kspec: '"
  has "$TMP/err" "$needle"
}

# File $1 has every part of needle $2 (parts are separated by " ... ").
has() {
  rest=$2
  while :; do
    part=${rest%% ... *}
    grep -qF -- "$part" "$1" || bad "$(basename "$1") lacks '$part'"
    [ "$part" = "$rest" ] && break
    rest=${rest#* ... }
  done
}

# An edge value that must work: status 0, nothing on stderr, needle on
# stdout.
accepted() {
  no_traces
  [ "$got" -eq 0 ] || bad "status $got, want 0"
  [ -s "$TMP/err" ] && bad "printed on stderr"
  has "$TMP/out" "$1"
}

# ---- cases.txt -----------------------------------------------------------------
cases() {
  n=0
  while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in '' | '#'*) continue ;; esac
    status=$(printf '%s\n' "$line" | sed 's/ *|.*//')
    needle=$(printf '%s\n' "$line" | sed 's/^[^|]*| *//; s/ *|.*//')
    args=$(printf '%s\n' "$line" | sed 's/^[^|]*|[^|]*|//')
    # placeholders, in the arguments and in the needle
    args=$(printf '%s\n' "$args" | sed "s|@C@|$CORPUS|g; s|@T60@|$T60|g; s|@T@|$T|g")
    needle=$(printf '%s\n' "$needle" | sed "s|@C@|$CORPUS|g")
    eval "set -- $args"
    run "$@"
    if [ "$status" -eq 0 ]; then
      accepted "$needle"
    else
      refused "$status" "$needle"
    fi
    n=$((n + 1))
  done <"$CORPUS/cases.txt"
  [ "$n" -ge 100 ] || { echo "FAIL: only $n cases read"; failures=$((failures + 1)); }
}

# ---- bitcode cut short -------------------------------------------------------------
cut_short() {
  len=$(wc -c <"$BC")
  i=0
  while [ $i -le 163 ]; do
    if [ $i -lt 64 ]; then
      at=$i
    else
      at=$((64 + (i - 64) * (len - 65) / 99))
    fi
    f=$(printf '%s/cut_%05d.bc' "$TMP" "$at")
    head -c "$at" "$BC" >"$f"
    run ptx "$f" $T
    if [ "$at" -eq 0 ]; then
      refused 1 "empty"
    else
      refused 1 "parse: cut_"
    fi
    rm -f "$f"
    i=$((i + 1))
  done
}

# ---- bitcode with flipped bits -----------------------------------------------------
# A byte of $1 at offset $2, as a number.
byte_at() {
  od -An -tu1 -j "$2" -N 1 "$1" | tr -d ' '
}

flip() {
  len=$(wc -c <"$BC")
  seed=12345
  refusals=0
  i=0
  while [ $i -lt 100 ]; do
    f=$(printf '%s/flip_%03d.bc' "$TMP" "$i")
    cp "$BC" "$f"
    nbits=$((1 + i % 4))
    b=0
    while [ $b -lt $nbits ]; do
      seed=$(((seed * 1103515245 + 12345) % 2147483648))
      at=$(((seed / 8) % len))
      bit=$((seed % 8))
      v=$(($(byte_at "$f" "$at") ^ (1 << bit)))
      # shellcheck disable=SC2059
      printf "\\$(printf %03o "$v")" |
        dd of="$f" bs=1 seek="$at" conv=notrunc 2>/dev/null
      b=$((b + 1))
    done
    run ptx "$f" $T
    if [ "$got" -eq 0 ]; then
      accepted ".entry"
    else
      refused 1 "kspec: "
      refusals=$((refusals + 1))
    fi
    rm -f "$f"
    i=$((i + 1))
  done
  # flipped bits that all still parse would test nothing
  [ "$refusals" -ge 10 ] ||
    { echo "FAIL: only $refusals of 100 flipped files refused"; failures=$((failures + 1)); }
}

case "$MODE" in
cases) cases ;;
cut) cut_short ;;
flip) flip ;;
*)
  echo "unknown mode '$MODE'"
  exit 2
  ;;
esac
echo "$MODE: $checks commands, $failures failures"
[ "$failures" -eq 0 ]
