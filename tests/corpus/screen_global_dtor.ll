; codegen screen: a global destructor
target triple = "nvptx64-nvidia-cuda"
@llvm.global_dtors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 65535, ptr @fini, ptr null }]
define internal void @fini() {
  ret void
}
define void @k(ptr %p) {
  store i32 1, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
