; verifier: an intrinsic that cannot be invoked
target triple = "nvptx64-nvidia-cuda"
declare i32 @__gxx_personality_v0(...)
declare void @llvm.trap()
define void @k(ptr %p) personality ptr @__gxx_personality_v0 {
  invoke void @llvm.trap() to label %ok unwind label %lp
ok:
  ret void
lp:
  %l = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %l
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
