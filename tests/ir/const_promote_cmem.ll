; const_promote, constant memory: a read-only pointer argument read at
; four or more offsets known after binding (filter taps) is read from a
; .const copy, ks_cmem_<argument>, that ks_launch fills before each launch;
; only loads marked !invariant.load (no write of the kernel before them)
; move. Declined: fewer than four such loads, offsets past 4096 bytes, a
; buffer the kernel writes, loads a write can precede, a negative offset.
;
; RUN: ks_passes_tool --kernel taps --stage const_promote %s | FileCheck %s --check-prefix=TAPS
; RUN: ks_passes_tool --kernel taps --stage all %s | FileCheck %s --check-prefix=TAPSALL
; RUN: ks_passes_tool --kernel taps --stage const_promote --no-pass const_promote %s | FileCheck %s --check-prefix=OFF
; RUN: ks_passes_tool --kernel few --stage const_promote %s | FileCheck %s --check-prefix=FEW
; RUN: ks_passes_tool --kernel far --stage const_promote %s | FileCheck %s --check-prefix=FAR
; RUN: ks_passes_tool --kernel written --stage const_promote %s | FileCheck %s --check-prefix=WRITTEN
; RUN: ks_passes_tool --kernel after --stage const_promote %s | FileCheck %s --check-prefix=AFTER
; RUN: ks_passes_tool --kernel below --stage const_promote %s | FileCheck %s --check-prefix=BELOW
; RUN: ks_passes_tool --kernel byval --stage const_promote %s | FileCheck %s --check-prefix=BYVAL

target triple = "nvptx64-nvidia-cuda"

; TAPS: ; explain: const_promote: f: 5 loads read constant memory (ks_cmem_1, 20 bytes copied from f before each launch)
; TAPS: @ks_cmem_1 = addrspace(4) externally_initialized global [20 x i8] zeroinitializer, align 16
; TAPS-LABEL: define void @taps(
; TAPS: %a = load float, ptr %px, align 4, !invariant.load
; TAPS: load float, ptr addrspace(4) @ks_cmem_1, align 4, !invariant.load
; TAPS: load float, ptr addrspace(4) getelementptr inbounds (i8, ptr addrspace(4) @ks_cmem_1, i64 16), align 4, !invariant.load
; TAPS-NOT: load float, ptr %f
; TAPS-NOT: getelementptr {{.*}} %f,
; TAPS: ret void

; After the whole pipeline, the copy is still what the taps read.
; TAPSALL: @ks_cmem_1 = addrspace(4) externally_initialized global [20 x i8] zeroinitializer, align 16
; TAPSALL-LABEL: define void @taps(
; TAPSALL-NOT: ptr %f
; TAPSALL: load {{.*}} @ks_cmem_1
; TAPSALL: ret void

; OFF-NOT: ks_cmem
define void @taps(ptr %x, ptr %f, ptr %y) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t = zext i32 %tid to i64
  %px = getelementptr inbounds float, ptr %x, i64 %t
  %a = load float, ptr %px, align 4
  %f0 = load float, ptr %f, align 4
  %pf1 = getelementptr inbounds float, ptr %f, i64 1
  %f1 = load float, ptr %pf1, align 4
  %pf2 = getelementptr inbounds float, ptr %f, i64 2
  %f2 = load float, ptr %pf2, align 4
  %pf3 = getelementptr inbounds float, ptr %f, i64 3
  %f3 = load float, ptr %pf3, align 4
  %pf4 = getelementptr inbounds float, ptr %f, i64 4
  %f4 = load float, ptr %pf4, align 4
  %s0 = fmul float %a, %f0
  %s1 = fadd float %s0, %f1
  %s2 = fadd float %s1, %f2
  %s3 = fadd float %s2, %f3
  %s4 = fadd float %s3, %f4
  %py = getelementptr inbounds float, ptr %y, i64 %t
  store float %s4, ptr %py, align 4
  ret void
}

; FEW: ; explain: const_promote: f: not copied to constant memory: fewer loads at constant offsets than pay for a copy
; FEW-NOT: ks_cmem
define void @few(ptr %f, ptr %y) {
  %f0 = load float, ptr %f, align 4
  %pf1 = getelementptr inbounds float, ptr %f, i64 1
  %f1 = load float, ptr %pf1, align 4
  %s = fadd float %f0, %f1
  store float %s, ptr %y, align 4
  ret void
}

; FAR: ; explain: const_promote: f: not copied to constant memory: its constant offsets span more than 4096 bytes
; FAR-NOT: ks_cmem
define void @far(ptr %f, ptr %y) {
  %f0 = load float, ptr %f, align 4
  %pf1 = getelementptr inbounds float, ptr %f, i64 1
  %f1 = load float, ptr %pf1, align 4
  %pf2 = getelementptr inbounds float, ptr %f, i64 2
  %f2 = load float, ptr %pf2, align 4
  %pf3 = getelementptr inbounds float, ptr %f, i64 1024
  %f3 = load float, ptr %pf3, align 4
  %s1 = fadd float %f0, %f1
  %s2 = fadd float %s1, %f2
  %s3 = fadd float %s2, %f3
  store float %s3, ptr %y, align 4
  ret void
}

; WRITTEN-NOT: ks_cmem
define void @written(ptr %f) {
  %f0 = load float, ptr %f, align 4
  %pf1 = getelementptr inbounds float, ptr %f, i64 1
  %f1 = load float, ptr %pf1, align 4
  %pf2 = getelementptr inbounds float, ptr %f, i64 2
  %f2 = load float, ptr %pf2, align 4
  %pf3 = getelementptr inbounds float, ptr %f, i64 3
  %f3 = load float, ptr %pf3, align 4
  %s1 = fadd float %f0, %f1
  %s2 = fadd float %s1, %f2
  %s3 = fadd float %s2, %f3
  store float %s3, ptr %f, align 4
  ret void
}

; A store to y, which may overlap f, comes before the loads: they read f
; as it is then, not as it was at launch.
; AFTER-NOT: ks_cmem
define void @after(ptr %f, ptr %y) {
  store float 1.0, ptr %y, align 4
  %f0 = load float, ptr %f, align 4
  %pf1 = getelementptr inbounds float, ptr %f, i64 1
  %f1 = load float, ptr %pf1, align 4
  %pf2 = getelementptr inbounds float, ptr %f, i64 2
  %f2 = load float, ptr %pf2, align 4
  %pf3 = getelementptr inbounds float, ptr %f, i64 3
  %f3 = load float, ptr %pf3, align 4
  %s1 = fadd float %f0, %f1
  %s2 = fadd float %s1, %f2
  %s3 = fadd float %s2, %f3
  %py1 = getelementptr inbounds float, ptr %y, i64 1
  store float %s3, ptr %py1, align 4
  ret void
}

; Offsets below the argument are not copied (the copy starts at f); the
; four loads at and above it are.
; BELOW: ; explain: const_promote: f: 4 loads read constant memory (ks_cmem_0, 16 bytes
; BELOW: %fm = load float, ptr %pfm, align 4, !invariant.load
define void @below(ptr %f, ptr %y) {
  %pfm = getelementptr inbounds float, ptr %f, i64 -1
  %fm = load float, ptr %pfm, align 4
  %f0 = load float, ptr %f, align 4
  %pf1 = getelementptr inbounds float, ptr %f, i64 1
  %f1 = load float, ptr %pf1, align 4
  %pf2 = getelementptr inbounds float, ptr %f, i64 2
  %f2 = load float, ptr %pf2, align 4
  %pf3 = getelementptr inbounds float, ptr %f, i64 3
  %f3 = load float, ptr %pf3, align 4
  %s0 = fadd float %fm, %f0
  %s1 = fadd float %s0, %f1
  %s2 = fadd float %s1, %f2
  %s3 = fadd float %s2, %f3
  store float %s3, ptr %y, align 4
  ret void
}

; A struct passed by value is read at constant offsets too, but it is no
; buffer in device memory: never copied.
; BYVAL-NOT: ks_cmem
%taps = type { [8 x float] }
define void @byval(ptr byval(%taps) align 4 %f, ptr %y) {
  %f0 = load float, ptr %f, align 4
  %pf1 = getelementptr inbounds float, ptr %f, i64 1
  %f1 = load float, ptr %pf1, align 4
  %pf2 = getelementptr inbounds float, ptr %f, i64 2
  %f2 = load float, ptr %pf2, align 4
  %pf3 = getelementptr inbounds float, ptr %f, i64 3
  %f3 = load float, ptr %pf3, align 4
  %s1 = fadd float %f0, %f1
  %s2 = fadd float %s1, %f2
  %s3 = fadd float %s2, %f3
  store float %s3, ptr %y, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

!nvvm.annotations = !{!0, !1, !2, !3, !4, !5, !6}
!0 = !{ptr @taps, !"kernel", i32 1}
!1 = !{ptr @few, !"kernel", i32 1}
!2 = !{ptr @far, !"kernel", i32 1}
!3 = !{ptr @written, !"kernel", i32 1}
!4 = !{ptr @after, !"kernel", i32 1}
!5 = !{ptr @below, !"kernel", i32 1}
!6 = !{ptr @byval, !"kernel", i32 1}
