; Thread coarsening (coarsen) of a grid-stride histogram loop: a vector
; loop over the 16-byte chunks of data, entered only where data is 16-byte
; aligned, loads 16 samples with one load and runs 16 copies of the body;
; the original loop then finishes from 16 * nv + gtid.
;
; RUN: ks_passes_tool --stage coarsen %s | FileCheck %s
; RUN: ks_passes_tool --stage coarsen --block 256 %s | FileCheck %s --check-prefix=B256
; RUN: ks_passes_tool --stage all --block 256 %s | FileCheck %s --check-prefix=O3
; RUN: ks_passes_tool --stage all --block 256 --no-pass coarsen %s | FileCheck %s --check-prefix=OFF
; RUN: ks_passes_tool --stage coarsen --kernel shorts %s | FileCheck %s --check-prefix=SHORTS

target triple = "nvptx64-nvidia-cuda"

; CHECK: ; explain: coarsen: coarsened loop i: 16 elements of data (1 B) per 16-byte load, 16 copies of the body
; CHECK-LABEL: define void @k(
; The guard of the original loop still decides whether a thread enters.
; CHECK: %gtid = add i32 %base, %tid
; CHECK: br i1 %{{.*}}, label %[[PRE:.*]], label %end
; CHECK: [[PRE]]:
; CHECK-NEXT: br label %ks.vec.pre
; nv = (data % 16 == 0 && n > 0 && nctaid * ntid < 2^31) ? n / 16 : 0
; CHECK: ks.vec.pre:
; CHECK-NEXT: %ks.p = ptrtoint ptr %data to i64
; CHECK-NEXT: %[[MIS:.*]] = and i64 %ks.p, 15
; CHECK-NEXT: %ks.aligned = icmp eq i64 %[[MIS]], 0
; CHECK-NEXT: %[[POS:.*]] = icmp sgt i32 %n, 0
; CHECK-NEXT: %[[OK:.*]] = and i1 %ks.aligned, %[[POS]]
; CHECK-NEXT: %[[NCT:.*]] = zext i32 %nct to i64
; CHECK-NEXT: %[[NT:.*]] = zext i32 %ntid to i64
; CHECK-NEXT: %ks.threads = mul nuw i64 %[[NCT]], %[[NT]]
; CHECK-NEXT: %[[FITS:.*]] = icmp ult i64 %ks.threads, 2147483648
; CHECK-NEXT: %ks.vector = and i1 %[[OK]], %[[FITS]]
; CHECK-NEXT: %[[NW:.*]] = lshr i32 %n, 4
; CHECK-NEXT: %ks.nv = select i1 %ks.vector, i32 %[[NW]], i32 0
; CHECK-NEXT: %[[IN:.*]] = icmp ult i32 %gtid, %ks.nv
; CHECK-NEXT: br i1 %[[IN]], label %ks.vec, label %ks.vec.done
; CHECK: ks.vec:
; CHECK-NEXT: %ks.v = phi i32 [ %gtid, %ks.vec.pre ], [ %ks.v.next, %ks.vec.latch ]
; CHECK: %ks.vp = getelementptr inbounds i8, ptr %data, i64 %{{.*}}
; CHECK-NEXT: %ks.q = load <4 x i32>, ptr %ks.vp, align 16, !invariant.load ![[INV:[0-9]+]]
; CHECK-NEXT: %ks.base = mul nuw nsw i32 %ks.v, 16
; Sixteen copies of the body, element b at index 16 v + b; no byte load.
; CHECK-NOT: load i8
; CHECK: %ks.i = add nuw nsw i32 %ks.base, 0
; CHECK-NEXT: %ks.word = extractelement <4 x i32> %ks.q, i32 0
; CHECK-NEXT: %ks.elem = trunc i32 %ks.word to i8
; CHECK-NOT: load i8
; CHECK-COUNT-16: atomicrmw add ptr %{{.*}}, i32 1 seq_cst, align 4
; CHECK-NOT: atomicrmw
; CHECK: ks.vec.latch:
; CHECK-NEXT: %ks.v.next = add nuw i32 %ks.v, %stride
; CHECK-NEXT: %[[MORE:.*]] = icmp ult i32 %ks.v.next, %ks.nv
; Both loops step by the grid's size: kept rolled for kspec's stages,
; released to ptxas before codegen.
; CHECK-NEXT: br i1 %[[MORE]], label %ks.vec, label %ks.vec.done, !llvm.loop ![[VLOOP:[0-9]+]], !ks.unroll.release
; The rest from 16 nv + gtid, if below n (nv == 0: the old guard held).
; CHECK: ks.vec.done:
; CHECK-NEXT: %[[NV16:.*]] = mul nuw i32 %ks.nv, 16
; CHECK-NEXT: %ks.i0 = add nuw i32 %[[NV16]], %gtid
; CHECK-NEXT: %[[NONE:.*]] = icmp eq i32 %ks.nv, 0
; CHECK-NEXT: %[[BELOW:.*]] = icmp ult i32 %ks.i0, %n
; CHECK-NEXT: %[[GO:.*]] = or i1 %[[NONE]], %[[BELOW]]
; CHECK-NEXT: br i1 %[[GO]], label %body, label %[[EXIT:.*]]
; CHECK: body:
; CHECK-NEXT: %i = phi i32 [ %ks.i0, %ks.vec.done ], [ %next, %body ]
; CHECK: load i8, ptr %{{.*}}, align 1
; CHECK: atomicrmw add ptr %{{.*}}, i32 1 seq_cst, align 4
; CHECK: br i1 %{{.*}}, label %body, label %[[EXIT]], !llvm.loop ![[OLOOP:[0-9]+]], !ks.unroll.release
; CHECK: ![[INV]] = !{}
; CHECK: ![[VLOOP]] = distinct !{![[VLOOP]], ![[DIS:[0-9]+]]}
; CHECK: ![[DIS]] = !{!"llvm.loop.unroll.disable"}
; CHECK: ![[OLOOP]] = distinct !{![[OLOOP]], ![[DIS]]}

; With the block fixed, ntid.x is 256.
; B256: ; explain: coarsen: coarsened loop i:
; B256: %ks.threads = mul nuw i64 %{{.*}}, 256
; B256: load <4 x i32>
; B256-COUNT-16: atomicrmw add ptr
; B256: %ks.i0 = add nuw i32

; The whole pipeline: one 16-byte load feeds 16 shared atomics.
; O3: ; explain: coarsen: coarsened loop i:
; O3: ; explain: smem_promote: promoted hist: 256 bins
; O3-LABEL: define void @k(
; O3: load <4 x i32>, ptr %{{.*}}, align 16, !invariant.load
; O3-COUNT-16: atomicrmw add ptr addrspace(3) %{{.*}}, i32 1 monotonic
; O3: load i8
; O3: atomicrmw add ptr addrspace(3) %{{.*}}, i32 1 monotonic

; OFF: ; explain: coarsen: switched off
; OFF-NOT: load <4 x i32>
; OFF-NOT: <16 x i8>

define void @k(ptr noalias %data, ptr noalias %hist, i32 %n) {
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

; 16-bit samples, W = 8, and a body of several blocks: samples of 0 are
; not counted, larger ones go to a max. Each copy has its own branch.
; SHORTS: ; explain: coarsen: coarsened loop i: 8 elements of data (2 B) per 16-byte load, 8 copies of the body
; SHORTS: %[[NW:.*]] = lshr i32 %n, 3
; SHORTS: %ks.q = load <4 x i32>, ptr %ks.vp, align 16, !invariant.load
; SHORTS: %ks.base = mul nuw nsw i32 %ks.v, 8
; SHORTS: %ks.word = extractelement <4 x i32> %ks.q, i32 0
; SHORTS-NEXT: %ks.elem = trunc i32 %ks.word to i16
; SHORTS: icmp eq i16 %ks.elem, 0
; SHORTS: atomicrmw umax ptr %{{.*}} monotonic
; SHORTS: %[[W1:.*]] = extractelement <4 x i32> %ks.q, i32 0
; SHORTS-NEXT: %[[S1:.*]] = lshr i32 %[[W1]], 16
; SHORTS-NEXT: trunc i32 %[[S1]] to i16
; SHORTS-COUNT-7: atomicrmw umax ptr %{{.*}} monotonic
; SHORTS-NOT: atomicrmw
; SHORTS: ks.vec.latch:
; SHORTS: %ks.i0 = add nuw i32 %{{.*}}, %gtid
; SHORTS: atomicrmw umax ptr
define void @shorts(ptr noalias %data, ptr noalias %top, i32 %n) {
entry:
  %nct = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %stride = mul i32 %ntid, %nct
  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = mul i32 %ntid, %cta
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %gtid = add i32 %tid, %base
  %enter = icmp slt i32 %gtid, %n
  br i1 %enter, label %pre, label %end

pre:
  br label %body

body:
  %i = phi i32 [ %gtid, %pre ], [ %next, %latch ]
  %ix = zext i32 %i to i64
  %p = getelementptr inbounds i16, ptr %data, i64 %ix
  %v = load i16, ptr %p, align 2
  %z = icmp eq i16 %v, 0
  br i1 %z, label %latch, label %count

count:
  %w = zext i16 %v to i32
  %slot = and i32 %i, 7
  %sx = zext i32 %slot to i64
  %t = getelementptr inbounds i32, ptr %top, i64 %sx
  %old = atomicrmw umax ptr %t, i32 %w monotonic, align 4
  br label %latch

latch:
  %next = add nsw i32 %i, %stride
  %more = icmp slt i32 %next, %n
  br i1 %more, label %body, label %exit

exit:
  br label %end

end:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
