; codegen screen: an alias of a kernel
target triple = "nvptx64-nvidia-cuda"
@a = alias void (ptr), ptr @k
define void @k(ptr %p) {
  store i32 1, ptr %p
  ret void
}
define void @k2(ptr %p) {
  call void @a(ptr %p)
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
