; The canonicalize stage deletes calls whose value is unused and that have
; no effect, which LLVM keeps where willreturn is missing: inline asm
; without side effects (cooperative groups' reserved_shared_ptr, here a
; %globaltimer read) and a function that only reads and must make progress.
; It keeps asm with side effects, asm whose value is used, asm with a
; memory clobber, a function that may not return and one that writes.
;
; RUN: ks_passes_tool --kernel k --stage canonicalize %s | FileCheck %s

target triple = "nvptx64-nvidia-cuda"

declare float @reads_only(ptr) #1
declare float @may_not_return(float) #2
declare void @writes(ptr) #3

; CHECK: ; explain: canonicalize: 2 dead calls without effects removed
; CHECK-LABEL: define void @k(
; CHECK-NOT: globaltimer
; CHECK-NOT: @reads_only
; CHECK: asm sideeffect "membar.gl;"
; CHECK: %lane = call i32 asm "mov.u32 $0, %laneid;"
; CHECK: call i32 asm "ld.global.u32 $0, [$1];"
; CHECK: call float @may_not_return(
; CHECK: call void @writes(
; CHECK: ret void
define void @k(ptr %x, ptr %y) {
  %t = call i64 asm "mov.u64 $0, %globaltimer;", "=l"() #0
  call void asm sideeffect "membar.gl;", ""() #0
  %lane = call i32 asm "mov.u32 $0, %laneid;", "=r"() #0
  %clob = call i32 asm "ld.global.u32 $0, [$1];", "=r,l,~{memory}"(ptr %x) #4
  %r = call float @reads_only(ptr %x)
  %m = call float @may_not_return(float 1.0)
  call void @writes(ptr %y)
  %p = getelementptr inbounds i32, ptr %y, i32 %lane
  store i32 %lane, ptr %p, align 4
  ret void
}

attributes #0 = { convergent nounwind memory(none) }
attributes #1 = { mustprogress nounwind memory(read) }
attributes #2 = { nounwind memory(none) }
attributes #3 = { nounwind willreturn memory(argmem: write) }
attributes #4 = { convergent nounwind }

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
