; codegen: acquire load and release store
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p, i32 %n) {
entry:
  %r = load atomic i32, ptr %p acquire, align 4
  store atomic i32 %r, ptr %p release, align 4
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
