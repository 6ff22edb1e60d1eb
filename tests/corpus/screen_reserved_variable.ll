; codegen screen: code that calls @llvm.global.annotations (found by flipping
; a bit of conv1d.bc; LLVM's call graph crashed on it)
target triple = "nvptx64-nvidia-cuda"
@.str = private unnamed_addr constant [4 x i8] c"doc\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @k, ptr @.str, ptr null, i32 0, ptr null }], section "llvm.metadata"
define void @k(ptr %p) {
  %r = call i32 @llvm.global.annotations()
  store i32 %r, ptr %p
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
