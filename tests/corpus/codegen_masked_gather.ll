; codegen: llvm.masked.gather
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p, <4 x i64> %i) {
  %q = getelementptr float, ptr %p, <4 x i64> %i
  %v = call <4 x float> @llvm.masked.gather.v4f32.v4p0(<4 x ptr> %q, i32 4, <4 x i1> <i1 true, i1 true, i1 true, i1 true>, <4 x float> undef)
  store <4 x float> %v, ptr %p
  ret void
}
declare <4 x float> @llvm.masked.gather.v4f32.v4p0(<4 x ptr>, i32, <4 x i1>, <4 x float>)
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
