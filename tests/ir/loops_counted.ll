; A block-stride loop over a bound size runs the same number of times in
; every thread, but SCEV, which does not know the block, sees its trip
; count as a function of %tid: loop-unroll left it rolled, and ptxas, which
; unrolls the generic kernel's loop (its bound an argument) by 4, left the
; specialization's rolled too: one load in flight instead of four
; (softmax_rows<256> with cols bound to 1024, tests/kernels/math.cu: 3
; loads in the SASS against the generic's 15). The loops stage tests such a
; loop on a counter of its own against its trip count, and the unroll
; stage unrolls it in full. @rows is softmax_rows' `for (c = threadIdx.x; c
; < cols; c += 256)` with a block of 256 and cols 1024: 4 times from every
; %tid in [0, 256). With cols 1000, tid 0 runs 4 times and tid 255 3: the
; loop stays. Generic, or with a block but cols free, it stays too.
;
; RUN: ks_passes_tool --stage all --kernel rows --block 256 --bind 2=1024 %s | FileCheck %s --check-prefix=BOUND
; RUN: ks_passes_tool --stage all --kernel rows --block 256 --bind 2=1000 %s | FileCheck %s --check-prefix=ODD
; RUN: ks_passes_tool --stage all --kernel rows --block 256 %s | FileCheck %s --check-prefix=FREE
; RUN: ks_passes_tool --stage all --kernel rows --bind 2=1024 %s | FileCheck %s --check-prefix=NOBLOCK

target triple = "nvptx64-nvidia-cuda"

; BOUND: ; explain: loops: loop head runs 4 times in every thread of the block: tested on a counter of its own, a constant trip count for full unrolling
; BOUND-LABEL: define void @rows(
; BOUND-NOT: phi
; BOUND-COUNT-4: load float
; BOUND-NOT: load float
; BOUND: ret void

; ODD-NOT: in every thread of the block
; ODD-LABEL: define void @rows(
; ODD: phi
; ODD: icmp {{.*}}, 744

; FREE-NOT: in every thread of the block
; FREE-LABEL: define void @rows(
; FREE: phi

; NOBLOCK-NOT: in every thread of the block
; NOBLOCK-LABEL: define void @rows(
; NOBLOCK: phi

define void @rows(ptr noalias %in, ptr noalias %out, i32 %cols) {
entry:
  %row = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %rw = sext i32 %row to i64
  %off = mul nsw i64 %rw, 1024
  %x = getelementptr inbounds float, ptr %in, i64 %off
  br label %head

head:
  %m = phi float [ 0xFFF0000000000000, %entry ], [ %m.next, %body ]
  %c = phi i32 [ %tid, %entry ], [ %c.next, %body ]
  %more = icmp slt i32 %c, %cols
  br i1 %more, label %body, label %done

body:
  %ci = sext i32 %c to i64
  %p = getelementptr inbounds float, ptr %x, i64 %ci
  %v = load float, ptr %p, align 4
  %m.next = call float @llvm.maxnum.f32(float %m, float %v)
  %c.next = add nsw i32 %c, 256
  br label %head, !llvm.loop !0

done:
  %o = getelementptr inbounds float, ptr %out, i32 %row
  store float %m, ptr %o, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare float @llvm.maxnum.f32(float, float)

!nvvm.annotations = !{!2}
!0 = distinct !{!0, !1}
!1 = !{!"llvm.loop.mustprogress"}
!2 = !{ptr @rows, !"kernel", i32 1}
