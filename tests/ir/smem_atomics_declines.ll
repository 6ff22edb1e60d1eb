; Atomic privatization declines what it cannot prove safe, and says why;
; the global atomics then stay as they are.
;
; RUN: ks_passes_tool --stage smem_promote --kernel loaded %s | FileCheck %s --check-prefix=LOADED
; RUN: ks_passes_tool --stage smem_promote --kernel stored %s | FileCheck %s --check-prefix=STORED
; RUN: ks_passes_tool --stage smem_promote --kernel used %s | FileCheck %s --check-prefix=USED
; RUN: ks_passes_tool --stage smem_promote --kernel unbound %s | FileCheck %s --check-prefix=UNBOUND
; RUN: ks_passes_tool --stage smem_promote --kernel index_load %s | FileCheck %s --check-prefix=IDXLOAD
; RUN: ks_passes_tool --stage smem_promote --kernel too_large %s | FileCheck %s --check-prefix=LARGE
; RUN: ks_passes_tool --stage smem_promote --kernel float %s | FileCheck %s --check-prefix=FLOAT
; RUN: ks_passes_tool --stage smem_promote --kernel barrier %s | FileCheck %s --check-prefix=BARRIER
; RUN: ks_passes_tool --stage smem_promote --kernel overlap %s | FileCheck %s --check-prefix=OVERLAP
; RUN: ks_passes_tool --stage smem_promote --kernel calls %s | FileCheck %s --check-prefix=CALLS
; RUN: ks_passes_tool --stage smem_promote --kernel max %s | FileCheck %s --check-prefix=MAX
; RUN: ks_passes_tool --stage smem_promote --kernel overlapping_elems %s | FileCheck %s --check-prefix=ELEMS
; RUN: ks_passes_tool --stage all --kernel loaded --block 256 %s | FileCheck %s --check-prefix=LOADED-ALL
; RUN: ks_passes_tool --stage smem_promote --kernel counter --block 256 %s | FileCheck %s --check-prefix=COUNTER
; RUN: ks_passes_tool --stage smem_promote --kernel counter_loop --block 256 %s | FileCheck %s --check-prefix=COUNTER-LOOP

target triple = "nvptx64-nvidia-cuda"

; LOADED: ; explain: smem_promote: declined hist: it is loaded
; LOADED-NOT: @ks_smem
; LOADED-LABEL: define void @loaded(
; LOADED-NOT: barrier0
; LOADED: atomicrmw add ptr %p, i32 1 seq_cst
; LOADED-NOT: barrier0
; LOADED: ret void
; LOADED-ALL: ; explain: smem_promote: declined hist: it is loaded
; LOADED-ALL-NOT: @ks_smem
; LOADED-ALL-LABEL: define void @loaded(
; LOADED-ALL-NOT: barrier0
; LOADED-ALL: atomicrmw add ptr {{.*}}, i32 1 seq_cst
; LOADED-ALL-NOT: barrier0
; LOADED-ALL: ret void
define void @loaded(ptr noalias %hist, i32 %v) {
  %i = and i32 %v, 255
  %p = getelementptr inbounds i32, ptr %hist, i32 %i
  %old = atomicrmw add ptr %p, i32 1 seq_cst, align 4
  %q = getelementptr inbounds i32, ptr %hist, i32 7
  %x = load i32, ptr %q, align 4
  store i32 %x, ptr addrspace(3) @sink, align 4
  ret void
}

; STORED: ; explain: smem_promote: declined hist: it is stored to or stored
; STORED-NOT: @ks_smem
; STORED: atomicrmw add ptr %p, i32 1 seq_cst
define void @stored(ptr noalias %hist, i32 %v) {
  %i = and i32 %v, 255
  %p = getelementptr inbounds i32, ptr %hist, i32 %i
  %old = atomicrmw add ptr %p, i32 1 seq_cst, align 4
  store i32 0, ptr %hist, align 4
  ret void
}

; USED: ; explain: smem_promote: declined hist: the result of an atomic on it is used
; USED-NOT: @ks_smem
define void @used(ptr noalias %hist, ptr noalias %out, i32 %v) {
  %i = and i32 %v, 255
  %p = getelementptr inbounds i32, ptr %hist, i32 %i
  %old = atomicrmw add ptr %p, i32 1 seq_cst, align 4
  store i32 %old, ptr %out, align 4
  ret void
}

; The index is an unbound argument: anything.
; UNBOUND: ; explain: smem_promote: declined hist: its index is not bounded
; UNBOUND-NOT: @ks_smem
define void @unbound(ptr noalias %hist, i32 %bin) {
  %p = getelementptr inbounds i32, ptr %hist, i32 %bin
  %old = atomicrmw add ptr %p, i32 1 seq_cst, align 4
  ret void
}

; The index is loaded from memory as an i32 (and an i64).
; IDXLOAD: ; explain: smem_promote: declined hist: its index is not bounded
; IDXLOAD-NOT: @ks_smem
define void @index_load(ptr noalias %bins, ptr noalias %hist) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %pb = getelementptr inbounds i32, ptr %bins, i32 %tid
  %b = load i32, ptr %pb, align 4
  %p = getelementptr inbounds i32, ptr %hist, i32 %b
  %old = atomicrmw add ptr %p, i32 1 seq_cst, align 4
  ret void
}

; A 16-bit bin: 65536 x 4 B does not fit.
; LARGE: ; explain: smem_promote: declined hist: its index spans 65536 elements x 4 B = 262144 B of shared memory, over the 32768 B left for it
; LARGE-NOT: @ks_smem
define void @too_large(ptr noalias %keys, ptr noalias %hist) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %pk = getelementptr inbounds i16, ptr %keys, i32 %tid
  %k = load i16, ptr %pk, align 2
  %i = zext i16 %k to i64
  %p = getelementptr inbounds i32, ptr %hist, i64 %i
  %old = atomicrmw add ptr %p, i32 1 seq_cst, align 4
  ret void
}

; FLOAT: ; explain: smem_promote: declined hist: floating-point atomics would be re-associated
; FLOAT-NOT: @ks_smem
define void @float(ptr noalias %hist, i32 %v, float %w) {
  %i = and i32 %v, 255
  %p = getelementptr inbounds float, ptr %hist, i32 %i
  %old = atomicrmw fadd ptr %p, float %w seq_cst, align 4
  ret void
}

; A barrier of the kernel's own: a thread that returned early would wait at
; the merge's barrier while the others wait at this one.
; BARRIER: ; explain: smem_promote: declined hist: the kernel has a barrier or warp-synchronous operation (llvm.nvvm.barrier0), which threads returning early would no longer skip
; BARRIER-NOT: @ks_smem
define void @barrier(ptr noalias %hist, i32 %v, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %out = icmp sge i32 %tid, %n
  br i1 %out, label %early, label %work
early:
  ret void
work:
  call void @llvm.nvvm.barrier0()
  %i = and i32 %v, 255
  %p = getelementptr inbounds i32, ptr %hist, i32 %i
  %old = atomicrmw add ptr %p, i32 1 seq_cst, align 4
  ret void
}

; hist is not noalias and the kernel reads another pointer that may be it.
; data is read at a loaded index: its bytes cannot be bounded at launch, so
; no run-time alias check either (tests/ir/smem_alias.ll has those).
; OVERLAP: ; explain: smem_promote: declined hist: it may overlap data, which the kernel also accesses (mark the pointers __restrict__)
; OVERLAP-NOT: @ks_smem
define void @overlap(ptr %data, ptr %hist, ptr noalias %at) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %pa = getelementptr inbounds i32, ptr %at, i32 %tid
  %j = load i32, ptr %pa, align 4
  %pd = getelementptr inbounds i8, ptr %data, i32 %j
  %v = load i8, ptr %pd, align 1
  %i = zext i8 %v to i64
  %p = getelementptr inbounds i32, ptr %hist, i64 %i
  %old = atomicrmw add ptr %p, i32 1 seq_cst, align 4
  ret void
}

; CALLS: ; explain: smem_promote: declined hist: the kernel still calls helper
define void @calls(ptr noalias %hist, i32 %v) {
  %i = and i32 %v, 255
  %p = getelementptr inbounds i32, ptr %hist, i32 %i
  %old = atomicrmw add ptr %p, i32 1 seq_cst, align 4
  call void @helper()
  ret void
}

; MAX: ; explain: smem_promote: declined hist: an atomic other than add/sub updates it
define void @max(ptr noalias %hist, i32 %v) {
  %i = and i32 %v, 255
  %p = getelementptr inbounds i32, ptr %hist, i32 %i
  %old = atomicrmw max ptr %p, i32 %v seq_cst, align 4
  ret void
}

; Byte offsets 2 apart on i32 atomics: the elements overlap.
; ELEMS: ; explain: smem_promote: declined hist: its atomics' addresses are not whole elements apart
define void @overlapping_elems(ptr noalias %hist, i32 %v) {
  %i = and i32 %v, 255
  %b = shl nuw nsw i32 %i, 1
  %p = getelementptr inbounds i8, ptr %hist, i32 %b
  %old = atomicrmw add ptr %p, i32 1 seq_cst, align 4
  ret void
}

@sink = internal addrspace(3) global i32 undef

declare void @helper()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()

!nvvm.annotations = !{!0, !1, !2, !3, !4, !5, !6, !7, !8, !9, !10, !11}
!0 = !{ptr @loaded, !"kernel", i32 1}
!1 = !{ptr @stored, !"kernel", i32 1}
!2 = !{ptr @used, !"kernel", i32 1}
!3 = !{ptr @unbound, !"kernel", i32 1}
!4 = !{ptr @index_load, !"kernel", i32 1}
!5 = !{ptr @too_large, !"kernel", i32 1}
!6 = !{ptr @float, !"kernel", i32 1}
!7 = !{ptr @barrier, !"kernel", i32 1}
!8 = !{ptr @overlap, !"kernel", i32 1}
!9 = !{ptr @calls, !"kernel", i32 1}
!10 = !{ptr @max, !"kernel", i32 1}
!11 = !{ptr @overlapping_elems, !"kernel", i32 1}

; A single counter (one address for every thread) that each thread updates
; at most once (clamp_report's): ptxas already makes a warp's updates one
; atomic, and a block's copy would cost two barriers for one atomic a warp.
; In a loop, each thread's many updates do go to the block's copy.
; COUNTER: ; explain: smem_promote: declined cnt: a single counter that each thread updates at most once
; COUNTER-NOT: @ks_smem
; COUNTER-LABEL: define void @counter(
; COUNTER-NOT: barrier0
; COUNTER: atomicrmw add ptr %cnt, i32 1 seq_cst
; COUNTER-LOOP: ; explain: smem_promote: promoted cnt: 1 bins
; COUNTER-LOOP-LABEL: define void @counter_loop(
; COUNTER-LOOP: barrier0
define void @counter(ptr noalias %x, ptr noalias %cnt, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %b = shl i32 %ctaid, 8
  %i = add i32 %b, %tid
  %in = icmp slt i32 %i, %n
  br i1 %in, label %look, label %exit

look:
  %ie = sext i32 %i to i64
  %px = getelementptr inbounds float, ptr %x, i64 %ie
  %v = load float, ptr %px, align 4
  %out = fcmp ogt float %v, 1.0
  br i1 %out, label %count, label %exit

count:
  %old = atomicrmw add ptr %cnt, i32 1 seq_cst, align 4
  br label %exit

exit:
  ret void
}

define void @counter_loop(ptr noalias %x, ptr noalias %cnt, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %head

head:
  %i = phi i32 [ %tid, %entry ], [ %i.next, %latch ]
  %more = icmp slt i32 %i, %n
  br i1 %more, label %look, label %exit

look:
  %ie = sext i32 %i to i64
  %px = getelementptr inbounds float, ptr %x, i64 %ie
  %v = load float, ptr %px, align 4
  %out = fcmp ogt float %v, 1.0
  br i1 %out, label %count, label %latch

count:
  %old = atomicrmw add ptr %cnt, i32 1 seq_cst, align 4
  br label %latch

latch:
  %i.next = add nsw i32 %i, 256
  br label %head

exit:
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
