; The math stage (passes/math.c) answers libdevice's __nvvm_reflect
; queries for the request and applies its floating-point modes (--fp:
; kspec.h's KS_FP_* bits) to the kernel's own arithmetic: by default
; __CUDA_ARCH is the sm times ten, no flush to zero, IEEE division and
; square root; FTZ (1) flushes (the functions' f32 denormal mode, and
; libdevice's ftz paths); APPROX_DIV (2) makes f32 division div.approx,
; full range (divisors over 2^126 scaled by 1/4 first) and answers
; __CUDA_PREC_DIV 0; APPROX_SQRT (4) makes sqrtf sqrt.approx and answers
; __CUDA_PREC_SQRT 0; FAST_MATH (8) does all three, division without the
; scaling, and calls libdevice's fast forms.
;
; RUN: ks_passes_tool --stage math --cpu sm_80 --libdevice %B/libdevice_mini.bc %s | FileCheck %s --check-prefix=DEF
; RUN: ks_passes_tool --stage math --fp 1 --libdevice %B/libdevice_mini.bc %s | FileCheck %s --check-prefix=FTZ
; RUN: ks_passes_tool --stage math --fp 6 --libdevice %B/libdevice_mini.bc %s | FileCheck %s --check-prefix=PREC
; RUN: ks_passes_tool --stage math --fp 8 --libdevice %B/libdevice_mini.bc %s | FileCheck %s --check-prefix=FAST

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; DEF: explain: math: __nvvm_reflect answered: __CUDA_FTZ=0 __CUDA_PREC_DIV=1 __CUDA_PREC_SQRT=1
; DEF-LABEL: define void @k(
; DEF: call float @llvm.nvvm.sqrt.rn.f(
; DEF: call float @llvm.nvvm.ex2.approx.f(
; DEF: fdiv float
; DEF: call float @llvm.sqrt.f32(
; DEF: store i32 800,
; DEF: store i32 1,
; DEF-NOT: denormal-fp-math-f32

; FTZ: explain: math: floating point: f32 denormals flushed to zero
; FTZ: explain: math: __nvvm_reflect answered: __CUDA_FTZ=1 __CUDA_PREC_DIV=1 __CUDA_PREC_SQRT=1
; FTZ-LABEL: define void @k(
; FTZ: call float @llvm.nvvm.ex2.approx.ftz.f(
; FTZ: fdiv float
; FTZ: "denormal-fp-math-f32"="preserve-sign,preserve-sign"

; PREC: explain: math: __nvvm_reflect answered: __CUDA_FTZ=0 __CUDA_PREC_DIV=0 __CUDA_PREC_SQRT=0
; PREC-LABEL: define void @k(
; PREC: call float @llvm.nvvm.sqrt.approx.f(
; PREC: %[[A:[0-9]+]] = call float @llvm.fabs.f32(float %y)
; PREC: fcmp ogt float %[[A]], 0x47D0000000000000
; PREC: call float @llvm.nvvm.div.approx.f(
; PREC-NOT: fdiv float
; PREC: call float @llvm.nvvm.sqrt.approx.f(float %x)
; PREC: store i32 0,

; FAST: explain: math: floating point: fast math (libdevice{{.*}}), f32 denormals flushed to zero, approximate f32 division, approximate sqrtf
; FAST-LABEL: define void @k(
; FAST: call float @llvm.nvvm.sqrt.approx.f(
; FAST: fmul contract float %x, 0x3FF7154760000000
; FAST-NOT: fcmp ogt
; FAST: call float @llvm.nvvm.div.approx.ftz.f(float %x, float %y)
; FAST: call float @llvm.nvvm.sqrt.approx.ftz.f(float %x)

define void @k(ptr %p, ptr %ip, float %x, float %y) {
entry:
  %s = call float @__nv_sqrtf(float %x)
  %e = call float @__nv_expf(float %x)
  %a = call i32 @__nv_arch()
  %d = call i32 @__nv_precdiv()
  %q = fdiv float %x, %y
  %r = call float @llvm.sqrt.f32(float %x)
  %t = fadd float %s, %e
  %u = fadd float %t, %q
  %v = fadd float %u, %r
  store float %v, ptr %p
  store i32 %a, ptr %ip
  store i32 %d, ptr %ip
  ret void
}

declare float @__nv_sqrtf(float)
declare float @__nv_expf(float)
declare i32 @__nv_arch()
declare i32 @__nv_precdiv()
declare float @llvm.sqrt.f32(float)

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
