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

target triple = "nvptx64-nvidia-cuda"

@sh = internal addrspace(3) global [1024 x float] undef, align 4
@ish = internal addrspace(3) global [256 x i32] undef, align 4

; RED: ; explain: gcoarsen: coarsened the grid by 16: each block sums %v ({{[0-9]+}} instructions from %ctaid.x on) for 16 consecutive blocks of the user's grid
; RED-SAME: the float additions' order changes
; RED-LABEL: define void @reduce(ptr %x, ptr %out, i32 %n, i32 %ks.grid_x)
; RED: %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
; the whole group of 16 in the grid: the loop without the check
; RED: ks.gc.head:
; RED: %ks.gc.first = mul i32 %bid, 16
; RED-NEXT: %ks.gc.last = add i32 %ks.gc.first, 15
; RED-NEXT: %ks.gc.full = icmp ult i32 %ks.gc.last, %ks.grid_x
; RED-NEXT: br i1 %ks.gc.full, label %ks.gc.loop, label %ks.gc.edge
; RED: ks.gc.loop:
; RED-NEXT: %ks.gc.j = phi i32 [ 0, %ks.gc.head ], [ %ks.gc.j.next, %ks.gc.loop.next ]
; RED-NEXT: %ks.gc.acc = phi float [ 0.000000e+00, %ks.gc.head ], [ %ks.gc.acc.next, %ks.gc.loop.next ]
; RED-NEXT: %ks.gc.vb0 = mul i32 %bid, 16
; RED-NEXT: %ks.gc.vb = add i32 %ks.gc.vb0, %ks.gc.j
; RED-NEXT: br label %ks.gc.loop.r
; the region, evaluated for block vb: its guard, its load
; RED: ks.gc.loop.r:
; RED: shl i32 %ks.gc.vb, 8
; RED: br i1 %{{.*}}, label %ks.gc.loop.r.t, label %ks.gc.loop.r.end
; RED: ks.gc.loop.r.t:
; RED: load float, ptr %{{.*}}, align 4
; RED: ks.gc.loop.r.end:
; RED-NEXT: %ks.gc.phi = phi float [ %{{.*}}, %ks.gc.loop.r.t ], [ 0.000000e+00, %ks.gc.loop.r ]
; RED-NEXT: %ks.gc.sum = fadd float %ks.gc.acc, %ks.gc.phi
; RED: ks.gc.loop.next:
; RED: %ks.gc.j.next = add nuw i32 %ks.gc.j, 1
; RED-NEXT: %ks.gc.more = icmp ult i32 %ks.gc.j.next, 16
; RED-NEXT: br i1 %ks.gc.more, label %ks.gc.loop, label %ks.gc.join
; the last group: virtual blocks from grid.x on are skipped
; RED: ks.gc.edge:
; RED: %[[VB:.*]] = add i32 %{{.*}}, %{{.*}}
; RED-NEXT: %ks.gc.in = icmp ult i32 %[[VB]], %ks.grid_x
; RED-NEXT: br i1 %ks.gc.in, label %ks.gc.edge.r, label %ks.gc.edge.next
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

; BIG: ; explain: gcoarsen: coarsened the grid by 8:
; BIG: %ks.gc.vb0 = mul i32 %bid, 8

; After the whole pipeline the kernel keeps its annotations and the hidden
; parameter, and reads %ctaid.x once.
; ALL: ; explain: gcoarsen: coarsened the grid by 16
; ALL-LABEL: define void @reduce(
; ALL-SAME: i32 {{.*}}%ks.grid_x)
; ALL-COUNT-1: call {{.*}}i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
; ALL-NOT: call {{.*}}i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
; The whole group in the grid: 16 straight-line loads; the last group's
; checked loop stays rolled (one load, llvm.loop.unroll.disable).
; ALL-COUNT-16: load float, ptr %ks.gc4
; ALL: load float, ptr %ks.gc
; ALL: br i1 %ks.gc.more{{[0-9]*}}, label %ks.gc.edge, {{.*}}!llvm.loop ![[L:[0-9]+]]
; ALL: atomicrmw fadd ptr %out
; ALL: !{ptr @reduce, !"reqntidx", i32 256}
; ALL: ![[L]] = distinct !{![[L]], ![[D:[0-9]+]]}
; ALL: ![[D]] = !{!"llvm.loop.unroll.disable"}

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
; DIRECT-LABEL: define void @direct(ptr %x, ptr %out, i32 %ks.grid_x)
; DIRECT: ks.gc.head:
; DIRECT: br i1 %ks.gc.full, label %ks.gc.loop, label %ks.gc.edge
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

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare void @llvm.nvvm.barrier0()
declare float @llvm.nvvm.shfl.sync.down.f32(i32, float, i32, i32)
