; accepted: invoke of a device function with a landing pad
target triple = "nvptx64-nvidia-cuda"
declare i32 @__gxx_personality_v0(...)
define internal void @thrower(ptr %p) {
  store i32 1, ptr %p
  ret void
}
define void @k(ptr %p) personality ptr @__gxx_personality_v0 {
  invoke void @thrower(ptr %p) to label %ok unwind label %lp
ok:
  ret void
lp:
  %l = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %l
}
!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
