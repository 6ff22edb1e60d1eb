; The template markings (@llvm.global.annotations) have been read when bind
; runs; bind removes them so their strings never reach the PTX, and the
; rest of the pipeline drops what is left of them.
;
; RUN: ks_passes_tool --stage input %s | FileCheck %s --check-prefix=INPUT
; RUN: ks_passes_tool --stage bind-only --bind 1=4 %s | FileCheck %s --implicit-check-not=@llvm.global.annotations
; RUN: ks_passes_tool --stage all --bind 1=4 %s | FileCheck %s --check-prefix=FINAL --implicit-check-not=kspec. --implicit-check-not=llvm.metadata --implicit-check-not=@llvm.global.annotations

target triple = "nvptx64-nvidia-cuda"

; INPUT: @llvm.global.annotations = appending global
; INPUT-SAME: section "llvm.metadata"
; CHECK: define void @k(ptr %p, i32 %N)
; CHECK: store i32 4, ptr %p
; FINAL: define void @k(ptr {{.*}}%p, i32 %N)
; FINAL: store i32 4, ptr addrspace(1) %p

@.str = private unnamed_addr constant [21 x i8] c"kspec.param N 8 1 16\00", section "llvm.metadata"
@.doc = private unnamed_addr constant [20 x i8] c"kspec.doc a kernel.\00", section "llvm.metadata"
@.file = private unnamed_addr constant [8 x i8] c"test.cu\00", section "llvm.metadata"
@llvm.global.annotations = appending global [2 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @k, ptr @.str, ptr @.file, i32 3, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @k, ptr @.doc, ptr @.file, i32 3, ptr null }], section "llvm.metadata"

define void @k(ptr %p, i32 %N) {
entry:
  store i32 %N, ptr %p, align 4
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
