; The bind pass replaces bound arguments by constants of the argument's type;
; the arguments stay in the signature so the launch does not change.
;
; RUN: ks_passes_tool --stage bind-only --bind 2=32 --bind 3=0.5 --bind 4=-7 %s | FileCheck %s
; RUN: ks_passes_tool --stage bind-only --bind 4=-7 %s | FileCheck %s --check-prefix=SOME
; RUN: ks_passes_tool --stage bind-only %s | FileCheck %s --check-prefix=FREE

target triple = "nvptx64-nvidia-cuda"

; CHECK-LABEL: define void @k(ptr %out, i32 %n, i32 %LEN, float %SCALE, i64 %OFF)
; CHECK-NOT: %LEN
; CHECK-NOT: %SCALE
; CHECK-NOT: %OFF
; CHECK: icmp slt i32 %n, 32
; CHECK: fmul float 5.000000e-01, 2.000000e+00
; CHECK: getelementptr float, ptr %out, i64 -7
; CHECK-NOT: %LEN
; CHECK-NOT: %SCALE
; CHECK-NOT: %OFF
; CHECK: ret void

; SOME-LABEL: define void @k(ptr %out, i32 %n, i32 %LEN, float %SCALE, i64 %OFF)
; SOME: icmp slt i32 %n, %LEN
; SOME: fmul float %SCALE, 2.000000e+00
; SOME: getelementptr float, ptr %out, i64 -7

; FREE-LABEL: define void @k(ptr %out, i32 %n, i32 %LEN, float %SCALE, i64 %OFF)
; FREE: icmp slt i32 %n, %LEN
; FREE: fmul float %SCALE, 2.000000e+00
; FREE: getelementptr float, ptr %out, i64 %OFF

define void @k(ptr %out, i32 %n, i32 %LEN, float %SCALE, i64 %OFF) {
entry:
  %c = icmp slt i32 %n, %LEN
  %s = fmul float %SCALE, 2.0
  %o = getelementptr float, ptr %out, i64 %OFF
  br i1 %c, label %then, label %done

then:
  store float %s, ptr %o, align 4
  br label %done

done:
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
