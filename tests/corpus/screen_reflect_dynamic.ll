; codegen screen: __nvvm_reflect on a run-time pointer (crashes NVVMReflect)
target triple = "nvptx64-nvidia-cuda"
declare i32 @__nvvm_reflect(ptr)
define void @k(ptr %p) {
  %r = call i32 @__nvvm_reflect(ptr %p)
  store i32 %r, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
