; codegen screen: x86_amx
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p) {
  %v = load <256 x i32>, ptr %p
  %t = bitcast <256 x i32> %v to x86_amx
  %b = bitcast x86_amx %t to <256 x i32>
  store <256 x i32> %b, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
