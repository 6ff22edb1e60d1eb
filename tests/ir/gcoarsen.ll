; Grid coarsening: a kernel whose blocks only add into global memory runs
; 16 blocks of the user's grid per real block (8 for blocks over 256
; threads): the region that computes the per-thread value from %ctaid.x
; becomes a loop over the virtual blocks ctaid*C + j below the hidden
; grid.x parameter, summing; the tree and the atomic run once.
;
; RUN: ks_passes_tool --stage gcoarsen --kernel reduce --block 256 %s | FileCheck %s --check-prefix=RED
; RUN: ks_passes_tool --stage gcoarsen --kernel reduce --block 512 %s | FileCheck %s --check-prefix=BIG
; RUN: ks_passes_tool --stage all --kernel reduce --block 256 %s | FileCheck %s --check-prefix=ALL
; RUN: ks_passes_tool --stage gcoarsen --kernel reduce %s | FileCheck %s --check-prefix=NOTFIXED
; RUN: ks_passes_tool --stage gcoarsen --kernel reduce --block 256 --no-pass gcoarsen %s | FileCheck %s --check-prefix=OFF
; RUN: ks_passes_tool --stage gcoarsen --kernel direct --block 128 %s | FileCheck %s --check-prefix=DIRECT
; RUN: ks_passes_tool --stage gcoarsen --kernel icount --block 256 %s | FileCheck %s --check-prefix=INT
; RUN: ks_passes_tool --stage gcoarsen --kernel shfl --block 32 %s | FileCheck %s --check-prefix=SHFL
; RUN: ks_passes_tool --stage gcoarsen --kernel masked --block 256 %s | FileCheck %s --check-prefix=MASKED
; RUN: ks_passes_tool --stage gcoarsen --kernel divided --block 256 %s | FileCheck %s --check-prefix=DIVIDED
; RUN: ks_passes_tool --stage gcoarsen --kernel skipping --block 256 %s | FileCheck %s --check-prefix=SKIP
; RUN: ks_passes_tool --stage gcoarsen --kernel backward --block 64 %s | FileCheck %s --check-prefix=BACK
; RUN: ks_passes_tool --stage gcoarsen --kernel squared --block 64 %s | FileCheck %s --check-prefix=SQUARED

target triple = "nvptx64-nvidia-cuda"

@sh = internal addrspace(3) global [1024 x float] undef, align 4
@ish = internal addrspace(3) global [256 x i32] undef, align 4

; RED: ; explain: gcoarsen: coarsened the grid by 16: each block sums %v ({{[0-9]+}} instructions from %ctaid.x on) for 16 consecutive blocks of the user's grid
; RED-SAME: the float additions' order changes, as the blocks' atomics already leave it open; the region's branch condition is checked for the whole group first, and where it holds for all its blocks they run without the branch; that loop stays rolled, its loads reading through pointers that move by a fixed step
; RED-LABEL: define void @reduce(ptr %x, ptr %out, i32 %n, i32 %ks.grid_x)
; RED: %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
; the whole group of 16 in the grid: first a loop (kept rolled) that
; evaluates the region's guard i < n for each of the 16 blocks
; RED: ks.gc.head:
; RED: %ks.gc.first = mul i32 %bid, 16
; RED-NEXT: %ks.gc.last = add i32 %ks.gc.first, 15
; RED-NEXT: %ks.gc.full = icmp ult i32 %ks.gc.last, %ks.grid_x
; RED-NEXT: br i1 %ks.gc.full, label %ks.gc.check, label %ks.gc.slow
; the fast loop's load walks: block vb reads x[vb*256 + tid], 256 floats
; on from block vb - 1's, where the group's 32-bit indices do not wrap:
; the first block's index at most INT_MAX - 15*256, else the checked loop
; RED: ks.gc.fast:
; RED-NEXT: %ks.gc.vb0 = mul i32 %bid, 16
; RED-NEXT: %[[B0:.*]] = shl i32 %ks.gc.vb0, 8
; RED-NEXT: %[[I0:.*]] = add i32 %[[B0]], %tid
; RED-NEXT: %ks.gc.nowrap = icmp sle i32 %[[I0]], 2147479807
; RED-NEXT: %ks.gc.i0 = sext i32 %[[I0]] to i64
; RED-NEXT: %ks.gc.p0 = getelementptr float, ptr %x, i64 %ks.gc.i0
; RED-NEXT: br i1 %ks.gc.nowrap, label %ks.gc.loop, label %ks.gc.slow
; RED: ks.gc.slow:
; RED-NEXT: br label %ks.gc.edge
; RED: ks.gc.check:
; RED-NEXT: %ks.gc.j = phi i32 [ 0, %ks.gc.head ], [ %ks.gc.j.next, %ks.gc.check ]
; RED-NEXT: %ks.gc.ok = phi i1 [ true, %ks.gc.head ], [ %ks.gc.ok.next, %ks.gc.check ]
; RED-NEXT: %[[VB0:ks.gc.vb0[0-9]*]] = mul i32 %bid, 16
; RED-NEXT: %ks.gc.vb = add i32 %[[VB0]], %ks.gc.j
; RED-NEXT: %[[B:.*]] = shl i32 %ks.gc.vb, 8
; RED-NEXT: %[[I:.*]] = add i32 %[[B]], %tid
; RED-NEXT: %[[IN:.*]] = icmp slt i32 %[[I]], %n
; RED-NEXT: %ks.gc.ok.next = and i1 %ks.gc.ok, %[[IN]]
; RED-NOT: load
; RED: br i1 %ks.gc.more, label %ks.gc.check, label %ks.gc.checked, !llvm.loop ![[ROLLED:[0-9]+]]
; RED: ks.gc.checked:
; RED-NEXT: br i1 %ks.gc.ok.next, label %ks.gc.fast, label %ks.gc.slow
; where it holds for all 16, the loop without either check: the region
; for block vb with its branch taken, its load through the pointer; the
; loop stays rolled
; RED: ks.gc.loop:
; RED-NEXT: %ks.gc.j{{[0-9]+}} = phi i32 [ 0, %ks.gc.fast ],
; RED-NEXT: %ks.gc.acc = phi float [ 0.000000e+00, %ks.gc.fast ],
; RED-NEXT: %ks.gc.p = phi ptr [ %ks.gc.p0, %ks.gc.fast ], [ %ks.gc.p.next, %ks.gc.loop.next ]
; RED: ks.gc.loop.r:
; RED: shl i32 %ks.gc.vb{{[0-9]+}}, 8
; RED: br i1 true, label %ks.gc.loop.r.t, label %ks.gc.loop.r.end
; RED: ks.gc.loop.r.t:
; RED: load float, ptr %ks.gc.p, align 4
; RED: ks.gc.loop.r.end:
; RED-NEXT: %ks.gc.phi = phi float [ %{{.*}}, %ks.gc.loop.r.t ], [ 0.000000e+00, %ks.gc.loop.r ]
; RED-NEXT: %ks.gc.sum = fadd float %ks.gc.acc, %ks.gc.phi
; RED: ks.gc.loop.next:
; RED: %ks.gc.p.next = getelementptr i8, ptr %ks.gc.p, i64 1024
; RED-NEXT: %ks.gc.j.next{{[0-9]+}} = add nuw i32 %ks.gc.j{{[0-9]+}}, 1
; RED-NEXT: %ks.gc.more{{[0-9]+}} = icmp ult i32 %ks.gc.j.next{{[0-9]+}}, 16
; RED-NEXT: br i1 %ks.gc.more{{[0-9]+}}, label %ks.gc.loop, label %ks.gc.join, !llvm.loop ![[FAST:[0-9]+]]
; the last group: virtual blocks from grid.x on are skipped
; RED: ks.gc.edge:
; RED: %[[VB:.*]] = add i32 %{{.*}}, %{{.*}}
; RED-NEXT: %ks.gc.in = icmp ult i32 %[[VB]], %ks.grid_x
; RED-NEXT: br i1 %ks.gc.in, label %ks.gc.edge.r, label %ks.gc.edge.next
; RED: br i1 %{{.*}}, label %ks.gc.edge.r.t, label %ks.gc.edge.r.end
; RED: ks.gc.edge.r.t:
; RED: load float
; RED: ks.gc.edge.next:
; RED-NEXT: %[[EDGE:.*]] = phi float [ %{{.*}}, %ks.gc.edge.r.end ], [ %{{.*}}, %ks.gc.edge ]
; RED: ks.gc.join:
; RED-NEXT: %ks.gc.total = phi float [ %ks.gc.acc.next, %ks.gc.loop.next ], [ %[[EDGE]], %ks.gc.edge.next ]
; the sum goes where the value went; the tree and the atomic once
; RED: store float %ks.gc.total, ptr addrspace(3)
; RED: call void @llvm.nvvm.barrier0()
; RED: atomicrmw fadd ptr %out
; RED-NOT: atomicrmw
; RED: ret void
; RED: ![[ROLLED]] = distinct !{![[ROLLED]], ![[NOUNROLL:[0-9]+]]}
; RED: ![[NOUNROLL]] = !{!"llvm.loop.unroll.disable"}
; RED: ![[FAST]] = distinct !{![[FAST]], ![[NOUNROLL]]}

; BIG: ; explain: gcoarsen: coarsened the grid by 8:
; BIG: %ks.gc.vb0 = mul i32 %bid, 8

; After the whole pipeline the kernel keeps its annotations and the hidden
; parameter, and reads %ctaid.x once.
; ALL: ; explain: gcoarsen: coarsened the grid by 16
; ALL-LABEL: define void @reduce(
; ALL-SAME: i32 {{.*}}%ks.grid_x)
; ALL-COUNT-1: call {{.*}}i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
; ALL-NOT: call {{.*}}i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
; The whole group in the grid and inside the guard: one load a block,
; through a pointer that moves by 256 floats, in a loop that stays rolled
; (ptxas unrolls it, its 16 loads in flight, at constant offsets); the
; guard's loop and the checked loop stay rolled too (llvm.loop.unroll.disable).
; ALL: ks.gc.fast:
; ALL: %ks.gc.p0 = getelementptr float, ptr %x, i64
; ALL: ks.gc.check:
; ALL: br i1 %ks.gc.more, label %ks.gc.check, label %ks.gc.checked, !llvm.loop ![[L:[0-9]+]]
; ALL: {{^}}ks.gc.loop:
; ALL: %ks.gc.p = phi ptr [ %ks.gc.p0, %ks.gc.fast ], [ %ks.gc.p.next, %ks.gc.loop ]
; ALL-NEXT: load float, ptr %ks.gc.p, align 4
; ALL-NOT: load
; ALL: %ks.gc.p.next = getelementptr i8, ptr %ks.gc.p, i64 1024
; ALL: br i1 %ks.gc.more{{[0-9]+}}, label %ks.gc.loop, {{.*}}!llvm.loop ![[L1:[0-9]+]]
; ALL: {{^}}ks.gc.edge.r.t:
; ALL: load float, ptr %ks.gc
; ALL: br i1 %ks.gc.more{{[0-9]*}}, label %ks.gc.edge, {{.*}}!llvm.loop ![[L2:[0-9]+]]
; ALL: atomicrmw fadd ptr %out
; ALL: !{ptr @reduce, !"reqntidx", i32 256}
; ALL: ![[L]] = distinct !{![[L]], ![[D:[0-9]+]]}
; ALL: ![[D]] = !{!"llvm.loop.unroll.disable"}
; ALL: ![[L1]] = distinct !{![[L1]], ![[D]]}
; ALL: ![[L2]] = distinct !{![[L2]], ![[D]]}

; NOTFIXED: ; explain: gcoarsen: declined reduce: block size not fixed
; NOTFIXED-LABEL: define void @reduce(ptr %x, ptr %out, i32 %n)
; OFF: ; explain: gcoarsen: switched off
; OFF-LABEL: define void @reduce(ptr %x, ptr %out, i32 %n)
; OFF-NOT: ks.gc

define void @reduce(ptr %x, ptr %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = shl i32 %bid, 8
  %i = add i32 %base, %tid
  %in = icmp slt i32 %i, %n
  br i1 %in, label %load, label %join
load:
  %ix = sext i32 %i to i64
  %p = getelementptr inbounds float, ptr %x, i64 %ix
  %xv = load float, ptr %p, align 4
  br label %join
join:
  %v = phi float [ %xv, %load ], [ 0.0, %entry ]
  %t64 = zext i32 %tid to i64
  %s = getelementptr inbounds [1024 x float], ptr addrspace(3) @sh, i64 0, i64 %t64
  store float %v, ptr addrspace(3) %s, align 4
  call void @llvm.nvvm.barrier0()
  %lo = icmp ult i32 %tid, 128
  br i1 %lo, label %add, label %sync
add:
  %o = add i32 %tid, 128
  %o64 = zext i32 %o to i64
  %q = getelementptr inbounds [1024 x float], ptr addrspace(3) @sh, i64 0, i64 %o64
  %a = load float, ptr addrspace(3) %q, align 4
  %b = load float, ptr addrspace(3) %s, align 4
  %sum = fadd float %a, %b
  store float %sum, ptr addrspace(3) %s, align 4
  br label %sync
sync:
  call void @llvm.nvvm.barrier0()
  %first = icmp eq i32 %tid, 0
  br i1 %first, label %atomic, label %done
atomic:
  %r = load float, ptr addrspace(3) @sh, align 4
  %old = atomicrmw fadd ptr %out, float %r seq_cst, align 4
  br label %done
done:
  ret void
}

; Straight-line: every thread adds its element (the grid covers x exactly).
; DIRECT: ; explain: gcoarsen: coarsened the grid by 16: each block sums %xv
; DIRECT-SAME: that loop stays rolled, its loads reading through pointers that move by a fixed step
; DIRECT-LABEL: define void @direct(ptr %x, ptr %out, i32 %ks.grid_x)
; DIRECT: ks.gc.head:
; DIRECT: br i1 %ks.gc.full, label %ks.gc.fast, label %ks.gc.slow
; x[zext(vb*128 + tid)]: unsigned, the first block's index at most
; UINT_MAX - 15*128
; DIRECT: ks.gc.fast:
; DIRECT: %ks.gc.nowrap = icmp ule i32 %{{.*}}, -1921
; DIRECT-NEXT: %ks.gc.i0 = zext i32 %{{.*}} to i64
; DIRECT: br i1 %ks.gc.nowrap, label %ks.gc.loop, label %ks.gc.slow
; DIRECT: ks.gc.loop.r:
; DIRECT: shl i32 %ks.gc.vb, 7
; DIRECT: load float
; DIRECT: %ks.gc.sum = fadd float %ks.gc.acc,
; DIRECT: br label %ks.gc.loop.next
; DIRECT: atomicrmw fadd ptr %out, float %ks.gc.total
define void @direct(ptr %x, ptr %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = shl i32 %bid, 7
  %i = add i32 %base, %tid
  %ix = zext i32 %i to i64
  %p = getelementptr inbounds float, ptr %x, i64 %ix
  %xv = load float, ptr %p, align 4
  %old = atomicrmw fadd ptr %out, float %xv monotonic, align 4
  ret void
}

; Integers: the sums are larger, so the tree's adds lose nsw/nuw.
; INT: ; explain: gcoarsen: coarsened the grid by 16
; INT-LABEL: define void @icount(
; INT: %ks.gc.sum = add i32 %ks.gc.acc,
; INT: %sum = add i32
; INT: atomicrmw add ptr %out
define void @icount(ptr %x, ptr %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = shl i32 %bid, 8
  %i = add i32 %base, %tid
  %ix = zext i32 %i to i64
  %p = getelementptr inbounds i32, ptr %x, i64 %ix
  %xv = load i32, ptr %p, align 4
  %t64 = zext i32 %tid to i64
  %s = getelementptr inbounds [256 x i32], ptr addrspace(3) @ish, i64 0, i64 %t64
  store i32 %xv, ptr addrspace(3) %s, align 4
  call void @llvm.nvvm.barrier0()
  %lo = icmp ult i32 %tid, 128
  br i1 %lo, label %add, label %sync
add:
  %o = add i32 %tid, 128
  %o64 = zext i32 %o to i64
  %q = getelementptr inbounds [256 x i32], ptr addrspace(3) @ish, i64 0, i64 %o64
  %a = load i32, ptr addrspace(3) %q, align 4
  %b = load i32, ptr addrspace(3) %s, align 4
  %sum = add nsw i32 %a, %b
  store i32 %sum, ptr addrspace(3) %s, align 4
  br label %sync
sync:
  call void @llvm.nvvm.barrier0()
  %first = icmp eq i32 %tid, 0
  br i1 %first, label %atomic, label %done
atomic:
  %r = load i32, ptr addrspace(3) @ish, align 4
  %old = atomicrmw add ptr %out, i32 %r monotonic, align 4
  br label %done
done:
  ret void
}

; A warp reduction by shuffles moves sums between lanes: still sums.
; SHFL: ; explain: gcoarsen: coarsened the grid by 16: each block sums %xv
; SHFL-LABEL: define void @shfl(
; SHFL: call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %ks.gc.total, i32 16, i32 31)
define void @shfl(ptr %x, ptr %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = shl i32 %bid, 5
  %i = add i32 %base, %tid
  %ix = zext i32 %i to i64
  %p = getelementptr inbounds float, ptr %x, i64 %ix
  %xv = load float, ptr %p, align 4
  %d16 = call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %xv, i32 16, i32 31)
  %s16 = fadd float %xv, %d16
  %first = icmp eq i32 %tid, 0
  br i1 %first, label %atomic, label %done
atomic:
  %old = atomicrmw fadd ptr %out, float %s16 monotonic, align 4
  br label %done
done:
  ret void
}

; A guard that depends on loaded data is not evaluated ahead of the loads:
; the whole group runs the region with its branch, as before.
; MASKED: ; explain: gcoarsen: coarsened the grid by 16
; MASKED-NOT: checked for the whole group
; copies with a branch of their own are left for the optimize stage to
; unroll: their loads do not walk
; MASKED-NOT: stays rolled
; MASKED: br i1 %ks.gc.full, label %ks.gc.loop, label %ks.gc.edge
; MASKED-NOT: ks.gc.check
; MASKED: ks.gc.loop.r:
; MASKED: load i8
; MASKED: br i1 %{{.*}}, label %ks.gc.loop.r{{.*}}, label %ks.gc.loop.r
define void @masked(ptr %x, ptr %mask, ptr %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = shl i32 %bid, 8
  %i = add i32 %base, %tid
  %ix = zext i32 %i to i64
  %mp = getelementptr inbounds i8, ptr %mask, i64 %ix
  %m = load i8, ptr %mp, align 1
  %on = icmp ne i8 %m, 0
  br i1 %on, label %load, label %join
load:
  %p = getelementptr inbounds float, ptr %x, i64 %ix
  %xv = load float, ptr %p, align 4
  br label %join
join:
  %v = phi float [ %xv, %load ], [ 0.0, %entry ]
  %old = atomicrmw fadd ptr %out, float %v monotonic, align 4
  ret void
}

; A guard that skips the work when true (one element, here): the group runs
; the arm where the guard is false for all its blocks.
; SKIP: ; explain: gcoarsen: coarsened the grid by 16
; SKIP-SAME: checked for the whole group first
; SKIP: ks.gc.check:
; SKIP: %[[OUT:.*]] = icmp eq i32 %{{.*}}, %n
; SKIP-NEXT: %ks.gc.skip = xor i1 %[[OUT]], true
; SKIP-NEXT: %ks.gc.ok.next = and i1 %ks.gc.ok, %ks.gc.skip
; SKIP: ks.gc.loop.r:
; SKIP: br i1 false, label %ks.gc.loop.r.end, label %ks.gc.loop.r.t
define void @skipping(ptr %x, ptr %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = shl i32 %bid, 8
  %i = add i32 %base, %tid
  %past = icmp eq i32 %i, %n
  br i1 %past, label %join, label %load
load:
  %ix = sext i32 %i to i64
  %p = getelementptr inbounds float, ptr %x, i64 %ix
  %xv = load float, ptr %p, align 4
  br label %join
join:
  %v = phi float [ %xv, %load ], [ 0.0, %entry ]
  %old = atomicrmw fadd ptr %out, float %v monotonic, align 4
  ret void
}

; Nor one that divides (by zero, for all the pass knows).
; DIVIDED: ; explain: gcoarsen: coarsened the grid by 16
; DIVIDED-NOT: checked for the whole group
; DIVIDED-NOT: stays rolled
; DIVIDED: br i1 %ks.gc.full, label %ks.gc.loop, label %ks.gc.edge
; DIVIDED-NOT: ks.gc.check
define void @divided(ptr %x, ptr %out, i32 %n, i32 %k) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = shl i32 %bid, 8
  %i = add i32 %base, %tid
  %q = udiv i32 %i, %k
  %in = icmp ult i32 %q, %n
  br i1 %in, label %load, label %join
load:
  %ix = zext i32 %i to i64
  %p = getelementptr inbounds float, ptr %x, i64 %ix
  %xv = load float, ptr %p, align 4
  br label %join
join:
  %v = phi float [ %xv, %load ], [ 0.0, %entry ]
  %old = atomicrmw fadd ptr %out, float %v monotonic, align 4
  ret void
}

; A load that walks down: x[sext(k - bid*64 - tid)], 64 floats back a
; block; no wrap where the first block's index is at least INT_MIN + 15*64.
; BACK: ; explain: gcoarsen: coarsened the grid by 16
; BACK-SAME: that loop stays rolled
; BACK: ks.gc.fast:
; BACK: %ks.gc.nowrap = icmp sge i32 %{{.*}}, -2147482688
; BACK-NEXT: %ks.gc.i0 = sext i32
; BACK: ks.gc.loop:
; BACK: %ks.gc.p.next = getelementptr i8, ptr %ks.gc.p, i64 -256
define void @backward(ptr %x, ptr %out, i32 %k) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = mul i32 %bid, 64
  %top = sub i32 %k, %base
  %i = sub i32 %top, %tid
  %ix = sext i32 %i to i64
  %p = getelementptr inbounds float, ptr %x, i64 %ix
  %xv = load float, ptr %p, align 4
  %old = atomicrmw fadd ptr %out, float %xv monotonic, align 4
  ret void
}

; An index that does not grow by a fixed step (bid*bid): the copies are
; left for the optimize stage to unroll, as they were.
; SQUARED: ; explain: gcoarsen: coarsened the grid by 16
; SQUARED-NOT: stays rolled
; SQUARED: br i1 %ks.gc.full, label %ks.gc.loop, label %ks.gc.edge
; SQUARED-NOT: ks.gc.fast
; SQUARED-NOT: ks.gc.p
define void @squared(ptr %x, ptr %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %sq = mul i32 %bid, %bid
  %i = add i32 %sq, %tid
  %ix = zext i32 %i to i64
  %p = getelementptr inbounds float, ptr %x, i64 %ix
  %xv = load float, ptr %p, align 4
  %old = atomicrmw fadd ptr %out, float %xv monotonic, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare void @llvm.nvvm.barrier0()
declare float @llvm.nvvm.shfl.sync.down.f32(i32, float, i32, i32)
