; Private arrays out of local memory (smem_promote): an array indexed by
; data stays an alloca after unrolling and SROA; with a fixed block it
; becomes the thread's slice of one shared array, slices an odd number of
; words apart (64 B -> 68 B). A 2-D block gets the linear thread index. An
; array whose indices unrolling made constant becomes registers instead
; (SROA). With no fixed block but maxntid, maxntid slices and the block's
; shape read from %ntid. Kept in local memory: neither a block nor
; maxntid, an index not bounded,
; an array whose address escapes to a call or to memory, slices over the
; budget.
;
; RUN: ks_passes_tool --kernel modes --stage smem_promote --block 256 %s | FileCheck %s --check-prefix=MODES
; RUN: ks_passes_tool --kernel modes --stage smem_promote --block 32,4 %s | FileCheck %s --check-prefix=TWOD
; RUN: ks_passes_tool --kernel modes --stage smem_promote %s | FileCheck %s --check-prefix=NOTFIXED
; RUN: ks_passes_tool --kernel modes --stage smem_promote --maxntid 128 %s | FileCheck %s --check-prefix=MAXNTID
; RUN: ks_passes_tool --kernel modes --stage smem_promote --block 256 --no-pass smem_promote %s | FileCheck %s --check-prefix=OFF
; RUN: ks_passes_tool --kernel consts --stage smem_promote --block 256 %s | FileCheck %s --check-prefix=CONSTS
; RUN: ks_passes_tool --kernel unbounded --stage smem_promote --block 256 %s | FileCheck %s --check-prefix=UNBOUNDED
; RUN: ks_passes_tool --kernel escapes --stage smem_promote --block 256 %s | FileCheck %s --check-prefix=ESCAPES
; RUN: ks_passes_tool --kernel stored --stage smem_promote --block 256 %s | FileCheck %s --check-prefix=STORED
; RUN: ks_passes_tool --kernel big --stage smem_promote --block 1024 %s | FileCheck %s --check-prefix=BIG
; RUN: ks_passes_tool --kernel marked --stage smem_promote --block 256 %s | FileCheck %s --check-prefix=MARKED
; RUN: ks_passes_tool --kernel huge --stage smem_promote --block 32 %s | FileCheck %s --check-prefix=HUGE

target triple = "nvptx64-nvidia-cuda"

; MODES: ; explain: smem_promote: moved %count from local to shared memory: 64 B per thread in slices of 68 B x 256 threads = 17408 B
; MODES: @ks_local_0 = internal addrspace(3) global [17408 x i8] undef, align 4
; MODES-LABEL: define void @modes(
; MODES: [[TID:%.*]] = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; MODES: [[BYTES:%.*]] = mul nuw i32 [[TID]], 68
; MODES: [[P:%.*]] = getelementptr inbounds i8, ptr addrspace(3) @ks_local_0, i32 [[BYTES]]
; MODES: %count = addrspacecast ptr addrspace(3) [[P]] to ptr
; MODES-NOT: alloca
; MODES-NOT: llvm.lifetime
; MODES: call void @llvm.memset.p0.i64(ptr {{.*}}%count, i8 0, i64 64, i1 false)
; MODES: ret void
; 32 x 4 threads: tid.x + 32 * tid.y, 128 slices
; TWOD: ; explain: smem_promote: moved %count from local to shared memory: 64 B per thread in slices of 68 B x 128 threads = 8704 B
; TWOD: [[Y:%.*]] = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
; TWOD: [[Y32:%.*]] = mul nuw i32 32, [[Y]]
; TWOD: %ks.ltid = add nuw i32 %{{.*}}, [[Y32]]
; TWOD: mul nuw i32 %ks.ltid, 68
; NOTFIXED: ; explain: smem_promote: kept %count in local memory: the block's threads are not bounded (--block or --maxntid)
; NOTFIXED: alloca [16 x i32]
; at most 128 threads, the block's shape read at run time
; MAXNTID: ; explain: smem_promote: moved %count from local to shared memory: 64 B per thread in slices of 68 B x 128 threads = 8704 B
; MAXNTID: [[NX:%.*]] = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
; MAXNTID: [[NY:%.*]] = call i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
; MAXNTID: [[Z:%.*]] = call i32 @llvm.nvvm.read.ptx.sreg.tid.z()
; MAXNTID: mul nuw i32 [[NY]], [[Z]]
; MAXNTID: %ks.ltid = add nuw i32
; MAXNTID: mul nuw i32 %ks.ltid, 68
; OFF-NOT: ks_local
; OFF: alloca [16 x i32]
define void @modes(ptr %x, ptr %out, i32 %n) {
entry:
  %count = alloca [16 x i32], align 4
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  call void @llvm.lifetime.start.p0(i64 64, ptr %count)
  call void @llvm.memset.p0.i64(ptr %count, i8 0, i64 64, i1 false)
  br label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %loop ]
  %e = mul i32 %k, %n
  %e1 = add i32 %e, %tid
  %e64 = zext i32 %e1 to i64
  %px = getelementptr inbounds i8, ptr %x, i64 %e64
  %v = load i8, ptr %px, align 1
  %b = and i8 %v, 15
  %b64 = zext i8 %b to i64
  %pc = getelementptr inbounds [16 x i32], ptr %count, i64 0, i64 %b64
  %c = load i32, ptr %pc, align 4
  %c1 = add i32 %c, 1
  store i32 %c1, ptr %pc, align 4
  %k1 = add i32 %k, 1
  %more = icmp slt i32 %k1, %n
  br i1 %more, label %loop, label %done
done:
  %p3 = getelementptr inbounds [16 x i32], ptr %count, i64 0, i64 3
  %r = load i32, ptr %p3, align 4
  %t64 = zext i32 %tid to i64
  %po = getelementptr inbounds i32, ptr %out, i64 %t64
  store i32 %r, ptr %po, align 4
  call void @llvm.lifetime.end.p0(i64 64, ptr %count)
  ret void
}

; Constant indices after unrolling: SROA makes registers of them.
; CONSTS-NOT: kept
; CONSTS-NOT: ks_local
; CONSTS-LABEL: define void @consts(
; CONSTS-NOT: alloca
; CONSTS: ret void
define void @consts(ptr %out, float %a) {
entry:
  %arr = alloca [4 x float], align 4
  br label %fill
fill:
  %i = phi i32 [ 0, %entry ], [ %i1, %fill ]
  %f = sitofp i32 %i to float
  %v = fmul float %f, %a
  %i64 = zext i32 %i to i64
  %p = getelementptr inbounds [4 x float], ptr %arr, i64 0, i64 %i64
  store float %v, ptr %p, align 4
  %i1 = add nuw nsw i32 %i, 1
  %more = icmp ult i32 %i1, 4
  br i1 %more, label %fill, label %done, !llvm.loop !0
done:
  %p2 = getelementptr inbounds [4 x float], ptr %arr, i64 0, i64 2
  %r = load float, ptr %p2, align 4
  store float %r, ptr %out, align 4
  ret void
}

; An index loaded from memory may be anything.
; UNBOUNDED: ; explain: smem_promote: kept %arr in local memory: an index is not bounded
; UNBOUNDED: alloca [16 x i32]
define void @unbounded(ptr %idx, ptr %out) {
entry:
  %arr = alloca [16 x i32], align 4
  %i = load i32, ptr %idx, align 4
  %i64 = sext i32 %i to i64
  %p = getelementptr inbounds [16 x i32], ptr %arr, i64 0, i64 %i64
  store i32 1, ptr %p, align 4
  %r = load i32, ptr %arr, align 4
  store i32 %r, ptr %out, align 4
  ret void
}

; The address goes to a call: another function (or thread) could use it.
; ESCAPES: ; explain: smem_promote: kept %arr in local memory: it is used other than by loads, stores, atomics and memsets
; ESCAPES: alloca [16 x i32]
define void @escapes(ptr %idx, ptr %out) {
entry:
  %arr = alloca [16 x i32], align 4
  %i = load i32, ptr %idx, align 4
  %b = and i32 %i, 15
  %i64 = zext i32 %b to i64
  %p = getelementptr inbounds [16 x i32], ptr %arr, i64 0, i64 %i64
  store i32 1, ptr %p, align 4
  call void @sink(ptr %arr)
  %r = load i32, ptr %arr, align 4
  store i32 %r, ptr %out, align 4
  ret void
}

; The address is stored to global memory.
; STORED: ; explain: smem_promote: kept %arr in local memory: it is used other than by loads, stores, atomics and memsets
; STORED: alloca [16 x i32]
define void @stored(ptr %idx, ptr %out, ptr %where) {
entry:
  %arr = alloca [16 x i32], align 4
  %i = load i32, ptr %idx, align 4
  %b = and i32 %i, 15
  %i64 = zext i32 %b to i64
  %p = getelementptr inbounds [16 x i32], ptr %arr, i64 0, i64 %i64
  store i32 1, ptr %p, align 4
  store ptr %arr, ptr %where, align 8
  %r = load i32, ptr %arr, align 4
  store i32 %r, ptr %out, align 4
  ret void
}

; 64 B a thread x 1024 threads is over the 32 KiB budget.
; BIG: ; explain: smem_promote: kept %arr in local memory: its slices for the block would not fit in the shared-memory budget
; BIG: alloca [16 x i32]
define void @big(ptr %idx, ptr %out) {
entry:
  %arr = alloca [16 x i32], align 4
  %i = load i32, ptr %idx, align 4
  %b = and i32 %i, 15
  %i64 = zext i32 %b to i64
  %p = getelementptr inbounds [16 x i32], ptr %arr, i64 0, i64 %i64
  store i32 1, ptr %p, align 4
  %r = load i32, ptr %arr, align 4
  store i32 %r, ptr %out, align 4
  ret void
}

; A lifetime marker on a pointer into the array, not on the alloca itself:
; not an access the pass knows (it would be left on shared memory).
; MARKED: ; explain: smem_promote: kept %arr in local memory: it is used other than by loads, stores, atomics and memsets
; MARKED: alloca [16 x i32]
define void @marked(ptr %idx, ptr %out) {
entry:
  %arr = alloca [16 x i32], align 4
  %half = getelementptr inbounds [16 x i32], ptr %arr, i64 0, i64 8
  call void @llvm.lifetime.start.p0(i64 32, ptr %half)
  %i = load i32, ptr %idx, align 4
  %b = and i32 %i, 15
  %i64 = zext i32 %b to i64
  %p = getelementptr inbounds [16 x i32], ptr %arr, i64 0, i64 %i64
  store i32 1, ptr %p, align 4
  %r = load i32, ptr %arr, align 4
  store i32 %r, ptr %out, align 4
  ret void
}

; 2^40 elements (SROA makes them one array type): over the budget.
; HUGE: ; explain: smem_promote: kept %arr{{[0-9]*}} in local memory: its size is 0 or over the shared-memory budget
; HUGE-LABEL: define void @huge(
; HUGE: alloca [1099511627776 x i32]
define void @huge(ptr %idx, ptr %out) {
entry:
  %arr = alloca i32, i64 1099511627776, align 4
  %i = load i32, ptr %idx, align 4
  %b = and i32 %i, 15
  %i64 = zext i32 %b to i64
  %p = getelementptr inbounds i32, ptr %arr, i64 %i64
  store i32 1, ptr %p, align 4
  %r = load i32, ptr %arr, align 4
  store i32 %r, ptr %out, align 4
  ret void
}

declare void @sink(ptr)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.lifetime.start.p0(i64, ptr)
declare void @llvm.lifetime.end.p0(i64, ptr)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

!nvvm.annotations = !{!1, !2, !3, !4, !5, !6, !8, !9}
!0 = distinct !{!0, !7}
!1 = !{ptr @modes, !"kernel", i32 1}
!2 = !{ptr @consts, !"kernel", i32 1}
!3 = !{ptr @unbounded, !"kernel", i32 1}
!4 = !{ptr @escapes, !"kernel", i32 1}
!5 = !{ptr @stored, !"kernel", i32 1}
!6 = !{ptr @big, !"kernel", i32 1}
!7 = !{!"llvm.loop.unroll.full"}
!8 = !{ptr @marked, !"kernel", i32 1}
!9 = !{ptr @huge, !"kernel", i32 1}
