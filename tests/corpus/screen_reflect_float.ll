; codegen screen: __nvvm_reflect returning a float (NVVMReflect writes an integer)
target triple = "nvptx64-nvidia-cuda"
@.s = private unnamed_addr constant [11 x i8] c"__CUDA_FTZ\00"
declare float @__nvvm_reflect(ptr)
define void @k(ptr %p) {
  %r = call float @__nvvm_reflect(ptr @.s)
  store float %r, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
