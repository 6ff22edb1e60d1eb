; const_promote, baking: loads of a baked buffer at constant indices become
; the baked values; an index outside the bake, a varying index or a value
; the load's type cannot hold keep the load; a buffer the kernel writes, or
; loads of two types, decline the bake.
;
; RUN: ks_passes_tool --stage const_promote --bake 1=0.1,0.2,0.4,0.2,0.1 %s | FileCheck %s
; RUN: ks_passes_tool --stage const_promote --no-pass const_promote --bake 1=0.1,0.2,0.4,0.2,0.1 %s | FileCheck %s --check-prefix=OFF
; RUN: ks_passes_tool --stage all --bake 1=0.1,0.2,0.4,0.2,0.1 %s | FileCheck %s --check-prefix=ALL
; RUN: ks_passes_tool --kernel range --stage const_promote --bake 1=1,2,3 %s | FileCheck %s --check-prefix=RANGE
; RUN: ks_passes_tool --kernel ints --stage const_promote --bake 0=7,-3,2.5 %s | FileCheck %s --check-prefix=INTS
; RUN: ks_passes_tool --kernel written --stage const_promote --bake 0=1,2 %s | FileCheck %s --check-prefix=WRITTEN
; RUN: ks_passes_tool --kernel punned --stage const_promote --bake 0=1,2 %s | FileCheck %s --check-prefix=PUNNED
; RUN: ks_passes_tool --kernel k --stage const_promote --expect-fail --bake 3=1 %s | FileCheck %s --check-prefix=NOTPTR

target triple = "nvptx64-nvidia-cuda"

; CHECK: ; explain: const_promote: f: 5 loads baked to float constants (5 values)
; CHECK-LABEL: define void @k(
; CHECK-NOT: load float, ptr %f
; CHECK-NOT: getelementptr{{.*}}%f
; CHECK: fmul contract float %x0, 0x3FB99999A0000000
; CHECK: fmul contract float %x1, 0x3FC99999A0000000
; CHECK: fmul contract float %x2, 0x3FD99999A0000000
; CHECK: fmul contract float %x3, 0x3FC99999A0000000
; CHECK: fmul contract float %x4, 0x3FB99999A0000000
; CHECK: ret void

; OFF: ; explain: const_promote: switched off
; OFF-COUNT-5: load float, ptr %{{f|pf}}

; The whole pipeline: the taps are immediates in the arithmetic.
; ALL-LABEL: define void @k(
; ALL-SAME: ptr nocapture readnone %f
; ALL-NOT: load float, ptr %f
; ALL: fmul contract float %x4, 0x3FB99999A0000000
; ALL: ret void

define void @k(ptr %x, ptr %f, ptr %y, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t = sext i32 %tid to i64
  %px0 = getelementptr inbounds float, ptr %x, i64 %t
  %x0 = load float, ptr %px0, align 4
  %f0 = load float, ptr %f, align 4
  %m0 = fmul contract float %x0, %f0
  %px1 = getelementptr inbounds float, ptr %px0, i64 1
  %x1 = load float, ptr %px1, align 4
  %pf1 = getelementptr inbounds float, ptr %f, i64 1
  %f1 = load float, ptr %pf1, align 4
  %m1 = fmul contract float %x1, %f1
  %px2 = getelementptr inbounds float, ptr %px0, i64 2
  %x2 = load float, ptr %px2, align 4
  %pf2 = getelementptr inbounds i8, ptr %f, i64 8
  %f2 = load float, ptr %pf2, align 4
  %m2 = fmul contract float %x2, %f2
  %px3 = getelementptr inbounds float, ptr %px0, i64 3
  %x3 = load float, ptr %px3, align 4
  %pf3 = getelementptr inbounds [8 x float], ptr %f, i64 0, i64 3
  %f3 = load float, ptr %pf3, align 4
  %m3 = fmul contract float %x3, %f3
  %px4 = getelementptr inbounds float, ptr %px0, i64 4
  %x4 = load float, ptr %px4, align 4
  %pf2b = getelementptr inbounds float, ptr %f, i64 2
  %pf4 = getelementptr inbounds float, ptr %pf2b, i64 2
  %f4 = load float, ptr %pf4, align 4
  %m4 = fmul contract float %x4, %f4
  %s1 = fadd contract float %m0, %m1
  %s2 = fadd contract float %s1, %m2
  %s3 = fadd contract float %s2, %m3
  %s4 = fadd contract float %s3, %m4
  %py = getelementptr inbounds float, ptr %y, i64 %t
  store float %s4, ptr %py, align 4
  ret void
}

; RANGE: ; explain: const_promote: f: 2 loads baked to float constants (3 values)
; RANGE: ; explain: const_promote: f: 1 loads kept: index not constant
; RANGE: ; explain: const_promote: f: 2 loads kept: index outside the 3 baked values
; RANGE-LABEL: define void @range(
; RANGE-NOT: %f0 = load
; RANGE: %pf3 = getelementptr inbounds i8, ptr %f, i64 12
; RANGE: %f3 = load float, ptr %pf3
; RANGE: %pfm = getelementptr inbounds i8, ptr %f, i64 -4
; RANGE: %fm = load float, ptr %pfm
; RANGE: %fv = load float, ptr %pfv
; RANGE: %a = fadd float 1.000000e+00, 3.000000e+00
define void @range(ptr %y, ptr %f, i64 %i) {
  %f0 = load float, ptr %f, align 4
  %pf2 = getelementptr inbounds float, ptr %f, i64 2
  %f2 = load float, ptr %pf2, align 4
  %pf3 = getelementptr inbounds float, ptr %f, i64 3
  %f3 = load float, ptr %pf3, align 4
  %pfm = getelementptr inbounds float, ptr %f, i64 -1
  %fm = load float, ptr %pfm, align 4
  %pfv = getelementptr inbounds float, ptr %f, i64 %i
  %fv = load float, ptr %pfv, align 4
  %a = fadd float %f0, %f2
  %b = fadd float %a, %f3
  %c = fadd float %b, %fm
  %d = fadd float %c, %fv
  store float %d, ptr %y, align 4
  ret void
}

; 2.5 is no i32: that load stays; -3 is baked as a signed value.
; INTS: ; explain: const_promote: c: 2 loads baked to i32 constants (3 values)
; INTS: ; explain: const_promote: c: 1 loads kept: baked value not a i32
; INTS-LABEL: define void @ints(
; INTS-NOT: %c0 = load
; INTS-NOT: %c1 = load
; INTS: %c2 = load i32
; INTS: %a = add i32 7, -3
define void @ints(ptr %c, ptr %y) {
  %c0 = load i32, ptr %c, align 4
  %pc1 = getelementptr inbounds i32, ptr %c, i64 1
  %c1 = load i32, ptr %pc1, align 4
  %pc2 = getelementptr inbounds i32, ptr %c, i64 2
  %c2 = load i32, ptr %pc2, align 4
  %a = add i32 %c0, %c1
  %b = add i32 %a, %c2
  store i32 %b, ptr %y, align 4
  ret void
}

; WRITTEN: ; explain: const_promote: declined bake of f: it is stored to
; WRITTEN: ; explain: const_promote: f: not read-only: it is stored to
; WRITTEN-LABEL: define void @written(
; WRITTEN: %a = load float, ptr %f, align 4{{$}}
define void @written(ptr %f) {
  %a = load float, ptr %f, align 4
  %p1 = getelementptr inbounds float, ptr %f, i64 1
  store float 2.0, ptr %p1, align 4
  %b = load float, ptr %p1, align 4
  %s = fadd float %a, %b
  store float %s, ptr %f, align 4
  ret void
}

; PUNNED: ; explain: const_promote: declined bake of f: it is loaded with more than one type
; PUNNED-LABEL: define void @punned(
; PUNNED: load float, ptr %f
; PUNNED: load i32, ptr %p1
define void @punned(ptr %f, ptr %y) {
  %a = load float, ptr %f, align 4
  %p1 = getelementptr inbounds i32, ptr %f, i64 1
  %b = load i32, ptr %p1, align 4
  %c = add i32 %b, 1
  %d = sitofp i32 %c to float
  %e = fadd float %a, %d
  store float %e, ptr %y, align 4
  ret void
}

; NOTPTR: error: KS_EPARAM: const_promote: bake: argument 3 of 'k' is not a pointer

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

!nvvm.annotations = !{!0, !1, !2, !3, !4}
!0 = !{ptr @k, !"kernel", i32 1}
!1 = !{ptr @range, !"kernel", i32 1}
!2 = !{ptr @ints, !"kernel", i32 1}
!3 = !{ptr @written, !"kernel", i32 1}
!4 = !{ptr @punned, !"kernel", i32 1}
