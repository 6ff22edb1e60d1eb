; verifier: a phi that names a block which is not a predecessor
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p, i1 %c) {
entry:
  br i1 %c, label %a, label %b
a:
  br label %b
b:
  %v = phi i32 [ 1, %entry ], [ 2, %a ], [ 3, %b ]
  store i32 %v, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
