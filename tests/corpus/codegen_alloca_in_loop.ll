; codegen: an alloca in a loop (a dynamic alloca too)
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p, i32 %n) {
entry:
  br label %l
l:
  %i = phi i32 [0, %entry], [%j, %l]
  %a = alloca i32, align 4
  store volatile i32 %i, ptr %a
  %j = add i32 %i, 1
  %c = icmp slt i32 %j, %n
  br i1 %c, label %l, label %e
e:
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
