; The toolchain guard refuses a redux.sync call whose value is all lanes
; and whose mask is data in IR that names no clang before 20 (no llvm.ident
; here): the swap cannot be told from intent there.
;
; RUN: ks_passes_tool --stage canonicalize --expect-fail %s | FileCheck %s
; kspec's dialect marks its calls nomerge (redux_guard_dialect.ll): the
; same shape from it passes.
; RUN: ks_passes_tool --kernel dialect --stage canonicalize %s | FileCheck %s --check-prefix=DIALECT

target triple = "nvptx64-nvidia-cuda"

; CHECK: error: KS_ECODEGEN: toolchain: kernel 'k': llvm.nvvm.redux.sync.add reduces an all-lanes value over a mask that is not
; CHECK-SAME: llvm/llvm-project#131415

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

; DIALECT-LABEL: define void @dialect(
; DIALECT: call i32 @llvm.nvvm.redux.sync.add(i32 -1, i32 %v) #
define void @dialect(ptr %out, ptr %in) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i32, ptr %in, i32 %tid
  %v = load i32, ptr %p, align 4
  %r = call i32 @llvm.nvvm.redux.sync.add(i32 -1, i32 %v) #0
  store i32 %r, ptr %out, align 4
  ret void
}

attributes #0 = { convergent nomerge nounwind }

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.redux.sync.add(i32, i32)
declare i32 @llvm.nvvm.redux.sync.umax(i32, i32)
declare i32 @llvm.nvvm.vote.ballot.sync(i32, i1)

!nvvm.annotations = !{!0, !1, !2}
!0 = !{ptr @k, !"kernel", i32 1}
!1 = !{ptr @ok, !"kernel", i32 1}
!2 = !{ptr @dialect, !"kernel", i32 1}
