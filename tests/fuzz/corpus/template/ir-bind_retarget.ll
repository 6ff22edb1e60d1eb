; Every function is retargeted to the requested sm and PTX ISA: clang
; records its own target in function attributes, and the backend follows
; those, not the target machine. Other attributes stay.
;
; RUN: ks_passes_tool --stage bind-only --cpu sm_89 --features +ptx81,+sm_89 %s | FileCheck %s --implicit-check-not=sm_70 --implicit-check-not=sm_61 --implicit-check-not=ptx70 --implicit-check-not=ptx60
; RUN: ks_passes_tool --stage bind-only --cpu sm_80 --ptx 78 %s | FileCheck %s --check-prefix=DEFAULT --implicit-check-not=sm_70 --implicit-check-not=sm_61

target triple = "nvptx64-nvidia-cuda"

; CHECK: define void @k(ptr %p) #[[K:[0-9]+]]
; CHECK: define void @dev(ptr %p) #[[DEV:[0-9]+]]
; CHECK: define void @plain(ptr %p) #[[PLAIN:[0-9]+]]
; CHECK-DAG: attributes #[[K]] = { "other"="x" "target-cpu"="sm_89" "target-features"="+ptx81,+sm_89" }
; CHECK-DAG: attributes #[[DEV]] = { noinline "target-cpu"="sm_89" "target-features"="+ptx81,+sm_89" }
; CHECK-DAG: attributes #[[PLAIN]] = { "target-cpu"="sm_89" "target-features"="+ptx81,+sm_89" }

; DEFAULT: define void @k(ptr %p) #[[K:[0-9]+]]
; DEFAULT: attributes #[[K]] = { "other"="x" "target-cpu"="sm_80" "target-features"="+ptx78,+sm_80" }

define void @k(ptr %p) #0 {
entry:
  call void @dev(ptr %p)
  ret void
}

define void @dev(ptr %p) #1 {
entry:
  store i32 1, ptr %p, align 4
  ret void
}

define void @plain(ptr %p) {
entry:
  ret void
}

attributes #0 = { "other"="x" "target-cpu"="sm_70" "target-features"="+ptx70,+sm_70" }
attributes #1 = { noinline "target-cpu"="sm_61" "target-features"="+ptx60,+sm_61" }

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
