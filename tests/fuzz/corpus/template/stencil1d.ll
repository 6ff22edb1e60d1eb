; ModuleID = '/work/wt-fuzz/build/templates/stencil1d.bc'
source_filename = "/work/wt-fuzz/templates/stencil1d.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.__cuda_builtin_blockIdx_t = type { i8 }
%struct.__cuda_builtin_blockDim_t = type { i8 }
%struct.__cuda_builtin_threadIdx_t = type { i8 }

$_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv = comdat any

$_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv = comdat any

$_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv = comdat any

@blockIdx = extern_weak dso_local addrspace(1) global %struct.__cuda_builtin_blockIdx_t, align 1
@blockDim = extern_weak dso_local addrspace(1) global %struct.__cuda_builtin_blockDim_t, align 1
@threadIdx = extern_weak dso_local addrspace(1) global %struct.__cuda_builtin_threadIdx_t, align 1
@.str = private unnamed_addr constant [27 x i8] c"kspec.param RADIUS 16 1 64\00", section "llvm.metadata"
@.str1 = private unnamed_addr constant [37 x i8] c"/work/wt-fuzz/templates/stencil1d.cu\00", section "llvm.metadata"
@.str2 = private unnamed_addr constant [86 x i8] c"kspec.doc 1-D stencil of radius RADIUS, 4 outputs per thread; x has n+2*RADIUS floats\00", section "llvm.metadata"
@llvm.global.annotations = appending global [2 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @stencil1d, ptr @.str, ptr @.str1, i32 28, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @stencil1d, ptr @.str2, ptr @.str1, i32 28, ptr null }], section "llvm.metadata"

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @stencil1d(ptr noundef %x, ptr noundef %c, ptr noundef %y, i32 noundef %n, i32 noundef %RADIUS) #0 {
entry:
  %x.addr = alloca ptr, align 8
  %c.addr = alloca ptr, align 8
  %y.addr = alloca ptr, align 8
  %n.addr = alloca i32, align 4
  %RADIUS.addr = alloca i32, align 4
  %o = alloca i32, align 4
  %cleanup.dest.slot = alloca i32, align 4
  %ntaps = alloca i32, align 4
  %a0 = alloca float, align 4
  %a1 = alloca float, align 4
  %a2 = alloca float, align 4
  %a3 = alloca float, align 4
  %j = alloca i32, align 4
  store ptr %x, ptr %x.addr, align 8, !tbaa !5
  store ptr %c, ptr %c.addr, align 8, !tbaa !5
  store ptr %y, ptr %y.addr, align 8, !tbaa !5
  store i32 %n, ptr %n.addr, align 4, !tbaa !9
  store i32 %RADIUS, ptr %RADIUS.addr, align 4, !tbaa !9
  call void @llvm.lifetime.start.p0(i64 4, ptr %o) #4
  %call = call noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv() #5
  %call1 = call noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv() #5
  %mul = mul i32 %call, %call1
  %call2 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #5
  %add = add i32 %mul, %call2
  %mul3 = mul i32 4, %add
  store i32 %mul3, ptr %o, align 4, !tbaa !9
  %0 = load i32, ptr %o, align 4, !tbaa !9
  %1 = load i32, ptr %n.addr, align 4, !tbaa !9
  %cmp = icmp sge i32 %0, %1
  br i1 %cmp, label %if.then, label %if.end

if.then:                                          ; preds = %entry
  store i32 1, ptr %cleanup.dest.slot, align 4
  br label %cleanup42

if.end:                                           ; preds = %entry
  call void @llvm.lifetime.start.p0(i64 4, ptr %ntaps) #4
  %2 = load i32, ptr %RADIUS.addr, align 4, !tbaa !9
  %mul4 = mul nsw i32 2, %2
  %add5 = add nsw i32 %mul4, 1
  store i32 %add5, ptr %ntaps, align 4, !tbaa !9
  %3 = load i32, ptr %o, align 4, !tbaa !9
  %add6 = add nsw i32 %3, 3
  %4 = load i32, ptr %n.addr, align 4, !tbaa !9
  %cmp7 = icmp slt i32 %add6, %4
  br i1 %cmp7, label %if.then8, label %if.end31

if.then8:                                         ; preds = %if.end
  call void @llvm.lifetime.start.p0(i64 4, ptr %a0) #4
  %5 = load ptr, ptr %c.addr, align 8, !tbaa !5
  %6 = load ptr, ptr %x.addr, align 8, !tbaa !5
  %7 = load i32, ptr %o, align 4, !tbaa !9
  %idx.ext = sext i32 %7 to i64
  %add.ptr = getelementptr inbounds float, ptr %6, i64 %idx.ext
  %8 = load i32, ptr %ntaps, align 4, !tbaa !9
  %call9 = call contract noundef float @_ZL9detrendedPKfS0_i(ptr noundef %5, ptr noundef %add.ptr, i32 noundef %8) #5
  store float %call9, ptr %a0, align 4, !tbaa !11
  call void @llvm.lifetime.start.p0(i64 4, ptr %a1) #4
  %9 = load ptr, ptr %c.addr, align 8, !tbaa !5
  %10 = load ptr, ptr %x.addr, align 8, !tbaa !5
  %11 = load i32, ptr %o, align 4, !tbaa !9
  %idx.ext10 = sext i32 %11 to i64
  %add.ptr11 = getelementptr inbounds float, ptr %10, i64 %idx.ext10
  %add.ptr12 = getelementptr inbounds float, ptr %add.ptr11, i64 1
  %12 = load i32, ptr %ntaps, align 4, !tbaa !9
  %call13 = call contract noundef float @_ZL9detrendedPKfS0_i(ptr noundef %9, ptr noundef %add.ptr12, i32 noundef %12) #5
  store float %call13, ptr %a1, align 4, !tbaa !11
  call void @llvm.lifetime.start.p0(i64 4, ptr %a2) #4
  %13 = load ptr, ptr %c.addr, align 8, !tbaa !5
  %14 = load ptr, ptr %x.addr, align 8, !tbaa !5
  %15 = load i32, ptr %o, align 4, !tbaa !9
  %idx.ext14 = sext i32 %15 to i64
  %add.ptr15 = getelementptr inbounds float, ptr %14, i64 %idx.ext14
  %add.ptr16 = getelementptr inbounds float, ptr %add.ptr15, i64 2
  %16 = load i32, ptr %ntaps, align 4, !tbaa !9
  %call17 = call contract noundef float @_ZL9detrendedPKfS0_i(ptr noundef %13, ptr noundef %add.ptr16, i32 noundef %16) #5
  store float %call17, ptr %a2, align 4, !tbaa !11
  call void @llvm.lifetime.start.p0(i64 4, ptr %a3) #4
  %17 = load ptr, ptr %c.addr, align 8, !tbaa !5
  %18 = load ptr, ptr %x.addr, align 8, !tbaa !5
  %19 = load i32, ptr %o, align 4, !tbaa !9
  %idx.ext18 = sext i32 %19 to i64
  %add.ptr19 = getelementptr inbounds float, ptr %18, i64 %idx.ext18
  %add.ptr20 = getelementptr inbounds float, ptr %add.ptr19, i64 3
  %20 = load i32, ptr %ntaps, align 4, !tbaa !9
  %call21 = call contract noundef float @_ZL9detrendedPKfS0_i(ptr noundef %17, ptr noundef %add.ptr20, i32 noundef %20) #5
  store float %call21, ptr %a3, align 4, !tbaa !11
  %21 = load float, ptr %a0, align 4, !tbaa !11
  %22 = load ptr, ptr %y.addr, align 8, !tbaa !5
  %23 = load i32, ptr %o, align 4, !tbaa !9
  %idxprom = sext i32 %23 to i64
  %arrayidx = getelementptr inbounds float, ptr %22, i64 %idxprom
  store float %21, ptr %arrayidx, align 4, !tbaa !11
  %24 = load float, ptr %a1, align 4, !tbaa !11
  %25 = load ptr, ptr %y.addr, align 8, !tbaa !5
  %26 = load i32, ptr %o, align 4, !tbaa !9
  %add22 = add nsw i32 %26, 1
  %idxprom23 = sext i32 %add22 to i64
  %arrayidx24 = getelementptr inbounds float, ptr %25, i64 %idxprom23
  store float %24, ptr %arrayidx24, align 4, !tbaa !11
  %27 = load float, ptr %a2, align 4, !tbaa !11
  %28 = load ptr, ptr %y.addr, align 8, !tbaa !5
  %29 = load i32, ptr %o, align 4, !tbaa !9
  %add25 = add nsw i32 %29, 2
  %idxprom26 = sext i32 %add25 to i64
  %arrayidx27 = getelementptr inbounds float, ptr %28, i64 %idxprom26
  store float %27, ptr %arrayidx27, align 4, !tbaa !11
  %30 = load float, ptr %a3, align 4, !tbaa !11
  %31 = load ptr, ptr %y.addr, align 8, !tbaa !5
  %32 = load i32, ptr %o, align 4, !tbaa !9
  %add28 = add nsw i32 %32, 3
  %idxprom29 = sext i32 %add28 to i64
  %arrayidx30 = getelementptr inbounds float, ptr %31, i64 %idxprom29
  store float %30, ptr %arrayidx30, align 4, !tbaa !11
  store i32 1, ptr %cleanup.dest.slot, align 4
  call void @llvm.lifetime.end.p0(i64 4, ptr %a3) #4
  call void @llvm.lifetime.end.p0(i64 4, ptr %a2) #4
  call void @llvm.lifetime.end.p0(i64 4, ptr %a1) #4
  call void @llvm.lifetime.end.p0(i64 4, ptr %a0) #4
  br label %cleanup

if.end31:                                         ; preds = %if.end
  call void @llvm.lifetime.start.p0(i64 4, ptr %j) #4
  store i32 0, ptr %j, align 4, !tbaa !9
  br label %for.cond

for.cond:                                         ; preds = %for.inc, %if.end31
  %33 = load i32, ptr %o, align 4, !tbaa !9
  %34 = load i32, ptr %j, align 4, !tbaa !9
  %add32 = add nsw i32 %33, %34
  %35 = load i32, ptr %n.addr, align 4, !tbaa !9
  %cmp33 = icmp slt i32 %add32, %35
  br i1 %cmp33, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.cond
  store i32 2, ptr %cleanup.dest.slot, align 4
  call void @llvm.lifetime.end.p0(i64 4, ptr %j) #4
  br label %for.end

for.body:                                         ; preds = %for.cond
  %36 = load ptr, ptr %c.addr, align 8, !tbaa !5
  %37 = load ptr, ptr %x.addr, align 8, !tbaa !5
  %38 = load i32, ptr %o, align 4, !tbaa !9
  %idx.ext34 = sext i32 %38 to i64
  %add.ptr35 = getelementptr inbounds float, ptr %37, i64 %idx.ext34
  %39 = load i32, ptr %j, align 4, !tbaa !9
  %idx.ext36 = sext i32 %39 to i64
  %add.ptr37 = getelementptr inbounds float, ptr %add.ptr35, i64 %idx.ext36
  %40 = load i32, ptr %ntaps, align 4, !tbaa !9
  %call38 = call contract noundef float @_ZL9detrendedPKfS0_i(ptr noundef %36, ptr noundef %add.ptr37, i32 noundef %40) #5
  %41 = load ptr, ptr %y.addr, align 8, !tbaa !5
  %42 = load i32, ptr %o, align 4, !tbaa !9
  %43 = load i32, ptr %j, align 4, !tbaa !9
  %add39 = add nsw i32 %42, %43
  %idxprom40 = sext i32 %add39 to i64
  %arrayidx41 = getelementptr inbounds float, ptr %41, i64 %idxprom40
  store float %call38, ptr %arrayidx41, align 4, !tbaa !11
  br label %for.inc

for.inc:                                          ; preds = %for.body
  %44 = load i32, ptr %j, align 4, !tbaa !9
  %inc = add nsw i32 %44, 1
  store i32 %inc, ptr %j, align 4, !tbaa !9
  br label %for.cond, !llvm.loop !13

for.end:                                          ; preds = %for.cond.cleanup
  store i32 0, ptr %cleanup.dest.slot, align 4
  br label %cleanup

cleanup:                                          ; preds = %for.end, %if.then8
  call void @llvm.lifetime.end.p0(i64 4, ptr %ntaps) #4
  br label %cleanup42

cleanup42:                                        ; preds = %cleanup, %if.then
  call void @llvm.lifetime.end.p0(i64 4, ptr %o) #4
  %cleanup.dest = load i32, ptr %cleanup.dest.slot, align 4
  switch i32 %cleanup.dest, label %unreachable [
    i32 0, label %cleanup.cont
    i32 1, label %cleanup.cont
  ]

cleanup.cont:                                     ; preds = %cleanup42, %cleanup42
  ret void

unreachable:                                      ; preds = %cleanup42
  unreachable
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv() #2 comdat align 2 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  ret i32 %0
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv() #2 comdat align 2 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  ret i32 %0
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #2 comdat align 2 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  ret i32 %0
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define internal noundef float @_ZL9detrendedPKfS0_i(ptr noundef %c, ptr noundef %x, i32 noundef %ntaps) #2 {
entry:
  %c.addr = alloca ptr, align 8
  %x.addr = alloca ptr, align 8
  %ntaps.addr = alloca i32, align 4
  %m = alloca float, align 4
  %k = alloca i32, align 4
  %a = alloca float, align 4
  %k1 = alloca i32, align 4
  store ptr %c, ptr %c.addr, align 8, !tbaa !5
  store ptr %x, ptr %x.addr, align 8, !tbaa !5
  store i32 %ntaps, ptr %ntaps.addr, align 4, !tbaa !9
  call void @llvm.lifetime.start.p0(i64 4, ptr %m) #4
  store float 0.000000e+00, ptr %m, align 4, !tbaa !11
  call void @llvm.lifetime.start.p0(i64 4, ptr %k) #4
  store i32 0, ptr %k, align 4, !tbaa !9
  br label %for.cond

for.cond:                                         ; preds = %for.inc, %entry
  %0 = load i32, ptr %k, align 4, !tbaa !9
  %1 = load i32, ptr %ntaps.addr, align 4, !tbaa !9
  %cmp = icmp slt i32 %0, %1
  br i1 %cmp, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.cond
  call void @llvm.lifetime.end.p0(i64 4, ptr %k) #4
  br label %for.end

for.body:                                         ; preds = %for.cond
  %2 = load ptr, ptr %x.addr, align 8, !tbaa !5
  %3 = load i32, ptr %k, align 4, !tbaa !9
  %idxprom = sext i32 %3 to i64
  %arrayidx = getelementptr inbounds float, ptr %2, i64 %idxprom
  %4 = load float, ptr %arrayidx, align 4, !tbaa !11
  %5 = load float, ptr %m, align 4, !tbaa !11
  %add = fadd contract float %5, %4
  store float %add, ptr %m, align 4, !tbaa !11
  br label %for.inc

for.inc:                                          ; preds = %for.body
  %6 = load i32, ptr %k, align 4, !tbaa !9
  %inc = add nsw i32 %6, 1
  store i32 %inc, ptr %k, align 4, !tbaa !9
  br label %for.cond, !llvm.loop !15

for.end:                                          ; preds = %for.cond.cleanup
  %7 = load i32, ptr %ntaps.addr, align 4, !tbaa !9
  %conv = sitofp i32 %7 to float
  %8 = load float, ptr %m, align 4, !tbaa !11
  %div = fdiv contract float %8, %conv
  store float %div, ptr %m, align 4, !tbaa !11
  call void @llvm.lifetime.start.p0(i64 4, ptr %a) #4
  store float 0.000000e+00, ptr %a, align 4, !tbaa !11
  call void @llvm.lifetime.start.p0(i64 4, ptr %k1) #4
  store i32 0, ptr %k1, align 4, !tbaa !9
  br label %for.cond2

for.cond2:                                        ; preds = %for.inc11, %for.end
  %9 = load i32, ptr %k1, align 4, !tbaa !9
  %10 = load i32, ptr %ntaps.addr, align 4, !tbaa !9
  %cmp3 = icmp slt i32 %9, %10
  br i1 %cmp3, label %for.body5, label %for.cond.cleanup4

for.cond.cleanup4:                                ; preds = %for.cond2
  call void @llvm.lifetime.end.p0(i64 4, ptr %k1) #4
  br label %for.end13

for.body5:                                        ; preds = %for.cond2
  %11 = load ptr, ptr %c.addr, align 8, !tbaa !5
  %12 = load i32, ptr %k1, align 4, !tbaa !9
  %idxprom6 = sext i32 %12 to i64
  %arrayidx7 = getelementptr inbounds float, ptr %11, i64 %idxprom6
  %13 = load float, ptr %arrayidx7, align 4, !tbaa !11
  %14 = load ptr, ptr %x.addr, align 8, !tbaa !5
  %15 = load i32, ptr %k1, align 4, !tbaa !9
  %idxprom8 = sext i32 %15 to i64
  %arrayidx9 = getelementptr inbounds float, ptr %14, i64 %idxprom8
  %16 = load float, ptr %arrayidx9, align 4, !tbaa !11
  %17 = load float, ptr %m, align 4, !tbaa !11
  %sub = fsub contract float %16, %17
  %mul = fmul contract float %13, %sub
  %18 = load float, ptr %a, align 4, !tbaa !11
  %add10 = fadd contract float %18, %mul
  store float %add10, ptr %a, align 4, !tbaa !11
  br label %for.inc11

for.inc11:                                        ; preds = %for.body5
  %19 = load i32, ptr %k1, align 4, !tbaa !9
  %inc12 = add nsw i32 %19, 1
  store i32 %inc12, ptr %k1, align 4, !tbaa !9
  br label %for.cond2, !llvm.loop !16

for.end13:                                        ; preds = %for.cond.cleanup4
  %20 = load float, ptr %a, align 4, !tbaa !11
  call void @llvm.lifetime.end.p0(i64 4, ptr %a) #4
  call void @llvm.lifetime.end.p0(i64 4, ptr %m) #4
  ret float %20
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #3

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #3

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #3

attributes #0 = { convergent mustprogress norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" "uniform-work-group-size"="true" }
attributes #1 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { alwaysinline convergent mustprogress nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" }
attributes #3 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #4 = { nounwind }
attributes #5 = { convergent nounwind }

!nvvm.annotations = !{!0}
!llvm.module.flags = !{!1, !2, !3}
!llvm.ident = !{!4}

!0 = !{ptr @stencil1d, !"kernel", i32 1}
!1 = !{i32 1, !"wchar_size", i32 4}
!2 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!3 = !{i32 7, !"frame-pointer", i32 2}
!4 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!5 = !{!6, !6, i64 0}
!6 = !{!"any pointer", !7, i64 0}
!7 = !{!"omnipotent char", !8, i64 0}
!8 = !{!"Simple C++ TBAA"}
!9 = !{!10, !10, i64 0}
!10 = !{!"int", !7, i64 0}
!11 = !{!12, !12, i64 0}
!12 = !{!"float", !7, i64 0}
!13 = distinct !{!13, !14}
!14 = !{!"llvm.loop.mustprogress"}
!15 = distinct !{!15, !14}
!16 = distinct !{!16, !14}
