; bounds: 4 MiB of constant memory, over the 64 KiB a module may have
target triple = "nvptx64-nvidia-cuda"
@c = addrspace(4) externally_initialized global [1048576 x float] zeroinitializer
define void @k(ptr %p, i64 %i) {
  %q = getelementptr [1048576 x float], ptr addrspace(4) @c, i64 0, i64 %i
  %v = load float, ptr addrspace(4) %q
  store float %v, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
