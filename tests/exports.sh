#!/bin/sh
# tests/exports.sh LIBRARY HEADER [INTERNAL_ARCHIVE] - the functions the
# shared library exports are exactly the ones the public header declares
# (KS_API): an internal function that loses its `static` or gains the
# default visibility, or a declared function that is not built, fails here.
# With the archive of every object (kspec_internal), also: each internal
# function shared between files has a module prefix of its own (ks_jit_,
# ks_ir_, ks_drv_, ...) that no public function has (ks_cache_, ks_tune_,
# ks_kernel_ ... are the API's), so the two can be told apart by name.
set -eu
lib=$1
hdr=$2
archive=${3:-}
tmp=${TMPDIR:-/tmp}/ks_exports.$$
trap 'rm -f "$tmp".*' EXIT
# defined functions (T, W, i) of the dynamic symbol table; the linker's
# own (_init, _fini) are not the library's
nm -D --defined-only "$lib" | awk '$2 ~ /^[TWi]$/ { print $3 }' |
  grep -v -x -e _init -e _fini | sort >"$tmp.exported"
# every KS_API declaration names its function before the first '('
grep '^KS_API' "$hdr" | sed 's/(.*//; s/.*[ *]//' | sort >"$tmp.declared"
if ! cmp -s "$tmp.exported" "$tmp.declared"; then
  echo "exports: $lib differs from $hdr ('<' exported only, '>' declared only):"
  diff "$tmp.exported" "$tmp.declared" | grep '^[<>]'
  exit 1
fi
# and nothing else: no exported data, nothing undeclared from LLVM. The
# linker's own symbols are not the library's: the bounds of the data
# segment, and under AddressSanitizer the bounds of its globals' metadata
# section (which the linker names __start_/__stop_ and must export).
other=$(nm -D --defined-only "$lib" | awk '$2 !~ /^[TWi]$/ &&
  $3 !~ /^(_edata|_end|__bss_start|__start_asan_globals|__stop_asan_globals)$/ { print $3 }')
if [ -n "$other" ]; then
  echo "exports: $lib exports data: $other"
  exit 1
fi
echo "exports: $(wc -l <"$tmp.exported") functions, exactly kspec.h's KS_API ones"
[ -n "$archive" ] || exit 0
nm -g --defined-only "$archive" 2>/dev/null | awk '$2 ~ /^[TW]$/ { print $3 }' |
  sort -u | comm -23 - "$tmp.declared" >"$tmp.internal"
sed 's/^\(ks_[a-z0-9]*_\).*/\1/' "$tmp.declared" | sort -u >"$tmp.prefixes"
bad=$(while read -r f; do
    p=$(echo "$f" | sed -n 's/^\(ks_[a-z0-9]*_\).*/\1/p')
    if [ -z "$p" ] || grep -q -x "$p" "$tmp.prefixes"; then echo "$f"; fi
  done <"$tmp.internal")
if [ -n "$bad" ]; then
  echo "exports: internal functions without a prefix of their own (one no" \
    "public function has):"
  echo "$bad"
  exit 1
fi
echo "exports: $(wc -l <"$tmp.internal") internal functions, each with a module prefix"
