#!/bin/sh
# tests/exports.sh LIBRARY HEADER - the functions the shared library
# exports are exactly the ones the public header declares (KS_API): an
# internal function that loses its `static` or gains the default
# visibility, or a declared function that is not built, fails here.
set -eu
lib=$1
hdr=$2
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
# and nothing else: no exported data, nothing undeclared from LLVM
other=$(nm -D --defined-only "$lib" | awk '$2 !~ /^[TWi]$/ && $3 !~ /^(_edata|_end|__bss_start)$/ { print $3 }')
if [ -n "$other" ]; then
  echo "exports: $lib exports data: $other"
  exit 1
fi
echo "exports: $(wc -l <"$tmp.exported") functions, exactly kspec.h's KS_API ones"
