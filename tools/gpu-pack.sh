#!/bin/sh
# tools/gpu-pack.sh - builds kspec with LLVM linked statically and installs
# it, with the GPU tests, benchmarks and libcmocka, into .dev/gpu: a small
# prefix that runs on a GPU machine without LLVM (see tests/gpu/run.sh).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
b="$root/build-static"
p="$root/.dev/gpu"
cmake -S "$root" -B "$b" -DKSPEC_LLVM_STATIC=ON -DCMAKE_BUILD_TYPE=Release
cmake --build "$b" -j "$(nproc)" --target kspec kspec-tool kspec-bench \
  test_gpu_templates test_gpu_window
rm -rf "$p"
cmake --install "$b" --prefix "$p" >/dev/null
mkdir -p "$p/bin"
for t in "$b"/tests/test_gpu_* "$b"/tests/gpu/test_gpu_*; do
  [ -x "$t" ] && cp "$t" "$p/bin/"
done
cp -L "$(ldconfig -p | awk '/libcmocka.so.0 /{print $NF; exit}')" "$p/lib/"
du -sh "$p"
