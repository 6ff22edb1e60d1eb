; Specializing one kernel of a module does not compile the others: the
; bind pass deletes them (their annotation entries lose their function,
; which the backend skips), and their internal device functions go with
; them. A kernel something else refers to (llvm.used) stays.
;
; RUN: ks_passes_tool --stage bind-only --kernel a %s | FileCheck %s --check-prefix=BIND
; RUN: ks_passes_tool --stage all --kernel b %s | FileCheck %s --check-prefix=ALL

; BIND: @llvm.used = appending global [1 x ptr] [ptr @kept]
; BIND-NOT: define void @b(
; BIND: define void @a(
; BIND-NOT: define void @b(
; BIND: define void @kept(
; BIND-NOT: define void @b(
; BIND: !{null, !"kernel", i32 1}

; ALL-NOT: define void @a(
; ALL-NOT: @helper_a
; ALL: define void @b(
; ALL: define void @kept(

target triple = "nvptx64-nvidia-cuda"

@llvm.used = appending global [1 x ptr] [ptr @kept], section "llvm.metadata"

define internal i32 @helper_a(i32 %x) noinline {
  %y = mul i32 %x, 3
  ret i32 %y
}

define void @a(ptr %p) {
  %v = call i32 @helper_a(i32 5)
  store i32 %v, ptr %p
  ret void
}

define void @b(ptr %p) {
  store i32 2, ptr %p
  ret void
}

define void @kept(ptr %p) {
  store i32 3, ptr %p
  ret void
}

!nvvm.annotations = !{!0, !1, !2}
!0 = !{ptr @a, !"kernel", i32 1}
!1 = !{ptr @b, !"kernel", i32 1}
!2 = !{ptr @kept, !"kernel", i32 1}
