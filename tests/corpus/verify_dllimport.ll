; verifier: a dllimport variable with a definition
target triple = "nvptx64-nvidia-cuda"
@g = dllimport addrspace(1) global i32 5
define void @k(ptr %p) {
  %v = load i32, ptr addrspace(1) @g
  store i32 %v, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
