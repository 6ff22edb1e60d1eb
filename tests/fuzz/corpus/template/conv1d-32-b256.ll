; ModuleID = '/work/wt-fuzz/build/templates/conv1d.bc'
source_filename = "/work/wt-fuzz/templates/conv1d.cu"
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
@.str = private unnamed_addr constant [32 x i8] c"kspec.param FILTER_LEN 32 1 128\00", section "llvm.metadata"
@.str1 = private unnamed_addr constant [34 x i8] c"/work/wt-fuzz/templates/conv1d.cu\00", section "llvm.metadata"
@.str2 = private unnamed_addr constant [80 x i8] c"kspec.doc 1-D convolution y[i] = sum_k x[i+k]*f[k]; x has n+FILTER_LEN-1 floats\00", section "llvm.metadata"
@llvm.global.annotations = appending global [2 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @conv1d, ptr @.str, ptr @.str1, i32 9, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @conv1d, ptr @.str2, ptr @.str1, i32 9, ptr null }], section "llvm.metadata"

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @conv1d(ptr noundef %x, ptr noundef %f, ptr noundef %y, i32 noundef %n, i32 noundef %FILTER_LEN) #0 {
entry:
  %x.addr = alloca ptr, align 8
  %f.addr = alloca ptr, align 8
  %y.addr = alloca ptr, align 8
  %n.addr = alloca i32, align 4
  %FILTER_LEN.addr = alloca i32, align 4
  %i = alloca i32, align 4
  %cleanup.dest.slot = alloca i32, align 4
  %s = alloca float, align 4
  %k = alloca i32, align 4
  store ptr %x, ptr %x.addr, align 8, !tbaa !5
  store ptr %f, ptr %f.addr, align 8, !tbaa !5
  store ptr %y, ptr %y.addr, align 8, !tbaa !5
  store i32 %n, ptr %n.addr, align 4, !tbaa !9
  store i32 %FILTER_LEN, ptr %FILTER_LEN.addr, align 4, !tbaa !9
  call void @llvm.lifetime.start.p0(i64 4, ptr %i) #4
  %call = call noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv() #5
  %call1 = call noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv() #5
  %mul = mul i32 %call, %call1
  %call2 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #5
  %add = add i32 %mul, %call2
  store i32 %add, ptr %i, align 4, !tbaa !9
  %0 = load i32, ptr %i, align 4, !tbaa !9
  %1 = load i32, ptr %n.addr, align 4, !tbaa !9
  %cmp = icmp sge i32 %0, %1
  br i1 %cmp, label %if.then, label %if.end

if.then:                                          ; preds = %entry
  store i32 1, ptr %cleanup.dest.slot, align 4
  br label %cleanup

if.end:                                           ; preds = %entry
  call void @llvm.lifetime.start.p0(i64 4, ptr %s) #4
  store float 0.000000e+00, ptr %s, align 4, !tbaa !11
  call void @llvm.lifetime.start.p0(i64 4, ptr %k) #4
  store i32 0, ptr %k, align 4, !tbaa !9
  br label %for.cond

for.cond:                                         ; preds = %for.inc, %if.end
  %2 = load i32, ptr %k, align 4, !tbaa !9
  %3 = load i32, ptr %FILTER_LEN.addr, align 4, !tbaa !9
  %cmp3 = icmp slt i32 %2, %3
  br i1 %cmp3, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.cond
  store i32 2, ptr %cleanup.dest.slot, align 4
  call void @llvm.lifetime.end.p0(i64 4, ptr %k) #4
  br label %for.end

for.body:                                         ; preds = %for.cond
  %4 = load ptr, ptr %x.addr, align 8, !tbaa !5
  %5 = load i32, ptr %i, align 4, !tbaa !9
  %6 = load i32, ptr %k, align 4, !tbaa !9
  %add4 = add nsw i32 %5, %6
  %idxprom = sext i32 %add4 to i64
  %arrayidx = getelementptr inbounds float, ptr %4, i64 %idxprom
  %7 = load float, ptr %arrayidx, align 4, !tbaa !11
  %8 = load ptr, ptr %f.addr, align 8, !tbaa !5
  %9 = load i32, ptr %k, align 4, !tbaa !9
  %idxprom5 = sext i32 %9 to i64
  %arrayidx6 = getelementptr inbounds float, ptr %8, i64 %idxprom5
  %10 = load float, ptr %arrayidx6, align 4, !tbaa !11
  %mul7 = fmul contract float %7, %10
  %11 = load float, ptr %s, align 4, !tbaa !11
  %add8 = fadd contract float %11, %mul7
  store float %add8, ptr %s, align 4, !tbaa !11
  br label %for.inc

for.inc:                                          ; preds = %for.body
  %12 = load i32, ptr %k, align 4, !tbaa !9
  %inc = add nsw i32 %12, 1
  store i32 %inc, ptr %k, align 4, !tbaa !9
  br label %for.cond, !llvm.loop !13

for.end:                                          ; preds = %for.cond.cleanup
  %13 = load float, ptr %s, align 4, !tbaa !11
  %14 = load ptr, ptr %y.addr, align 8, !tbaa !5
  %15 = load i32, ptr %i, align 4, !tbaa !9
  %idxprom9 = sext i32 %15 to i64
  %arrayidx10 = getelementptr inbounds float, ptr %14, i64 %idxprom9
  store float %13, ptr %arrayidx10, align 4, !tbaa !11
  call void @llvm.lifetime.end.p0(i64 4, ptr %s) #4
  store i32 0, ptr %cleanup.dest.slot, align 4
  br label %cleanup

cleanup:                                          ; preds = %for.end, %if.then
  call void @llvm.lifetime.end.p0(i64 4, ptr %i) #4
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

!0 = !{ptr @conv1d, !"kernel", i32 1}
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

;ks: -D FILTER_LEN=32 --block 256
