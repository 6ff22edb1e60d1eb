; codegen: an alloca of a run-time size (the backend writes alloca with alignment 0, which ptxas refuses)
target triple = "nvptx64-nvidia-cuda"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
define void @k(ptr %p, i32 %n) {
entry:
  %a = alloca float, i32 %n, align 4
  store float 1.0, ptr %a
  %v = load volatile float, ptr %a
  store float %v, ptr %p
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
