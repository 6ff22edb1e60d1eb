; ModuleID = '/work/wt-fuzz/build/templates/sepfilter_rows.bc'
source_filename = "/work/wt-fuzz/templates/sepfilter_rows.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.__cuda_builtin_blockIdx_t = type { i8 }
%struct.__cuda_builtin_blockDim_t = type { i8 }
%struct.__cuda_builtin_threadIdx_t = type { i8 }

$_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv = comdat any

$_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv = comdat any

$_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv = comdat any

$_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_yEv = comdat any

$_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_yEv = comdat any

$_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_yEv = comdat any

@blockIdx = extern_weak dso_local addrspace(1) global %struct.__cuda_builtin_blockIdx_t, align 1
@blockDim = extern_weak dso_local addrspace(1) global %struct.__cuda_builtin_blockDim_t, align 1
@threadIdx = extern_weak dso_local addrspace(1) global %struct.__cuda_builtin_threadIdx_t, align 1
@.str = private unnamed_addr constant [26 x i8] c"kspec.param RADIUS 8 1 32\00", section "llvm.metadata"
@.str1 = private unnamed_addr constant [42 x i8] c"/work/wt-fuzz/templates/sepfilter_rows.cu\00", section "llvm.metadata"
@.str2 = private unnamed_addr constant [73 x i8] c"kspec.doc row pass of a separable filter, clamped edges, 2*RADIUS+1 taps\00", section "llvm.metadata"
@llvm.global.annotations = appending global [2 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @sepfilter_rows, ptr @.str, ptr @.str1, i32 14, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @sepfilter_rows, ptr @.str2, ptr @.str1, i32 14, ptr null }], section "llvm.metadata"

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @sepfilter_rows(ptr noundef %in, ptr noundef %c, ptr noundef %out, i32 noundef %w, i32 noundef %h, i32 noundef %RADIUS) #0 {
entry:
  %in.addr = alloca ptr, align 8
  %c.addr = alloca ptr, align 8
  %out.addr = alloca ptr, align 8
  %w.addr = alloca i32, align 4
  %h.addr = alloca i32, align 4
  %RADIUS.addr = alloca i32, align 4
  %x = alloca i32, align 4
  %y = alloca i32, align 4
  %cleanup.dest.slot = alloca i32, align 4
  %row = alloca ptr, align 8
  %s = alloca float, align 4
  %k = alloca i32, align 4
  store ptr %in, ptr %in.addr, align 8, !tbaa !5
  store ptr %c, ptr %c.addr, align 8, !tbaa !5
  store ptr %out, ptr %out.addr, align 8, !tbaa !5
  store i32 %w, ptr %w.addr, align 4, !tbaa !9
  store i32 %h, ptr %h.addr, align 4, !tbaa !9
  store i32 %RADIUS, ptr %RADIUS.addr, align 4, !tbaa !9
  call void @llvm.lifetime.start.p0(i64 4, ptr %x) #4
  %call = call noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv() #5
  %call1 = call noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv() #5
  %mul = mul i32 %call, %call1
  %call2 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #5
  %add = add i32 %mul, %call2
  store i32 %add, ptr %x, align 4, !tbaa !9
  call void @llvm.lifetime.start.p0(i64 4, ptr %y) #4
  %call3 = call noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_yEv() #5
  %call4 = call noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_yEv() #5
  %mul5 = mul i32 %call3, %call4
  %call6 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_yEv() #5
  %add7 = add i32 %mul5, %call6
  store i32 %add7, ptr %y, align 4, !tbaa !9
  %0 = load i32, ptr %x, align 4, !tbaa !9
  %1 = load i32, ptr %w.addr, align 4, !tbaa !9
  %cmp = icmp sge i32 %0, %1
  br i1 %cmp, label %if.then, label %lor.lhs.false

lor.lhs.false:                                    ; preds = %entry
  %2 = load i32, ptr %y, align 4, !tbaa !9
  %3 = load i32, ptr %h.addr, align 4, !tbaa !9
  %cmp8 = icmp sge i32 %2, %3
  br i1 %cmp8, label %if.then, label %if.end

if.then:                                          ; preds = %lor.lhs.false, %entry
  store i32 1, ptr %cleanup.dest.slot, align 4
  br label %cleanup

if.end:                                           ; preds = %lor.lhs.false
  call void @llvm.lifetime.start.p0(i64 8, ptr %row) #4
  %4 = load ptr, ptr %in.addr, align 8, !tbaa !5
  %5 = load i32, ptr %y, align 4, !tbaa !9
  %conv = sext i32 %5 to i64
  %6 = load i32, ptr %w.addr, align 4, !tbaa !9
  %conv9 = sext i32 %6 to i64
  %mul10 = mul nsw i64 %conv, %conv9
  %add.ptr = getelementptr inbounds float, ptr %4, i64 %mul10
  store ptr %add.ptr, ptr %row, align 8, !tbaa !5
  call void @llvm.lifetime.start.p0(i64 4, ptr %s) #4
  store float 0.000000e+00, ptr %s, align 4, !tbaa !11
  call void @llvm.lifetime.start.p0(i64 4, ptr %k) #4
  %7 = load i32, ptr %RADIUS.addr, align 4, !tbaa !9
  %sub = sub nsw i32 0, %7
  store i32 %sub, ptr %k, align 4, !tbaa !9
  br label %for.cond

for.cond:                                         ; preds = %for.inc, %if.end
  %8 = load i32, ptr %k, align 4, !tbaa !9
  %9 = load i32, ptr %RADIUS.addr, align 4, !tbaa !9
  %cmp11 = icmp sle i32 %8, %9
  br i1 %cmp11, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.cond
  store i32 2, ptr %cleanup.dest.slot, align 4
  call void @llvm.lifetime.end.p0(i64 4, ptr %k) #4
  br label %for.end

for.body:                                         ; preds = %for.cond
  %10 = load ptr, ptr %row, align 8, !tbaa !5
  %11 = load i32, ptr %x, align 4, !tbaa !9
  %12 = load i32, ptr %k, align 4, !tbaa !9
  %add12 = add nsw i32 %11, %12
  %13 = load i32, ptr %w.addr, align 4, !tbaa !9
  %sub13 = sub nsw i32 %13, 1
  %call14 = call noundef i32 @_ZL8ks_clampiii(i32 noundef %add12, i32 noundef 0, i32 noundef %sub13) #5
  %idxprom = sext i32 %call14 to i64
  %arrayidx = getelementptr inbounds float, ptr %10, i64 %idxprom
  %14 = load float, ptr %arrayidx, align 4, !tbaa !11
  %15 = load ptr, ptr %c.addr, align 8, !tbaa !5
  %16 = load i32, ptr %k, align 4, !tbaa !9
  %17 = load i32, ptr %RADIUS.addr, align 4, !tbaa !9
  %add15 = add nsw i32 %16, %17
  %idxprom16 = sext i32 %add15 to i64
  %arrayidx17 = getelementptr inbounds float, ptr %15, i64 %idxprom16
  %18 = load float, ptr %arrayidx17, align 4, !tbaa !11
  %mul18 = fmul contract float %14, %18
  %19 = load float, ptr %s, align 4, !tbaa !11
  %add19 = fadd contract float %19, %mul18
  store float %add19, ptr %s, align 4, !tbaa !11
  br label %for.inc

for.inc:                                          ; preds = %for.body
  %20 = load i32, ptr %k, align 4, !tbaa !9
  %inc = add nsw i32 %20, 1
  store i32 %inc, ptr %k, align 4, !tbaa !9
  br label %for.cond, !llvm.loop !13

for.end:                                          ; preds = %for.cond.cleanup
  %21 = load float, ptr %s, align 4, !tbaa !11
  %22 = load ptr, ptr %out.addr, align 8, !tbaa !5
  %23 = load i32, ptr %y, align 4, !tbaa !9
  %conv20 = sext i32 %23 to i64
  %24 = load i32, ptr %w.addr, align 4, !tbaa !9
  %conv21 = sext i32 %24 to i64
  %mul22 = mul nsw i64 %conv20, %conv21
  %25 = load i32, ptr %x, align 4, !tbaa !9
  %conv23 = sext i32 %25 to i64
  %add24 = add nsw i64 %mul22, %conv23
  %arrayidx25 = getelementptr inbounds float, ptr %22, i64 %add24
  store float %21, ptr %arrayidx25, align 4, !tbaa !11
  call void @llvm.lifetime.end.p0(i64 4, ptr %s) #4
  call void @llvm.lifetime.end.p0(i64 8, ptr %row) #4
  store i32 0, ptr %cleanup.dest.slot, align 4
  br label %cleanup

cleanup:                                          ; preds = %for.end, %if.then
  call void @llvm.lifetime.end.p0(i64 4, ptr %y) #4
  call void @llvm.lifetime.end.p0(i64 4, ptr %x) #4
  %cleanup.dest = load i32, ptr %cleanup.dest.slot, align 4
  switch i32 %cleanup.dest, label %unreachable [
    i32 0, label %cleanup.cont
    i32 1, label %cleanup.cont
  ]

cleanup.cont:                                     ; preds = %cleanup, %cleanup
  ret void

unreachable:                                      ; preds = %cleanup
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
define linkonce_odr dso_local noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_yEv() #2 comdat align 2 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  ret i32 %0
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_yEv() #2 comdat align 2 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
  ret i32 %0
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_yEv() #2 comdat align 2 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  ret i32 %0
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define internal noundef i32 @_ZL8ks_clampiii(i32 noundef %v, i32 noundef %lo, i32 noundef %hi) #2 {
entry:
  %v.addr = alloca i32, align 4
  %lo.addr = alloca i32, align 4
  %hi.addr = alloca i32, align 4
  store i32 %v, ptr %v.addr, align 4, !tbaa !9
  store i32 %lo, ptr %lo.addr, align 4, !tbaa !9
  store i32 %hi, ptr %hi.addr, align 4, !tbaa !9
  %0 = load i32, ptr %v.addr, align 4, !tbaa !9
  %1 = load i32, ptr %lo.addr, align 4, !tbaa !9
  %cmp = icmp slt i32 %0, %1
  br i1 %cmp, label %cond.true, label %cond.false

cond.true:                                        ; preds = %entry
  %2 = load i32, ptr %lo.addr, align 4, !tbaa !9
  br label %cond.end4

cond.false:                                       ; preds = %entry
  %3 = load i32, ptr %v.addr, align 4, !tbaa !9
  %4 = load i32, ptr %hi.addr, align 4, !tbaa !9
  %cmp1 = icmp sgt i32 %3, %4
  br i1 %cmp1, label %cond.true2, label %cond.false3

cond.true2:                                       ; preds = %cond.false
  %5 = load i32, ptr %hi.addr, align 4, !tbaa !9
  br label %cond.end

cond.false3:                                      ; preds = %cond.false
  %6 = load i32, ptr %v.addr, align 4, !tbaa !9
  br label %cond.end

cond.end:                                         ; preds = %cond.false3, %cond.true2
  %cond = phi i32 [ %5, %cond.true2 ], [ %6, %cond.false3 ]
  br label %cond.end4

cond.end4:                                        ; preds = %cond.end, %cond.true
  %cond5 = phi i32 [ %2, %cond.true ], [ %cond, %cond.end ]
  ret i32 %cond5
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #3

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #3

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #3

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.y() #3

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.y() #3

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.y() #3

attributes #0 = { convergent mustprogress norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" "uniform-work-group-size"="true" }
attributes #1 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { alwaysinline convergent mustprogress nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" }
attributes #3 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #4 = { nounwind }
attributes #5 = { convergent nounwind }

!nvvm.annotations = !{!0}
!llvm.module.flags = !{!1, !2, !3}
!llvm.ident = !{!4}

!0 = !{ptr @sepfilter_rows, !"kernel", i32 1}
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
