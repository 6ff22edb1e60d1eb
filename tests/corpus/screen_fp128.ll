; codegen screen: fp128 arithmetic (a library call the backend cannot make)
target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
define void @k(ptr %p, i32 %n) {
entry:
  %v = load fp128, ptr %p
  %r = fadd fp128 %v, %v
  store fp128 %r, ptr %p
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
