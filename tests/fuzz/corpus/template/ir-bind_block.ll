; A fixed block size replaces the kernel's reads of %ntid; %tid stays.
;
; RUN: ks_passes_tool --stage bind-only --block 64,2,3 %s | FileCheck %s
; RUN: ks_passes_tool --stage bind-only --block 128,4 %s | FileCheck %s --check-prefix=XY
; RUN: ks_passes_tool --stage bind-only %s | FileCheck %s --check-prefix=FREE

target triple = "nvptx64-nvidia-cuda"

; CHECK-LABEL: define void @k(ptr %out)
; CHECK-NOT: ntid
; CHECK: %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
; CHECK: %a = mul i32 64, 2
; CHECK: %b = mul i32 %a, 3
; CHECK-NOT: ntid
; CHECK: ret void

; XY-LABEL: define void @k(ptr %out)
; XY-NOT: ntid.x
; XY-NOT: ntid.y
; XY: %a = mul i32 128, 4
; XY-NOT: ntid.x
; XY-NOT: ntid.y
; XY: ret void

; FREE-LABEL: define void @k(ptr %out)
; FREE: %x = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
; FREE: %y = call i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
; FREE: %z = call i32 @llvm.nvvm.read.ptx.sreg.ntid.z()
; FREE: %a = mul i32 %x, %y

define void @k(ptr %out) {
entry:
  %x = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %y = call i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
  %z = call i32 @llvm.nvvm.read.ptx.sreg.ntid.z()
  %a = mul i32 %x, %y
  %b = mul i32 %a, %z
  %c = add i32 %b, %t
  store i32 %c, ptr %out, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.z()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
