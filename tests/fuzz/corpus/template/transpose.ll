; ModuleID = '/work/wt-fuzz/build/templates/transpose.bc'
source_filename = "/work/wt-fuzz/templates/transpose.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.__cuda_builtin_blockIdx_t = type { i8 }
%struct.__cuda_builtin_threadIdx_t = type { i8 }

$_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv = comdat any

$_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv = comdat any

$_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_yEv = comdat any

$_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_yEv = comdat any

@blockIdx = extern_weak dso_local addrspace(1) global %struct.__cuda_builtin_blockIdx_t, align 1
@threadIdx = extern_weak dso_local addrspace(1) global %struct.__cuda_builtin_threadIdx_t, align 1
@.str = private unnamed_addr constant [34 x i8] c"kspec.param TILE 32 1 32 block_xy\00", section "llvm.metadata"
@.str1 = private unnamed_addr constant [37 x i8] c"/work/wt-fuzz/templates/transpose.cu\00", section "llvm.metadata"
@.str2 = private unnamed_addr constant [72 x i8] c"kspec.doc out = in^T for a rows x cols float matrix, TILE x TILE blocks\00", section "llvm.metadata"
@llvm.global.annotations = appending global [2 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @transpose, ptr @.str, ptr @.str1, i32 14, ptr null }, { ptr, ptr, ptr, i32, ptr } { ptr @transpose, ptr @.str2, ptr @.str1, i32 14, ptr null }], section "llvm.metadata"

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @transpose(ptr noundef %in, ptr noundef %out, i32 noundef %rows, i32 noundef %cols, i32 noundef %TILE) #0 {
entry:
  %in.addr = alloca ptr, align 8
  %out.addr = alloca ptr, align 8
  %rows.addr = alloca i32, align 4
  %cols.addr = alloca i32, align 4
  %TILE.addr = alloca i32, align 4
  %x = alloca i32, align 4
  %y = alloca i32, align 4
  store ptr %in, ptr %in.addr, align 8, !tbaa !5
  store ptr %out, ptr %out.addr, align 8, !tbaa !5
  store i32 %rows, ptr %rows.addr, align 4, !tbaa !9
  store i32 %cols, ptr %cols.addr, align 4, !tbaa !9
  store i32 %TILE, ptr %TILE.addr, align 4, !tbaa !9
  call void @llvm.lifetime.start.p0(i64 4, ptr %x) #4
  %call = call noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv() #5
  %0 = load i32, ptr %TILE.addr, align 4, !tbaa !9
  %mul = mul i32 %call, %0
  %call1 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #5
  %add = add i32 %mul, %call1
  store i32 %add, ptr %x, align 4, !tbaa !9
  call void @llvm.lifetime.start.p0(i64 4, ptr %y) #4
  %call2 = call noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_yEv() #5
  %1 = load i32, ptr %TILE.addr, align 4, !tbaa !9
  %mul3 = mul i32 %call2, %1
  %call4 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_yEv() #5
  %add5 = add i32 %mul3, %call4
  store i32 %add5, ptr %y, align 4, !tbaa !9
  %2 = load i32, ptr %x, align 4, !tbaa !9
  %3 = load i32, ptr %cols.addr, align 4, !tbaa !9
  %cmp = icmp slt i32 %2, %3
  br i1 %cmp, label %land.lhs.true, label %if.end

land.lhs.true:                                    ; preds = %entry
  %4 = load i32, ptr %y, align 4, !tbaa !9
  %5 = load i32, ptr %rows.addr, align 4, !tbaa !9
  %cmp6 = icmp slt i32 %4, %5
  br i1 %cmp6, label %if.then, label %if.end

if.then:                                          ; preds = %land.lhs.true
  %6 = load ptr, ptr %in.addr, align 8, !tbaa !5
  %7 = load i32, ptr %y, align 4, !tbaa !9
  %conv = sext i32 %7 to i64
  %8 = load i32, ptr %cols.addr, align 4, !tbaa !9
  %conv7 = sext i32 %8 to i64
  %mul8 = mul nsw i64 %conv, %conv7
  %9 = load i32, ptr %x, align 4, !tbaa !9
  %conv9 = sext i32 %9 to i64
  %add10 = add nsw i64 %mul8, %conv9
  %arrayidx = getelementptr inbounds float, ptr %6, i64 %add10
  %10 = load float, ptr %arrayidx, align 4, !tbaa !11
  %11 = load ptr, ptr %out.addr, align 8, !tbaa !5
  %12 = load i32, ptr %x, align 4, !tbaa !9
  %conv11 = sext i32 %12 to i64
  %13 = load i32, ptr %rows.addr, align 4, !tbaa !9
  %conv12 = sext i32 %13 to i64
  %mul13 = mul nsw i64 %conv11, %conv12
  %14 = load i32, ptr %y, align 4, !tbaa !9
  %conv14 = sext i32 %14 to i64
  %add15 = add nsw i64 %mul13, %conv14
  %arrayidx16 = getelementptr inbounds float, ptr %11, i64 %add15
  store float %10, ptr %arrayidx16, align 4, !tbaa !11
  br label %if.end

if.end:                                           ; preds = %if.then, %land.lhs.true, %entry
  call void @llvm.lifetime.end.p0(i64 4, ptr %y) #4
  call void @llvm.lifetime.end.p0(i64 4, ptr %x) #4
  ret void
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
define linkonce_odr dso_local noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_yEv() #2 comdat align 2 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  ret i32 %0
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #3

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #3

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.y() #3

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

!0 = !{ptr @transpose, !"kernel", i32 1}
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
