#!/bin/sh
# Runs the dialect's sampling functions (kspec_device.h's ks_sample1d/2d/3d,
# software: the tex stage inlines them) on the CPU: tex_kernels.cu built
# by clang, each kernel through kspec's whole pipeline (generic, and with
# the filter and mode bound), the NVPTX IR turned into host IR (sim_lib.sh)
# and built with AddressSanitizer; tex_grid.c checks every sample of every
# filter, boundary mode, element type and dimension against CUDA's texture
# rules.
#
#   tex_sim.sh KSPEC CLANG SRCDIR WORKDIR
# Exit 77 (skipped) where the host compiler cannot build with ASan.
set -e
kspec=$1 clang=$2 src=$3 work=$4
mkdir -p "$work"
cd "$work"

. "$src/sim_lib.sh"
need_asan "$clang"

"$clang" -x cuda --cuda-device-only -nocudainc -nocudalib \
  --cuda-gpu-arch=sm_90 -O3 -Xclang -disable-llvm-passes \
  -fno-discard-value-names -Wno-unknown-cuda-version -Wall -Werror \
  -include "$src/../../templates/kspec_device.h" -emit-llvm \
  -c "$src/tex_kernels.cu" -o tex_kernels.bc

# name, dimension, type, kspec options, block, bound filter and mode (or
# none)
run() {
  name=$1 dim=$2 type=$3 opts=$4
  # shellcheck disable=SC2086
  "$kspec" ir tex_kernels.bc --kernel "s${dim}_$type" $opts \
    --stage regpressure -o "$name.ll"
  if grep -q '@__ks_tex' "$name.ll"; then
    echo "$name: a sampling function was not inlined"
    exit 1
  fi
  host_ir "$name.ll" "$name.h1.ll"
  sed -e "s/@s${dim}_${type}\b/@sampler/g" "$name.h1.ll" >"$name.host.ll"
  "$clang" -O1 -fsanitize=address -Wno-override-module -Wno-pass-failed \
    -c "$name.host.ll" -o "$name.o"
  "$clang" -O1 -fsanitize=address "$src/tex_grid.c" "$name.o" -lm -o "$name"
  shift 4
  ./"$name" "$dim" "$type" "$@"
}

for dim in 1 2 3; do
  for type in f32 f16 u8 s8 u16 s16; do
    run "s${dim}_$type" "$dim" "$type" "" 32
  done
done
run bound_2d_lin_wrap 2 f32 "-D filter=1 -D mode=1" 32 1 1
run bound_3d_norm_mirror 3 u8 "-D filter=3 -D mode=2" 32 3 2
run bound_1d_near_border 1 s16 "-D filter=0 -D mode=3" 32 0 3
run bound_2d_f16_lin_border 2 f16 "-D filter=1 -D mode=3 --block 64" 64 1 3
TEX_SHAPE=2 run bound_3d_sizes 3 f32 "-D w=13 -D h=9 -D d=6 -D pitch=16" 32
