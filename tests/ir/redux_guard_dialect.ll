; The toolchain guard leaves kspec's dialect alone: kspec_device.h's
; __reduce_*_sync call llvm.nvvm.redux.sync.* in its order (value, mask),
; marked nomerge. A reduction of an all-lanes value over a mask of data
; (__reduce_and_sync(m, ~0u), __reduce_or_sync(m, __activemask())) is
; what the guard would otherwise take for clang 19's swap; with the mark it
; stays as written, under clang 19's llvm.ident as with none
; (redux_guard_refused.ll's @dialect).
;
; RUN: ks_passes_tool --stage canonicalize %s | FileCheck %s --implicit-check-not=toolchain

target triple = "nvptx64-nvidia-cuda"

; CHECK-LABEL: define void @k(
; CHECK: %m = call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 %odd)
; CHECK: call i32 @llvm.nvvm.redux.sync.and(i32 -1, i32 %m) #[[NM:[0-9]+]]
; CHECK: %a = call i32 @llvm.nvvm.activemask()
; CHECK: call i32 @llvm.nvvm.redux.sync.or(i32 %a, i32 %m) #[[NM]]
; CHECK: attributes #[[NM]] = { {{.*}}nomerge
define void @k(ptr %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bit = and i32 %tid, 1
  %odd = icmp ne i32 %bit, 0
  %m = call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 %odd)
  br i1 %odd, label %lanes, label %done

lanes:
  %r = call i32 @llvm.nvvm.redux.sync.and(i32 -1, i32 %m) #0
  store i32 %r, ptr %out, align 4
  %a = call i32 @llvm.nvvm.activemask()
  %o = call i32 @llvm.nvvm.redux.sync.or(i32 %a, i32 %m) #0
  %q = getelementptr inbounds i32, ptr %out, i32 1
  store i32 %o, ptr %q, align 4
  br label %done

done:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.redux.sync.and(i32, i32)
declare i32 @llvm.nvvm.redux.sync.or(i32, i32)
declare i32 @llvm.nvvm.vote.ballot.sync(i32, i1)
declare i32 @llvm.nvvm.activemask()

attributes #0 = { convergent nomerge nounwind }

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
!llvm.ident = !{!1}
!1 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
