#!/bin/sh
# tools/cuda-tree.sh - lays out a CUDA 12.4 tree for clang-19 from NVIDIA's
# PyPI wheels, for the kernel corpus (tests/kernels; tools/setup.sh runs it).
#
#   tools/cuda-tree.sh DIR      (DIR: usually .dev/cuda-12.4)
#
# Why 12.4 and why pinned: clang 19 cannot parse CUDA 13's headers
# (texture_fetch_functions.h is gone, and it knows CUDA up to 12.5 only);
# the corpus's bitcode, and with it every expected result, must not change
# when NVIDIA publishes a newer wheel; and the hashes make a damaged or
# substituted download fail here rather than as odd compiler errors.
#
# What clang's CUDA detection wants of --cuda-path=DIR (clang 19,
# CudaInstallationDetector): DIR/bin and DIR/include exist,
# DIR/nvvm/libdevice/libdevice.10.bc, and the version from
# DIR/include/cuda.h's CUDA_VERSION. Only the headers and libdevice are
# kept (the wheels' ptxas and libnvvm are not needed: codegen is LLVM's).
#
# Idempotent: an existing tree of the same pins is left alone. Exits 1 with
# one line on stderr when the wheels cannot be had (offline): the caller
# goes on without the tree.
set -eu
dir=${1:?usage: cuda-tree.sh DIR}
pins="nvidia-cuda-runtime-cu12==12.4.127 nvidia-cuda-nvcc-cu12==12.4.131 \
nvidia-cuda-cccl-cu12==12.4.127"
if [ -f "$dir/version.txt" ] && [ "$(sed -n 2p "$dir/version.txt")" = "$pins" ]; then
  exit 0
fi
py=$(command -v python3 || true)
if [ -z "$py" ] || ! "$py" -m pip --version >/dev/null 2>&1; then
  echo "cuda-tree: python3 with pip is needed to fetch the CUDA 12.4 wheels" >&2
  exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kspec-cuda.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# The wheels are pure data (py3-none); x86_64's are named whatever the host.
cat >"$tmp/req.txt" <<'EOF'
nvidia-cuda-runtime-cu12==12.4.127 --hash=sha256:64403288fa2136ee8e467cdc9c9427e0434110899d07c779f25b5c068934faa5
nvidia-cuda-nvcc-cu12==12.4.131 --hash=sha256:e4c9a35435c3b0e36c6397c5696334c9ea6650e524736cbd1c5d345ea099bb04
nvidia-cuda-cccl-cu12==12.4.127 --hash=sha256:8f3b3ec42b90f013adfbbac16677fbf479cf6e8d0e8c3cbde7af67b0da79589a
EOF
if ! "$py" -m pip download --quiet --retries 1 --timeout 20 --no-deps --only-binary=:all: \
  --platform manylinux2014_x86_64 --require-hashes -r "$tmp/req.txt" \
  -d "$tmp/whl" >"$tmp/pip.log" 2>&1; then
  echo "cuda-tree: could not download the CUDA 12.4 wheels (offline?): $(tail -1 "$tmp/pip.log")" >&2
  exit 1
fi
for w in "$tmp"/whl/*.whl; do
  "$py" -m zipfile -e "$w" "$tmp/x"
done
t="$tmp/tree"
mkdir -p "$t/bin" "$t/include" "$t/nvvm"
for part in cuda_runtime cuda_nvcc cuda_cccl; do
  cp -R "$tmp/x/nvidia/$part/include/." "$t/include/"
done
rm -f "$t/include/__init__.py"
cp -R "$tmp/x/nvidia/cuda_nvcc/nvvm/libdevice" "$t/nvvm/"
grep -q "define CUDA_VERSION 12040" "$t/include/cuda.h" || {
  echo "cuda-tree: the wheels' cuda.h is not CUDA 12.4" >&2
  exit 1
}
printf 'CUDA Version 12.4 (from PyPI wheels)\n%s\n' "$pins" >"$t/version.txt"
rm -rf "$dir"
mkdir -p "$(dirname "$dir")"
mv "$t" "$dir"
echo "cuda-tree: CUDA 12.4 headers and libdevice in $dir" >&2
