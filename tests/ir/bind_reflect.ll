; __nvvm_reflect("__CUDA_ARCH") answers the requested sm times ten, as the
; NVPTX backend's reflect pass does; LLVM's nvvm-reflect in the optimize
; stage knows no sm and would answer 0. Both spellings, the string reached
; through a cast or a zero GEP, in the kernel and in a device function.
; Other queries are left to that pass (the FTZ flag), and a string that
; only starts like the arch query is not it.
;
; RUN: ks_passes_tool --stage bind-only --cpu sm_90 --features +ptx85,+sm_90 %s | FileCheck %s --check-prefix=BIND
; RUN: ks_passes_tool --stage all --cpu sm_80 --features +ptx78,+sm_80 %s | FileCheck %s --check-prefix=ALL80
; RUN: ks_passes_tool --stage all --cpu sm_90a --features +ptx85,+sm_90a %s | FileCheck %s --check-prefix=ALL90

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@arch = private unnamed_addr addrspace(4) constant [12 x i8] c"__CUDA_ARCH\00"
@arch2 = private unnamed_addr constant [12 x i8] c"__CUDA_ARCH\00"
@ftz = private unnamed_addr addrspace(4) constant [11 x i8] c"__CUDA_FTZ\00"
@archx = private unnamed_addr addrspace(4) constant [13 x i8] c"__CUDA_ARCHX\00"

; BIND-LABEL: define void @k(
; BIND: store i32 900, ptr %y
; BIND: store i32 900, ptr %y1
; BIND: call i32 @llvm.nvvm.reflect(ptr addrspacecast (ptr addrspace(4) @ftz to ptr))
; BIND: call i32 @llvm.nvvm.reflect(ptr addrspacecast (ptr addrspace(4) @archx to ptr))
; BIND-LABEL: define i32 @dev(
; BIND: ret i32 900

; ALL80-LABEL: define void @k(
; ALL80: store i32 800, ptr addrspace(1) %
; ALL80: store i32 800, ptr addrspace(1) %
; ALL80: store i32 0, ptr addrspace(1) %
; ALL80: store i32 0, ptr addrspace(1) %
; ALL80-LABEL: define {{.*}}i32 @dev(
; ALL80: ret i32 800
; ALL90: store i32 900, ptr addrspace(1) %
; ALL90: store i32 900, ptr addrspace(1) %y1
; ALL90-LABEL: define {{.*}}i32 @dev(
; ALL90: ret i32 900
define void @k(ptr %y) {
  %a = call i32 @llvm.nvvm.reflect(ptr addrspacecast (ptr addrspace(4) @arch to ptr))
  store i32 %a, ptr %y
  %b = call i32 @__nvvm_reflect(ptr getelementptr inbounds ([12 x i8], ptr @arch2, i64 0, i64 0))
  %y1 = getelementptr i32, ptr %y, i64 1
  store i32 %b, ptr %y1
  %c = call i32 @llvm.nvvm.reflect(ptr addrspacecast (ptr addrspace(4) @ftz to ptr))
  %y2 = getelementptr i32, ptr %y, i64 2
  store i32 %c, ptr %y2
  %d = call i32 @llvm.nvvm.reflect(ptr addrspacecast (ptr addrspace(4) @archx to ptr))
  %y3 = getelementptr i32, ptr %y, i64 3
  store i32 %d, ptr %y3
  %e = call i32 @dev()
  %y4 = getelementptr i32, ptr %y, i64 4
  store i32 %e, ptr %y4
  ret void
}

define i32 @dev() noinline {
  %a = call i32 @__nvvm_reflect(ptr addrspacecast (ptr addrspace(4) @arch to ptr))
  ret i32 %a
}

declare i32 @llvm.nvvm.reflect(ptr)
declare i32 @__nvvm_reflect(ptr)

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
