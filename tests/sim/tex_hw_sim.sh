#!/bin/sh
# Runs kernels that --tex img made (passes/tex.c: the hidden texture object,
# the hardware fetch beside the software sampling) on the CPU: as
# tex_sim.sh, but with the filter and mode bound and --tex img, the NVVM
# fetches (2-D, and 3-D over the array ks_launch copies) renamed to
# tex_hw.ll's stand-ins, and tex_grid.c built with
# TEX_HW, which answers each fetch as the hardware samples (normalized
# coordinates for wrap and mirror, integers read as such) and runs every
# check with a texture object (every sample fetched) and with 0 (software,
# no fetch). What the kernel computes around the fetch (the coordinates,
# the conversion of what it returns, the choice of path) is what it checks.
#
#   tex_hw_sim.sh KSPEC CLANG SRCDIR WORKDIR
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
"$clang" -O1 -Wno-override-module -c "$src/tex_hw.ll" -o tex_hw.o

# dimension, type, filter, mode
run() {
  dim=$1 type=$2 filter=$3 mode=$4
  name="hw${dim}_${type}_${filter}_$mode"
  "$kspec" ir tex_kernels.bc --kernel "s${dim}_$type" -D filter="$filter" \
    -D mode="$mode" --tex img --stage regpressure -o "$name.ll"
  want=2d
  [ "$dim" = 3 ] && want=3d
  grep -q "@llvm\.nvvm\.tex\.unified\.$want" "$name.ll" ||
    { echo "$name: no $want texture fetch"; exit 1; }
  host_ir "$name.ll" "$name.h1.ll"
  sed -e "s/@s${dim}_${type}\b/@sampler/g" \
    -e 's/@llvm\.nvvm\.tex\.unified\.2d\.\(v4[a-z0-9]*\)\.f32/@sim_tex_\1/g' \
    -e 's/@llvm\.nvvm\.tex\.unified\.3d\.\(v4[a-z0-9]*\)\.f32/@sim_tex3_\1/g' \
    "$name.h1.ll" >"$name.host.ll"
  "$clang" -O1 -fsanitize=address -Wno-override-module -Wno-pass-failed \
    -c "$name.host.ll" -o "$name.o"
  "$clang" -O1 -fsanitize=address -DTEX_HW "$src/tex_grid.c" "$name.o" \
    tex_hw.o -lm -o "$name"
  ./"$name" "$dim" "$type" 32 "$filter" "$mode"
}

for mode in 0 1 2 3; do
  run 2 f32 1 "$mode" # bilinear, every mode
  run 2 u8 0 "$mode"  # integers read as such
done
run 2 f16 0 1
run 2 s8 3 2  # normalized, linear, mirror
run 2 u16 2 3 # normalized, nearest, border
run 1 f32 1 1 # one row, linear, wrap
run 1 f16 1 0 # one row, linear, clamp
run 1 s16 0 3
run 1 u8 3 2
for mode in 0 1 2 3; do
  run 3 f32 1 "$mode" # trilinear, every mode (over a CUDA array)
  run 3 u16 0 "$mode" # integers read as such
done
run 3 f16 1 2
run 3 s8 3 1  # normalized, linear, wrap
run 3 u8 2 3  # normalized, nearest, border
run 3 s16 0 0
