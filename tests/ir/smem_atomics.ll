; Atomic privatization (smem_promote): a histogram whose bin index is
; bounded after binding gets a shared copy, zeroed by the block behind a
; barrier at entry; its atomics go to shared memory; every return, early
; ones included, leads to one exit that waits at a barrier and merges each
; non-zero bin with one global atomic.
;
; RUN: ks_passes_tool --stage smem_promote --bind 3=256 %s | FileCheck %s
; RUN: ks_passes_tool --stage all --bind 3=256 --block 256 %s | FileCheck %s --check-prefix=O3
; RUN: ks_passes_tool --stage all --bind 3=256 --block 16,8,2 %s | FileCheck %s --check-prefix=YZ
; RUN: ks_passes_tool --stage all --bind 3=256 --block 256 --no-pass smem_promote %s | FileCheck %s --check-prefix=OFF
; RUN: ks_passes_tool --stage smem_promote --bind 3=100 %s | FileCheck %s --check-prefix=B100
; RUN: ks_passes_tool --stage smem_promote --bind 3=4096 %s | FileCheck %s --check-prefix=B4096
; RUN: ks_passes_tool --stage smem_promote --bind 3=1 %s | FileCheck %s --check-prefix=B1
; RUN: ks_passes_tool --stage smem_promote %s | FileCheck %s --check-prefix=GEN
; RUN: ks_passes_tool --stage smem_promote --bind 3=256 --block 256 %s | FileCheck %s --check-prefix=KNOWN
; RUN: ks_passes_tool --stage all --bind 3=256 %s | FileCheck %s --check-prefix=ROLLED

target triple = "nvptx64-nvidia-cuda"

; CHECK: ; explain: smem_promote: promoted hist: 256 bins x 4 B = 1024 B of shared memory, merged with one atomic per non-zero bin
; CHECK: @ks_smem_hist = internal addrspace(3) global [256 x i32] undef, align 16
; CHECK-LABEL: define void @k(
; The block is not fixed: the linear thread id and the thread count come
; from %tid and %ntid, before any branch of the kernel.
; CHECK-NEXT: ks.entry:
; CHECK-NOT: br i1 %
; CHECK-DAG: call i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
; CHECK-DAG: call i32 @llvm.nvvm.read.ptx.sreg.tid.z()
; CHECK: icmp ult i32 %{{.*}}, 256
; CHECK: ks.init.body:
; CHECK: store i32 0, ptr addrspace(3) %{{.*}}, align 4
; Stepping by the block's thread count, unknown here, the loops are kept
; rolled for kspec's stages (LLVM's loop-unroll has nothing to do in them)
; and left to ptxas (the directive is released before codegen).
; CHECK: br i1 %{{.*}}, label %ks.init.body, label %ks.init.done, !llvm.loop ![[INIT:[0-9]+]], !ks.unroll.release
; CHECK: ks.init.done:
; CHECK-NEXT: call void @llvm.nvvm.barrier0()
; CHECK-NEXT: br label %entry
; CHECK: entry:
; CHECK-NOT: ret void
; CHECK: atomicrmw add ptr addrspace(3) %{{.*}}, i32 1 monotonic, align 4
; CHECK-NOT: ret void
; CHECK-NOT: atomicrmw add ptr %
; CHECK: ks.exit:
; CHECK-NEXT: call void @llvm.nvvm.barrier0()
; CHECK: ks.merge.body:
; CHECK: %part = load i32, ptr addrspace(3)
; CHECK: icmp ne i32 %part, 0
; CHECK: ks.add:
; CHECK: atomicrmw add ptr %{{.*}}, i32 %part monotonic, align 4
; CHECK: br i1 %{{.*}}, label %ks.merge.body, label %ks.merge.done, !llvm.loop ![[MERGE:[0-9]+]], !ks.unroll.release
; CHECK: ret void
; CHECK-NOT: ret void
; CHECK: }
; CHECK: ![[INIT]] = distinct !{![[INIT]], ![[DIS:[0-9]+]]}
; CHECK: ![[DIS]] = !{!"llvm.loop.unroll.disable"}
; CHECK: ![[MERGE]] = distinct !{![[MERGE]], ![[DIS]]}

; Without the block every loop left (the two here and coarsen's two) is
; kept rolled: the optimize stage skips loop-unroll.
; ROLLED: ; explain: optimize: every loop is kept rolled: loop-unroll not run
; ROLLED-LABEL: define void @k(
; ROLLED: ks.init.body:
; ROLLED: ks.vec:
; ROLLED: ks.merge.body:

; With the block known, the step is a constant, and the optimize stage
; unrolls the loops (O3 above).
; KNOWN: ks.init.body:
; KNOWN-NOT: !llvm.loop
; KNOWN: ks.init.done:
; KNOWN: ks.merge.body:
; KNOWN-NOT: !llvm.loop
; KNOWN: ks.merge.done:

; After O3, with a 256-thread block: one copy per warp (8), zeroed by 8
; stores per thread, each warp's atomics to its own copy (+ 256 * (tid /
; 32), which O3 makes (tid << 3) & 1792), and one merge step per thread
; that sums the 8 copies of its bin.
; O3: ; explain: smem_promote: promoted hist: 256 bins x 4 B x 8 copies (one per warp) = 8192 B of shared memory
; O3: @ks_smem_hist = internal addrspace(3) global [2048 x i32] undef
; O3-LABEL: define void @k(
; O3-COUNT-8: store i32 0, ptr addrspace(3)
; O3: ks.init.done:
; O3-NEXT: {{(tail )?}}call void @llvm.nvvm.barrier0()
; O3: and i32 %{{.*}}, 1792
; O3: atomicrmw add ptr addrspace(3) {{.*}} i32 1 monotonic
; O3: {{(tail )?}}call void @llvm.nvvm.barrier0()
; O3-COUNT-8: load i32, ptr addrspace(3)
; O3: atomicrmw add ptr addrspace(1) %{{.*}}, i32 %{{.*}} monotonic
; O3-NOT: phi i32 [ %
; O3: ret void

; A 3-D block: the linear id is tid.x + 16 * (tid.y + 8 * tid.z); 256
; threads, one element of each of the 8 warps' copies each.
; YZ-LABEL: define void @k(
; YZ-DAG: call {{.*}}i32 @llvm.nvvm.read.ptx.sreg.tid.y()
; YZ-DAG: call {{.*}}i32 @llvm.nvvm.read.ptx.sreg.tid.z()
; YZ: store i32 0, ptr addrspace(3)
; YZ: atomicrmw add ptr addrspace(3)
; YZ: atomicrmw add ptr addrspace(1) %{{.*}}, i32 %{{.*}} monotonic

; OFF: ; explain: smem_promote: switched off
; OFF-NOT: addrspace(3)
; OFF: atomicrmw add ptr addrspace(1) %ph{{[0-9]*}}, i32 1 seq_cst
; OFF-NOT: barrier0

; (v * 100) / 256 lies in [0, 99].
; B100: promoted hist: 100 bins x 4 B = 400 B of shared memory
; B100: @ks_smem_hist = internal addrspace(3) global [100 x i32] undef

; (v * 4096) / 256 = 16 v: 256 bins, 16 elements apart.
; B4096: promoted hist: 256 bins x 4 B = 1024 B of shared memory (bytes 0 + 64 j of hist)
; B4096: @ks_smem_hist = internal addrspace(3) global [256 x i32] undef
; B4096: ks.add:
; B4096: mul i64 %{{.*}}, 64

; B1: promoted hist: 1 bins x 4 B = 4 B of shared memory
; B1: @ks_smem_hist = internal addrspace(3) global [1 x i32] undef

; Unbound, BINS can be anything: (v * BINS) / 256 spans 2^24 bins.
; GEN: ; explain: smem_promote: declined hist: its index spans 16777216 elements x 4 B = 67108864 B of shared memory, over the 32768 B left for it
; GEN-NOT: addrspace(3)
; GEN-NOT: barrier0

define void @k(ptr noalias %data, ptr noalias %hist, i32 %n, i32 %BINS) {
entry:
  %nctaid = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %stride = mul i32 %nctaid, %ntid
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = mul i32 %ctaid, %ntid
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i0 = add i32 %base, %tid
  %in = icmp slt i32 %i0, %n
  br i1 %in, label %body, label %early

early:                      ; threads past the data leave at once
  ret void

body:
  %i = phi i32 [ %i0, %entry ], [ %inext, %body ]
  %ie = sext i32 %i to i64
  %pd = getelementptr inbounds i8, ptr %data, i64 %ie
  %v8 = load i8, ptr %pd, align 1
  %v = zext i8 %v8 to i32
  %m = mul nsw i32 %v, %BINS
  %bin = sdiv i32 %m, 256
  %be = sext i32 %bin to i64
  %ph = getelementptr inbounds i32, ptr %hist, i64 %be
  %old = atomicrmw add ptr %ph, i32 1 seq_cst, align 4
  %inext = add nsw i32 %i, %stride
  %more = icmp slt i32 %inext, %n
  br i1 %more, label %body, label %done

done:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
