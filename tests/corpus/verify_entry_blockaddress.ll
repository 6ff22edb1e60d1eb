; verifier: the address of the entry block
target triple = "nvptx64-nvidia-cuda"
@g = addrspace(1) global ptr blockaddress(@k, %entry)
define void @k(ptr %p) {
entry:
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
