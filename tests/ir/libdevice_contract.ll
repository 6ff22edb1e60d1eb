; The math stage (passes/math.c) makes libdevice's own f32 and f64
; multiplies, adds and subtracts contractable, as nvcc's default
; -fmad=true has them (ptxas fuses its mul.f32 into the add.f32 that takes
; it): the contract flag clang gives a kernel's own arithmetic, so that
; codegen fuses them alike. The kernel's own arithmetic keeps the flags it
; came with (here none). By then the functions are inlined, but for the
; noinline helper __internal_log2.
;
; RUN: ks_passes_tool --stage math --libdevice %B/libdevice_mini.bc %s | FileCheck %s
; RUN: ks_passes_tool --stage math --fp 8 --libdevice %B/libdevice_mini.bc %s | FileCheck %s --check-prefix=FAST

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; CHECK-LABEL: define void @k(
; CHECK: call float @llvm.nvvm.lg2.approx.f(float %x)
; CHECK-NEXT: fmul contract float %{{.*}}, 0x3FE62E4300000000
; CHECK: call float @__internal_log2(
; CHECK-NEXT: fmul contract float %{{.*}}, %y
; CHECK: fadd contract double %d, 1.000000e+00
; CHECK: %own = fmul float %x, %y
; CHECK-LABEL: define internal float @__internal_log2(
; CHECK: fmul contract float

; FAST-LABEL: define void @k(
; FAST: fmul contract float %x, 0x3FF7154760000000
; FAST: %own = fmul float %x, %y

define void @k(ptr %p, ptr %dp, float %x, float %y, double %d) {
entry:
  %l = call float @__nv_logf(float %x)
  %w = call float @__nv_powf(float %x, float %y)
  %e = call double @__nv_exp(double %d)
  %f = call float @__nv_expf(float %x)
  %own = fmul float %x, %y
  %a = fadd float %l, %w
  %b = fadd float %a, %own
  %c = fadd float %b, %f
  store float %c, ptr %p
  store double %e, ptr %dp
  ret void
}

declare float @__nv_logf(float)
declare float @__nv_powf(float, float)
declare double @__nv_exp(double)
declare float @__nv_expf(float)

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
