; codegen: fence and atomicrmw with made-up scopes
target triple = "nvptx64-nvidia-cuda"
define void @k(ptr %p) {
  fence syncscope("nonsense") seq_cst
  %r = atomicrmw add ptr %p, i32 1 syncscope("bogus") monotonic
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
