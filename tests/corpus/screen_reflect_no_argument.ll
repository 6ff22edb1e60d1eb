; codegen screen: __nvvm_reflect declared without its argument
target triple = "nvptx64-nvidia-cuda"
declare i32 @__nvvm_reflect()
define void @k(ptr %p) {
  %r = call i32 @__nvvm_reflect()
  store i32 %r, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
