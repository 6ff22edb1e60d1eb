; Run-time alias checks (passes/alias.c): a histogram whose input is not
; __restrict__ may overlap its bins, so atomic privatization alone would
; decline. Where the bytes every other access can reach are bounded by the
; launch (arguments, constants, %ntid, %nctaid), the kernel gets two
; versions: a check at its entry, the same in every thread, branches to the
; privatized kernel where the bins' bytes and the input's do not overlap
; and to a copy of the original kernel otherwise.
;
; RUN: ks_passes_tool --stage smem_promote --kernel hist %s | FileCheck %s
; RUN: ks_passes_tool --stage all --kernel hist --block 256 %s | FileCheck %s --check-prefix=ALL
; RUN: ks_passes_tool --stage all --kernel hist --bind 2=4096 --block 256 %s | FileCheck %s --check-prefix=BOUND
; RUN: ks_passes_tool --stage smem_promote --kernel guarded --block 128 %s | FileCheck %s --check-prefix=GUARD
; RUN: ks_passes_tool --stage smem_promote --kernel stepped %s | FileCheck %s --check-prefix=STEP
; RUN: ks_passes_tool --stage smem_promote --kernel down %s | FileCheck %s --check-prefix=DOWN
; RUN: ks_passes_tool --stage smem_promote --kernel open %s | FileCheck %s --check-prefix=OPEN
; RUN: ks_passes_tool --stage smem_promote --kernel copied %s | FileCheck %s --check-prefix=COPIED
; RUN: ks_passes_tool --stage smem_promote --kernel wide %s | FileCheck %s --check-prefix=WIDE
; RUN: ks_passes_tool --stage smem_promote --kernel hist --no-pass smem_promote %s | FileCheck %s --check-prefix=OFF

target triple = "nvptx64-nvidia-cuda"

; The grid-stride loop's index: i0 = ctaid * ntid + tid (no wrap where
; nctaid * ntid <= 2^31), stepping by nctaid * ntid >= 0, below n at the
; loop's entry and latch: data + [0, n) against hist + [0, 256).
; CHECK: ; explain: smem_promote: promoted hist: 64 bins x 4 B = 256 B of shared memory, merged with one atomic per non-zero bin
; CHECK: ; explain: smem_promote: alias check for hist: the promoted kernel runs where hist + [0, 256) and data + (bounds from n, %ntid.x, %nctaid.x at launch) (1 access) do not overlap (checked at the kernel's entry, the same in every thread), the original kernel otherwise
; CHECK-LABEL: define void @hist(
; CHECK-NEXT: ks.alias:
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
; CHECK: call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
; CHECK: ptrtoint ptr %data to i64
; CHECK: ptrtoint ptr %hist to i64
; CHECK: br i1 %{{[0-9]+}}, label %ks.entry, label %[[ORIG:ks.v[0-9]*]]
; CHECK: ks.entry:
; CHECK: call void @llvm.nvvm.barrier0()
; CHECK: atomicrmw add ptr addrspace(3) %{{.*}}, i32 1 monotonic, align 4
; CHECK: [[ORIG]]:
; CHECK-NOT: barrier0
; CHECK-NOT: addrspace(3)
; CHECK: atomicrmw add ptr %{{[0-9]+}}, i32 1 seq_cst, align 4
; CHECK-NOT: barrier0
; CHECK: ret void
; CHECK: ks.exit:
; CHECK-NEXT: call void @llvm.nvvm.barrier0()
; CHECK: atomicrmw add ptr %{{.*}}, i32 %part monotonic
; CHECK: ret void
; CHECK: }

; After the optimize stage both versions are there, the check folded to a
; few compares (the block fixed: ntid is 256).
; ALL-LABEL: define void @hist(
; ALL: ks.alias:
; ALL: call {{.*}}i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
; ALL: br i1 %{{.*}}, label %ks.entry, label %[[ORIG:ks.v[0-9]*]]
; ALL: atomicrmw add ptr addrspace(3)
; ALL: [[ORIG]]:
; ALL: atomicrmw add ptr addrspace(1) %{{.*}}, i32 1 seq_cst
; ALL: atomicrmw add ptr addrspace(1) %{{.*}}, i32 %{{.*}} monotonic

; n bound: data's bytes [0, 4096) at most.
; BOUND: ; explain: smem_promote: alias check for hist: the promoted kernel runs where hist + [0, 256) and data + (bounds from %nctaid.x at launch) (1 access) do not overlap
; BOUND-LABEL: define void @hist(
; BOUND: ks.alias:
; BOUND: add i64 %{{.*}}, 4096
; BOUND: br i1 %{{.*}}, label %ks.entry, label %ks.v
define void @hist(ptr %data, ptr %hist, i32 %n) {
entry:
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %mul = mul i32 %ctaid, %ntid
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i0 = add i32 %mul, %tid
  %go = icmp slt i32 %i0, %n
  br i1 %go, label %ph, label %end
ph:
  br label %body
body:
  %i = phi i32 [ %i0, %ph ], [ %next, %body ]
  %idx = sext i32 %i to i64
  %pd = getelementptr inbounds i8, ptr %data, i64 %idx
  %v = load i8, ptr %pd, align 1
  %b = lshr i8 %v, 2
  %bz = zext i8 %b to i64
  %ph2 = getelementptr inbounds i32, ptr %hist, i64 %bz
  %old = atomicrmw add ptr %ph2, i32 1 seq_cst, align 4
  %nct = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %step = mul i32 %nct, %ntid
  %next = add i32 %i, %step
  %more = icmp slt i32 %next, %n
  br i1 %more, label %body, label %end
end:
  ret void
}

; One element a thread behind `if (i < n)`: the path's condition bounds it.
; GUARD: ; explain: smem_promote: alias check for cnt: the promoted kernel runs where cnt + [0, 64) and in + (bounds from n, %nctaid.x at launch) (1 access) do not overlap
; GUARD-LABEL: define void @guarded(
; GUARD-NEXT: ks.alias:
; GUARD: br i1 %{{[0-9]+}}, label %ks.entry, label %ks.v
define void @guarded(ptr %in, ptr %cnt, i32 %n) {
entry:
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %mul = mul i32 %ctaid, %ntid
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = add i32 %mul, %tid
  %out = icmp sge i32 %i, %n
  br i1 %out, label %end, label %work
work:
  %idx = sext i32 %i to i64
  %p = getelementptr inbounds i32, ptr %in, i64 %idx
  %v = load i32, ptr %p, align 4
  %b = and i32 %v, 15
  %bz = zext i32 %b to i64
  %pc = getelementptr inbounds i32, ptr %cnt, i64 %bz
  %old = atomicrmw add ptr %pc, i32 1 monotonic, align 4
  br label %end
end:
  ret void
}

; A step given by the caller: the check requires it non-negative.
; STEP: ; explain: smem_promote: alias check for hist:
; STEP-LABEL: define void @stepped(
; STEP: ks.alias:
; STEP: icmp sge i64 %{{[0-9]+}}, 0
define void @stepped(ptr %data, ptr %hist, i32 %n, i32 %s) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %go = icmp slt i32 %tid, %n
  br i1 %go, label %body, label %end
body:
  %i = phi i32 [ %tid, %entry ], [ %next, %body ]
  %idx = zext i32 %i to i64
  %pd = getelementptr inbounds i8, ptr %data, i64 %idx
  %v = load i8, ptr %pd, align 1
  %b = and i8 %v, 63
  %bz = zext i8 %b to i64
  %ph = getelementptr inbounds i32, ptr %hist, i64 %bz
  %old = atomicrmw add ptr %ph, i32 1 monotonic, align 4
  %next = add i32 %i, %s
  %more = icmp slt i32 %next, %n
  br i1 %more, label %body, label %end
end:
  ret void
}

; Counting down: the loop's value is not bounded below by what the check
; reasons about (a step that is never non-negative): declined as without
; the check, and the kernel as it was.
; DOWN: ; explain: smem_promote: declined hist: it may overlap data, which the kernel also accesses (mark the pointers __restrict__)
; DOWN-LABEL: define void @down(
; DOWN-NOT: ks.alias
; DOWN-NOT: addrspace(3)
; DOWN: ret void
define void @down(ptr %data, ptr %hist, i32 %n) {
entry:
  %go = icmp sgt i32 %n, 0
  br i1 %go, label %body, label %end
body:
  %i = phi i32 [ %n, %entry ], [ %next, %body ]
  %next = add nsw i32 %i, -1
  %idx = sext i32 %next to i64
  %pd = getelementptr inbounds i8, ptr %data, i64 %idx
  %v = load i8, ptr %pd, align 1
  %b = and i8 %v, 63
  %bz = zext i8 %b to i64
  %ph = getelementptr inbounds i32, ptr %hist, i64 %bz
  %old = atomicrmw add ptr %ph, i32 1 monotonic, align 4
  %more = icmp sgt i32 %next, 0
  br i1 %more, label %body, label %end
end:
  ret void
}

; A loop that ends on the data it reads: nothing bounds the index above.
; OPEN: ; explain: smem_promote: declined hist: it may overlap data, which the kernel also accesses (mark the pointers __restrict__)
; OPEN-NOT: ks.alias
define void @open(ptr %data, ptr %hist) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %body
body:
  %i = phi i32 [ %tid, %entry ], [ %next, %body ]
  %idx = zext i32 %i to i64
  %pd = getelementptr inbounds i8, ptr %data, i64 %idx
  %v = load i8, ptr %pd, align 1
  %b = and i8 %v, 63
  %bz = zext i8 %b to i64
  %ph = getelementptr inbounds i32, ptr %hist, i64 %bz
  %old = atomicrmw add ptr %ph, i32 1 monotonic, align 4
  %next = add i32 %i, 1
  %more = icmp ne i8 %v, 0
  br i1 %more, label %body, label %end
end:
  ret void
}

; A call that takes the other pointer (a memset): its bytes are not
; bounded by the check, declined as without it.
; COPIED: ; explain: smem_promote: declined hist: it may overlap data, which the kernel also accesses (mark the pointers __restrict__)
; COPIED-NOT: ks.alias
define void @copied(ptr %data, ptr %hist) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %b = and i32 %tid, 63
  %ph = getelementptr inbounds i32, ptr %hist, i32 %b
  %old = atomicrmw add ptr %ph, i32 1 monotonic, align 4
  call void @llvm.memset.p0.i64(ptr %data, i8 0, i64 16, i1 false)
  ret void
}

; A 64-bit index from an argument, unbounded but for the loop's test:
; bounded by n at launch, within 2^40 (required).
; WIDE: ; explain: smem_promote: alias check for hist:
; WIDE: ks.alias:
; WIDE: icmp sle i64 %{{[0-9]+}}, 1099511627776
define void @wide(ptr %data, ptr %hist, i64 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t = zext i32 %tid to i64
  %go = icmp slt i64 %t, %n
  br i1 %go, label %body, label %end
body:
  %i = phi i64 [ %t, %entry ], [ %next, %body ]
  %pd = getelementptr inbounds float, ptr %data, i64 %i
  %v = load float, ptr %pd, align 4
  %f = fptosi float %v to i32
  %b = and i32 %f, 63
  %ph = getelementptr inbounds i32, ptr %hist, i32 %b
  %old = atomicrmw add ptr %ph, i32 1 monotonic, align 4
  %next = add nsw i64 %i, 1024
  %more = icmp slt i64 %next, %n
  br i1 %more, label %body, label %end
end:
  ret void
}

; OFF: ; explain: smem_promote: switched off
; OFF-NOT: ks.alias

declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()

!nvvm.annotations = !{!0, !1, !2, !3, !4, !5, !6}
!0 = !{ptr @hist, !"kernel", i32 1}
!1 = !{ptr @guarded, !"kernel", i32 1}
!2 = !{ptr @stepped, !"kernel", i32 1}
!3 = !{ptr @down, !"kernel", i32 1}
!4 = !{ptr @open, !"kernel", i32 1}
!5 = !{ptr @copied, !"kernel", i32 1}
!6 = !{ptr @wide, !"kernel", i32 1}
