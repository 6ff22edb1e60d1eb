; Shared-array sizing (smem_promote): a shared array declared at a
; parameter's upper bound shrinks to what its accesses can reach once the
; block is fixed: %tid.x < 256, and on the path to a guarded access the
; guard's bound (tid < 128 there, so tid + 128 < 256). Kept: an index that
; depends on memory (it may reach every element), an array passed to a
; call, a block not fixed.
;
; RUN: ks_passes_tool --kernel tree --stage smem_promote --block 256 %s | FileCheck %s --check-prefix=TREE
; RUN: ks_passes_tool --kernel tree --stage smem_promote --block 64 %s | FileCheck %s --check-prefix=TREE64
; RUN: ks_passes_tool --kernel tree --stage smem_promote %s | FileCheck %s --check-prefix=NOTFIXED
; RUN: ks_passes_tool --kernel tree --stage smem_promote --block 256 --no-pass smem_promote %s | FileCheck %s --check-prefix=OFF
; RUN: ks_passes_tool --kernel loaded --stage smem_promote --block 256 %s | FileCheck %s --check-prefix=LOADED
; RUN: ks_passes_tool --kernel called --stage smem_promote --block 256 %s | FileCheck %s --check-prefix=CALLED
; RUN: ks_passes_tool --kernel upper --stage smem_promote --block 256 %s | FileCheck %s --check-prefix=UPPER

target triple = "nvptx64-nvidia-cuda"

; The guard's false edge bounds too: tid ugt 47 fails, so tid <= 47.
; UPPER: ; explain: smem_promote: sized su to 48 of its 1024 elements
@su = internal addrspace(3) global [1024 x float] undef, align 4
define void @upper(ptr %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %far = icmp ugt i32 %tid, 47
  br i1 %far, label %done, label %use
use:
  %t64 = zext i32 %tid to i64
  %ps = getelementptr inbounds [1024 x float], ptr addrspace(3) @su, i64 0, i64 %t64
  store float 1.0, ptr addrspace(3) %ps, align 4
  %po = getelementptr inbounds float, ptr %out, i64 %t64
  store float 2.0, ptr %po, align 4
  br label %done
done:
  ret void
}

; TREE: ; explain: smem_promote: sized sh to 256 of its 1024 elements (1024 of 4096 B): the furthest any access can reach
; TREE: @sh = internal addrspace(3) global [256 x float] undef, align 4
; TREE-NOT: [1024 x float] undef
; 64 threads: tid + 128 is only reached where tid < 128 holds, which 64
; threads always satisfy, so the guarded access reaches 128 + 63
; TREE64: ; explain: smem_promote: sized sh to 192 of its 1024 elements
; NOTFIXED: @sh = internal addrspace(3) global [1024 x float] undef
; OFF: @sh = internal addrspace(3) global [1024 x float] undef
@sh = internal addrspace(3) global [1024 x float] undef, align 4
define void @tree(ptr %x, ptr %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %tid to i64
  %px = getelementptr inbounds float, ptr %x, i64 %t64
  %v = load float, ptr %px, align 4
  %ps = getelementptr inbounds [1024 x float], ptr addrspace(3) @sh, i64 0, i64 %t64
  store float %v, ptr addrspace(3) %ps, align 4
  call void @llvm.nvvm.barrier0()
  %low = icmp slt i32 %tid, 128
  br i1 %low, label %add, label %done
add:
  %hi = add nsw i32 %tid, 128
  %h64 = sext i32 %hi to i64
  %ph = getelementptr inbounds [1024 x float], ptr addrspace(3) @sh, i64 0, i64 %h64
  %a = load float, ptr addrspace(3) %ph, align 4
  %b = load float, ptr addrspace(3) %ps, align 4
  %s = fadd float %a, %b
  store float %s, ptr addrspace(3) %ps, align 4
  br label %done
done:
  call void @llvm.nvvm.barrier0()
  %r = load float, ptr addrspace(3) @sh, align 4
  store float %r, ptr %out, align 4
  ret void
}

; LOADED-NOT: sized sl
; LOADED: @sl = internal addrspace(3) global [1024 x float] undef
@sl = internal addrspace(3) global [1024 x float] undef, align 4
define void @loaded(ptr %idx, ptr %out) {
  %i = load i32, ptr %idx, align 4
  %i64 = zext i32 %i to i64
  %p = getelementptr inbounds [1024 x float], ptr addrspace(3) @sl, i64 0, i64 %i64
  store float 1.0, ptr addrspace(3) %p, align 4
  call void @llvm.nvvm.barrier0()
  %r = load float, ptr addrspace(3) @sl, align 4
  store float %r, ptr %out, align 4
  ret void
}

; CALLED: ; explain: smem_promote: kept sc at 1024 elements: it is used other than by loads, stores, atomics and memsets
; CALLED: @sc = internal addrspace(3) global [1024 x float] undef
@sc = internal addrspace(3) global [1024 x float] undef, align 4
declare void @use(ptr addrspace(3))
define void @called(ptr %out) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t64 = zext i32 %tid to i64
  %p = getelementptr inbounds [1024 x float], ptr addrspace(3) @sc, i64 0, i64 %t64
  store float 1.0, ptr addrspace(3) %p, align 4
  call void @use(ptr addrspace(3) @sc)
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()

!nvvm.annotations = !{!0, !1, !2, !3}
!0 = !{ptr @tree, !"kernel", i32 1}
!1 = !{ptr @loaded, !"kernel", i32 1}
!2 = !{ptr @called, !"kernel", i32 1}
!3 = !{ptr @upper, !"kernel", i32 1}
