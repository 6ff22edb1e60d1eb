; Thread coarsening declines what it cannot prove exact, says why, and
; leaves the loop as it was.
;
; RUN: ks_passes_tool --stage coarsen --kernel store %s | FileCheck %s --check-prefix=STORE
; RUN: ks_passes_tool --stage coarsen --kernel used %s | FileCheck %s --check-prefix=USED
; RUN: ks_passes_tool --stage coarsen --kernel barrier %s | FileCheck %s --check-prefix=BARRIER
; RUN: ks_passes_tool --stage coarsen --kernel stride1 %s | FileCheck %s --check-prefix=STRIDE1
; RUN: ks_passes_tool --stage coarsen --kernel phi2 %s | FileCheck %s --check-prefix=PHI2
; RUN: ks_passes_tool --stage coarsen --kernel shared %s | FileCheck %s --check-prefix=SHARED
; RUN: ks_passes_tool --stage coarsen --kernel tidbound %s | FileCheck %s --check-prefix=TIDBOUND
; RUN: ks_passes_tool --stage coarsen --kernel tidbody %s | FileCheck %s --check-prefix=TIDBODY
; RUN: ks_passes_tool --stage coarsen --kernel outside %s | FileCheck %s --check-prefix=OUTSIDE
; RUN: ks_passes_tool --stage coarsen --kernel aliased %s | FileCheck %s --check-prefix=ALIASED
; RUN: ks_passes_tool --stage coarsen --kernel noguard %s | FileCheck %s --check-prefix=NOGUARD

target triple = "nvptx64-nvidia-cuda"

@smem = internal addrspace(3) global [256 x i32] undef, align 16

; STORE: ; explain: coarsen: declined loop i: its body stores to memory
; STORE-NOT: coarsened
; STORE-LABEL: define void @store(
; STORE-NOT: ks.vec
; STORE-NOT: <4 x i32>
; STORE: ret void
define void @store(ptr noalias %data, ptr noalias %hist, i32 %n, ptr noalias %out) {
entry:
  %nct = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %stride = mul i32 %nct, %ntid
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = mul i32 %cta, %ntid
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %gtid = add i32 %base, %tid
  %enter = icmp slt i32 %gtid, %n
  br i1 %enter, label %pre, label %end

pre:
  br label %body

body:
  %i = phi i32 [ %gtid, %pre ], [ %next, %body ]
  %ix = sext i32 %i to i64
  %p = getelementptr inbounds i8, ptr %data, i64 %ix
  %v = load i8, ptr %p, align 1
  %b = zext i8 %v to i64
  %h = getelementptr inbounds i32, ptr %hist, i64 %b
  %old = atomicrmw add ptr %h, i32 1 seq_cst, align 4
  store i8 %v, ptr %out, align 1
  %next = add nsw i32 %i, %stride
  %more = icmp slt i32 %next, %n
  br i1 %more, label %body, label %exit

exit:
  br label %end

end:
  ret void
}

; USED: ; explain: coarsen: declined loop i: the result of an atomic in its body is used
; USED-NOT: coarsened
; USED-LABEL: define void @used(
; USED-NOT: ks.vec
; USED-NOT: <4 x i32>
; USED: ret void
define void @used(ptr noalias %data, ptr noalias %hist, i32 %n) {
entry:
  %nct = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %stride = mul i32 %nct, %ntid
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = mul i32 %cta, %ntid
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %gtid = add i32 %base, %tid
  %enter = icmp slt i32 %gtid, %n
  br i1 %enter, label %pre, label %end

pre:
  br label %body

body:
  %i = phi i32 [ %gtid, %pre ], [ %next, %body ]
  %ix = sext i32 %i to i64
  %p = getelementptr inbounds i8, ptr %data, i64 %ix
  %v = load i8, ptr %p, align 1
  %b = zext i8 %v to i64
  %h = getelementptr inbounds i32, ptr %hist, i64 %b
  %old = atomicrmw add ptr %h, i32 1 seq_cst, align 4
  %h2 = getelementptr inbounds i32, ptr %hist, i32 %old
  %old2 = atomicrmw add ptr %h2, i32 1 seq_cst, align 4
  %next = add nsw i32 %i, %stride
  %more = icmp slt i32 %next, %n
  br i1 %more, label %body, label %exit

exit:
  br label %end

end:
  ret void
}

; BARRIER: ; explain: coarsen: declined loop i: its body has a barrier or warp-synchronous operation
; BARRIER-NOT: coarsened
; BARRIER-LABEL: define void @barrier(
; BARRIER-NOT: ks.vec
; BARRIER-NOT: <4 x i32>
; BARRIER: ret void
define void @barrier(ptr noalias %data, ptr noalias %hist, i32 %n) {
entry:
  %nct = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %stride = mul i32 %nct, %ntid
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = mul i32 %cta, %ntid
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %gtid = add i32 %base, %tid
  %enter = icmp slt i32 %gtid, %n
  br i1 %enter, label %pre, label %end

pre:
  br label %body

body:
  %i = phi i32 [ %gtid, %pre ], [ %next, %body ]
  %ix = sext i32 %i to i64
  %p = getelementptr inbounds i8, ptr %data, i64 %ix
  %v = load i8, ptr %p, align 1
  %b = zext i8 %v to i64
  %h = getelementptr inbounds i32, ptr %hist, i64 %b
  %old = atomicrmw add ptr %h, i32 1 seq_cst, align 4
  call void @llvm.nvvm.barrier0()
  %next = add nsw i32 %i, %stride
  %more = icmp slt i32 %next, %n
  br i1 %more, label %body, label %exit

exit:
  br label %end

end:
  ret void
}

; STRIDE1: ; explain: coarsen: declined loop i: it does not step by nctaid.x * ntid.x (the grid's threads)
; STRIDE1-NOT: coarsened
; STRIDE1-LABEL: define void @stride1(
; STRIDE1-NOT: ks.vec
; STRIDE1-NOT: <4 x i32>
; STRIDE1: ret void
define void @stride1(ptr noalias %data, ptr noalias %hist, i32 %n) {
entry:
  %nct = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %stride = mul i32 %nct, %ntid
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = mul i32 %cta, %ntid
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %gtid = add i32 %base, %tid
  %enter = icmp slt i32 %gtid, %n
  br i1 %enter, label %pre, label %end

pre:
  br label %body

body:
  %i = phi i32 [ %gtid, %pre ], [ %next, %body ]
  %ix = sext i32 %i to i64
  %p = getelementptr inbounds i8, ptr %data, i64 %ix
  %v = load i8, ptr %p, align 1
  %b = zext i8 %v to i64
  %h = getelementptr inbounds i32, ptr %hist, i64 %b
  %old = atomicrmw add ptr %h, i32 1 seq_cst, align 4
  %next = add nsw i32 %i, 1
  %more = icmp slt i32 %next, %n
  br i1 %more, label %body, label %exit

exit:
  br label %end

end:
  ret void
}

; PHI2: ; explain: coarsen: declined loop i: it carries a second value from one iteration to the next
; PHI2-NOT: coarsened
; PHI2-LABEL: define void @phi2(
; PHI2-NOT: ks.vec
; PHI2-NOT: <4 x i32>
; PHI2: ret void
define void @phi2(ptr noalias %data, ptr noalias %hist, i32 %n) {
entry:
  %nct = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %stride = mul i32 %nct, %ntid
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = mul i32 %cta, %ntid
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %gtid = add i32 %base, %tid
  %enter = icmp slt i32 %gtid, %n
  br i1 %enter, label %pre, label %end

pre:
  br label %body

body:
  %i = phi i32 [ %gtid, %pre ], [ %next, %body ]
  %acc = phi i32 [ 1, %pre ], [ %acc.next, %body ]
  %ix = sext i32 %i to i64
  %p = getelementptr inbounds i8, ptr %data, i64 %ix
  %v = load i8, ptr %p, align 1
  %b = zext i8 %v to i64
  %h = getelementptr inbounds i32, ptr %hist, i64 %b
  %old = atomicrmw add ptr %h, i32 %acc seq_cst, align 4
  %acc.next = mul i32 %acc, 3
  %next = add nsw i32 %i, %stride
  %more = icmp slt i32 %next, %n
  br i1 %more, label %body, label %exit

exit:
  br label %end

end:
  ret void
}

; SHARED: ; explain: coarsen: declined loop i: its atomics update shared memory, which each block reads back for itself
; SHARED-NOT: coarsened
; SHARED-LABEL: define void @shared(
; SHARED-NOT: ks.vec
; SHARED-NOT: <4 x i32>
; SHARED: ret void
define void @shared(ptr noalias %data, ptr noalias %hist, i32 %n) {
entry:
  %nct = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %stride = mul i32 %nct, %ntid
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = mul i32 %cta, %ntid
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %gtid = add i32 %base, %tid
  %enter = icmp slt i32 %gtid, %n
  br i1 %enter, label %pre, label %end

pre:
  br label %body

body:
  %i = phi i32 [ %gtid, %pre ], [ %next, %body ]
  %ix = sext i32 %i to i64
  %p = getelementptr inbounds i8, ptr %data, i64 %ix
  %v = load i8, ptr %p, align 1
  %b = zext i8 %v to i64
  %h = getelementptr inbounds i32, ptr %hist, i64 %b
  %hs = getelementptr inbounds [256 x i32], ptr addrspace(3) @smem, i64 0, i64 %b
  %old = atomicrmw add ptr addrspace(3) %hs, i32 1 monotonic, align 4
  %next = add nsw i32 %i, %stride
  %more = icmp slt i32 %next, %n
  br i1 %more, label %body, label %exit

exit:
  br label %end

end:
  ret void
}

; TIDBOUND: ; explain: coarsen: declined loop i: its bound n is not the same in every thread
; TIDBOUND-NOT: coarsened
; TIDBOUND-LABEL: define void @tidbound(
; TIDBOUND-NOT: ks.vec
; TIDBOUND-NOT: <4 x i32>
; TIDBOUND: ret void
define void @tidbound(ptr noalias %data, ptr noalias %hist, i32 %n) {
entry:
  %nct = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %stride = mul i32 %nct, %ntid
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = mul i32 %cta, %ntid
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %gtid = add i32 %base, %tid
  %nt = sub i32 %n, %tid
  %enter = icmp slt i32 %gtid, %nt
  br i1 %enter, label %pre, label %end

pre:
  br label %body

body:
  %i = phi i32 [ %gtid, %pre ], [ %next, %body ]
  %ix = sext i32 %i to i64
  %p = getelementptr inbounds i8, ptr %data, i64 %ix
  %v = load i8, ptr %p, align 1
  %b = zext i8 %v to i64
  %h = getelementptr inbounds i32, ptr %hist, i64 %b
  %old = atomicrmw add ptr %h, i32 1 seq_cst, align 4
  %next = add nsw i32 %i, %stride
  %more = icmp slt i32 %next, %nt
  br i1 %more, label %body, label %exit

exit:
  br label %end

end:
  ret void
}

; TIDBODY: ; explain: coarsen: declined loop i: its body uses a value that differs between threads other than its index
; TIDBODY-NOT: coarsened
; TIDBODY-LABEL: define void @tidbody(
; TIDBODY-NOT: ks.vec
; TIDBODY-NOT: <4 x i32>
; TIDBODY: ret void
define void @tidbody(ptr noalias %data, ptr noalias %hist, i32 %n) {
entry:
  %nct = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %stride = mul i32 %nct, %ntid
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = mul i32 %cta, %ntid
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %gtid = add i32 %base, %tid
  %tid64 = zext i32 %tid to i64
  %enter = icmp slt i32 %gtid, %n
  br i1 %enter, label %pre, label %end

pre:
  br label %body

body:
  %i = phi i32 [ %gtid, %pre ], [ %next, %body ]
  %ix = sext i32 %i to i64
  %p = getelementptr inbounds i8, ptr %data, i64 %ix
  %v = load i8, ptr %p, align 1
  %b = zext i8 %v to i64
  %h = getelementptr inbounds i32, ptr %hist, i64 %b
  %bt = add i64 %b, %tid64
  %h3 = getelementptr inbounds i32, ptr %hist, i64 %bt
  %old = atomicrmw add ptr %h3, i32 1 seq_cst, align 4
  %next = add nsw i32 %i, %stride
  %more = icmp slt i32 %next, %n
  br i1 %more, label %body, label %exit

exit:
  br label %end

end:
  ret void
}

; OUTSIDE: ; explain: coarsen: declined loop i: the kernel stores to memory
; OUTSIDE-NOT: coarsened
; OUTSIDE-LABEL: define void @outside(
; OUTSIDE-NOT: ks.vec
; OUTSIDE-NOT: <4 x i32>
; OUTSIDE: ret void
define void @outside(ptr noalias %data, ptr noalias %hist, i32 %n, ptr noalias %out) {
entry:
  %nct = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %stride = mul i32 %nct, %ntid
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = mul i32 %cta, %ntid
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %gtid = add i32 %base, %tid
  %enter = icmp slt i32 %gtid, %n
  br i1 %enter, label %pre, label %end

pre:
  br label %body

body:
  %i = phi i32 [ %gtid, %pre ], [ %next, %body ]
  %ix = sext i32 %i to i64
  %p = getelementptr inbounds i8, ptr %data, i64 %ix
  %v = load i8, ptr %p, align 1
  %b = zext i8 %v to i64
  %h = getelementptr inbounds i32, ptr %hist, i64 %b
  %old = atomicrmw add ptr %h, i32 1 seq_cst, align 4
  %next = add nsw i32 %i, %stride
  %more = icmp slt i32 %next, %n
  br i1 %more, label %body, label %exit

exit:
  br label %end

end:
  store i32 0, ptr %out, align 4
  ret void
}

; ALIASED: ; explain: coarsen: declined loop i: its atomics do not update a noalias (__restrict__) pointer argument
; ALIASED-NOT: coarsened
; ALIASED-LABEL: define void @aliased(
; ALIASED-NOT: ks.vec
; ALIASED-NOT: <4 x i32>
; ALIASED: ret void
define void @aliased(ptr noalias %data, ptr %hist, i32 %n) {
entry:
  %nct = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %stride = mul i32 %nct, %ntid
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = mul i32 %cta, %ntid
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %gtid = add i32 %base, %tid
  %enter = icmp slt i32 %gtid, %n
  br i1 %enter, label %pre, label %end

pre:
  br label %body

body:
  %i = phi i32 [ %gtid, %pre ], [ %next, %body ]
  %ix = sext i32 %i to i64
  %p = getelementptr inbounds i8, ptr %data, i64 %ix
  %v = load i8, ptr %p, align 1
  %b = zext i8 %v to i64
  %h = getelementptr inbounds i32, ptr %hist, i64 %b
  %old = atomicrmw add ptr %h, i32 1 seq_cst, align 4
  %next = add nsw i32 %i, %stride
  %more = icmp slt i32 %next, %n
  br i1 %more, label %body, label %exit

exit:
  br label %end

end:
  ret void
}

; A do-while: index gtid runs even when gtid >= n, which the split into
; [0, 16 nv) and [16 nv, n) would not keep.
; NOGUARD: ; explain: coarsen: declined loop i: it is not entered exactly when gtid < n
; NOGUARD-LABEL: define void @noguard(
; NOGUARD-NOT: ks.vec
define void @noguard(ptr noalias %data, ptr noalias %hist, i32 %n) {
entry:
  %nct = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %stride = mul i32 %nct, %ntid
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = mul i32 %cta, %ntid
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %gtid = add i32 %base, %tid
  br label %body

body:
  %i = phi i32 [ %gtid, %entry ], [ %next, %body ]
  %ix = sext i32 %i to i64
  %p = getelementptr inbounds i8, ptr %data, i64 %ix
  %v = load i8, ptr %p, align 1
  %b = zext i8 %v to i64
  %h = getelementptr inbounds i32, ptr %hist, i64 %b
  %old = atomicrmw add ptr %h, i32 1 seq_cst, align 4
  %next = add nsw i32 %i, %stride
  %more = icmp slt i32 %next, %n
  br i1 %more, label %body, label %end

end:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
declare void @llvm.nvvm.barrier0()
