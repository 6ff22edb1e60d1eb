; template: a parameter range that is not a number
target triple = "nvptx64-nvidia-cuda"
@.str = private unnamed_addr constant [22 x i8] c"kspec.param F 1 nan 8\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @k, ptr @.str, ptr null, i32 0, ptr null }], section "llvm.metadata"
define void @k(ptr %p, i32 %N, float %F, i16 %S) {
  store i32 %N, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
