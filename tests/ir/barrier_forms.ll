; Every barrier form of LLVM 19's NVVM intrinsics is a barrier to
; const_promote's read-only path (ir/inst.c, ks_ir_barrier_kind): after a
; store to a shared tile made through clang's constant-expression
; addrspacecast (-O3 -Xclang -disable-llvm-passes leaves it so), no global
; write reaches the barrier and x's load takes ld.global.nc (SHARED); after
; a store to global memory the barrier may order another thread's write
; before the load, and the pass declines naming the barrier (GLOBAL).
;
; RUN: ks_passes_tool --kernel shared_barrier0_popc --block 256 --stage const_promote %s | FileCheck %s --check-prefix=SHARED
; RUN: ks_passes_tool --kernel global_barrier0_popc --block 256 --stage const_promote %s | FileCheck %s --check-prefix=GLOBAL-BARRIER0-POPC
; RUN: ks_passes_tool --kernel shared_barrier_n --block 256 --stage const_promote %s | FileCheck %s --check-prefix=SHARED
; RUN: ks_passes_tool --kernel global_barrier_n --block 256 --stage const_promote %s | FileCheck %s --check-prefix=GLOBAL-BARRIER-N
; RUN: ks_passes_tool --kernel shared_barrier_sync --block 256 --stage const_promote %s | FileCheck %s --check-prefix=SHARED
; RUN: ks_passes_tool --kernel global_barrier_sync --block 256 --stage const_promote %s | FileCheck %s --check-prefix=GLOBAL-BARRIER-SYNC
; RUN: ks_passes_tool --kernel shared_barrier_sync_cnt --block 256 --stage const_promote %s | FileCheck %s --check-prefix=SHARED
; RUN: ks_passes_tool --kernel global_barrier_sync_cnt --block 256 --stage const_promote %s | FileCheck %s --check-prefix=GLOBAL-BARRIER-SYNC-CNT
; RUN: ks_passes_tool --kernel shared_bar_sync --block 256 --stage const_promote %s | FileCheck %s --check-prefix=SHARED
; RUN: ks_passes_tool --kernel global_bar_sync --block 256 --stage const_promote %s | FileCheck %s --check-prefix=GLOBAL-BAR-SYNC
; RUN: ks_passes_tool --kernel shared_bar_warp_sync --block 256 --stage const_promote %s | FileCheck %s --check-prefix=SHARED
; RUN: ks_passes_tool --kernel global_bar_warp_sync --block 256 --stage const_promote %s | FileCheck %s --check-prefix=GLOBAL-BAR-WARP-SYNC
; RUN: ks_passes_tool --kernel shared_cluster --block 256 --stage const_promote %s | FileCheck %s --check-prefix=SHARED
; RUN: ks_passes_tool --kernel global_cluster --block 256 --stage const_promote %s | FileCheck %s --check-prefix=GLOBAL-CLUSTER

target triple = "nvptx64-nvidia-cuda"

@tile = internal addrspace(3) global [256 x float] undef, align 4

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

; SHARED-NOT: declined ld.global.nc
; SHARED: ; explain: const_promote: x: 1 loads read-only, marked for ld.global.nc
; SHARED: load float, ptr %{{.*}}, !invariant.load

; GLOBAL-BARRIER0-POPC: ; explain: const_promote: declined ld.global.nc: the kernel has a barrier after a write to global memory (llvm.nvvm.barrier0.popc)
; GLOBAL-BARRIER0-POPC-NOT: invariant.load
; GLOBAL-BARRIER-N: ; explain: const_promote: declined ld.global.nc: the kernel has a barrier after a write to global memory (llvm.nvvm.barrier.n)
; GLOBAL-BARRIER-N-NOT: invariant.load
; GLOBAL-BARRIER-SYNC: ; explain: const_promote: declined ld.global.nc: the kernel has a barrier after a write to global memory (llvm.nvvm.barrier.sync)
; GLOBAL-BARRIER-SYNC-NOT: invariant.load
; GLOBAL-BARRIER-SYNC-CNT: ; explain: const_promote: declined ld.global.nc: the kernel has a barrier after a write to global memory (llvm.nvvm.barrier.sync.cnt)
; GLOBAL-BARRIER-SYNC-CNT-NOT: invariant.load
; GLOBAL-BAR-SYNC: ; explain: const_promote: declined ld.global.nc: the kernel has a barrier after a write to global memory (llvm.nvvm.bar.sync)
; GLOBAL-BAR-SYNC-NOT: invariant.load
; GLOBAL-BAR-WARP-SYNC: ; explain: const_promote: declined ld.global.nc: the kernel has a barrier after a write to global memory (llvm.nvvm.bar.warp.sync)
; GLOBAL-BAR-WARP-SYNC-NOT: invariant.load
; GLOBAL-CLUSTER: ; explain: const_promote: declined ld.global.nc: the kernel has a barrier after a write to global memory (llvm.nvvm.barrier.cluster.arrive)
; GLOBAL-CLUSTER-NOT: invariant.load

define void @shared_barrier0_popc(ptr %x, ptr %w, ptr %y) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %pw = getelementptr inbounds float, ptr %w, i64 %i
  %v = load float, ptr %pw, align 4
  %ps = getelementptr inbounds [256 x float], ptr addrspacecast (ptr addrspace(3) @tile to ptr), i64 0, i64 %i
  store float %v, ptr %ps, align 4
  %c = call i32 @llvm.nvvm.barrier0.popc(i32 1)
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %a = load float, ptr %px, align 4
  %py = getelementptr inbounds float, ptr %y, i64 %i
  store float %a, ptr %py, align 4
  ret void
}

define void @global_barrier0_popc(ptr %x, ptr %w, ptr %y) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %pw = getelementptr inbounds float, ptr %w, i64 %i
  store float 0.0, ptr %pw, align 4
  %c = call i32 @llvm.nvvm.barrier0.popc(i32 1)
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %a = load float, ptr %px, align 4
  %py = getelementptr inbounds float, ptr %y, i64 %i
  store float %a, ptr %py, align 4
  ret void
}

define void @shared_barrier_n(ptr %x, ptr %w, ptr %y) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %pw = getelementptr inbounds float, ptr %w, i64 %i
  %v = load float, ptr %pw, align 4
  %ps = getelementptr inbounds [256 x float], ptr addrspacecast (ptr addrspace(3) @tile to ptr), i64 0, i64 %i
  store float %v, ptr %ps, align 4
  call void @llvm.nvvm.barrier.n(i32 1)
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %a = load float, ptr %px, align 4
  %py = getelementptr inbounds float, ptr %y, i64 %i
  store float %a, ptr %py, align 4
  ret void
}

define void @global_barrier_n(ptr %x, ptr %w, ptr %y) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %pw = getelementptr inbounds float, ptr %w, i64 %i
  store float 0.0, ptr %pw, align 4
  call void @llvm.nvvm.barrier.n(i32 1)
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %a = load float, ptr %px, align 4
  %py = getelementptr inbounds float, ptr %y, i64 %i
  store float %a, ptr %py, align 4
  ret void
}

define void @shared_barrier_sync(ptr %x, ptr %w, ptr %y) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %pw = getelementptr inbounds float, ptr %w, i64 %i
  %v = load float, ptr %pw, align 4
  %ps = getelementptr inbounds [256 x float], ptr addrspacecast (ptr addrspace(3) @tile to ptr), i64 0, i64 %i
  store float %v, ptr %ps, align 4
  call void @llvm.nvvm.barrier.sync(i32 0)
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %a = load float, ptr %px, align 4
  %py = getelementptr inbounds float, ptr %y, i64 %i
  store float %a, ptr %py, align 4
  ret void
}

define void @global_barrier_sync(ptr %x, ptr %w, ptr %y) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %pw = getelementptr inbounds float, ptr %w, i64 %i
  store float 0.0, ptr %pw, align 4
  call void @llvm.nvvm.barrier.sync(i32 0)
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %a = load float, ptr %px, align 4
  %py = getelementptr inbounds float, ptr %y, i64 %i
  store float %a, ptr %py, align 4
  ret void
}

define void @shared_barrier_sync_cnt(ptr %x, ptr %w, ptr %y) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %pw = getelementptr inbounds float, ptr %w, i64 %i
  %v = load float, ptr %pw, align 4
  %ps = getelementptr inbounds [256 x float], ptr addrspacecast (ptr addrspace(3) @tile to ptr), i64 0, i64 %i
  store float %v, ptr %ps, align 4
  call void @llvm.nvvm.barrier.sync.cnt(i32 1, i32 64)
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %a = load float, ptr %px, align 4
  %py = getelementptr inbounds float, ptr %y, i64 %i
  store float %a, ptr %py, align 4
  ret void
}

define void @global_barrier_sync_cnt(ptr %x, ptr %w, ptr %y) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %pw = getelementptr inbounds float, ptr %w, i64 %i
  store float 0.0, ptr %pw, align 4
  call void @llvm.nvvm.barrier.sync.cnt(i32 1, i32 64)
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %a = load float, ptr %px, align 4
  %py = getelementptr inbounds float, ptr %y, i64 %i
  store float %a, ptr %py, align 4
  ret void
}

define void @shared_bar_sync(ptr %x, ptr %w, ptr %y) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %pw = getelementptr inbounds float, ptr %w, i64 %i
  %v = load float, ptr %pw, align 4
  %ps = getelementptr inbounds [256 x float], ptr addrspacecast (ptr addrspace(3) @tile to ptr), i64 0, i64 %i
  store float %v, ptr %ps, align 4
  call void @llvm.nvvm.bar.sync(i32 0)
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %a = load float, ptr %px, align 4
  %py = getelementptr inbounds float, ptr %y, i64 %i
  store float %a, ptr %py, align 4
  ret void
}

define void @global_bar_sync(ptr %x, ptr %w, ptr %y) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %pw = getelementptr inbounds float, ptr %w, i64 %i
  store float 0.0, ptr %pw, align 4
  call void @llvm.nvvm.bar.sync(i32 0)
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %a = load float, ptr %px, align 4
  %py = getelementptr inbounds float, ptr %y, i64 %i
  store float %a, ptr %py, align 4
  ret void
}

define void @shared_bar_warp_sync(ptr %x, ptr %w, ptr %y) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %pw = getelementptr inbounds float, ptr %w, i64 %i
  %v = load float, ptr %pw, align 4
  %ps = getelementptr inbounds [256 x float], ptr addrspacecast (ptr addrspace(3) @tile to ptr), i64 0, i64 %i
  store float %v, ptr %ps, align 4
  call void @llvm.nvvm.bar.warp.sync(i32 -1)
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %a = load float, ptr %px, align 4
  %py = getelementptr inbounds float, ptr %y, i64 %i
  store float %a, ptr %py, align 4
  ret void
}

define void @global_bar_warp_sync(ptr %x, ptr %w, ptr %y) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %pw = getelementptr inbounds float, ptr %w, i64 %i
  store float 0.0, ptr %pw, align 4
  call void @llvm.nvvm.bar.warp.sync(i32 -1)
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %a = load float, ptr %px, align 4
  %py = getelementptr inbounds float, ptr %y, i64 %i
  store float %a, ptr %py, align 4
  ret void
}

define void @shared_cluster(ptr %x, ptr %w, ptr %y) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %pw = getelementptr inbounds float, ptr %w, i64 %i
  %v = load float, ptr %pw, align 4
  %ps = getelementptr inbounds [256 x float], ptr addrspacecast (ptr addrspace(3) @tile to ptr), i64 0, i64 %i
  store float %v, ptr %ps, align 4
  call void @llvm.nvvm.barrier.cluster.arrive()
  call void @llvm.nvvm.barrier.cluster.wait()
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %a = load float, ptr %px, align 4
  %py = getelementptr inbounds float, ptr %y, i64 %i
  store float %a, ptr %py, align 4
  ret void
}

define void @global_cluster(ptr %x, ptr %w, ptr %y) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %pw = getelementptr inbounds float, ptr %w, i64 %i
  store float 0.0, ptr %pw, align 4
  call void @llvm.nvvm.barrier.cluster.arrive()
  call void @llvm.nvvm.barrier.cluster.wait()
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %a = load float, ptr %px, align 4
  %py = getelementptr inbounds float, ptr %y, i64 %i
  store float %a, ptr %py, align 4
  ret void
}

!nvvm.annotations = !{!0, !1, !2, !3, !4, !5, !6, !7, !8, !9, !10, !11, !12, !13}
!0 = !{ptr @shared_barrier0_popc, !"kernel", i32 1}
!1 = !{ptr @shared_barrier_n, !"kernel", i32 1}
!2 = !{ptr @shared_barrier_sync, !"kernel", i32 1}
!3 = !{ptr @shared_barrier_sync_cnt, !"kernel", i32 1}
!4 = !{ptr @shared_bar_sync, !"kernel", i32 1}
!5 = !{ptr @shared_bar_warp_sync, !"kernel", i32 1}
!6 = !{ptr @shared_cluster, !"kernel", i32 1}
!7 = !{ptr @global_barrier0_popc, !"kernel", i32 1}
!8 = !{ptr @global_barrier_n, !"kernel", i32 1}
!9 = !{ptr @global_barrier_sync, !"kernel", i32 1}
!10 = !{ptr @global_barrier_sync_cnt, !"kernel", i32 1}
!11 = !{ptr @global_bar_sync, !"kernel", i32 1}
!12 = !{ptr @global_bar_warp_sync, !"kernel", i32 1}
!13 = !{ptr @global_cluster, !"kernel", i32 1}
