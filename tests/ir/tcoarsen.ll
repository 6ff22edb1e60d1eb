; Thread coarsening inside a fixed block: conv-like kernels run 4 virtual
; threads per real thread (tid.x*4 + j), reqntid says the real block; the
; kernels where threads may interact other than through memory, and those
; without loads shared between neighbouring threads, are declined.
;
; RUN: ks_passes_tool --stage tcoarsen --kernel conv --block 256 %s | FileCheck %s --check-prefix=CONV
; RUN: ks_passes_tool --stage all --kernel conv --block 256 %s | FileCheck %s --check-prefix=ALL
; RUN: ks_passes_tool --stage tcoarsen --kernel conv --block 128,2 %s | FileCheck %s --check-prefix=XY
; RUN: ks_passes_tool --stage tcoarsen --kernel conv --block 32,8 %s | FileCheck %s --check-prefix=NARROW
; RUN: ks_passes_tool --stage tcoarsen --kernel cols --block 32,8 %s | FileCheck %s --check-prefix=COLS
; RUN: ks_passes_tool --stage all --kernel cols --block 32,8 %s | FileCheck %s --check-prefix=COLSALL
; RUN: ks_passes_tool --stage tcoarsen --kernel cols --block 32,6 %s | FileCheck %s --check-prefix=COLSODD
; RUN: ks_passes_tool --stage tcoarsen --kernel cols --block 32,4 %s | FileCheck %s --check-prefix=COLS4
; RUN: ks_passes_tool --stage tcoarsen --kernel conv --block 250 %s | FileCheck %s --check-prefix=ODD
; RUN: ks_passes_tool --stage tcoarsen --kernel conv %s | FileCheck %s --check-prefix=NOTFIXED
; RUN: ks_passes_tool --stage tcoarsen --kernel conv --block 256 --no-pass tcoarsen %s | FileCheck %s --check-prefix=OFF
; RUN: ks_passes_tool --stage tcoarsen --kernel barrier --block 256 %s | FileCheck %s --check-prefix=BARRIER
; RUN: ks_passes_tool --stage tcoarsen --kernel shfl --block 256 %s | FileCheck %s --check-prefix=SHFL
; RUN: ks_passes_tool --stage tcoarsen --kernel shared --block 256 %s | FileCheck %s --check-prefix=SHARED
; RUN: ks_passes_tool --stage tcoarsen --kernel cas --block 256 %s | FileCheck %s --check-prefix=CAS
; RUN: ks_passes_tool --stage tcoarsen --kernel lane --block 256 %s | FileCheck %s --check-prefix=LANE
; RUN: ks_passes_tool --stage tcoarsen --kernel copy --block 256 %s | FileCheck %s --check-prefix=COPY
; RUN: ks_passes_tool --stage tcoarsen --kernel late --block 256 %s | FileCheck %s --check-prefix=LATE
; RUN: ks_passes_tool --stage all --kernel convloop --block 256 %s | FileCheck %s --check-prefix=LOOP
; RUN: ks_passes_tool --stage unroll --kernel convloop --block 256 %s | FileCheck %s --check-prefix=KEPT
; RUN: ks_passes_tool --stage tcoarsen --kernel convloop --block 256 %s | FileCheck %s --check-prefix=GONE
; RUN: ks_passes_tool --stage unroll --kernel convloop --block 256 --no-pass tcoarsen %s | FileCheck %s --check-prefix=NOKEEP
; RUN: ks_passes_tool --stage unroll --kernel convloop --block 250 %s | FileCheck %s --check-prefix=NOKEEP
; RUN: ks_passes_tool --stage tcoarsen --kernel convloop --block 32,8 %s | FileCheck %s --check-prefix=NOKEEP
; RUN: ks_passes_tool --stage tcoarsen --kernel uniform --block 256 %s | FileCheck %s --check-prefix=UNIFORM

target triple = "nvptx64-nvidia-cuda"

; CONV: ; explain: tcoarsen: coarsened x by 4: real block 64x1x1 runs the 256 threads of the launch; 2 of 3 loads along tid.x
; CONV-LABEL: define void @conv(
; CONV: %ks.tc.tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; CONV: %ks.tc.kt = shl nuw nsw i32 %ks.tc.tid, 2
; the four lanes agree on the guard, or the serial copy runs them in turn
; CONV: br i1 {{.*}}, label %ks.tc.lock0.agree, label %ks.tc.serial
; CONV-COUNT-4: store float
; CONV: ks.tc.serial.next:
; CONV: %ks.tc.j1 = add nuw i32 %ks.tc.j, 1
; CONV: !{ptr @conv, !"reqntidx", i32 64}

; After optimize: the taps are read once for the four lanes, from their
; constant copy (const_promote; f itself is no longer read), the four
; outputs stored in a row.
; ALL: @ks_cmem_1 = addrspace(4) externally_initialized global [12 x i8] zeroinitializer, align 16
; ALL-LABEL: define void @conv(
; ALL-NOT: load float, ptr %f
; ALL: ks.tc.lock
; ALL: load {{float|<2 x float>}}, ptr addrspace(4) @ks_cmem_1, align 16, !invariant.load
; ALL-NOT: load float, ptr %f
; ALL-COUNT-4: store float
; ALL: ks.tc.serial

; XY: ; explain: tcoarsen: coarsened x by 4: real block 32x2x1 runs the 256 threads
; XY: !{ptr @conv, !"reqntidx", i32 32}
; XY: !{ptr @conv, !"reqntidy", i32 2}

; A 2-D block whose real rows are narrower than a warp is coarsened too
; (each warp spans rows; the lanes' loads are merged all the same).
; NARROW: ; explain: tcoarsen: coarsened x by 4: real block 8x8x1 runs the 256 threads of the launch; 2 of 3 loads along tid.x
; NARROW: !{ptr @conv, !"reqntidx", i32 8}
; ODD: ; explain: tcoarsen: declined conv: block.x 250 is not a multiple of 4

; A column stencil in a 32x8 block: x is ruled out, y is not: virtual rows
; 8*tid.y + j, the real block 32x1; after optimize the eight lanes' nine
; distinct rows are loaded once each. A 32x4 block: 4 rows per thread.
; COLS: ; explain: tcoarsen: coarsened y by 8: real block 32x1x1 runs the 256 threads of the launch; 1 of 2 loads along tid.y shared with a neighbouring thread
; COLS-LABEL: define void @cols(
; COLS: %ks.tc.tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
; COLS: %ks.tc.kt = shl nuw nsw i32 %ks.tc.tid, 3
; COLS: !{ptr @cols, !"reqntidx", i32 32}
; COLS: !{ptr @cols, !"reqntidy", i32 1}
; COLS4: ; explain: tcoarsen: coarsened y by 4: real block 32x1x1
; COLS4: !{ptr @cols, !"reqntidy", i32 1}
; COLSALL-LABEL: define void @cols(
; COLSALL: ks.tc.lock
; COLSALL-COUNT-9: load float, ptr
; COLSALL-NOT: load float
; COLSALL-COUNT-8: store float
; COLSALL: ks.tc.serial
; COLSODD: ; explain: tcoarsen: declined cols: no reuse between neighbouring threads; along y: block.y 6 is not a multiple of 4
; NOTFIXED: ; explain: tcoarsen: declined conv: block size not fixed
; OFF: ; explain: tcoarsen: switched off
; OFF-NOT: ks.tc
; BARRIER: ; explain: tcoarsen: declined barrier: a barrier or warp-level operation (llvm.nvvm.barrier0)
; BARRIER-NOT: ks.tc
; SHFL: ; explain: tcoarsen: declined shfl: a barrier or warp-level operation (llvm.nvvm.shfl.sync.down.f32)
; SHARED: ; explain: tcoarsen: declined shared: shared memory
; CAS: ; explain: tcoarsen: declined cas: an atomic compare-and-swap
; LANE: ; explain: tcoarsen: declined lane: reads %laneid
; COPY: ; explain: tcoarsen: declined copy: no reuse between neighbouring threads
; LATE: ; explain: tcoarsen: declined late: a branch after a write to memory

; A loop, fully unrolled before tcoarsen: the lockstep copy is made from
; the unrolled body (8 taps x 4 lanes), the serial copy from a clone of the
; kernel kept rolled (<kernel>.ks.rolled, taken after the loops stage, gone
; after tcoarsen), its loop and the loop over the virtual threads marked
; llvm.loop.unroll.disable so that the optimize stage leaves them rolled.
; LOOP: ; explain: tcoarsen: coarsened x by 4: {{.*}}; the serial copy keeps its loops rolled
; LOOP-LABEL: define void @convloop(
; LOOP: ks.tc.lock
; LOOP-COUNT-32: fmul float
; LOOP-NOT: fmul float
; LOOP: ks.tc.serial.thread:
; LOOP: phi float
; LOOP: fmul float
; LOOP-NOT: fmul float
; LOOP: br i1 {{.*}}, !llvm.loop ![[INNER:[0-9]+]]
; LOOP: br i1 {{.*}}, label %ks.tc.serial.thread, {{.*}}, !llvm.loop ![[OUTER:[0-9]+]]
; LOOP: ![[INNER]] = distinct !{![[INNER]], ![[MP:[0-9]+]], ![[DIS:[0-9]+]]}
; LOOP: ![[MP]] = !{!"llvm.loop.mustprogress"}
; LOOP: ![[DIS]] = !{!"llvm.loop.unroll.disable"}
; LOOP: ![[OUTER]] = distinct !{![[OUTER]], ![[DIS]]}
; KEPT: define internal void @convloop.ks.rolled(
; KEPT: br i1 {{.*}}, !llvm.loop ![[ID:[0-9]+]]
; KEPT: ![[ID]] = distinct !{![[ID]], ![[MP:[0-9]+]], ![[DIS:[0-9]+]]}
; KEPT: ![[MP]] = !{!"llvm.loop.mustprogress"}
; KEPT: ![[DIS]] = !{!"llvm.loop.unroll.disable"}
; GONE: ; explain: tcoarsen: coarsened x by 4
; GONE-NOT: ks.rolled
; NOKEEP-NOT: ks.rolled

; y[i] = x[i]*f[0] + x[i+1]*f[1] + x[i+2]*f[2] for i = tid.x < n
define void @conv(ptr %x, ptr %f, ptr %y, i32 %n) {
entry:
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %in = icmp slt i32 %t, %n
  br i1 %in, label %body, label %exit
body:
  %e0 = zext i32 %t to i64
  %p0 = getelementptr inbounds float, ptr %x, i64 %e0
  %p1 = getelementptr inbounds float, ptr %p0, i64 1
  %p2 = getelementptr inbounds float, ptr %p0, i64 2
  %x0 = load float, ptr %p0, align 4
  %x1 = load float, ptr %p1, align 4
  %x2 = load float, ptr %p2, align 4
  %f0 = load float, ptr %f, align 4
  %fp1 = getelementptr inbounds float, ptr %f, i64 1
  %f1 = load float, ptr %fp1, align 4
  %fp2 = getelementptr inbounds float, ptr %f, i64 2
  %f2 = load float, ptr %fp2, align 4
  %a0 = fmul float %x0, %f0
  %a1 = fmul float %x1, %f1
  %a2 = fmul float %x2, %f2
  %s1 = fadd float %a0, %a1
  %s2 = fadd float %s1, %a2
  %py = getelementptr inbounds float, ptr %y, i64 %e0
  store float %s2, ptr %py, align 4
  br label %exit
exit:
  ret void
}

; The same with a loop over 8 taps: y[i] = sum_k x[i+k]*f[k], i = tid.x < n
define void @convloop(ptr %x, ptr %f, ptr %y, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %in = icmp slt i32 %t, %n
  br i1 %in, label %loop, label %exit
loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %loop ]
  %s = phi float [ 0.0, %entry ], [ %s1, %loop ]
  %i = add nsw i32 %t, %k
  %e = sext i32 %i to i64
  %px = getelementptr inbounds float, ptr %x, i64 %e
  %xv = load float, ptr %px, align 4
  %ek = zext i32 %k to i64
  %pf = getelementptr inbounds float, ptr %f, i64 %ek
  %fv = load float, ptr %pf, align 4
  %a = fmul float %xv, %fv
  %s1 = fadd float %s, %a
  %k1 = add nuw nsw i32 %k, 1
  %more = icmp ult i32 %k1, 8
  br i1 %more, label %loop, label %done, !llvm.loop !1
done:
  %et = sext i32 %t to i64
  %py = getelementptr inbounds float, ptr %y, i64 %et
  store float %s1, ptr %py, align 4
  br label %exit
exit:
  ret void
}

define void @barrier(ptr %x, ptr %y) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %e = zext i32 %t to i64
  %p0 = getelementptr inbounds float, ptr %x, i64 %e
  %p1 = getelementptr inbounds float, ptr %p0, i64 1
  %a = load float, ptr %p0, align 4
  call void @llvm.nvvm.barrier0()
  %b = load float, ptr %p1, align 4
  %s = fadd float %a, %b
  %py = getelementptr inbounds float, ptr %y, i64 %e
  store float %s, ptr %py, align 4
  ret void
}

define void @shfl(ptr %x, ptr %y) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %e = zext i32 %t to i64
  %p0 = getelementptr inbounds float, ptr %x, i64 %e
  %p1 = getelementptr inbounds float, ptr %p0, i64 1
  %a = load float, ptr %p0, align 4
  %b = load float, ptr %p1, align 4
  %s = fadd float %a, %b
  %r = call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %s, i32 1, i32 31)
  %py = getelementptr inbounds float, ptr %y, i64 %e
  store float %r, ptr %py, align 4
  ret void
}

@tile = internal addrspace(3) global [256 x float] undef, align 4

define void @shared(ptr %x, ptr %y) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %e = zext i32 %t to i64
  %p0 = getelementptr inbounds float, ptr %x, i64 %e
  %p1 = getelementptr inbounds float, ptr %p0, i64 1
  %a = load float, ptr %p0, align 4
  %b = load float, ptr %p1, align 4
  %s = fadd float %a, %b
  %q = getelementptr inbounds [256 x float], ptr addrspace(3) @tile, i64 0, i64 %e
  store float %s, ptr addrspace(3) %q, align 4
  ret void
}

define void @cas(ptr %x, ptr %y) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %e = zext i32 %t to i64
  %p0 = getelementptr inbounds i32, ptr %x, i64 %e
  %p1 = getelementptr inbounds i32, ptr %p0, i64 1
  %a = load i32, ptr %p0, align 4
  %b = load i32, ptr %p1, align 4
  %r = cmpxchg ptr %y, i32 %a, i32 %b seq_cst seq_cst
  ret void
}

define void @lane(ptr %x, ptr %y) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %l = call i32 @llvm.nvvm.read.ptx.sreg.laneid()
  %e = zext i32 %t to i64
  %p0 = getelementptr inbounds i32, ptr %x, i64 %e
  %p1 = getelementptr inbounds i32, ptr %p0, i64 1
  %a = load i32, ptr %p0, align 4
  %b = load i32, ptr %p1, align 4
  %s = add i32 %a, %b
  %s2 = add i32 %s, %l
  %py = getelementptr inbounds i32, ptr %y, i64 %e
  store i32 %s2, ptr %py, align 4
  ret void
}

define void @copy(ptr %x, ptr %y) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %e = zext i32 %t to i64
  %p0 = getelementptr inbounds float, ptr %x, i64 %e
  %a = load float, ptr %p0, align 4
  %py = getelementptr inbounds float, ptr %y, i64 %e
  store float %a, ptr %py, align 4
  ret void
}

; a store, then a branch on a loaded value
define void @late(ptr %x, ptr %y) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %e = zext i32 %t to i64
  %p0 = getelementptr inbounds float, ptr %x, i64 %e
  %p1 = getelementptr inbounds float, ptr %p0, i64 1
  %a = load float, ptr %p0, align 4
  %py = getelementptr inbounds float, ptr %y, i64 %e
  store float %a, ptr %py, align 4
  %b = load float, ptr %p1, align 4
  %big = fcmp ogt float %b, 0.0
  br i1 %big, label %more, label %exit
more:
  store float %b, ptr %py, align 4
  br label %exit
exit:
  ret void
}

; What the four lanes compute alike is computed once (the guard on m, the
; tap f[0]): a branch on such a value cannot diverge, so no serial copy is
; needed; an update of memory is not merged: four atomics, one a lane.
; UNIFORM: ; explain: tcoarsen: coarsened x by 4
; UNIFORM-LABEL: define void @uniform(
; UNIFORM-NOT: ks.tc.lock0.agree
; UNIFORM-NOT: ks.tc.serial
; UNIFORM-COUNT-4: atomicrmw add ptr %cnt, i32 1
; UNIFORM-NOT: atomicrmw
; UNIFORM: ret void
define void @uniform(ptr %x, ptr %f, ptr %y, ptr %cnt, i32 %m) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ok = icmp sgt i32 %m, 0
  br i1 %ok, label %body, label %exit
body:
  %e0 = zext i32 %t to i64
  %p0 = getelementptr inbounds float, ptr %x, i64 %e0
  %p1 = getelementptr inbounds float, ptr %p0, i64 1
  %x0 = load float, ptr %p0, align 4
  %x1 = load float, ptr %p1, align 4
  %f0 = load float, ptr %f, align 4
  %a0 = fmul float %x0, %f0
  %s = fadd float %a0, %x1
  %py = getelementptr inbounds float, ptr %y, i64 %e0
  store float %s, ptr %py, align 4
  %old = atomicrmw add ptr %cnt, i32 1 monotonic
  br label %exit
exit:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.laneid()
declare void @llvm.nvvm.barrier0() convergent
declare float @llvm.nvvm.shfl.sync.down.f32(i32, float, i32, i32) convergent
!1 = distinct !{!1, !2}
!2 = !{!"llvm.loop.mustprogress"}

; out[y*w + x] = in[y*w + x] + in[(y+1)*w + x], y < h - 1, x < w (the
; second row's index written (y+1)*w + x, as a column stencil's (y+k)*w + x)
define void @cols(ptr %in, ptr %out, i32 %w, i32 %h) {
entry:
  %bx = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %nx = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %tx = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bxn = mul i32 %bx, %nx
  %x = add i32 %bxn, %tx
  %by = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %ny = call i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
  %ty = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %byn = mul i32 %by, %ny
  %y = add i32 %byn, %ty
  %h1 = add i32 %h, -1
  %c1 = icmp slt i32 %x, %w
  %c2 = icmp slt i32 %y, %h1
  %c = and i1 %c1, %c2
  br i1 %c, label %then, label %end
then:
  %row = mul i32 %y, %w
  %i = add i32 %row, %x
  %i64 = sext i32 %i to i64
  %p0 = getelementptr float, ptr %in, i64 %i64
  %a = load float, ptr %p0, align 4
  %y1 = add i32 %y, 1
  %row1 = mul i32 %y1, %w
  %j = add i32 %row1, %x
  %j64 = sext i32 %j to i64
  %p1 = getelementptr float, ptr %in, i64 %j64
  %b = load float, ptr %p1, align 4
  %s = fadd float %a, %b
  %q = getelementptr float, ptr %out, i64 %i64
  store float %s, ptr %q, align 4
  br label %end
end:
  ret void
}
