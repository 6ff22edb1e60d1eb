; A kernel that synchronizes the grid as cooperative groups'
; this_grid().sync() does with CUDA 12's headers: the barrier lives in the
; driver's grid workspace, whose address the kernel reads from %envreg1 and
; %envreg2 (cooperative_groups/details/driver_abi.h), set only for
; cooperative launches. Hand-written in the shape clang emits (test_launch).
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @grid_ws(ptr %out) {
entry:
  %lo = call i32 asm sideeffect "mov.u32 $0, %envreg1;", "=r"()
  %hi = call i32 asm sideeffect "mov.u32 $0, %envreg2;", "=r"()
  %lo64 = zext i32 %lo to i64
  %hi64 = zext i32 %hi to i64
  %sh = shl i64 %hi64, 32
  %ws = or i64 %sh, %lo64
  %p = inttoptr i64 %ws to ptr
  %old = atomicrmw add ptr %p, i32 1 seq_cst
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %q = getelementptr inbounds i32, ptr %out, i32 %tid
  store i32 %old, ptr %q, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

!nvvm.annotations = !{!0}
!0 = !{ptr @grid_ws, !"kernel", i32 1}
