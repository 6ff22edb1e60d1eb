; codegen screen: a weak alias
target triple = "nvptx64-nvidia-cuda"
@a = weak alias void (ptr), ptr @h
define internal void @h(ptr %p) {
  store i32 1, ptr %p
  ret void
}
define void @k(ptr %p) {
  call void @a(ptr %p)
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
