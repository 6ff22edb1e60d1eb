; The vectorizer's screen (passes/vectorize.c) sees through an array
; global's GEP, [N x float] @win, 0, i: two shared loads, the second at
; i + 1, run the vectorizer, which merges them (the array aligned to 16
; and i even: 8 bytes' alignment, enough for two floats).
; RUN: ks_passes_tool --stage all --kernel window %s | FileCheck %s

; CHECK-NOT: vectorizer not run
; CHECK-LABEL: define void @window(
; CHECK: load <2 x float>, ptr addrspace(3)
; CHECK-NOT: load float
; CHECK: ret void

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@win = internal addrspace(3) global [512 x float] undef, align 16

define void @window(ptr noalias %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t2 = shl nuw nsw i32 %t, 1
  %t21 = or disjoint i32 %t2, 1
  %i0 = zext i32 %t2 to i64
  %i1 = zext i32 %t21 to i64
  %p0 = getelementptr inbounds [512 x float], ptr addrspace(3) @win, i64 0, i64 %i0
  %p1 = getelementptr inbounds [512 x float], ptr addrspace(3) @win, i64 0, i64 %i1
  %a = load float, ptr addrspace(3) %p0, align 4
  %b = load float, ptr addrspace(3) %p1, align 4
  %s = fadd float %a, %b
  %t64 = zext i32 %t to i64
  %q = getelementptr inbounds float, ptr %out, i64 %t64
  store float %s, ptr %q, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

!nvvm.annotations = !{!0}
!0 = !{ptr @window, !"kernel", i32 1}
