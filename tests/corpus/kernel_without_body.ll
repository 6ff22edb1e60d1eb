; template: an nvvm.annotations kernel entry that points at a declaration
target triple = "nvptx64-nvidia-cuda"
declare void @k(ptr, i32)
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
