; codegen: sinf is called only when MODE=1 (the default); binding MODE=0
; removes the call and the kernel compiles (see cases.txt)
target triple = "nvptx64-nvidia-cuda"
@.str = private unnamed_addr constant [23 x i8] c"kspec.param MODE 1 0 1\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @k, ptr @.str, ptr null, i32 0, ptr null }], section "llvm.metadata"
declare float @sinf(float)
define void @k(ptr %p, i32 %MODE) {
entry:
  %c = icmp eq i32 %MODE, 1
  br i1 %c, label %s, label %e
s:
  %v = load float, ptr %p
  %r = call float @sinf(float %v)
  store float %r, ptr %p
  br label %e
e:
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
