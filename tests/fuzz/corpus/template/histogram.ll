; ModuleID = '/work/wt-fuzz/build/templates/histogram.bc'
source_filename = "/work/wt-fuzz/templates/histogram.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.__cuda_builtin_gridDim_t = type { i8 }
%struct.__cuda_builtin_blockDim_t = type { i8 }
%struct.__cuda_builtin_blockIdx_t = type { i8 }
%struct.__cuda_builtin_threadIdx_t = type { i8 }

$_ZN24__cuda_builtin_gridDim_t17__fetch_builtin_xEv = comdat any

$_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv = comdat any

$_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv = comdat any

$_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv = comdat any

@gridDim = extern_weak dso_local addrspace(1) global %struct.__cuda_builtin_gridDim_t, align 1
@blockDim = extern_weak dso_local addrspace(1) global %struct.__cuda_builtin_blockDim_t, align 1
@blockIdx = extern_weak dso_local addrspace(1) global %struct.__cuda_builtin_blockIdx_t, align 1
@threadIdx = extern_weak dso_local addrspace(1) global %struct.__cuda_builtin_threadIdx_t, align 1
@.str = private unnamed_addr constant [28 x i8] c"kspec.param BINS 256 1 4096\00", section "llvm.metadata"
@.str1 = private unnamed_addr constant [37 x i8] c"/work/wt-fuzz/templates/histogram.cu\00", section "llvm.metadata"
@.str2 = private unnamed_addr constant [72 x i8] c"kspec.doc histogram of n bytes, hist[v*BINS/256] += 1 by global atomics\00", section "llvm.metadata"
@llvm.global.annotations = appending global [2 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @histogram, ptr @.str, ptr @.str1, i32 15, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @histogram, ptr @.str2, ptr @.str1, i32 15, ptr null }], section "llvm.metadata"

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @histogram(ptr noalias noundef %data, ptr noalias noundef %hist, i32 noundef %n, i32 noundef %BINS) #0 {
entry:
  %data.addr = alloca ptr, align 8
  %hist.addr = alloca ptr, align 8
  %n.addr = alloca i32, align 4
  %BINS.addr = alloca i32, align 4
  %stride = alloca i32, align 4
  %i = alloca i32, align 4
  %bin = alloca i32, align 4
  store ptr %data, ptr %data.addr, align 8, !tbaa !5
  store ptr %hist, ptr %hist.addr, align 8, !tbaa !5
  store i32 %n, ptr %n.addr, align 4, !tbaa !9
  store i32 %BINS, ptr %BINS.addr, align 4, !tbaa !9
  call void @llvm.lifetime.start.p0(i64 4, ptr %stride) #4
  %call = call noundef i32 @_ZN24__cuda_builtin_gridDim_t17__fetch_builtin_xEv() #5
  %call1 = call noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv() #5
  %mul = mul i32 %call, %call1
  store i32 %mul, ptr %stride, align 4, !tbaa !9
  call void @llvm.lifetime.start.p0(i64 4, ptr %i) #4
  %call2 = call noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv() #5
  %call3 = call noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv() #5
  %mul4 = mul i32 %call2, %call3
  %call5 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #5
  %add = add i32 %mul4, %call5
  store i32 %add, ptr %i, align 4, !tbaa !9
  br label %for.cond

for.cond:                                         ; preds = %for.inc, %entry
  %0 = load i32, ptr %i, align 4, !tbaa !9
  %1 = load i32, ptr %n.addr, align 4, !tbaa !9
  %cmp = icmp slt i32 %0, %1
  br i1 %cmp, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.cond
  call void @llvm.lifetime.end.p0(i64 4, ptr %i) #4
  br label %for.end

for.body:                                         ; preds = %for.cond
  call void @llvm.lifetime.start.p0(i64 4, ptr %bin) #4
  %2 = load ptr, ptr %data.addr, align 8, !tbaa !5
  %3 = load i32, ptr %i, align 4, !tbaa !9
  %idxprom = sext i32 %3 to i64
  %arrayidx = getelementptr inbounds i8, ptr %2, i64 %idxprom
  %4 = load i8, ptr %arrayidx, align 1, !tbaa !11
  %conv = zext i8 %4 to i32
  %5 = load i32, ptr %BINS.addr, align 4, !tbaa !9
  %mul6 = mul nsw i32 %conv, %5
  %div = sdiv i32 %mul6, 256
  store i32 %div, ptr %bin, align 4, !tbaa !9
  %6 = load ptr, ptr %hist.addr, align 8, !tbaa !5
  %7 = load i32, ptr %bin, align 4, !tbaa !9
  %idxprom7 = sext i32 %7 to i64
  %arrayidx8 = getelementptr inbounds i32, ptr %6, i64 %idxprom7
  %call9 = call noundef i32 @_ZL9atomicAddPjj(ptr noundef %arrayidx8, i32 noundef 1) #5
  call void @llvm.lifetime.end.p0(i64 4, ptr %bin) #4
  br label %for.inc

for.inc:                                          ; preds = %for.body
  %8 = load i32, ptr %stride, align 4, !tbaa !9
  %9 = load i32, ptr %i, align 4, !tbaa !9
  %add10 = add nsw i32 %9, %8
  store i32 %add10, ptr %i, align 4, !tbaa !9
  br label %for.cond, !llvm.loop !12

for.end:                                          ; preds = %for.cond.cleanup
  call void @llvm.lifetime.end.p0(i64 4, ptr %stride) #4
  ret void
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN24__cuda_builtin_gridDim_t17__fetch_builtin_xEv() #2 comdat align 2 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  ret i32 %0
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv() #2 comdat align 2 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  ret i32 %0
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv() #2 comdat align 2 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  ret i32 %0
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #2 comdat align 2 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  ret i32 %0
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define internal noundef i32 @_ZL9atomicAddPjj(ptr noundef %p, i32 noundef %v) #2 {
entry:
  %p.addr = alloca ptr, align 8
  %v.addr = alloca i32, align 4
  store ptr %p, ptr %p.addr, align 8, !tbaa !5
  store i32 %v, ptr %v.addr, align 4, !tbaa !9
  %0 = load ptr, ptr %p.addr, align 8, !tbaa !5
  %1 = load i32, ptr %v.addr, align 4, !tbaa !9
  %2 = atomicrmw add ptr %0, i32 %1 seq_cst, align 4
  ret i32 %2
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.nctaid.x() #3

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #3

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #3

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

!0 = !{ptr @histogram, !"kernel", i32 1}
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
!11 = !{!7, !7, i64 0}
!12 = distinct !{!12, !13}
!13 = !{!"llvm.loop.mustprogress"}
