; Failures of the bind pass: status and a message naming the stage.
;
; RUN: ks_passes_tool --expect-fail --stage bind-only --kernel nosuch %s | FileCheck %s --check-prefix=NOKERNEL
; NOKERNEL: error: KS_ENOKERNEL: bind: {{.*}}'nosuch'
;
; RUN: ks_passes_tool --expect-fail --stage bind-only --kernel decl %s | FileCheck %s --check-prefix=DECL
; DECL: error: KS_ENOKERNEL: bind: {{.*}}'decl'
;
; RUN: ks_passes_tool --expect-fail --stage bind-only --bind 7=1 %s | FileCheck %s --check-prefix=NOARG
; NOARG: error: KS_EPARAM: bind: {{.*}}'k'{{.*}} 7
;
; RUN: ks_passes_tool --expect-fail --stage bind-only --block 64,4 --maxntid 128 %s | FileCheck %s --check-prefix=BOUNDS
; BOUNDS: error: KS_EBOUNDS: bind: {{.*}}256{{.*}}128
;
; The same failure through the whole pipeline names the bind stage.
; RUN: ks_passes_tool --expect-fail --stage all --block 64,4 --maxntid 128 %s | FileCheck %s --check-prefix=BOUNDS

target triple = "nvptx64-nvidia-cuda"

define void @k(ptr %p, i32 %N) {
entry:
  store i32 %N, ptr %p, align 4
  ret void
}

declare void @decl(ptr, i32)

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
