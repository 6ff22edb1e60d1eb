; The lower stage (NVPTX's lowering before instruction selection, done by
; kspec): kernel pointer arguments marked global, an unused one left alone;
; a kernel's byval struct that is only read is read in place from the
; parameter space (no copy, even at an index known only at run time); one
; that is written, read atomically or handed to a call is copied to a local
; first, as is a device function's; allocas move to the local space, an
; atomic on a local becomes a load, an add and a store; local names lose
; the '.' PTX does not allow. Where the module has them, LLVM's
; atomic-expand (an atomic PTX has no instruction for becomes a
; compare-and-swap loop; not where the backend screen will refuse an
; atomic, which it then names), expand-variadics and
; lower-constant-intrinsics run, as codegen no longer does.
;
; RUN: ks_passes_tool --kernel read --stage lower %s | FileCheck %s --check-prefix=READ
; RUN: ks_passes_tool --kernel written --stage lower %s | FileCheck %s --check-prefix=WRITTEN
; RUN: ks_passes_tool --kernel atomic --stage lower %s | FileCheck %s --check-prefix=ATOMIC
; RUN: ks_passes_tool --kernel unused --stage lower %s | FileCheck %s --check-prefix=UNUSED
; RUN: ks_passes_tool --kernel counts --stage lower %s | FileCheck %s --check-prefix=COUNTS
; RUN: ks_passes_tool --kernel calls --stage lower %s | FileCheck %s --check-prefix=CALLS
; RUN: ks_passes_tool --kernel nand --stage lower %s | FileCheck %s --check-prefix=NAND
; RUN: ks_passes_tool --kernel seq_cst --stage lower %s | FileCheck %s --check-prefix=SEQCST
; RUN: ks_passes_tool --kernel isconst --stage lower %s | FileCheck %s --check-prefix=ISCONST
; RUN: ks_passes_tool --kernel varargs --stage lower %s | FileCheck %s --check-prefix=VARARGS

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%taps = type { [8 x float], float, i32 }

@tab.1 = internal addrspace(3) global [4 x float] undef

; READ-LABEL: define void @read(
; READ-NOT: alloca
; READ: %[[P:.*]] = addrspacecast ptr %t to ptr addrspace(101)
; READ-NOT: alloca
; READ: %[[M:.*]] = getelementptr inbounds i8, ptr addrspace(101) %[[P]], i64 36
; READ: load i32, ptr addrspace(101) %[[M]]
; READ: %[[W:.*]] = getelementptr inbounds [8 x float], ptr addrspace(101) %[[P]], i64 0, i64 %{{.*}}
; READ: %w = load float, ptr addrspace(101) %[[W]]
; READ: store float %w, ptr addrspace(1)
; READ-NOT: alloca
define void @read(ptr byval(%taps) align 4 %t, ptr %y, i32 %i) {
  %m.p = getelementptr inbounds i8, ptr %t, i64 36
  %m = load i32, ptr %m.p, align 4
  %j = and i32 %i, %m
  %w.p = getelementptr inbounds [8 x float], ptr %t, i32 0, i32 %j
  %w = load float, ptr %w.p, align 4
  store float %w, ptr %y, align 4
  ret void
}

; WRITTEN-LABEL: define void @written(
; WRITTEN: %[[C:.*]] = alloca %taps, align 4
; WRITTEN: %[[L:.*]] = addrspacecast ptr %[[C]] to ptr addrspace(5)
; WRITTEN: %[[P:.*]] = addrspacecast ptr %t to ptr addrspace(101)
; WRITTEN: load %taps, ptr addrspace(101) %[[P]], align 4
; WRITTEN: getelementptr inbounds [8 x float], ptr addrspace(5) %[[L]]
; WRITTEN: store float 1.000000e+00, ptr addrspace(5)
; WRITTEN: load float, ptr addrspace(5)
define void @written(ptr byval(%taps) align 4 %t, ptr %y, i32 %i) {
  %w.p = getelementptr inbounds [8 x float], ptr %t, i32 0, i32 %i
  store float 1.0, ptr %w.p, align 4
  %v.p = getelementptr inbounds i8, ptr %t, i64 4
  %v = load float, ptr %v.p, align 4
  store float %v, ptr %y, align 4
  ret void
}

; ATOMIC-LABEL: define void @atomic(
; ATOMIC: %[[P:.*]] = addrspacecast ptr %t to ptr addrspace(101)
; ATOMIC: load %taps, ptr addrspace(101) %[[P]]
; ATOMIC-NOT: load atomic
; ATOMIC: store i32 %{{.*}}, ptr addrspace(1)
define void @atomic(ptr byval(%taps) align 4 %t, ptr %y) {
  %v = load atomic i32, ptr %t monotonic, align 4
  store i32 %v, ptr %y, align 4
  ret void
}

; UNUSED-LABEL: define void @unused(
; UNUSED-NOT: addrspacecast ptr %p
; UNUSED: addrspacecast ptr %y to ptr addrspace(1)
; UNUSED-NOT: addrspacecast ptr %p
; UNUSED: ret void
define void @unused(ptr %p, ptr %y) {
  store float 0.0, ptr %y, align 4
  ret void
}

; COUNTS: @"tab_$_1" = internal addrspace(3) global
; COUNTS-LABEL: define void @counts(
; COUNTS: %c = alloca [4 x i32]
; COUNTS: %[[L:.*]] = addrspacecast ptr %c to ptr addrspace(5)
; COUNTS: %[[E:.*]] = getelementptr inbounds [4 x i32], ptr addrspace(5) %[[L]]
; COUNTS: store i32 0, ptr addrspace(5) %[[E]]
; COUNTS-NOT: atomicrmw
; COUNTS: %[[O:.*]] = load i32, ptr addrspace(5) %[[E]]
; COUNTS: %[[N:.*]] = add i32 %[[O]], 1
; COUNTS: store i32 %[[N]], ptr addrspace(5) %[[E]]
; COUNTS: getelementptr inbounds [4 x float], ptr addrspace(3) @"tab_$_1"
define void @counts(ptr %y, i32 %i) {
  %c = alloca [4 x i32], align 4
  %c.p = getelementptr inbounds [4 x i32], ptr %c, i32 0, i32 %i
  store i32 0, ptr %c.p, align 4
  %old = atomicrmw add ptr %c.p, i32 1 monotonic
  %s = getelementptr inbounds [4 x float], ptr addrspacecast (ptr addrspace(3) @tab.1 to ptr), i32 0, i32 %i
  %f = load float, ptr %s, align 4
  store i32 %old, ptr %y, align 4
  store float %f, ptr %y, align 4
  ret void
}

define internal float @tap(ptr byval(%taps) align 4 %t, i32 %i) noinline {
  %w = load float, ptr %t, align 4
  ret float %w
}

; CALLS-LABEL: define internal float @tap(
; CALLS: addrspacecast ptr %t to ptr addrspace(101)
; CALLS-LABEL: define void @calls(
; CALLS: %[[C:.*]] = alloca %taps
; CALLS: addrspacecast ptr %t to ptr addrspace(101)
; CALLS: call float @tap(ptr {{.*}}byval(%taps) align 4 %[[C]], i32 0)
define void @calls(ptr byval(%taps) align 4 %t, ptr %y) {
  %w = call float @tap(ptr byval(%taps) align 4 %t, i32 0)
  store float %w, ptr %y, align 4
  ret void
}

; NAND-LABEL: define void @nand(
; NAND-NOT: atomicrmw nand
; NAND: cmpxchg ptr addrspace(1)
define void @nand(ptr %p) {
  %o = atomicrmw nand ptr %p, i32 3 monotonic
  ret void
}

; SEQCST-LABEL: define void @seq_cst(
; SEQCST: atomicrmw nand ptr addrspace(1)
; SEQCST: load atomic i32, ptr addrspace(1) %{{.*}} seq_cst
define void @seq_cst(ptr %p, ptr %q) {
  %o = atomicrmw nand ptr %p, i32 3 monotonic
  %v = load atomic i32, ptr %p seq_cst, align 4
  store i32 %v, ptr %q, align 4
  ret void
}

; (the optimize stage folds these two already; lower would fold what it
; left, which instruction selection cannot take)
; ISCONST-LABEL: define void @isconst(
; ISCONST-NOT: llvm.is.constant
; ISCONST-NOT: llvm.objectsize
; ISCONST: ret void
define void @isconst(ptr %p, i32 %n) {
  %c = call i1 @llvm.is.constant.i32(i32 %n)
  %z = zext i1 %c to i32
  store i32 %z, ptr %p, align 4
  %s = call i64 @llvm.objectsize.i64.p0(ptr %p, i1 false, i1 true, i1 false)
  %s32 = trunc i64 %s to i32
  store i32 %s32, ptr %p, align 4
  ret void
}

; VARARGS-LABEL: define internal i32 @sum(
; VARARGS-NOT: ...
; VARARGS-NOT: llvm.va_start
; VARARGS-LABEL: define void @varargs(
; VARARGS: call i32 @sum(i32 2, ptr
define internal i32 @sum(i32 %n, ...) noinline {
  %ap = alloca ptr, align 8
  call void @llvm.va_start.p0(ptr %ap)
  %a = va_arg ptr %ap, i32
  %b = va_arg ptr %ap, i32
  call void @llvm.va_end.p0(ptr %ap)
  %s = add i32 %a, %b
  ret i32 %s
}

define void @varargs(ptr %p) {
  %a = load i32, ptr %p, align 4
  %s = call i32 (i32, ...) @sum(i32 2, i32 %a, i32 %a)
  store i32 %s, ptr %p, align 4
  ret void
}

declare i1 @llvm.is.constant.i32(i32)
declare i64 @llvm.objectsize.i64.p0(ptr, i1, i1, i1)
declare void @llvm.va_start.p0(ptr)
declare void @llvm.va_end.p0(ptr)

!nvvm.annotations = !{!0, !1, !2, !3, !4, !5, !6, !7, !8, !9}
!0 = !{ptr @read, !"kernel", i32 1}
!1 = !{ptr @written, !"kernel", i32 1}
!2 = !{ptr @atomic, !"kernel", i32 1}
!3 = !{ptr @unused, !"kernel", i32 1}
!4 = !{ptr @counts, !"kernel", i32 1}
!5 = !{ptr @calls, !"kernel", i32 1}
!6 = !{ptr @nand, !"kernel", i32 1}
!7 = !{ptr @seq_cst, !"kernel", i32 1}
!8 = !{ptr @isconst, !"kernel", i32 1}
!9 = !{ptr @varargs, !"kernel", i32 1}
