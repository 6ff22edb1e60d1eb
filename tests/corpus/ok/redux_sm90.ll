; accepted on sm_90: llvm.nvvm.redux.sync.add (compiled in this process: the
; screen reads sm_90 from the target-cpu bind gives the kernel)
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p, i32 %n) {
entry:
  %r = call i32 @llvm.nvvm.redux.sync.add(i32 %n, i32 -1)
  store i32 %r, ptr %p
  ret void
}
declare i32 @llvm.nvvm.redux.sync.add(i32, i32)
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
