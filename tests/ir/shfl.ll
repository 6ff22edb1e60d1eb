; The shfl stage: the steps of a shared-memory tree reduction that stay
; within the first warp become warp shuffles (or one redux.sync for 32-bit
; integers from sm_80 on), without their barriers and shared traffic.
;
; RUN: ks_passes_tool --stage shfl --kernel sum_f32 --block 256 %s | FileCheck %s --check-prefix=SUM
; RUN: ks_passes_tool --stage shfl --kernel sum_f32 --block 256 --no-pass shfl %s | FileCheck %s --check-prefix=OFF
; RUN: ks_passes_tool --stage shfl --kernel sum_i32 --block 256 %s | FileCheck %s --check-prefix=I32
; RUN: ks_passes_tool --stage shfl --kernel sum_i32 --block 256 --cpu sm_70 %s | FileCheck %s --check-prefix=I32-70
; RUN: ks_passes_tool --stage shfl --kernel max_i64 --block 256 %s | FileCheck %s --check-prefix=I64
; RUN: ks_passes_tool --stage shfl --kernel max_f64 --block 256 %s | FileCheck %s --check-prefix=F64
; RUN: ks_passes_tool --stage shfl --kernel asc_f32 --block 64 %s | FileCheck %s --check-prefix=ASC
; RUN: ks_passes_tool --stage shfl --kernel bcast --block 256 %s | FileCheck %s --check-prefix=BCAST
; RUN: ks_passes_tool --stage shfl --kernel tail_f32 --block 256 %s | FileCheck %s --check-prefix=TAIL
; RUN: ks_passes_tool --stage shfl --kernel tail_i32 --block 256 %s | FileCheck %s --check-prefix=TAILI
; RUN: ks_passes_tool --stage shfl --kernel split_i32 --block 64 %s | FileCheck %s --check-prefix=SPLIT

target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"

; sum += over a block of 256: steps 128, 64 and 32 keep their barriers;
; 16, 8, 4, 2, 1 become shuffles, lane 0 adding in the tree's order; the
; barrier after the last goes (only thread 0 reads sh[0] afterwards, which
; it wrote).
; SUM: ; explain: shfl: sum_f32.sh: the tree's last 5 steps (strides 16, 8, 4, 2, 1) in the first warp by shfl.sync.down: lane 0 combines the same operands in the same order as the tree; 5 barriers gone; 10 shared loads and 5 stores became one load and one store
; SUM-LABEL: define void @sum_f32(
; SUM-COUNT-4: call void @llvm.nvvm.barrier0()
; SUM-NOT: barrier0
; SUM: [[TID:%.*]] = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; SUM-NEXT: [[W:%.*]] = icmp ult i32 [[TID]], 32
; SUM-NEXT: br i1 [[W]], label %ks.shfl, label %[[AFTER:.*]]
; SUM: ks.shfl:
; SUM: %ks.shfl.p = getelementptr inbounds float, ptr addrspace(3) @sum_f32.sh
; SUM-NEXT: %ks.shfl.x = load float, ptr addrspace(3) %ks.shfl.p, align 4
; SUM-NEXT: [[S1:%.*]] = call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %ks.shfl.x, i32 16, i32 31)
; SUM-NEXT: [[X1:%.*]] = fadd float %ks.shfl.x, [[S1]]
; SUM-NEXT: [[S2:%.*]] = call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float [[X1]], i32 8, i32 31)
; SUM-NEXT: [[X2:%.*]] = fadd float [[X1]], [[S2]]
; SUM-NEXT: [[S3:%.*]] = call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float [[X2]], i32 4, i32 31)
; SUM-NEXT: [[X3:%.*]] = fadd float [[X2]], [[S3]]
; SUM-NEXT: [[S4:%.*]] = call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float [[X3]], i32 2, i32 31)
; SUM-NEXT: [[X4:%.*]] = fadd float [[X3]], [[S4]]
; SUM-NEXT: [[S5:%.*]] = call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float [[X4]], i32 1, i32 31)
; SUM-NEXT: [[X5:%.*]] = fadd float [[X4]], [[S5]]
; SUM-NEXT: store float [[X5]], ptr addrspace(3) %ks.shfl.p, align 4
; SUM-NEXT: br label %[[AFTER]]
; SUM: [[AFTER]]:
; SUM-NOT: barrier0
; SUM: load float, ptr addrspace(3) @sum_f32.sh
; SUM: ret void
; OFF: ; explain: shfl: switched off
; OFF-NOT: llvm.nvvm.shfl
@sum_f32.sh = internal addrspace(3) global [256 x float] undef, align 4
define void @sum_f32(ptr %x, ptr %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %tx = zext i32 %tid to i64
  %self = getelementptr inbounds [256 x float], ptr addrspace(3) @sum_f32.sh, i64 0, i64 %tx
  %xp = getelementptr inbounds float, ptr %x, i64 %tx
  %v = load float, ptr %xp, align 4
  store float %v, ptr addrspace(3) %self, align 4
  call void @llvm.nvvm.barrier0()
  %c0 = icmp ult i32 %tid, 128
  br i1 %c0, label %t0, label %j0

t0:
  %o0 = add nuw nsw i32 %tid, 128
  %ox0 = zext i32 %o0 to i64
  %op0 = getelementptr inbounds [256 x float], ptr addrspace(3) @sum_f32.sh, i64 0, i64 %ox0
  %b0 = load float, ptr addrspace(3) %op0, align 4
  %a0 = load float, ptr addrspace(3) %self, align 4
  %r0 = fadd float %a0, %b0
  store float %r0, ptr addrspace(3) %self, align 4
  br label %j0

j0:
  call void @llvm.nvvm.barrier0()
  %c1 = icmp ult i32 %tid, 64
  br i1 %c1, label %t1, label %j1

t1:
  %o1 = add nuw nsw i32 %tid, 64
  %ox1 = zext i32 %o1 to i64
  %op1 = getelementptr inbounds [256 x float], ptr addrspace(3) @sum_f32.sh, i64 0, i64 %ox1
  %b1 = load float, ptr addrspace(3) %op1, align 4
  %a1 = load float, ptr addrspace(3) %self, align 4
  %r1 = fadd float %a1, %b1
  store float %r1, ptr addrspace(3) %self, align 4
  br label %j1

j1:
  call void @llvm.nvvm.barrier0()
  %c2 = icmp ult i32 %tid, 32
  br i1 %c2, label %t2, label %j2

t2:
  %o2 = add nuw nsw i32 %tid, 32
  %ox2 = zext i32 %o2 to i64
  %op2 = getelementptr inbounds [256 x float], ptr addrspace(3) @sum_f32.sh, i64 0, i64 %ox2
  %b2 = load float, ptr addrspace(3) %op2, align 4
  %a2 = load float, ptr addrspace(3) %self, align 4
  %r2 = fadd float %a2, %b2
  store float %r2, ptr addrspace(3) %self, align 4
  br label %j2

j2:
  call void @llvm.nvvm.barrier0()
  %c3 = icmp ult i32 %tid, 16
  br i1 %c3, label %t3, label %j3

t3:
  %o3 = add nuw nsw i32 %tid, 16
  %ox3 = zext i32 %o3 to i64
  %op3 = getelementptr inbounds [256 x float], ptr addrspace(3) @sum_f32.sh, i64 0, i64 %ox3
  %b3 = load float, ptr addrspace(3) %op3, align 4
  %a3 = load float, ptr addrspace(3) %self, align 4
  %r3 = fadd float %a3, %b3
  store float %r3, ptr addrspace(3) %self, align 4
  br label %j3

j3:
  call void @llvm.nvvm.barrier0()
  %c4 = icmp ult i32 %tid, 8
  br i1 %c4, label %t4, label %j4

t4:
  %o4 = add nuw nsw i32 %tid, 8
  %ox4 = zext i32 %o4 to i64
  %op4 = getelementptr inbounds [256 x float], ptr addrspace(3) @sum_f32.sh, i64 0, i64 %ox4
  %b4 = load float, ptr addrspace(3) %op4, align 4
  %a4 = load float, ptr addrspace(3) %self, align 4
  %r4 = fadd float %a4, %b4
  store float %r4, ptr addrspace(3) %self, align 4
  br label %j4

j4:
  call void @llvm.nvvm.barrier0()
  %c5 = icmp ult i32 %tid, 4
  br i1 %c5, label %t5, label %j5

t5:
  %o5 = add nuw nsw i32 %tid, 4
  %ox5 = zext i32 %o5 to i64
  %op5 = getelementptr inbounds [256 x float], ptr addrspace(3) @sum_f32.sh, i64 0, i64 %ox5
  %b5 = load float, ptr addrspace(3) %op5, align 4
  %a5 = load float, ptr addrspace(3) %self, align 4
  %r5 = fadd float %a5, %b5
  store float %r5, ptr addrspace(3) %self, align 4
  br label %j5

j5:
  call void @llvm.nvvm.barrier0()
  %c6 = icmp ult i32 %tid, 2
  br i1 %c6, label %t6, label %j6

t6:
  %o6 = add nuw nsw i32 %tid, 2
  %ox6 = zext i32 %o6 to i64
  %op6 = getelementptr inbounds [256 x float], ptr addrspace(3) @sum_f32.sh, i64 0, i64 %ox6
  %b6 = load float, ptr addrspace(3) %op6, align 4
  %a6 = load float, ptr addrspace(3) %self, align 4
  %r6 = fadd float %a6, %b6
  store float %r6, ptr addrspace(3) %self, align 4
  br label %j6

j6:
  call void @llvm.nvvm.barrier0()
  %c7 = icmp ult i32 %tid, 1
  br i1 %c7, label %t7, label %j7

t7:
  %o7 = add nuw nsw i32 %tid, 1
  %ox7 = zext i32 %o7 to i64
  %op7 = getelementptr inbounds [256 x float], ptr addrspace(3) @sum_f32.sh, i64 0, i64 %ox7
  %b7 = load float, ptr addrspace(3) %op7, align 4
  %a7 = load float, ptr addrspace(3) %self, align 4
  %r7 = fadd float %a7, %b7
  store float %r7, ptr addrspace(3) %self, align 4
  br label %j7

j7:
  call void @llvm.nvvm.barrier0()
  %is0 = icmp eq i32 %tid, 0
  br i1 %is0, label %first, label %done

first:
  %res = load float, ptr addrspace(3) @sum_f32.sh, align 4
  store float %res, ptr %out, align 4
  br label %done

done:
  ret void
}

; Integers: one redux.sync on sm_80 and later; on sm_70 shuffles, in the
; tree's order (so the adds keep their nsw).
; I32: redux.sync: integers, each of the 32 elements combined once by one associative and commutative operation
; I32-LABEL: define void @sum_i32(
; I32: %ks.shfl.x = load i32, ptr addrspace(3) %ks.shfl.p, align 4
; I32-NEXT: [[R:%.*]] = call i32 @llvm.nvvm.redux.sync.add(i32 %ks.shfl.x, i32 -1)
; I32-NEXT: store i32 [[R]], ptr addrspace(3) %ks.shfl.p, align 4
; I32-NOT: shfl.sync
; I32-70: shfl.sync.down: lane 0 combines the same operands in the same order as the tree
; I32-70-LABEL: define void @sum_i32(
; I32-70: [[S1:%.*]] = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %ks.shfl.x, i32 16, i32 31)
; I32-70-NEXT: add nsw i32 %ks.shfl.x, [[S1]]
; I32-70-NOT: redux
@sum_i32.sh = internal addrspace(3) global [256 x i32] undef, align 4
define void @sum_i32(ptr %x, ptr %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %tx = zext i32 %tid to i64
  %self = getelementptr inbounds [256 x i32], ptr addrspace(3) @sum_i32.sh, i64 0, i64 %tx
  %xp = getelementptr inbounds i32, ptr %x, i64 %tx
  %v = load i32, ptr %xp, align 4
  store i32 %v, ptr addrspace(3) %self, align 4
  call void @llvm.nvvm.barrier0()
  %c0 = icmp ult i32 %tid, 128
  br i1 %c0, label %t0, label %j0

t0:
  %o0 = add nuw nsw i32 %tid, 128
  %ox0 = zext i32 %o0 to i64
  %op0 = getelementptr inbounds [256 x i32], ptr addrspace(3) @sum_i32.sh, i64 0, i64 %ox0
  %b0 = load i32, ptr addrspace(3) %op0, align 4
  %a0 = load i32, ptr addrspace(3) %self, align 4
  %r0 = add nsw i32 %a0, %b0
  store i32 %r0, ptr addrspace(3) %self, align 4
  br label %j0

j0:
  call void @llvm.nvvm.barrier0()
  %c1 = icmp ult i32 %tid, 64
  br i1 %c1, label %t1, label %j1

t1:
  %o1 = add nuw nsw i32 %tid, 64
  %ox1 = zext i32 %o1 to i64
  %op1 = getelementptr inbounds [256 x i32], ptr addrspace(3) @sum_i32.sh, i64 0, i64 %ox1
  %b1 = load i32, ptr addrspace(3) %op1, align 4
  %a1 = load i32, ptr addrspace(3) %self, align 4
  %r1 = add nsw i32 %a1, %b1
  store i32 %r1, ptr addrspace(3) %self, align 4
  br label %j1

j1:
  call void @llvm.nvvm.barrier0()
  %c2 = icmp ult i32 %tid, 32
  br i1 %c2, label %t2, label %j2

t2:
  %o2 = add nuw nsw i32 %tid, 32
  %ox2 = zext i32 %o2 to i64
  %op2 = getelementptr inbounds [256 x i32], ptr addrspace(3) @sum_i32.sh, i64 0, i64 %ox2
  %b2 = load i32, ptr addrspace(3) %op2, align 4
  %a2 = load i32, ptr addrspace(3) %self, align 4
  %r2 = add nsw i32 %a2, %b2
  store i32 %r2, ptr addrspace(3) %self, align 4
  br label %j2

j2:
  call void @llvm.nvvm.barrier0()
  %c3 = icmp ult i32 %tid, 16
  br i1 %c3, label %t3, label %j3

t3:
  %o3 = add nuw nsw i32 %tid, 16
  %ox3 = zext i32 %o3 to i64
  %op3 = getelementptr inbounds [256 x i32], ptr addrspace(3) @sum_i32.sh, i64 0, i64 %ox3
  %b3 = load i32, ptr addrspace(3) %op3, align 4
  %a3 = load i32, ptr addrspace(3) %self, align 4
  %r3 = add nsw i32 %a3, %b3
  store i32 %r3, ptr addrspace(3) %self, align 4
  br label %j3

j3:
  call void @llvm.nvvm.barrier0()
  %c4 = icmp ult i32 %tid, 8
  br i1 %c4, label %t4, label %j4

t4:
  %o4 = add nuw nsw i32 %tid, 8
  %ox4 = zext i32 %o4 to i64
  %op4 = getelementptr inbounds [256 x i32], ptr addrspace(3) @sum_i32.sh, i64 0, i64 %ox4
  %b4 = load i32, ptr addrspace(3) %op4, align 4
  %a4 = load i32, ptr addrspace(3) %self, align 4
  %r4 = add nsw i32 %a4, %b4
  store i32 %r4, ptr addrspace(3) %self, align 4
  br label %j4

j4:
  call void @llvm.nvvm.barrier0()
  %c5 = icmp ult i32 %tid, 4
  br i1 %c5, label %t5, label %j5

t5:
  %o5 = add nuw nsw i32 %tid, 4
  %ox5 = zext i32 %o5 to i64
  %op5 = getelementptr inbounds [256 x i32], ptr addrspace(3) @sum_i32.sh, i64 0, i64 %ox5
  %b5 = load i32, ptr addrspace(3) %op5, align 4
  %a5 = load i32, ptr addrspace(3) %self, align 4
  %r5 = add nsw i32 %a5, %b5
  store i32 %r5, ptr addrspace(3) %self, align 4
  br label %j5

j5:
  call void @llvm.nvvm.barrier0()
  %c6 = icmp ult i32 %tid, 2
  br i1 %c6, label %t6, label %j6

t6:
  %o6 = add nuw nsw i32 %tid, 2
  %ox6 = zext i32 %o6 to i64
  %op6 = getelementptr inbounds [256 x i32], ptr addrspace(3) @sum_i32.sh, i64 0, i64 %ox6
  %b6 = load i32, ptr addrspace(3) %op6, align 4
  %a6 = load i32, ptr addrspace(3) %self, align 4
  %r6 = add nsw i32 %a6, %b6
  store i32 %r6, ptr addrspace(3) %self, align 4
  br label %j6

j6:
  call void @llvm.nvvm.barrier0()
  %c7 = icmp ult i32 %tid, 1
  br i1 %c7, label %t7, label %j7

t7:
  %o7 = add nuw nsw i32 %tid, 1
  %ox7 = zext i32 %o7 to i64
  %op7 = getelementptr inbounds [256 x i32], ptr addrspace(3) @sum_i32.sh, i64 0, i64 %ox7
  %b7 = load i32, ptr addrspace(3) %op7, align 4
  %a7 = load i32, ptr addrspace(3) %self, align 4
  %r7 = add nsw i32 %a7, %b7
  store i32 %r7, ptr addrspace(3) %self, align 4
  br label %j7

j7:
  call void @llvm.nvvm.barrier0()
  %is0 = icmp eq i32 %tid, 0
  br i1 %is0, label %first, label %done

first:
  %res = load i32, ptr addrspace(3) @sum_i32.sh, align 4
  store i32 %res, ptr %out, align 4
  br label %done

done:
  ret void
}

; 64-bit values shuffle as their two halves; max has no redux.sync for
; 64 bits.
; I64: max_i64.sh: the tree's last 5 steps (strides 16, 8, 4, 2, 1) in the first warp by shfl.sync.down
; I64-LABEL: define void @max_i64(
; I64: %ks.shfl.x = load i64, ptr addrspace(3) %ks.shfl.p, align 8
; I64-NEXT: [[LO:%.*]] = trunc i64 %ks.shfl.x to i32
; I64-NEXT: [[SLO:%.*]] = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 [[LO]], i32 16, i32 31)
; I64-NEXT: [[H:%.*]] = lshr i64 %ks.shfl.x, 32
; I64-NEXT: [[HI:%.*]] = trunc i64 [[H]] to i32
; I64-NEXT: [[SHI:%.*]] = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 [[HI]], i32 16, i32 31)
; I64: [[Y:%.*]] = or i64
; I64-NEXT: call i64 @llvm.smax.i64(i64 %ks.shfl.x, i64 [[Y]])
; I64-COUNT-8: shfl.sync.down.i32
@max_i64.sh = internal addrspace(3) global [256 x i64] undef, align 8
define void @max_i64(ptr %x, ptr %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %tx = zext i32 %tid to i64
  %self = getelementptr inbounds [256 x i64], ptr addrspace(3) @max_i64.sh, i64 0, i64 %tx
  %xp = getelementptr inbounds i64, ptr %x, i64 %tx
  %v = load i64, ptr %xp, align 8
  store i64 %v, ptr addrspace(3) %self, align 8
  call void @llvm.nvvm.barrier0()
  %c0 = icmp ult i32 %tid, 128
  br i1 %c0, label %t0, label %j0

t0:
  %o0 = add nuw nsw i32 %tid, 128
  %ox0 = zext i32 %o0 to i64
  %op0 = getelementptr inbounds [256 x i64], ptr addrspace(3) @max_i64.sh, i64 0, i64 %ox0
  %b0 = load i64, ptr addrspace(3) %op0, align 8
  %a0 = load i64, ptr addrspace(3) %self, align 8
  %r0 = call i64 @llvm.smax.i64(i64 %a0, i64 %b0)
  store i64 %r0, ptr addrspace(3) %self, align 8
  br label %j0

j0:
  call void @llvm.nvvm.barrier0()
  %c1 = icmp ult i32 %tid, 64
  br i1 %c1, label %t1, label %j1

t1:
  %o1 = add nuw nsw i32 %tid, 64
  %ox1 = zext i32 %o1 to i64
  %op1 = getelementptr inbounds [256 x i64], ptr addrspace(3) @max_i64.sh, i64 0, i64 %ox1
  %b1 = load i64, ptr addrspace(3) %op1, align 8
  %a1 = load i64, ptr addrspace(3) %self, align 8
  %r1 = call i64 @llvm.smax.i64(i64 %a1, i64 %b1)
  store i64 %r1, ptr addrspace(3) %self, align 8
  br label %j1

j1:
  call void @llvm.nvvm.barrier0()
  %c2 = icmp ult i32 %tid, 32
  br i1 %c2, label %t2, label %j2

t2:
  %o2 = add nuw nsw i32 %tid, 32
  %ox2 = zext i32 %o2 to i64
  %op2 = getelementptr inbounds [256 x i64], ptr addrspace(3) @max_i64.sh, i64 0, i64 %ox2
  %b2 = load i64, ptr addrspace(3) %op2, align 8
  %a2 = load i64, ptr addrspace(3) %self, align 8
  %r2 = call i64 @llvm.smax.i64(i64 %a2, i64 %b2)
  store i64 %r2, ptr addrspace(3) %self, align 8
  br label %j2

j2:
  call void @llvm.nvvm.barrier0()
  %c3 = icmp ult i32 %tid, 16
  br i1 %c3, label %t3, label %j3

t3:
  %o3 = add nuw nsw i32 %tid, 16
  %ox3 = zext i32 %o3 to i64
  %op3 = getelementptr inbounds [256 x i64], ptr addrspace(3) @max_i64.sh, i64 0, i64 %ox3
  %b3 = load i64, ptr addrspace(3) %op3, align 8
  %a3 = load i64, ptr addrspace(3) %self, align 8
  %r3 = call i64 @llvm.smax.i64(i64 %a3, i64 %b3)
  store i64 %r3, ptr addrspace(3) %self, align 8
  br label %j3

j3:
  call void @llvm.nvvm.barrier0()
  %c4 = icmp ult i32 %tid, 8
  br i1 %c4, label %t4, label %j4

t4:
  %o4 = add nuw nsw i32 %tid, 8
  %ox4 = zext i32 %o4 to i64
  %op4 = getelementptr inbounds [256 x i64], ptr addrspace(3) @max_i64.sh, i64 0, i64 %ox4
  %b4 = load i64, ptr addrspace(3) %op4, align 8
  %a4 = load i64, ptr addrspace(3) %self, align 8
  %r4 = call i64 @llvm.smax.i64(i64 %a4, i64 %b4)
  store i64 %r4, ptr addrspace(3) %self, align 8
  br label %j4

j4:
  call void @llvm.nvvm.barrier0()
  %c5 = icmp ult i32 %tid, 4
  br i1 %c5, label %t5, label %j5

t5:
  %o5 = add nuw nsw i32 %tid, 4
  %ox5 = zext i32 %o5 to i64
  %op5 = getelementptr inbounds [256 x i64], ptr addrspace(3) @max_i64.sh, i64 0, i64 %ox5
  %b5 = load i64, ptr addrspace(3) %op5, align 8
  %a5 = load i64, ptr addrspace(3) %self, align 8
  %r5 = call i64 @llvm.smax.i64(i64 %a5, i64 %b5)
  store i64 %r5, ptr addrspace(3) %self, align 8
  br label %j5

j5:
  call void @llvm.nvvm.barrier0()
  %c6 = icmp ult i32 %tid, 2
  br i1 %c6, label %t6, label %j6

t6:
  %o6 = add nuw nsw i32 %tid, 2
  %ox6 = zext i32 %o6 to i64
  %op6 = getelementptr inbounds [256 x i64], ptr addrspace(3) @max_i64.sh, i64 0, i64 %ox6
  %b6 = load i64, ptr addrspace(3) %op6, align 8
  %a6 = load i64, ptr addrspace(3) %self, align 8
  %r6 = call i64 @llvm.smax.i64(i64 %a6, i64 %b6)
  store i64 %r6, ptr addrspace(3) %self, align 8
  br label %j6

j6:
  call void @llvm.nvvm.barrier0()
  %c7 = icmp ult i32 %tid, 1
  br i1 %c7, label %t7, label %j7

t7:
  %o7 = add nuw nsw i32 %tid, 1
  %ox7 = zext i32 %o7 to i64
  %op7 = getelementptr inbounds [256 x i64], ptr addrspace(3) @max_i64.sh, i64 0, i64 %ox7
  %b7 = load i64, ptr addrspace(3) %op7, align 8
  %a7 = load i64, ptr addrspace(3) %self, align 8
  %r7 = call i64 @llvm.smax.i64(i64 %a7, i64 %b7)
  store i64 %r7, ptr addrspace(3) %self, align 8
  br label %j7

j7:
  call void @llvm.nvvm.barrier0()
  %is0 = icmp eq i32 %tid, 0
  br i1 %is0, label %first, label %done

first:
  %res = load i64, ptr addrspace(3) @max_i64.sh, align 8
  store i64 %res, ptr %out, align 8
  br label %done

done:
  ret void
}

; The operands in the step's order: maxnum(other, self).
; F64: max_f64.sh: the tree's last 5 steps (strides 16, 8, 4, 2, 1) in the first warp by shfl.sync.down: lane 0 combines the same operands in the same order as the tree
; F64-LABEL: define void @max_f64(
; F64: [[Y:%.*]] = bitcast i64 {{.*}} to double
; F64-NEXT: call double @llvm.maxnum.f64(double [[Y]], double %ks.shfl.x)
@max_f64.sh = internal addrspace(3) global [256 x double] undef, align 8
define void @max_f64(ptr %x, ptr %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %tx = zext i32 %tid to i64
  %self = getelementptr inbounds [256 x double], ptr addrspace(3) @max_f64.sh, i64 0, i64 %tx
  %xp = getelementptr inbounds double, ptr %x, i64 %tx
  %v = load double, ptr %xp, align 8
  store double %v, ptr addrspace(3) %self, align 8
  call void @llvm.nvvm.barrier0()
  %c0 = icmp ult i32 %tid, 128
  br i1 %c0, label %t0, label %j0

t0:
  %o0 = add nuw nsw i32 %tid, 128
  %ox0 = zext i32 %o0 to i64
  %op0 = getelementptr inbounds [256 x double], ptr addrspace(3) @max_f64.sh, i64 0, i64 %ox0
  %b0 = load double, ptr addrspace(3) %op0, align 8
  %a0 = load double, ptr addrspace(3) %self, align 8
  %r0 = call double @llvm.maxnum.f64(double %b0, double %a0)
  store double %r0, ptr addrspace(3) %self, align 8
  br label %j0

j0:
  call void @llvm.nvvm.barrier0()
  %c1 = icmp ult i32 %tid, 64
  br i1 %c1, label %t1, label %j1

t1:
  %o1 = add nuw nsw i32 %tid, 64
  %ox1 = zext i32 %o1 to i64
  %op1 = getelementptr inbounds [256 x double], ptr addrspace(3) @max_f64.sh, i64 0, i64 %ox1
  %b1 = load double, ptr addrspace(3) %op1, align 8
  %a1 = load double, ptr addrspace(3) %self, align 8
  %r1 = call double @llvm.maxnum.f64(double %b1, double %a1)
  store double %r1, ptr addrspace(3) %self, align 8
  br label %j1

j1:
  call void @llvm.nvvm.barrier0()
  %c2 = icmp ult i32 %tid, 32
  br i1 %c2, label %t2, label %j2

t2:
  %o2 = add nuw nsw i32 %tid, 32
  %ox2 = zext i32 %o2 to i64
  %op2 = getelementptr inbounds [256 x double], ptr addrspace(3) @max_f64.sh, i64 0, i64 %ox2
  %b2 = load double, ptr addrspace(3) %op2, align 8
  %a2 = load double, ptr addrspace(3) %self, align 8
  %r2 = call double @llvm.maxnum.f64(double %b2, double %a2)
  store double %r2, ptr addrspace(3) %self, align 8
  br label %j2

j2:
  call void @llvm.nvvm.barrier0()
  %c3 = icmp ult i32 %tid, 16
  br i1 %c3, label %t3, label %j3

t3:
  %o3 = add nuw nsw i32 %tid, 16
  %ox3 = zext i32 %o3 to i64
  %op3 = getelementptr inbounds [256 x double], ptr addrspace(3) @max_f64.sh, i64 0, i64 %ox3
  %b3 = load double, ptr addrspace(3) %op3, align 8
  %a3 = load double, ptr addrspace(3) %self, align 8
  %r3 = call double @llvm.maxnum.f64(double %b3, double %a3)
  store double %r3, ptr addrspace(3) %self, align 8
  br label %j3

j3:
  call void @llvm.nvvm.barrier0()
  %c4 = icmp ult i32 %tid, 8
  br i1 %c4, label %t4, label %j4

t4:
  %o4 = add nuw nsw i32 %tid, 8
  %ox4 = zext i32 %o4 to i64
  %op4 = getelementptr inbounds [256 x double], ptr addrspace(3) @max_f64.sh, i64 0, i64 %ox4
  %b4 = load double, ptr addrspace(3) %op4, align 8
  %a4 = load double, ptr addrspace(3) %self, align 8
  %r4 = call double @llvm.maxnum.f64(double %b4, double %a4)
  store double %r4, ptr addrspace(3) %self, align 8
  br label %j4

j4:
  call void @llvm.nvvm.barrier0()
  %c5 = icmp ult i32 %tid, 4
  br i1 %c5, label %t5, label %j5

t5:
  %o5 = add nuw nsw i32 %tid, 4
  %ox5 = zext i32 %o5 to i64
  %op5 = getelementptr inbounds [256 x double], ptr addrspace(3) @max_f64.sh, i64 0, i64 %ox5
  %b5 = load double, ptr addrspace(3) %op5, align 8
  %a5 = load double, ptr addrspace(3) %self, align 8
  %r5 = call double @llvm.maxnum.f64(double %b5, double %a5)
  store double %r5, ptr addrspace(3) %self, align 8
  br label %j5

j5:
  call void @llvm.nvvm.barrier0()
  %c6 = icmp ult i32 %tid, 2
  br i1 %c6, label %t6, label %j6

t6:
  %o6 = add nuw nsw i32 %tid, 2
  %ox6 = zext i32 %o6 to i64
  %op6 = getelementptr inbounds [256 x double], ptr addrspace(3) @max_f64.sh, i64 0, i64 %ox6
  %b6 = load double, ptr addrspace(3) %op6, align 8
  %a6 = load double, ptr addrspace(3) %self, align 8
  %r6 = call double @llvm.maxnum.f64(double %b6, double %a6)
  store double %r6, ptr addrspace(3) %self, align 8
  br label %j6

j6:
  call void @llvm.nvvm.barrier0()
  %c7 = icmp ult i32 %tid, 1
  br i1 %c7, label %t7, label %j7

t7:
  %o7 = add nuw nsw i32 %tid, 1
  %ox7 = zext i32 %o7 to i64
  %op7 = getelementptr inbounds [256 x double], ptr addrspace(3) @max_f64.sh, i64 0, i64 %ox7
  %b7 = load double, ptr addrspace(3) %op7, align 8
  %a7 = load double, ptr addrspace(3) %self, align 8
  %r7 = call double @llvm.maxnum.f64(double %b7, double %a7)
  store double %r7, ptr addrspace(3) %self, align 8
  br label %j7

j7:
  call void @llvm.nvvm.barrier0()
  %is0 = icmp eq i32 %tid, 0
  br i1 %is0, label %first, label %done

first:
  %res = load double, ptr addrspace(3) @max_f64.sh, align 8
  store double %res, ptr %out, align 8
  br label %done

done:
  ret void
}

; Interleaved addressing, strides 1, 2, 4, 8, 16 where tid % (2s) == 0:
; shuffles down by 1, 2, 4, 8 and 16 give lane 0 the same sums.
; ASC: asc_f32.sh: the tree's last 5 steps (strides 1, 2, 4, 8, 16) in the first warp by shfl.sync.down: lane 0 combines the same operands in the same order as the tree
; ASC-LABEL: define void @asc_f32(
; ASC: shfl.sync.down.f32(i32 -1, float %ks.shfl.x, i32 1, i32 31)
; ASC: shfl.sync.down.f32(i32 -1, float {{.*}}, i32 2, i32 31)
; ASC: shfl.sync.down.f32(i32 -1, float {{.*}}, i32 4, i32 31)
; ASC: shfl.sync.down.f32(i32 -1, float {{.*}}, i32 8, i32 31)
; ASC: shfl.sync.down.f32(i32 -1, float {{.*}}, i32 16, i32 31)
@asc_f32.sh = internal addrspace(3) global [64 x float] undef, align 4
define void @asc_f32(ptr %x, ptr %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %tx = zext i32 %tid to i64
  %self = getelementptr inbounds [64 x float], ptr addrspace(3) @asc_f32.sh, i64 0, i64 %tx
  %xp = getelementptr inbounds float, ptr %x, i64 %tx
  %v = load float, ptr %xp, align 4
  store float %v, ptr addrspace(3) %self, align 4
  call void @llvm.nvvm.barrier0()
  %m0 = and i32 %tid, 1
  %lt0 = icmp ult i32 %tid, 32
  %z0 = icmp eq i32 %m0, 0
  %c0 = and i1 %lt0, %z0
  br i1 %c0, label %t0, label %j0

t0:
  %o0 = add nuw nsw i32 %tid, 1
  %ox0 = zext i32 %o0 to i64
  %op0 = getelementptr inbounds [64 x float], ptr addrspace(3) @asc_f32.sh, i64 0, i64 %ox0
  %b0 = load float, ptr addrspace(3) %op0, align 4
  %a0 = load float, ptr addrspace(3) %self, align 4
  %r0 = fadd float %a0, %b0
  store float %r0, ptr addrspace(3) %self, align 4
  br label %j0

j0:
  call void @llvm.nvvm.barrier0()
  %m1 = and i32 %tid, 3
  %lt1 = icmp ult i32 %tid, 32
  %z1 = icmp eq i32 %m1, 0
  %c1 = and i1 %lt1, %z1
  br i1 %c1, label %t1, label %j1

t1:
  %o1 = add nuw nsw i32 %tid, 2
  %ox1 = zext i32 %o1 to i64
  %op1 = getelementptr inbounds [64 x float], ptr addrspace(3) @asc_f32.sh, i64 0, i64 %ox1
  %b1 = load float, ptr addrspace(3) %op1, align 4
  %a1 = load float, ptr addrspace(3) %self, align 4
  %r1 = fadd float %a1, %b1
  store float %r1, ptr addrspace(3) %self, align 4
  br label %j1

j1:
  call void @llvm.nvvm.barrier0()
  %m2 = and i32 %tid, 7
  %lt2 = icmp ult i32 %tid, 32
  %z2 = icmp eq i32 %m2, 0
  %c2 = and i1 %lt2, %z2
  br i1 %c2, label %t2, label %j2

t2:
  %o2 = add nuw nsw i32 %tid, 4
  %ox2 = zext i32 %o2 to i64
  %op2 = getelementptr inbounds [64 x float], ptr addrspace(3) @asc_f32.sh, i64 0, i64 %ox2
  %b2 = load float, ptr addrspace(3) %op2, align 4
  %a2 = load float, ptr addrspace(3) %self, align 4
  %r2 = fadd float %a2, %b2
  store float %r2, ptr addrspace(3) %self, align 4
  br label %j2

j2:
  call void @llvm.nvvm.barrier0()
  %m3 = and i32 %tid, 15
  %lt3 = icmp ult i32 %tid, 32
  %z3 = icmp eq i32 %m3, 0
  %c3 = and i1 %lt3, %z3
  br i1 %c3, label %t3, label %j3

t3:
  %o3 = add nuw nsw i32 %tid, 8
  %ox3 = zext i32 %o3 to i64
  %op3 = getelementptr inbounds [64 x float], ptr addrspace(3) @asc_f32.sh, i64 0, i64 %ox3
  %b3 = load float, ptr addrspace(3) %op3, align 4
  %a3 = load float, ptr addrspace(3) %self, align 4
  %r3 = fadd float %a3, %b3
  store float %r3, ptr addrspace(3) %self, align 4
  br label %j3

j3:
  call void @llvm.nvvm.barrier0()
  %m4 = and i32 %tid, 31
  %lt4 = icmp ult i32 %tid, 32
  %z4 = icmp eq i32 %m4, 0
  %c4 = and i1 %lt4, %z4
  br i1 %c4, label %t4, label %j4

t4:
  %o4 = add nuw nsw i32 %tid, 16
  %ox4 = zext i32 %o4 to i64
  %op4 = getelementptr inbounds [64 x float], ptr addrspace(3) @asc_f32.sh, i64 0, i64 %ox4
  %b4 = load float, ptr addrspace(3) %op4, align 4
  %a4 = load float, ptr addrspace(3) %self, align 4
  %r4 = fadd float %a4, %b4
  store float %r4, ptr addrspace(3) %self, align 4
  br label %j4

j4:
  call void @llvm.nvvm.barrier0()
  %is0 = icmp eq i32 %tid, 0
  br i1 %is0, label %first, label %done

first:
  %res = load float, ptr addrspace(3) @asc_f32.sh, align 4
  store float %res, ptr %out, align 4
  br label %done

done:
  ret void
}

; Every thread reads sh[0] afterwards: the barrier after the steps stays.
; BCAST: 4 barriers gone; 10 shared loads and 5 stores became one load and one store (the barrier after them stays: the array is used before the next)
; BCAST-LABEL: define void @bcast(
; BCAST: store float {{.*}}, ptr addrspace(3) %ks.shfl.p
; BCAST-NEXT: br label %[[J:.*]]
; BCAST: [[J]]:
; BCAST-NEXT: call void @llvm.nvvm.barrier0()
; BCAST-NEXT: load float, ptr addrspace(3) @bcast.sh
@bcast.sh = internal addrspace(3) global [256 x float] undef, align 4
define void @bcast(ptr %x, ptr %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %tx = zext i32 %tid to i64
  %self = getelementptr inbounds [256 x float], ptr addrspace(3) @bcast.sh, i64 0, i64 %tx
  %xp = getelementptr inbounds float, ptr %x, i64 %tx
  %v = load float, ptr %xp, align 4
  store float %v, ptr addrspace(3) %self, align 4
  call void @llvm.nvvm.barrier0()
  %c0 = icmp ult i32 %tid, 128
  br i1 %c0, label %t0, label %j0

t0:
  %o0 = add nuw nsw i32 %tid, 128
  %ox0 = zext i32 %o0 to i64
  %op0 = getelementptr inbounds [256 x float], ptr addrspace(3) @bcast.sh, i64 0, i64 %ox0
  %b0 = load float, ptr addrspace(3) %op0, align 4
  %a0 = load float, ptr addrspace(3) %self, align 4
  %r0 = fadd float %a0, %b0
  store float %r0, ptr addrspace(3) %self, align 4
  br label %j0

j0:
  call void @llvm.nvvm.barrier0()
  %c1 = icmp ult i32 %tid, 64
  br i1 %c1, label %t1, label %j1

t1:
  %o1 = add nuw nsw i32 %tid, 64
  %ox1 = zext i32 %o1 to i64
  %op1 = getelementptr inbounds [256 x float], ptr addrspace(3) @bcast.sh, i64 0, i64 %ox1
  %b1 = load float, ptr addrspace(3) %op1, align 4
  %a1 = load float, ptr addrspace(3) %self, align 4
  %r1 = fadd float %a1, %b1
  store float %r1, ptr addrspace(3) %self, align 4
  br label %j1

j1:
  call void @llvm.nvvm.barrier0()
  %c2 = icmp ult i32 %tid, 32
  br i1 %c2, label %t2, label %j2

t2:
  %o2 = add nuw nsw i32 %tid, 32
  %ox2 = zext i32 %o2 to i64
  %op2 = getelementptr inbounds [256 x float], ptr addrspace(3) @bcast.sh, i64 0, i64 %ox2
  %b2 = load float, ptr addrspace(3) %op2, align 4
  %a2 = load float, ptr addrspace(3) %self, align 4
  %r2 = fadd float %a2, %b2
  store float %r2, ptr addrspace(3) %self, align 4
  br label %j2

j2:
  call void @llvm.nvvm.barrier0()
  %c3 = icmp ult i32 %tid, 16
  br i1 %c3, label %t3, label %j3

t3:
  %o3 = add nuw nsw i32 %tid, 16
  %ox3 = zext i32 %o3 to i64
  %op3 = getelementptr inbounds [256 x float], ptr addrspace(3) @bcast.sh, i64 0, i64 %ox3
  %b3 = load float, ptr addrspace(3) %op3, align 4
  %a3 = load float, ptr addrspace(3) %self, align 4
  %r3 = fadd float %a3, %b3
  store float %r3, ptr addrspace(3) %self, align 4
  br label %j3

j3:
  call void @llvm.nvvm.barrier0()
  %c4 = icmp ult i32 %tid, 8
  br i1 %c4, label %t4, label %j4

t4:
  %o4 = add nuw nsw i32 %tid, 8
  %ox4 = zext i32 %o4 to i64
  %op4 = getelementptr inbounds [256 x float], ptr addrspace(3) @bcast.sh, i64 0, i64 %ox4
  %b4 = load float, ptr addrspace(3) %op4, align 4
  %a4 = load float, ptr addrspace(3) %self, align 4
  %r4 = fadd float %a4, %b4
  store float %r4, ptr addrspace(3) %self, align 4
  br label %j4

j4:
  call void @llvm.nvvm.barrier0()
  %c5 = icmp ult i32 %tid, 4
  br i1 %c5, label %t5, label %j5

t5:
  %o5 = add nuw nsw i32 %tid, 4
  %ox5 = zext i32 %o5 to i64
  %op5 = getelementptr inbounds [256 x float], ptr addrspace(3) @bcast.sh, i64 0, i64 %ox5
  %b5 = load float, ptr addrspace(3) %op5, align 4
  %a5 = load float, ptr addrspace(3) %self, align 4
  %r5 = fadd float %a5, %b5
  store float %r5, ptr addrspace(3) %self, align 4
  br label %j5

j5:
  call void @llvm.nvvm.barrier0()
  %c6 = icmp ult i32 %tid, 2
  br i1 %c6, label %t6, label %j6

t6:
  %o6 = add nuw nsw i32 %tid, 2
  %ox6 = zext i32 %o6 to i64
  %op6 = getelementptr inbounds [256 x float], ptr addrspace(3) @bcast.sh, i64 0, i64 %ox6
  %b6 = load float, ptr addrspace(3) %op6, align 4
  %a6 = load float, ptr addrspace(3) %self, align 4
  %r6 = fadd float %a6, %b6
  store float %r6, ptr addrspace(3) %self, align 4
  br label %j6

j6:
  call void @llvm.nvvm.barrier0()
  %c7 = icmp ult i32 %tid, 1
  br i1 %c7, label %t7, label %j7

t7:
  %o7 = add nuw nsw i32 %tid, 1
  %ox7 = zext i32 %o7 to i64
  %op7 = getelementptr inbounds [256 x float], ptr addrspace(3) @bcast.sh, i64 0, i64 %ox7
  %b7 = load float, ptr addrspace(3) %op7, align 4
  %a7 = load float, ptr addrspace(3) %self, align 4
  %r7 = fadd float %a7, %b7
  store float %r7, ptr addrspace(3) %self, align 4
  br label %j7

j7:
  call void @llvm.nvvm.barrier0()
  %res = load float, ptr addrspace(3) @bcast.sh, align 4
  %xo = getelementptr inbounds float, ptr %out, i64 %tx
  store float %res, ptr %xo, align 4
  ret void
}

; The warp-unrolled tail through a volatile pointer: the stride-32 step
; stays (it reads the second warp's elements), 16 .. 1 become shuffles.
; TAIL: ; explain: shfl: tail_f32.sh: the tree's last 5 steps (strides 16, 8, 4, 2, 1) in the first warp by shfl.sync.down: lane 0 combines the same operands in the same order as the tree; 10 shared loads and 5 stores became one load and one store
; TAIL-LABEL: define void @tail_f32(
; TAIL: warp:
; TAIL: load volatile float
; TAIL: load volatile float
; TAIL: store volatile float
; TAIL-NOT: volatile
; TAIL: %ks.shfl.x = load float, ptr addrspace(3) %ks.shfl.p
; TAIL-COUNT-5: call float @llvm.nvvm.shfl.sync.down.f32
; TAIL-NOT: volatile
; TAIL: store float {{.*}}, ptr addrspace(3) %ks.shfl.p
; TAIL-NEXT: br label %after
; TAILI: tail_i32.sh: the tree's last 5 steps (strides 16, 8, 4, 2, 1) in the first warp by redux.sync
; TAILI-LABEL: define void @tail_i32(
; TAILI: store volatile i32
; TAILI-NOT: volatile
; TAILI: call i32 @llvm.nvvm.redux.sync.add(i32 %ks.shfl.x, i32 -1)
@tail_f32.sh = internal addrspace(3) global [256 x float] undef, align 4
define void @tail_f32(ptr %x, ptr %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %tx = zext i32 %tid to i64
  %self = getelementptr inbounds [256 x float], ptr addrspace(3) @tail_f32.sh, i64 0, i64 %tx
  %xp = getelementptr inbounds float, ptr %x, i64 %tx
  %v = load float, ptr %xp, align 4
  store float %v, ptr addrspace(3) %self, align 4
  call void @llvm.nvvm.barrier0()
  %c0 = icmp ult i32 %tid, 128
  br i1 %c0, label %t0, label %j0

t0:
  %o0 = add nuw nsw i32 %tid, 128
  %ox0 = zext i32 %o0 to i64
  %op0 = getelementptr inbounds [256 x float], ptr addrspace(3) @tail_f32.sh, i64 0, i64 %ox0
  %b0 = load float, ptr addrspace(3) %op0, align 4
  %a0 = load float, ptr addrspace(3) %self, align 4
  %r0 = fadd float %a0, %b0
  store float %r0, ptr addrspace(3) %self, align 4
  br label %j0

j0:
  call void @llvm.nvvm.barrier0()
  %c1 = icmp ult i32 %tid, 64
  br i1 %c1, label %t1, label %j1

t1:
  %o1 = add nuw nsw i32 %tid, 64
  %ox1 = zext i32 %o1 to i64
  %op1 = getelementptr inbounds [256 x float], ptr addrspace(3) @tail_f32.sh, i64 0, i64 %ox1
  %b1 = load float, ptr addrspace(3) %op1, align 4
  %a1 = load float, ptr addrspace(3) %self, align 4
  %r1 = fadd float %a1, %b1
  store float %r1, ptr addrspace(3) %self, align 4
  br label %j1

j1:
  call void @llvm.nvvm.barrier0()
  %w = icmp ult i32 %tid, 32
  br i1 %w, label %warp, label %after

warp:
  %wo0 = add nuw nsw i32 %tid, 32
  %wx0 = zext i32 %wo0 to i64
  %wp0 = getelementptr inbounds [256 x float], ptr addrspace(3) @tail_f32.sh, i64 0, i64 %wx0
  %wb0 = load volatile float, ptr addrspace(3) %wp0, align 4
  %wa0 = load volatile float, ptr addrspace(3) %self, align 4
  %wr0 = fadd float %wa0, %wb0
  store volatile float %wr0, ptr addrspace(3) %self, align 4
  %wo1 = add nuw nsw i32 %tid, 16
  %wx1 = zext i32 %wo1 to i64
  %wp1 = getelementptr inbounds [256 x float], ptr addrspace(3) @tail_f32.sh, i64 0, i64 %wx1
  %wb1 = load volatile float, ptr addrspace(3) %wp1, align 4
  %wa1 = load volatile float, ptr addrspace(3) %self, align 4
  %wr1 = fadd float %wa1, %wb1
  store volatile float %wr1, ptr addrspace(3) %self, align 4
  %wo2 = add nuw nsw i32 %tid, 8
  %wx2 = zext i32 %wo2 to i64
  %wp2 = getelementptr inbounds [256 x float], ptr addrspace(3) @tail_f32.sh, i64 0, i64 %wx2
  %wb2 = load volatile float, ptr addrspace(3) %wp2, align 4
  %wa2 = load volatile float, ptr addrspace(3) %self, align 4
  %wr2 = fadd float %wa2, %wb2
  store volatile float %wr2, ptr addrspace(3) %self, align 4
  %wo3 = add nuw nsw i32 %tid, 4
  %wx3 = zext i32 %wo3 to i64
  %wp3 = getelementptr inbounds [256 x float], ptr addrspace(3) @tail_f32.sh, i64 0, i64 %wx3
  %wb3 = load volatile float, ptr addrspace(3) %wp3, align 4
  %wa3 = load volatile float, ptr addrspace(3) %self, align 4
  %wr3 = fadd float %wa3, %wb3
  store volatile float %wr3, ptr addrspace(3) %self, align 4
  %wo4 = add nuw nsw i32 %tid, 2
  %wx4 = zext i32 %wo4 to i64
  %wp4 = getelementptr inbounds [256 x float], ptr addrspace(3) @tail_f32.sh, i64 0, i64 %wx4
  %wb4 = load volatile float, ptr addrspace(3) %wp4, align 4
  %wa4 = load volatile float, ptr addrspace(3) %self, align 4
  %wr4 = fadd float %wa4, %wb4
  store volatile float %wr4, ptr addrspace(3) %self, align 4
  %wo5 = add nuw nsw i32 %tid, 1
  %wx5 = zext i32 %wo5 to i64
  %wp5 = getelementptr inbounds [256 x float], ptr addrspace(3) @tail_f32.sh, i64 0, i64 %wx5
  %wb5 = load volatile float, ptr addrspace(3) %wp5, align 4
  %wa5 = load volatile float, ptr addrspace(3) %self, align 4
  %wr5 = fadd float %wa5, %wb5
  store volatile float %wr5, ptr addrspace(3) %self, align 4
  br label %after

after:
  %is0 = icmp eq i32 %tid, 0
  br i1 %is0, label %first, label %done

first:
  %res = load float, ptr addrspace(3) @tail_f32.sh, align 4
  store float %res, ptr %out, align 4
  br label %done

done:
  ret void
}

@tail_i32.sh = internal addrspace(3) global [256 x i32] undef, align 4
define void @tail_i32(ptr %x, ptr %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %tx = zext i32 %tid to i64
  %self = getelementptr inbounds [256 x i32], ptr addrspace(3) @tail_i32.sh, i64 0, i64 %tx
  %xp = getelementptr inbounds i32, ptr %x, i64 %tx
  %v = load i32, ptr %xp, align 4
  store i32 %v, ptr addrspace(3) %self, align 4
  call void @llvm.nvvm.barrier0()
  %c0 = icmp ult i32 %tid, 128
  br i1 %c0, label %t0, label %j0

t0:
  %o0 = add nuw nsw i32 %tid, 128
  %ox0 = zext i32 %o0 to i64
  %op0 = getelementptr inbounds [256 x i32], ptr addrspace(3) @tail_i32.sh, i64 0, i64 %ox0
  %b0 = load i32, ptr addrspace(3) %op0, align 4
  %a0 = load i32, ptr addrspace(3) %self, align 4
  %r0 = add i32 %a0, %b0
  store i32 %r0, ptr addrspace(3) %self, align 4
  br label %j0

j0:
  call void @llvm.nvvm.barrier0()
  %c1 = icmp ult i32 %tid, 64
  br i1 %c1, label %t1, label %j1

t1:
  %o1 = add nuw nsw i32 %tid, 64
  %ox1 = zext i32 %o1 to i64
  %op1 = getelementptr inbounds [256 x i32], ptr addrspace(3) @tail_i32.sh, i64 0, i64 %ox1
  %b1 = load i32, ptr addrspace(3) %op1, align 4
  %a1 = load i32, ptr addrspace(3) %self, align 4
  %r1 = add i32 %a1, %b1
  store i32 %r1, ptr addrspace(3) %self, align 4
  br label %j1

j1:
  call void @llvm.nvvm.barrier0()
  %w = icmp ult i32 %tid, 32
  br i1 %w, label %warp, label %after

warp:
  %wo0 = add nuw nsw i32 %tid, 32
  %wx0 = zext i32 %wo0 to i64
  %wp0 = getelementptr inbounds [256 x i32], ptr addrspace(3) @tail_i32.sh, i64 0, i64 %wx0
  %wb0 = load volatile i32, ptr addrspace(3) %wp0, align 4
  %wa0 = load volatile i32, ptr addrspace(3) %self, align 4
  %wr0 = add i32 %wa0, %wb0
  store volatile i32 %wr0, ptr addrspace(3) %self, align 4
  %wo1 = add nuw nsw i32 %tid, 16
  %wx1 = zext i32 %wo1 to i64
  %wp1 = getelementptr inbounds [256 x i32], ptr addrspace(3) @tail_i32.sh, i64 0, i64 %wx1
  %wb1 = load volatile i32, ptr addrspace(3) %wp1, align 4
  %wa1 = load volatile i32, ptr addrspace(3) %self, align 4
  %wr1 = add i32 %wa1, %wb1
  store volatile i32 %wr1, ptr addrspace(3) %self, align 4
  %wo2 = add nuw nsw i32 %tid, 8
  %wx2 = zext i32 %wo2 to i64
  %wp2 = getelementptr inbounds [256 x i32], ptr addrspace(3) @tail_i32.sh, i64 0, i64 %wx2
  %wb2 = load volatile i32, ptr addrspace(3) %wp2, align 4
  %wa2 = load volatile i32, ptr addrspace(3) %self, align 4
  %wr2 = add i32 %wa2, %wb2
  store volatile i32 %wr2, ptr addrspace(3) %self, align 4
  %wo3 = add nuw nsw i32 %tid, 4
  %wx3 = zext i32 %wo3 to i64
  %wp3 = getelementptr inbounds [256 x i32], ptr addrspace(3) @tail_i32.sh, i64 0, i64 %wx3
  %wb3 = load volatile i32, ptr addrspace(3) %wp3, align 4
  %wa3 = load volatile i32, ptr addrspace(3) %self, align 4
  %wr3 = add i32 %wa3, %wb3
  store volatile i32 %wr3, ptr addrspace(3) %self, align 4
  %wo4 = add nuw nsw i32 %tid, 2
  %wx4 = zext i32 %wo4 to i64
  %wp4 = getelementptr inbounds [256 x i32], ptr addrspace(3) @tail_i32.sh, i64 0, i64 %wx4
  %wb4 = load volatile i32, ptr addrspace(3) %wp4, align 4
  %wa4 = load volatile i32, ptr addrspace(3) %self, align 4
  %wr4 = add i32 %wa4, %wb4
  store volatile i32 %wr4, ptr addrspace(3) %self, align 4
  %wo5 = add nuw nsw i32 %tid, 1
  %wx5 = zext i32 %wo5 to i64
  %wp5 = getelementptr inbounds [256 x i32], ptr addrspace(3) @tail_i32.sh, i64 0, i64 %wx5
  %wb5 = load volatile i32, ptr addrspace(3) %wp5, align 4
  %wa5 = load volatile i32, ptr addrspace(3) %self, align 4
  %wr5 = add i32 %wa5, %wb5
  store volatile i32 %wr5, ptr addrspace(3) %self, align 4
  br label %after

after:
  %is0 = icmp eq i32 %tid, 0
  br i1 %is0, label %first, label %done

first:
  %res = load i32, ptr addrspace(3) @tail_i32.sh, align 4
  store i32 %res, ptr %out, align 4
  br label %done

done:
  ret void
}

; The stride-16 step in two halves (threads 0-7, then 8-15): lane 0 adds
; sh[8] + sh[24], which shuffles cannot give it, but for integers the
; order does not matter (shfl_declines.ll: the same with floats).
; SPLIT: split_i32.sh: the tree's last 6 steps (strides 16, 16, 8, 4, 2, 1) in the first warp by redux.sync: integers
; SPLIT-LABEL: define void @split_i32(
; SPLIT: call i32 @llvm.nvvm.redux.sync.add(
@split_i32.sh = internal addrspace(3) global [32 x i32] undef, align 4
define void @split_i32(ptr %x, ptr %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %tx = zext i32 %tid to i64
  %self = getelementptr inbounds [32 x i32], ptr addrspace(3) @split_i32.sh, i64 0, i64 %tx
  %xp = getelementptr inbounds i32, ptr %x, i64 %tx
  %v = load i32, ptr %xp, align 4
  store i32 %v, ptr addrspace(3) %self, align 4
  call void @llvm.nvvm.barrier0()
  %c0 = icmp ult i32 %tid, 8
  br i1 %c0, label %t0, label %j0

t0:
  %o0 = add nuw nsw i32 %tid, 16
  %ox0 = zext i32 %o0 to i64
  %op0 = getelementptr inbounds [32 x i32], ptr addrspace(3) @split_i32.sh, i64 0, i64 %ox0
  %b0 = load i32, ptr addrspace(3) %op0, align 4
  %a0 = load i32, ptr addrspace(3) %self, align 4
  %r0 = add i32 %a0, %b0
  store i32 %r0, ptr addrspace(3) %self, align 4
  br label %j0

j0:
  call void @llvm.nvvm.barrier0()
  %h1 = add i32 %tid, -8
  %c1 = icmp ult i32 %h1, 8
  br i1 %c1, label %t1, label %j1

t1:
  %o1 = add nuw nsw i32 %tid, 16
  %ox1 = zext i32 %o1 to i64
  %op1 = getelementptr inbounds [32 x i32], ptr addrspace(3) @split_i32.sh, i64 0, i64 %ox1
  %b1 = load i32, ptr addrspace(3) %op1, align 4
  %a1 = load i32, ptr addrspace(3) %self, align 4
  %r1 = add i32 %a1, %b1
  store i32 %r1, ptr addrspace(3) %self, align 4
  br label %j1

j1:
  call void @llvm.nvvm.barrier0()
  %c2 = icmp ult i32 %tid, 8
  br i1 %c2, label %t2, label %j2

t2:
  %o2 = add nuw nsw i32 %tid, 8
  %ox2 = zext i32 %o2 to i64
  %op2 = getelementptr inbounds [32 x i32], ptr addrspace(3) @split_i32.sh, i64 0, i64 %ox2
  %b2 = load i32, ptr addrspace(3) %op2, align 4
  %a2 = load i32, ptr addrspace(3) %self, align 4
  %r2 = add i32 %a2, %b2
  store i32 %r2, ptr addrspace(3) %self, align 4
  br label %j2

j2:
  call void @llvm.nvvm.barrier0()
  %c3 = icmp ult i32 %tid, 4
  br i1 %c3, label %t3, label %j3

t3:
  %o3 = add nuw nsw i32 %tid, 4
  %ox3 = zext i32 %o3 to i64
  %op3 = getelementptr inbounds [32 x i32], ptr addrspace(3) @split_i32.sh, i64 0, i64 %ox3
  %b3 = load i32, ptr addrspace(3) %op3, align 4
  %a3 = load i32, ptr addrspace(3) %self, align 4
  %r3 = add i32 %a3, %b3
  store i32 %r3, ptr addrspace(3) %self, align 4
  br label %j3

j3:
  call void @llvm.nvvm.barrier0()
  %c4 = icmp ult i32 %tid, 2
  br i1 %c4, label %t4, label %j4

t4:
  %o4 = add nuw nsw i32 %tid, 2
  %ox4 = zext i32 %o4 to i64
  %op4 = getelementptr inbounds [32 x i32], ptr addrspace(3) @split_i32.sh, i64 0, i64 %ox4
  %b4 = load i32, ptr addrspace(3) %op4, align 4
  %a4 = load i32, ptr addrspace(3) %self, align 4
  %r4 = add i32 %a4, %b4
  store i32 %r4, ptr addrspace(3) %self, align 4
  br label %j4

j4:
  call void @llvm.nvvm.barrier0()
  %c5 = icmp ult i32 %tid, 1
  br i1 %c5, label %t5, label %j5

t5:
  %o5 = add nuw nsw i32 %tid, 1
  %ox5 = zext i32 %o5 to i64
  %op5 = getelementptr inbounds [32 x i32], ptr addrspace(3) @split_i32.sh, i64 0, i64 %ox5
  %b5 = load i32, ptr addrspace(3) %op5, align 4
  %a5 = load i32, ptr addrspace(3) %self, align 4
  %r5 = add i32 %a5, %b5
  store i32 %r5, ptr addrspace(3) %self, align 4
  br label %j5

j5:
  call void @llvm.nvvm.barrier0()
  %is0 = icmp eq i32 %tid, 0
  br i1 %is0, label %first, label %done

first:
  %res = load i32, ptr addrspace(3) @split_i32.sh, align 4
  store i32 %res, ptr %out, align 4
  br label %done

done:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()
declare i64 @llvm.smax.i64(i64, i64)
declare double @llvm.maxnum.f64(double, double)
declare void @keep(ptr addrspace(3))
