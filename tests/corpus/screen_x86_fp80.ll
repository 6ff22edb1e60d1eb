; codegen screen: x86_fp80
target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
define void @k(ptr %p, i32 %n) {
entry:
  %v = load x86_fp80, ptr %p
  %r = fadd x86_fp80 %v, %v
  store x86_fp80 %r, ptr %p
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
