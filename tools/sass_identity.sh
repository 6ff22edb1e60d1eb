#!/bin/sh
# tools/sass_identity.sh - the machine code ptxas makes of each PTX file in
# a directory (as tools/ptx_identity.sh writes them), one .sass file each,
# for comparing two builds by what runs on the GPU rather than by PTX bytes:
#
#   tools/ptx_identity.sh KSPEC_BINARY PTXDIR
#   tools/sass_identity.sh PTXDIR SASSDIR
#   diff -r SASSDIR_BEFORE SASSDIR_AFTER
#
# Each file is assembled for the target its `.target` line names; the SASS
# is cuobjdump's listing without addresses and encodings, so that two
# listings are the same exactly when ptxas made the same instructions in
# the same order with the same registers. A file ptxas rejects leaves its
# message instead. Needs ptxas and cuobjdump on PATH, or PTXAS and
# CUOBJDUMP in the environment.
set -u
if [ $# -ne 2 ] || [ ! -d "$1" ]; then
  echo "usage: tools/sass_identity.sh PTXDIR SASSDIR" >&2
  exit 2
fi
in=$1
out=$2
ptxas=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
cuobjdump=${CUOBJDUMP:-$(command -v cuobjdump || true)}
for tool in "$ptxas" "$cuobjdump"; do
  if [ ! -x "$tool" ]; then
    echo "sass_identity: ptxas or cuobjdump not found (set PTXAS, CUOBJDUMP)" >&2
    exit 1
  fi
done
mkdir -p "$out"
export ptxas cuobjdump out
# shellcheck disable=SC2016 # the script is sh -c's, expanded there
find "$in" -name '*.ptx' -size +0 | sort | xargs -P "$(nproc)" -I{} sh -c '
  f=$1
  name=$(basename "$f" .ptx)
  sm=$(sed -n "s/^\.target \(sm_[0-9a-z]*\).*/\1/p" "$f" | head -1)
  tmp=$out/.$name.cubin
  if "$ptxas" -arch="$sm" "$f" -o "$tmp" 2>"$out/$name.sass"; then
    "$cuobjdump" -sass "$tmp" |
      sed -n "s@^ *\(/\*[0-9a-f]*\*/\)\? *\([^;]*;\).*@\2@p" >"$out/$name.sass"
  fi
  rm -f "$tmp"' sh {}
find "$out" -name '*.sass' | wc -l
