; const_promote, the read-only path declined: a buffer also stored to, a
; write that can execute before the load (straight-line or through a loop),
; a later write that does not use the loaded value, a barrier, an atomic, a
; fence, a pointer that escapes, an address that may come from a written
; buffer. None of those loads gets !invariant.load.
;
; RUN: ks_passes_tool --kernel stored --stage const_promote %s | FileCheck %s --check-prefix=STORED
; RUN: ks_passes_tool --kernel before --stage const_promote %s | FileCheck %s --check-prefix=BEFORE
; RUN: ks_passes_tool --kernel loop --stage const_promote %s | FileCheck %s --check-prefix=LOOP
; RUN: ks_passes_tool --kernel later --stage const_promote %s | FileCheck %s --check-prefix=LATER
; RUN: ks_passes_tool --kernel barrier --stage const_promote %s | FileCheck %s --check-prefix=BARRIER
; RUN: ks_passes_tool --kernel atomic --stage const_promote %s | FileCheck %s --check-prefix=ATOMIC
; RUN: ks_passes_tool --kernel fence --stage const_promote %s | FileCheck %s --check-prefix=FENCE
; RUN: ks_passes_tool --kernel escape --stage const_promote %s | FileCheck %s --check-prefix=ESCAPE
; RUN: ks_passes_tool --kernel joined --stage const_promote %s | FileCheck %s --check-prefix=JOINED

target triple = "nvptx64-nvidia-cuda"

; STORED: ; explain: const_promote: x: not read-only: it is stored to
; STORED-LABEL: define void @stored(
; STORED-NOT: invariant.load
define void @stored(ptr %x, i64 %i) {
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %a = load float, ptr %px, align 4
  %b = fmul float %a, 2.0
  %q = getelementptr inbounds float, ptr %x, i64 1
  store float %b, ptr %q, align 4
  ret void
}

; y may be x: y[0] written first, then x[i] read.
; BEFORE: ; explain: const_promote: x: 1 loads kept coherent: a write to global memory can execute before them
; BEFORE-LABEL: define void @before(
; BEFORE-NOT: invariant.load
define void @before(ptr %x, ptr %y, i64 %i) {
  store float 0.0, ptr %y, align 4
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %a = load float, ptr %px, align 4
  %py = getelementptr inbounds float, ptr %y, i64 %i
  store float %a, ptr %py, align 4
  ret void
}

; The store of one iteration comes before the load of the next.
; LOOP: ; explain: const_promote: x: 1 loads kept coherent: a write to global memory can execute before them
; LOOP-LABEL: define void @loop(
; LOOP-NOT: invariant.load
define void @loop(ptr %x, ptr %y, i64 %n) {
entry:
  br label %body
body:
  %i = phi i64 [ 0, %entry ], [ %i.next, %body ]
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %a = load float, ptr %px, align 4
  %py = getelementptr inbounds float, ptr %y, i64 %i
  store float %a, ptr %py, align 4
  %i.next = add i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %body, label %exit
exit:
  ret void
}

; The first store does not use %a: with y == x, marking %a would let it
; move below that store.
; LATER: ; explain: const_promote: x: 1 loads kept coherent: a later write does not use their value
; LATER-LABEL: define void @later(
; LATER-NOT: invariant.load
define void @later(ptr %x, ptr %y, ptr %z, i64 %i) {
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %a = load float, ptr %px, align 4
  store float 0.0, ptr %y, align 4
  store float %a, ptr %z, align 4
  ret void
}

; A write to global memory before a barrier (another thread may read what
; it wrote after the barrier).
; BARRIER: ; explain: const_promote: declined ld.global.nc: the kernel has a barrier after a write to global memory (llvm.nvvm.barrier0)
; BARRIER-LABEL: define void @barrier(
; BARRIER-NOT: invariant.load
define void @barrier(ptr %x, ptr %y, i64 %i) {
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %a = load float, ptr %px, align 4
  store float 0.0, ptr %y, align 4
  call void @llvm.nvvm.barrier0()
  %py = getelementptr inbounds float, ptr %y, i64 %i
  store float %a, ptr %py, align 4
  ret void
}

; ATOMIC: ; explain: const_promote: declined ld.global.nc: the kernel has a fence or an atomic
; ATOMIC-LABEL: define void @atomic(
; ATOMIC-NOT: invariant.load
define void @atomic(ptr %x, ptr %h, i64 %i) {
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %a = load float, ptr %px, align 4
  %b = fptosi float %a to i32
  %old = atomicrmw add ptr %h, i32 %b monotonic, align 4
  ret void
}

; FENCE: ; explain: const_promote: declined ld.global.nc: the kernel has a fence or an atomic
; FENCE-LABEL: define void @fence(
; FENCE-NOT: invariant.load
define void @fence(ptr %x, ptr %y, i64 %i) {
  fence seq_cst
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %a = load float, ptr %px, align 4
  store float %a, ptr %y, align 4
  ret void
}

; ESCAPE: ; explain: const_promote: x: not read-only: its address is stored to memory
; ESCAPE-LABEL: define void @escape(
; ESCAPE-NOT: invariant.load
define void @escape(ptr %x, ptr %y, i64 %i) {
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %a = load float, ptr %px, align 4
  store ptr %x, ptr %y, align 8
  ret void
}

; %p may be y, which is written: only x's own load is marked.
; JOINED: ; explain: const_promote: x: 1 loads read-only, marked for ld.global.nc
; JOINED: ; explain: const_promote: x: 1 loads kept coherent: their address may also come from another pointer (phi or select)
; JOINED-LABEL: define void @joined(
; JOINED: %a = load float, ptr %p, align 4{{$}}
; JOINED: %b = load float, ptr %px, align 4, !invariant.load
define void @joined(ptr %x, ptr %y, i1 %c, i64 %i) {
  %p = select i1 %c, ptr %x, ptr %y
  %a = load float, ptr %p, align 4
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %b = load float, ptr %px, align 4
  %s = fadd float %a, %b
  %py = getelementptr inbounds float, ptr %y, i64 %i
  store float %s, ptr %py, align 4
  ret void
}

declare void @llvm.nvvm.barrier0()

!nvvm.annotations = !{!0, !1, !2, !3, !4, !5, !6, !7, !8}
!0 = !{ptr @stored, !"kernel", i32 1}
!1 = !{ptr @before, !"kernel", i32 1}
!2 = !{ptr @loop, !"kernel", i32 1}
!3 = !{ptr @later, !"kernel", i32 1}
!4 = !{ptr @barrier, !"kernel", i32 1}
!5 = !{ptr @atomic, !"kernel", i32 1}
!6 = !{ptr @fence, !"kernel", i32 1}
!7 = !{ptr @escape, !"kernel", i32 1}
!8 = !{ptr @joined, !"kernel", i32 1}
