; Atomic privatization: the index range analysis. Wrap-around counts
; (nsw cases are folded by instcombine before this stage); shared elements
; follow the index's stride; struct fields, 64-bit atomics and several
; buffers per kernel.
;
; RUN: ks_passes_tool --stage smem_promote --kernel wrap %s | FileCheck %s --check-prefix=WRAP
; RUN: ks_passes_tool --stage smem_promote --kernel two %s | FileCheck %s --check-prefix=TWO
; RUN: ks_passes_tool --stage smem_promote --kernel field %s | FileCheck %s --check-prefix=FIELD
; RUN: ks_passes_tool --stage smem_promote --kernel signed %s | FileCheck %s --check-prefix=SIGNED
; RUN: ks_passes_tool --stage smem_promote --kernel clamp %s | FileCheck %s --check-prefix=CLAMP
; RUN: ks_passes_tool --stage smem_promote --kernel counter %s | FileCheck %s --check-prefix=COUNTER
; RUN: ks_passes_tool --stage all --kernel two --block 128 %s | FileCheck %s --check-prefix=TWO-ALL

target triple = "nvptx64-nvidia-cuda"

; v * (2^24 + 1) wraps for v >= 128 (no nsw), so v * (2^24 + 1) / 2^24
; lies in [-128, 127], not [0, 255].
; WRAP: ; explain: smem_promote: promoted hist: 256 bins x 4 B = 1024 B of shared memory (bytes -512 + 4 j of hist), merged with one atomic per non-zero bin
; WRAP-LABEL: define void @wrap(
; WRAP: ks.add:
; WRAP: add i64 %{{.*}}, -512
define void @wrap(ptr noalias %data, ptr noalias %hist) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %pd = getelementptr inbounds i8, ptr %data, i32 %tid
  %b = load i8, ptr %pd, align 1
  %v = zext i8 %b to i32
  %m = mul i32 %v, 16777217
  %s = sdiv i32 %m, 16777216
  %p = getelementptr inbounds i32, ptr %hist, i32 %s
  %old = atomicrmw add ptr %p, i32 1 monotonic, align 4
  ret void
}

; Two buffers: 64-bit sums by x urem 10, 32-bit counts by (x & 63) * 3
; (64 bins, 3 elements apart), with a sub.
; TWO-DAG: ; explain: smem_promote: promoted sums: 10 bins x 8 B = 80 B of shared memory, merged
; TWO-DAG: ; explain: smem_promote: promoted counts: 64 bins x 4 B = 256 B of shared memory (bytes 0 + 12 j of counts), merged
; TWO-DAG: @ks_smem_sums = internal addrspace(3) global [10 x i64] undef
; TWO-DAG: @ks_smem_counts = internal addrspace(3) global [64 x i32] undef
; TWO-LABEL: define void @two(
; TWO: atomicrmw add ptr addrspace(3) %{{.*}}, i64 %w monotonic, align 8
; TWO: atomicrmw sub ptr addrspace(3) %{{.*}}, i32 1 monotonic, align 4
; TWO: ks.exit:
; TWO: atomicrmw add ptr %{{.*}}, i64 %part monotonic, align 8
; TWO: atomicrmw add ptr %{{.*}}, i32 %part{{.*}} monotonic, align 4
; TWO-ALL-LABEL: define void @two(
; TWO-ALL-COUNT-2: {{(tail )?}}call void @llvm.nvvm.barrier0()
; TWO-ALL-NOT: @llvm.nvvm.barrier0
; TWO-ALL: ret void
define void @two(ptr noalias %sums, ptr noalias %counts, i32 %x, i64 %w) {
  %i = urem i32 %x, 10
  %ps = getelementptr inbounds i64, ptr %sums, i32 %i
  %o1 = atomicrmw add ptr %ps, i64 %w seq_cst, align 8
  %j = and i32 %x, 63
  %j3 = mul i32 %j, 3
  %pc = getelementptr inbounds i32, ptr %counts, i32 %j3
  %o2 = atomicrmw sub ptr %pc, i32 1 seq_cst, align 4
  ret void
}

%pair = type { i32, [16 x i32] }

; Field 1 of a struct, indexed by x & 15: bytes 4 to 64.
; FIELD: ; explain: smem_promote: promoted hist: 16 bins x 4 B = 64 B of shared memory (bytes 4 + 4 j of hist), merged
define void @field(ptr noalias %hist, i32 %x) {
  %i = and i32 %x, 15
  %p = getelementptr inbounds %pair, ptr %hist, i64 0, i32 1, i32 %i
  %old = atomicrmw add ptr %p, i32 1 monotonic, align 4
  ret void
}

; srem by 8 and sdiv by -4 of an i8: [-7, 7] and [-31, 32], through a select.
; SIGNED: ; explain: smem_promote: promoted hist: 64 bins x 4 B = 256 B of shared memory (bytes -124 + 4 j of hist), merged
define void @signed(ptr noalias %hist, i8 %x, i1 %c) {
  %w = sext i8 %x to i32
  %r = srem i32 %w, 8
  %d = sdiv i32 %w, -4
  %i = select i1 %c, i32 %r, i32 %d
  %p = getelementptr inbounds i32, ptr %hist, i32 %i
  %old = atomicrmw add ptr %p, i32 1 monotonic, align 4
  ret void
}

; smin/smax clamp an unbounded value into [0, 31].
; CLAMP: ; explain: smem_promote: promoted hist: 32 bins x 4 B = 128 B of shared memory, merged
define void @clamp(ptr noalias %hist, i32 %x) {
  %a = call i32 @llvm.smax.i32(i32 %x, i32 0)
  %b = call i32 @llvm.smin.i32(i32 %a, i32 31)
  %p = getelementptr inbounds i32, ptr %hist, i32 %b
  %old = atomicrmw add ptr %p, i32 1 monotonic, align 4
  ret void
}

; A loop counter as the index: unbounded (its phi depends on itself).
; COUNTER: ; explain: smem_promote: declined hist: its index is not bounded
define void @counter(ptr noalias %hist, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %inext, %loop ]
  %p = getelementptr inbounds i32, ptr %hist, i32 %i
  %old = atomicrmw add ptr %p, i32 1 monotonic, align 4
  %inext = add i32 %i, 1
  %more = icmp slt i32 %inext, %n
  br i1 %more, label %loop, label %exit
exit:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.smax.i32(i32, i32)
declare i32 @llvm.smin.i32(i32, i32)

!nvvm.annotations = !{!0, !2, !3, !4, !5, !6}
!0 = !{ptr @wrap, !"kernel", i32 1}
!2 = !{ptr @two, !"kernel", i32 1}
!3 = !{ptr @field, !"kernel", i32 1}
!4 = !{ptr @signed, !"kernel", i32 1}
!5 = !{ptr @clamp, !"kernel", i32 1}
!6 = !{ptr @counter, !"kernel", i32 1}
