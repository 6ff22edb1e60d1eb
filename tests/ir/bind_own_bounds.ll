; A kernel that declares launch bounds of its own (__launch_bounds__(128, 2):
; maxntidx 128, minctasm 2) can still be specialized on a block that fits
; them: the fixed block becomes its .reqntid and the kernel's .maxntid gives
; way (PTX takes one of the two; its key is renamed, which the backend
; ignores). A smaller --maxntid replaces it. What the kernel declares is
; not declared twice; what contradicts it is refused, naming both.
;
; RUN: ks_passes_tool --stage bind-only --kernel lb --block 64,2 --minctasm 2 %s | FileCheck %s --check-prefix=BLOCK
; RUN: ks_passes_tool --stage bind-only --kernel lb --maxntid 96 %s | FileCheck %s --check-prefix=MAX
; RUN: ks_passes_tool --stage bind-only --kernel req --block 32,4 --maxnreg 32 %s | FileCheck %s --check-prefix=REQ
; RUN: ks_passes_tool --expect-fail --stage bind-only --kernel lb --block 256 %s | FileCheck %s --check-prefix=OVER
; RUN: ks_passes_tool --expect-fail --stage bind-only --kernel lb --maxntid 129 %s | FileCheck %s --check-prefix=OVERMAX
; RUN: ks_passes_tool --expect-fail --stage bind-only --kernel lb --minctasm 4 %s | FileCheck %s --check-prefix=MINCTA
; RUN: ks_passes_tool --expect-fail --stage bind-only --kernel req --block 128 %s | FileCheck %s --check-prefix=REQDIFF
; RUN: ks_passes_tool --expect-fail --stage bind-only --kernel req --maxntid 128 %s | FileCheck %s --check-prefix=REQMAX
; RUN: ks_passes_tool --expect-fail --stage bind-only --kernel req --maxnreg 40 %s | FileCheck %s --check-prefix=NREG

; BLOCK-NOT: !"maxntidx"
; BLOCK-DAG: !{ptr @lb, !"kspec.dropped.maxntidx", i32 128}
; BLOCK-DAG: !{ptr @lb, !"minctasm", i32 2}
; BLOCK-DAG: !{ptr @lb, !"reqntidx", i32 64}
; BLOCK-DAG: !{ptr @lb, !"reqntidy", i32 2}
; BLOCK-NOT: !"minctasm", i32 2}
; BLOCK-NOT: !"maxntidx"

; MAX-DAG: !{ptr @lb, !"kspec.dropped.maxntidx", i32 128}
; MAX-DAG: !{ptr @lb, !"maxntidx", i32 96}

; REQ: !nvvm.annotations = !{!0, !1, !2, !3, !4}
; REQ: !{ptr @req, !"kernel", i32 1, !"reqntidx", i32 32, !"reqntidy", i32 4}
; REQ-NEXT: !{ptr @req, !"maxnreg", i32 32}
; REQ-NOT: !{

; OVER: error: KS_EBOUNDS: bind: a block of 256 threads exceeds the .maxntid 128 kernel 'lb' declares
; OVERMAX: error: KS_EBOUNDS: bind: maxntid 129 exceeds the .maxntid 128 kernel 'lb' declares
; MINCTA: error: KS_EBOUNDS: bind: kernel 'lb' declares its own .minnctapersm 2 (__launch_bounds__); the request asks 4
; REQDIFF: error: KS_EBOUNDS: bind: block 128x1x1 differs from the .reqntid kernel 'req' declares, 32x4x1
; REQMAX: error: KS_EBOUNDS: bind: kernel 'req' declares its own .reqntid; a maxntid cannot be added to it
; NREG: error: KS_EBOUNDS: bind: kernel 'req' declares its own .maxnreg 32 (__launch_bounds__); the request asks 40

target triple = "nvptx64-nvidia-cuda"

define void @lb(ptr %p) {
  store i32 1, ptr %p
  ret void
}

define void @req(ptr %p) {
  store i32 1, ptr %p
  ret void
}

!nvvm.annotations = !{!0, !1, !2, !3, !4}
!0 = !{ptr @lb, !"kernel", i32 1}
!1 = !{ptr @lb, !"maxntidx", i32 128}
!2 = !{ptr @lb, !"minctasm", i32 2}
!3 = !{ptr @req, !"kernel", i32 1, !"reqntidx", i32 32, !"reqntidy", i32 4}
!4 = !{ptr @req, !"maxnreg", i32 32}
