; After the whole pipeline, a loop whose trip count was bound is fully
; unrolled: no induction variable, no backedge. Unbound, the loop stays.
;
; RUN: ks_passes_tool --stage all --bind 4=8 %s | FileCheck %s
; RUN: ks_passes_tool --stage all --bind 4=24 %s | FileCheck %s --check-prefix=BIG
; RUN: ks_passes_tool --stage all %s | FileCheck %s --check-prefix=GEN
; RUN: ks_passes_tool --stage unroll --bind 4=8 %s | FileCheck %s --check-prefix=UNROLL

target triple = "nvptx64-nvidia-cuda"

; CHECK-LABEL: define void @k(
; CHECK-NOT: phi
; CHECK-NOT: br label
; CHECK-COUNT-8: fmul contract float
; CHECK-NOT: fmul
; CHECK-NOT: phi
; CHECK: ret void

; BIG-LABEL: define void @k(
; BIG-NOT: phi
; BIG-COUNT-24: fmul contract float
; BIG-NOT: phi
; BIG: ret void

; GEN-LABEL: define void @k(
; GEN: phi i32
; GEN: br i1

; UNROLL-LABEL: define void @k(
; UNROLL-NOT: phi i32
; UNROLL-COUNT-8: fmul contract float

define void @k(ptr %x, ptr %f, ptr %y, i32 %n, i32 %LEN) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %inb = icmp slt i32 %tid, %n
  br i1 %inb, label %pre, label %exit

pre:
  br label %head

head:
  %k = phi i32 [ 0, %pre ], [ %k.next, %body ]
  %s = phi float [ 0.0, %pre ], [ %s.next, %body ]
  %c = icmp slt i32 %k, %LEN
  br i1 %c, label %body, label %done

body:
  %i = add nsw i32 %tid, %k
  %ie = sext i32 %i to i64
  %px = getelementptr inbounds float, ptr %x, i64 %ie
  %vx = load float, ptr %px, align 4
  %ke = sext i32 %k to i64
  %pf = getelementptr inbounds float, ptr %f, i64 %ke
  %vf = load float, ptr %pf, align 4
  %m = fmul contract float %vx, %vf
  %s.next = fadd contract float %s, %m
  %k.next = add nsw i32 %k, 1
  br label %head, !llvm.loop !1

done:
  %te = sext i32 %tid to i64
  %py = getelementptr inbounds float, ptr %y, i64 %te
  store float %s, ptr %py, align 4
  br label %exit

exit:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
!1 = distinct !{!1, !2}
!2 = !{!"llvm.loop.mustprogress"}
