; codegen screen: a global constructor
target triple = "nvptx64-nvidia-cuda"
@llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 65535, ptr @init, ptr null }]
@g = addrspace(1) global i32 0
define internal void @init() {
  store i32 1, ptr addrspace(1) @g
  ret void
}
define void @k(ptr %p) {
  %v = load i32, ptr addrspace(1) @g
  store i32 %v, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
