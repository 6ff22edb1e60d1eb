; The libdevice stage (passes/libdevice.c) with a stand-in library
; (tests/data/libdevice_mini.ll): math intrinsics become calls of their
; libdevice functions (a half through float; a float call marked afn the
; fast form), the functions called are linked with what they call (an
; internal helper and its table) and their fast forms, all internal and
; still out of line; nothing else of the library comes along. The math
; stage then answers the reflect queries and inlines them: at the end
; only the noinline helper is left.
;
; RUN: ks_passes_tool --stage libdevice --libdevice %B/libdevice_mini.bc %s | FileCheck %s --check-prefix=LINK
; RUN: ks_passes_tool --stage math --libdevice %B/libdevice_mini.bc %s | FileCheck %s --check-prefix=MATH
; RUN: ks_passes_tool --stage all --libdevice %B/libdevice_mini.bc %s | FileCheck %s --check-prefix=ALL

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; LINK: @__cudart_table = internal addrspace(1) constant
; LINK-LABEL: define void @k(
; LINK: call float @__nv_expf(float %v)
; LINK: %[[W:[0-9a-z.]+]] = fpext half %h to float
; LINK: %[[L:[0-9a-z.]+]] = call float @__nv_logf(float %[[W]])
; LINK: fptrunc float %[[L]] to half
; LINK: call float @__nv_fast_sinf(float %v)
; LINK: call float @__nv_powf(float %v, float %v)
; LINK: call double @__nv_exp(double %d)
; LINK-DAG: define internal float @__nv_expf(
; LINK-DAG: define internal float @__nv_fast_expf(
; LINK-DAG: define internal float @__nv_logf(
; LINK-DAG: define internal float @__nv_powf(
; LINK-DAG: define internal float @__internal_log2(
; LINK-DAG: !kspec.libdevice = !{
; LINK-NOT: __nv_unused
; LINK-NOT: declare float @llvm.exp.f32
; LINK-NOT: declare half @llvm.log.f16

; MATH: explain: math: libdevice functions linked: __nv_powf, __nv_expf (for llvm.exp.f32), __nv_logf (for llvm.log.f16), __nv_fast_sinf (for llvm.sin.f32), __nv_exp (for llvm.exp.f64); from {{.*}}libdevice_mini.bc
; MATH-LABEL: define void @k(
; MATH-NOT: call float @__nv_
; MATH: call float @llvm.nvvm.ex2.approx.f(float %v)
; MATH: call float @__internal_log2(
; MATH-NOT: define internal float @__nv_
; MATH: define internal float @__internal_log2(

; ALL-LABEL: define void @k(
; ALL-NOT: __nvvm_reflect
; ALL: ex2.approx.f(
; ALL-NOT: ex2.approx.ftz

define void @k(ptr %p, ptr %q, ptr %pd) {
entry:
  %v = load float, ptr %p
  %h = load half, ptr %q
  %d = load double, ptr %pd
  %e = call float @llvm.exp.f32(float %v)
  %l = call half @llvm.log.f16(half %h)
  %s = call afn float @llvm.sin.f32(float %v)
  %w = call float @__nv_powf(float %v, float %v)
  %x = call double @llvm.exp.f64(double %d)
  %a = fadd float %e, %s
  %b = fadd float %a, %w
  store float %b, ptr %p
  store half %l, ptr %q
  store double %x, ptr %pd
  ret void
}

declare float @llvm.exp.f32(float)
declare half @llvm.log.f16(half)
declare float @llvm.sin.f32(float)
declare double @llvm.exp.f64(double)
declare float @__nv_powf(float, float)

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
