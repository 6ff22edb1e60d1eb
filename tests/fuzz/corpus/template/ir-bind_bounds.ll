; Launch bounds become nvvm.annotations entries of the kernel, next to the
; "kernel" entry it had; the NVPTX backend makes them .reqntid, .maxntid,
; .minnctapersm and .maxnreg. PTX takes .reqntid or .maxntid, not both: a
; fixed block wins (maxntid only bounds it).
;
; RUN: ks_passes_tool --stage bind-only --block 64,2,2 --maxntid 256 --minctasm 2 --maxnreg 64 %s | FileCheck %s --implicit-check-not=maxntid
; RUN: ks_passes_tool --stage bind-only --block 32 %s | FileCheck %s --check-prefix=XONLY --implicit-check-not=maxntid --implicit-check-not=minctasm --implicit-check-not=maxnreg
; RUN: ks_passes_tool --stage bind-only --maxntid 512 %s | FileCheck %s --check-prefix=MAXONLY --implicit-check-not=reqntid --implicit-check-not=minctasm --implicit-check-not=maxnreg
; RUN: ks_passes_tool --stage bind-only %s | FileCheck %s --check-prefix=NONE --implicit-check-not=reqntid --implicit-check-not=maxntid --implicit-check-not=minctasm --implicit-check-not=maxnreg

target triple = "nvptx64-nvidia-cuda"

define void @k(ptr %out) {
entry:
  store i32 1, ptr %out, align 4
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}

; CHECK: !nvvm.annotations = !{{[{]}}![[#]], ![[#]], ![[#]], ![[#]], ![[#]], ![[#]]{{[}]}}
; CHECK-DAG: !{ptr @k, !"kernel", i32 1}
; CHECK-DAG: !{ptr @k, !"reqntidx", i32 64}
; CHECK-DAG: !{ptr @k, !"reqntidy", i32 2}
; CHECK-DAG: !{ptr @k, !"reqntidz", i32 2}
; CHECK-DAG: !{ptr @k, !"minctasm", i32 2}
; CHECK-DAG: !{ptr @k, !"maxnreg", i32 64}

; XONLY-DAG: !{ptr @k, !"kernel", i32 1}
; XONLY-DAG: !{ptr @k, !"reqntidx", i32 32}
; XONLY-DAG: !{ptr @k, !"reqntidy", i32 1}
; XONLY-DAG: !{ptr @k, !"reqntidz", i32 1}

; MAXONLY-DAG: !{ptr @k, !"kernel", i32 1}
; MAXONLY-DAG: !{ptr @k, !"maxntidx", i32 512}

; NONE: !nvvm.annotations = !{![[#]]}
; NONE: !{ptr @k, !"kernel", i32 1}
