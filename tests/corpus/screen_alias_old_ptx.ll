; codegen screen: an alias (needs PTX ISA 6.3; fails at 6.0)
target triple = "nvptx64-nvidia-cuda"
@a = alias void (ptr), ptr @impl
define void @impl(ptr %p) {
  store i32 1, ptr %p
  ret void
}
define void @k(ptr %p) {
  call void @a(ptr %p)
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
