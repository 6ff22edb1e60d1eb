#!/bin/sh
# tests/tex_test.sh - hardware textures (the tex stage with --tex) from the
# kspec tool to ptxas:
#
#   tex_test.sh KSPEC CLANG DEVICE_H SIM_DIR DATA_DIR
#
# resize and resize3d (nearest and linear) and the sampling kernels of
# sim/tex_kernels.cu (1-D, 2-D and 3-D, every element type, each address
# mode) with --tex: the PTX fetches with tex.2d or tex.3d (integers read
# as such with .s32/.u32, normalized and float with .f32), takes the
# texture object as
# its last parameter, keeps the software path beside it, and ptxas
# ($KSPEC_PTXAS, else ptxas on PATH, else /usr/local/cuda/bin/ptxas; left
# out when there is none or KSPEC_PTXAS=none) takes it for sm_80 and
# sm_90; without --tex the PTX has no tex. Then each refusal: one line on
# stderr naming the argument and why, status 1 (2 for bad usage).
set -u
kspec=$1 clang=$2 deviceh=$3 sim=$4 data=$5
out=${TMPDIR:-/tmp}/ks_tex_test.$$
mkdir -p "$out"
trap 'rm -rf "$out"' EXIT
export KSPEC_CACHE=off
ptxas=${KSPEC_PTXAS:-}
if [ -z "$ptxas" ]; then
  ptxas=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
fi
[ "$ptxas" = none ] || [ -x "$ptxas" ] || ptxas=none
bad=0
fail() {
  echo "FAIL: $*"
  bad=$((bad + 1))
}
count() { grep -Ec -- "$2" "$1" || true; }
build() { # SRC OUT
  "$clang" -x cuda --cuda-device-only -nocudainc -nocudalib \
    --cuda-gpu-arch=sm_90 -O3 -Xclang -disable-llvm-passes \
    -fno-discard-value-names -Wno-unknown-cuda-version -include "$deviceh" \
    -emit-llvm -c "$1" -o "$2" || fail "clang $1"
}
build "$sim/tex_kernels.cu" "$out/tk.bc"
build "$data/tex_refuse.cu" "$out/refuse.bc"

# hw NAME FETCH ARGS...: --tex gives FETCH (a regex) in the PTX
hw() {
  name=$1 fetch=$2
  shift 2
  for arch in sm_80 sm_90; do
    "$kspec" ptx "$@" --arch $arch -o "$out/$name.$arch.ptx" \
      2>"$out/$name.err" || fail "$name: ptx: $(cat "$out/$name.err")"
    [ "$(count "$out/$name.$arch.ptx" "$fetch")" -ge 1 ] ||
      fail "$name $arch: no $fetch"
    grep -q "pass a texture object (u64)" "$out/$name.err" ||
      fail "$name: no launch note"
    if [ "$ptxas" != none ]; then
      "$ptxas" -arch=$arch "$out/$name.$arch.ptx" -o "$out/$name.cubin" \
        >"$out/$name.ptxas" 2>&1 ||
        fail "$name $arch: ptxas: $(cat "$out/$name.ptxas")"
    fi
  done
  echo "ok: $name"
}
# refuse WANT_STATUS MESSAGE ARGS...
refuse() {
  want=$1 msg=$2
  shift 2
  "$kspec" ptx "$@" -o "$out/r.ptx" >/dev/null 2>"$out/r.err"
  rc=$?
  [ "$rc" -eq "$want" ] || fail "$*: status $rc, want $want"
  [ "$(wc -l <"$out/r.err")" -eq 1 ] || fail "$*: not one line: $(cat "$out/r.err")"
  grep -qF -- "$msg" "$out/r.err" || fail "$*: $(cat "$out/r.err"), want $msg"
  echo "ok: refused $*"
}
f32='tex\.2d\.v4\.f32\.f32'
hw resize_linear "$f32" resize -D FILTER=1 --tex src
hw resize_nearest "$f32" resize -D FILTER=0 -D FACTOR=3 \
  --block 32,8 --tex src
hw resize_generic_sizes "$f32" resize -D FILTER=1 \
  --block 16,16 --tex src
for t in f32 f16 u8 s8 u16 s16; do
  for m in 0 1 2 3; do
    hw "s2_${t}_near_$m" "$f32|tex\.2d\.v4\.[su]32\.f32" "$out/tk.bc" \
      --kernel "s2_$t" -D filter=0 -D mode=$m --tex img
  done
  lin=3 # linear, integers read as normalized floats
  case $t in f32 | f16) lin=1 ;; esac
  hw "s1_${t}_lin" "$f32" "$out/tk.bc" --kernel "s1_$t" -D filter=$lin \
    -D mode=2 --tex img
done
# 3-D: over a CUDA array, every type and mode, linear where it filters
f3='tex\.3d\.v4\.f32\.f32'
hw resize3d_linear "$f3" resize3d -D FILTER=1 --tex src
hw resize3d_nearest "$f3" resize3d -D FILTER=0 -D FACTOR=4 --block 32,4 \
  --tex src
for t in f32 f16 u8 s8 u16 s16; do
  for m in 0 1 2 3; do
    hw "s3_${t}_near_$m" "$f3|tex\.3d\.v4\.[su]32\.f32" "$out/tk.bc" \
      --kernel "s3_$t" -D filter=0 -D mode=$m --tex img
  done
  case $t in
  f32 | f16) hw "s3_${t}_lin" "$f3" "$out/tk.bc" --kernel "s3_$t" \
    -D filter=1 -D mode=1 --tex img ;;
  *) hw "s3_${t}_lin" "$f3" "$out/tk.bc" --kernel "s3_$t" -D filter=3 \
    -D mode=2 --tex img ;;
  esac
done
grep -q "(3-D: over a CUDA array into which each launch first copies" \
  "$out/s3_f32_lin.err" || fail "3-D launch note: $(cat "$out/s3_f32_lin.err")"
hw s2_u8_raw 'tex\.2d\.v4\.u32\.f32' "$out/tk.bc" --kernel s2_u8 \
  -D filter=0 -D mode=0 --tex img
hw s2_s16_raw 'tex\.2d\.v4\.s32\.f32' "$out/tk.bc" --kernel s2_s16 \
  -D filter=0 -D mode=3 --tex img

# without --tex: software only
"$kspec" ptx resize -D FILTER=1 -o "$out/sw.ptx" 2>/dev/null
[ "$(count "$out/sw.ptx" 'tex\.')" -eq 0 ] || fail "software PTX has tex"
"$kspec" explain resize -D FILTER=1 --tex src \
  >"$out/explain" 2>&1
grep -q "^tex: src: 1 sampling by hardware texture fetch (2D f32, linear, \
clamp), the texture object hidden argument 6" "$out/explain" ||
  fail "explain: $(grep '^tex' "$out/explain")"
"$kspec" explain resize3d -D FILTER=0 --tex src >"$out/explain3" 2>&1
grep -q "^tex: src: 1 sampling by hardware texture fetch (3D f32, nearest, \
clamp), the texture object hidden argument 6; software where a launch makes \
none; over a CUDA 3-D array into which each launch first copies the whole \
array (w \* h \* d texels)" "$out/explain3" ||
  fail "explain 3-D: $(grep '^tex' "$out/explain3")"

refuse 1 "--tex img: the kernel writes it" "$out/refuse.bc" --kernel writes \
  --tex img
refuse 1 "--tex img: the kernel reads it other than through the sampling" \
  "$out/refuse.bc" --kernel direct --tex img
refuse 1 "--tex img: no sampling function (ks_sample1d/2d/3d) reads it" \
  "$out/refuse.bc" --kernel unsampled --tex img
refuse 1 "--tex img: it is sampled with different sizes, filters" \
  "$out/refuse.bc" --kernel two_filters --tex img
refuse 1 "--tex img: its sizes must be kernel arguments or constants" \
  "$out/refuse.bc" --kernel computed_pitch --tex img
refuse 1 "--tex src: its filter or boundary mode is not known" resize \
  --tex src
refuse 1 "--tex img: a format the hardware cannot sample: linear filtering \
of integers read as their values" "$out/tk.bc" --kernel s2_u8 -D filter=1 \
  -D mode=0 --tex img
refuse 1 "tex: resize: kernel 'resize' has no argument 'source'" resize \
  --tex source
refuse 1 "tex: resize: argument 'n' is not a buffer" resize \
  --tex n
refuse 1 "tex: resize: resize: --tex dst: the kernel writes it" resize \
  -D FILTER=1 --tex dst
refuse 2 "expected one TEMPLATE" resize --tex
[ "$bad" -eq 0 ] || exit 1
echo "all passed"
