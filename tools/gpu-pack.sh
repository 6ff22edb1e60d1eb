#!/bin/sh
# tools/gpu-pack.sh - builds kspec with LLVM linked statically and installs
# it, with the GPU tests, benchmarks and libcmocka, into .dev/gpu: a small
# prefix that runs on a GPU machine without LLVM (see tests/gpu/run.sh).
# Where nvcc is found (PATH or /usr/local/cuda), the hand-written CUDA
# baselines (kspec-bench-cuda, CUDA run-time linked statically) come too.
# test_gpu_cubin links the library's internals (LLVM included: ~37 MB
# stripped), so it goes to a prefix of its own, .dev/gpu-cubin, carried in
# a call of its own (KSPEC_GPU_PARTS=cubin): both would not fit in one.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
b="$root/build-static"
p="$root/.dev/gpu"
nvcc=$(command -v nvcc || true)
[ -n "$nvcc" ] || [ ! -x /usr/local/cuda/bin/nvcc ] ||
  nvcc=/usr/local/cuda/bin/nvcc
cuda="-DKSPEC_BENCH_CUDA=OFF"
targets="kspec kspec-tool kspec-bench kspec-latency test_gpu_templates test_gpu_window \
  test_gpu_cubin \
  test_gpu_occupancy test_gpu_cmem test_gpu_local test_gpu_shfl test_gpu_alias \
  test_gpu_byval test_gpu_fused test_gpu_tex \
  test_gpu_globals test_gpu_launch test_gpu_dialect ks_dialect_bitcode \
  test_gpu_corpus ks_corpus_bitcode"
if [ -n "$nvcc" ]; then
  cuda="-DKSPEC_BENCH_CUDA=ON -DCMAKE_CUDA_COMPILER=$nvcc"
  targets="$targets kspec-bench-cuda ks_corpus_cubin ks_dialect_cubin"
else
  echo "gpu-pack: no nvcc, kspec-bench-cuda left out" >&2
fi
# kspec_mpi (and `kspec tune --mpi`) only with KSPEC_GPU_MPI=1: the tool
# then needs the MPI library it was linked with on the GPU machine, which
# tools/mpi-pack.sh copies into .dev/mpi (carry it, `. .dev/mpi/env.sh`).
mpi="-DKSPEC_MPI=${KSPEC_GPU_MPI:-0}"
# shellcheck disable=SC2086
cmake -S "$root" -B "$b" -DKSPEC_LLVM_STATIC=ON -DCMAKE_BUILD_TYPE=Release \
  $cuda $mpi
# shellcheck disable=SC2086
cmake --build "$b" -j "$(nproc)" --target $targets
rm -rf "$p"
cmake --install "$b" --prefix "$p" >/dev/null
mkdir -p "$p/bin"
for t in "$b"/tests/test_gpu_* "$b"/tests/gpu/test_gpu_*; do
  case "$t" in *test_gpu_cubin) continue ;; esac
  [ -x "$t" ] && cp "$t" "$p/bin/"
done
cp "$b/tools/kspec-latency" "$p/bin/" # per-stage compile times, not installed
# The kernel corpus for test_gpu_corpus (tests/gpu/run.sh, part corpus):
# clang-19's bitcode with names, nvcc's cubins, MANIFEST. Without the CUDA
# 12.4 tree (tools/cuda-tree.sh) or nvcc there is nothing to carry.
c="$p/share/kspec/corpus"
mkdir -p "$c"
cp "$root/tests/kernels/MANIFEST" "$c/"
for f in "$b"/tests/kernels/*.bc "$b"/tests/kernels/*.cubin; do
  case "$f" in *.nonames.bc | *"*"*) continue ;; esac
  cp "$f" "$c/"
done
ls "$c"/*.cubin >/dev/null 2>&1 || echo "gpu-pack: no corpus cubins (nvcc, CUDA 12.4 tree?)" >&2
# The dialect's kernels for test_gpu_dialect (tests/dialect, kspec_device.h),
# and nvcc's build of math.cu, its judge of math beyond CUDA's bounds.
mkdir -p "$p/share/kspec/dialect"
cp "$b"/tests/dialect/*.bc "$p/share/kspec/dialect/"
cp "$b"/tests/dialect/math.nvcc.cubin "$p/share/kspec/dialect/" 2>/dev/null ||
  echo "gpu-pack: no math.nvcc.cubin (nvcc?): test_gpu_dialect judges math by the bounds alone" >&2
rm -rf "$root/.dev/gpu-cubin"
mkdir -p "$root/.dev/gpu-cubin/bin"
for t in "$b"/tests/test_gpu_cubin "$b"/tests/gpu/test_gpu_cubin; do
  [ -x "$t" ] && strip -o "$root/.dev/gpu-cubin/bin/test_gpu_cubin" "$t"
done
du -sh "$root/.dev/gpu-cubin"
cp -L "$(ldconfig -p | awk '/libcmocka.so.0 /{print $NF; exit}')" "$p/lib/"
du -sh "$p"
if [ "${KSPEC_GPU_MPI:-0}" = 1 ]; then
  "$root/tools/mpi-pack.sh"
fi
