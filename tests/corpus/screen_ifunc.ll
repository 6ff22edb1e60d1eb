; codegen screen: an ifunc
target triple = "nvptx64-nvidia-cuda"
@f = ifunc void (ptr), ptr @resolve
define internal ptr @resolve() {
  ret ptr @impl
}
define internal void @impl(ptr %p) {
  store i32 1, ptr %p
  ret void
}
define void @k(ptr %p) {
  call void @f(ptr %p)
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
