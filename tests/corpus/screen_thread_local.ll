; codegen screen: a thread_local variable
target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
define void @k(ptr %p, i32 %n) {
entry:
  %v = load i32, ptr @tlsv
  store i32 %v, ptr %p
  ret void
}

@tlsv = thread_local global i32 0
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
