; The toolchain guard: clang before 20 compiles CUDA's
; __reduce_add_sync(mask, value) to llvm.nvvm.redux.sync.add(mask, value),
; the value in the mask's place (llvm/llvm-project#131415). Where llvm.ident
; names clang 19 (and libdevice's clang 3.8, which clang links into CUDA
; code), the guard puts the operands back in order and says so; a call in
; the right order (@ok) is left alone. The same IR from an unknown
; producer is refused (redux_guard_refused.ll).
;
; RUN: ks_passes_tool --stage canonicalize %s | FileCheck %s
; RUN: ks_passes_tool --kernel ok --stage canonicalize %s | FileCheck %s --check-prefix=OK --implicit-check-not=toolchain

target triple = "nvptx64-nvidia-cuda"

; CHECK: ; explain: toolchain: redux.sync.add: mask and value put back in order (clang 19
; CHECK: ; explain: toolchain: redux.sync.add: mask and value put back in order
; CHECK: ; explain: toolchain: redux.sync.umax: mask and value put back in order
; CHECK-LABEL: define void @k(
; CHECK: call i32 @llvm.nvvm.redux.sync.add(i32 %v, i32 -1)
; CHECK: %b = call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 true)
; CHECK: call i32 @llvm.nvvm.redux.sync.umax(i32 %v, i32 %b)
; CHECK: %a = call i32 @llvm.nvvm.activemask()
; CHECK: call i32 @llvm.nvvm.redux.sync.add(i32 1, i32 %a)
; OK-LABEL: define void @ok(
; OK: call i32 @llvm.nvvm.redux.sync.add(i32 %v, i32 -1)
define void @k(ptr %out, ptr %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i32, ptr %in, i32 %tid
  %v = load i32, ptr %p, align 4
  %r = call i32 @llvm.nvvm.redux.sync.add(i32 -1, i32 %v)
  store i32 %r, ptr %out, align 4
  %b = call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 true)
  %m = call i32 @llvm.nvvm.redux.sync.umax(i32 %b, i32 %v)
  %q = getelementptr inbounds i32, ptr %out, i32 1
  store i32 %m, ptr %q, align 4
  ; __reduce_add_sync(__activemask(), 1), counting the active lanes
  %a = call i32 @llvm.nvvm.activemask()
  %c = call i32 @llvm.nvvm.redux.sync.add(i32 %a, i32 1)
  %q2 = getelementptr inbounds i32, ptr %out, i32 2
  store i32 %c, ptr %q2, align 4
  ret void
}

define void @ok(ptr %out, ptr %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i32, ptr %in, i32 %tid
  %v = load i32, ptr %p, align 4
  %r = call i32 @llvm.nvvm.redux.sync.add(i32 %v, i32 -1)
  store i32 %r, ptr %out, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.redux.sync.add(i32, i32)
declare i32 @llvm.nvvm.redux.sync.umax(i32, i32)
declare i32 @llvm.nvvm.vote.ballot.sync(i32, i1)
declare i32 @llvm.nvvm.activemask()

!nvvm.annotations = !{!0, !1}
!0 = !{ptr @k, !"kernel", i32 1}
!1 = !{ptr @ok, !"kernel", i32 1}
!llvm.ident = !{!2, !3}
!2 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!3 = !{!"clang version 3.8.0 (tags/RELEASE_380/final)"}
