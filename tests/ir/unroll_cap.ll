; Full unrolling has a size cap. The loops stage asks LLVM to unroll every
; loop in full, and LLVM 19 does for any trip count up to a million,
; whatever the size: this kernel's tile loop (n / 256 = 64 tiles, n bound)
; around its 256-step inner loop (the block fixed) became 16384 copies of
; the body, 312k lines of PTX. Over the cap the stages from loops run
; again with unroll count 8, and the kernel keeps loops. Without n bound
; the tile loop's trip count is unknown: the inner loop alone is unrolled
; in full, under the cap. Source (clang-19, -O3 -Xclang
; -disable-llvm-passes, -nocudainc, __global__/__device__/__shared__
; defined, the builtin variables' header included):
;
;   struct f4 { float x, y, z, w; };
;   extern "C" __global__ void nbody_tile(const f4 *pos, f4 *acc, int n,
;                                         float soft) {
;     extern __shared__ f4 tile[];
;     int i = blockIdx.x * blockDim.x + threadIdx.x;
;     f4 p = pos[i];
;     float ax = 0, ay = 0, az = 0;
;     for (int t = 0; t < n; t += blockDim.x) {
;       tile[threadIdx.x] = pos[t + threadIdx.x];
;       __nvvm_bar_sync(0);
;       for (int j = 0; j < blockDim.x; j++) {
;         f4 q = tile[j];
;         float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
;         float d2 = dx * dx + dy * dy + dz * dz + soft;
;         float inv = 1.0f / __builtin_sqrtf(d2);
;         float s = q.w * inv * inv * inv;
;         ax += dx * s; ay += dy * s; az += dz * s;
;       }
;       __nvvm_bar_sync(0);
;     }
;     acc[i] = f4{ax, ay, az, 0};
;   }
;
; RUN: ks_passes_tool --stage all --kernel nbody_tile --block 256 --bind 2=16384 --bind 3=0.01 %s | FileCheck %s --check-prefix=CAP
; RUN: ks_passes_tool --stage all --kernel nbody_tile --block 256 --bind 3=0.01 %s | FileCheck %s --check-prefix=INNER

; CAP: ; explain: regpressure: full unrolling made {{[0-9]+}} instructions, over the cap of 40000: unroll count 8 instead ({{[0-9]+}})
; CAP-LABEL: define {{.*}}@nbody_tile(
; CAP: !llvm.loop

; INNER-NOT: over the cap
; INNER-LABEL: define {{.*}}@nbody_tile(
; INNER-COUNT-256: {{= .*call.*}}@llvm.sqrt.f32(
; INNER-NOT: {{= .*call.*}}@llvm.sqrt.f32(

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.__cuda_builtin_blockIdx_t = type { i8 }
%struct.__cuda_builtin_blockDim_t = type { i8 }
%struct.__cuda_builtin_threadIdx_t = type { i8 }
%struct.f4 = type { float, float, float, float }

$_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv = comdat any

$_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv = comdat any

$_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv = comdat any

@blockIdx = extern_weak dso_local addrspace(1) global %struct.__cuda_builtin_blockIdx_t, align 1
@blockDim = extern_weak dso_local addrspace(1) global %struct.__cuda_builtin_blockDim_t, align 1
@threadIdx = extern_weak dso_local addrspace(1) global %struct.__cuda_builtin_threadIdx_t, align 1
@tile = external dso_local addrspace(3) global [0 x %struct.f4], align 4

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @nbody_tile(ptr noundef %0, ptr noundef %1, i32 noundef %2, float noundef %3) #0 {
  %5 = alloca ptr, align 8
  %6 = alloca ptr, align 8
  %7 = alloca i32, align 4
  %8 = alloca float, align 4
  %9 = alloca i32, align 4
  %10 = alloca %struct.f4, align 4
  %11 = alloca float, align 4
  %12 = alloca float, align 4
  %13 = alloca float, align 4
  %14 = alloca i32, align 4
  %15 = alloca i32, align 4
  %16 = alloca i32, align 4
  %17 = alloca %struct.f4, align 4
  %18 = alloca float, align 4
  %19 = alloca float, align 4
  %20 = alloca float, align 4
  %21 = alloca float, align 4
  %22 = alloca float, align 4
  %23 = alloca float, align 4
  %24 = alloca %struct.f4, align 4
  store ptr %0, ptr %5, align 8, !tbaa !5
  store ptr %1, ptr %6, align 8, !tbaa !5
  store i32 %2, ptr %7, align 4, !tbaa !9
  store float %3, ptr %8, align 4, !tbaa !11
  call void @llvm.lifetime.start.p0(i64 4, ptr %9) #6
  %25 = call noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv() #7
  %26 = call noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv() #7
  %27 = mul i32 %25, %26
  %28 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #7
  %29 = add i32 %27, %28
  store i32 %29, ptr %9, align 4, !tbaa !9
  call void @llvm.lifetime.start.p0(i64 16, ptr %10) #6
  %30 = load ptr, ptr %5, align 8, !tbaa !5
  %31 = load i32, ptr %9, align 4, !tbaa !9
  %32 = sext i32 %31 to i64
  %33 = getelementptr inbounds %struct.f4, ptr %30, i64 %32
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %10, ptr align 4 %33, i64 16, i1 false), !tbaa.struct !13
  call void @llvm.lifetime.start.p0(i64 4, ptr %11) #6
  store float 0.000000e+00, ptr %11, align 4, !tbaa !11
  call void @llvm.lifetime.start.p0(i64 4, ptr %12) #6
  store float 0.000000e+00, ptr %12, align 4, !tbaa !11
  call void @llvm.lifetime.start.p0(i64 4, ptr %13) #6
  store float 0.000000e+00, ptr %13, align 4, !tbaa !11
  call void @llvm.lifetime.start.p0(i64 4, ptr %14) #6
  store i32 0, ptr %14, align 4, !tbaa !9
  br label %34

34:                                               ; preds = %116, %4
  %35 = load i32, ptr %14, align 4, !tbaa !9
  %36 = load i32, ptr %7, align 4, !tbaa !9
  %37 = icmp slt i32 %35, %36
  br i1 %37, label %39, label %38

38:                                               ; preds = %34
  store i32 2, ptr %15, align 4
  call void @llvm.lifetime.end.p0(i64 4, ptr %14) #6
  br label %120

39:                                               ; preds = %34
  %40 = load ptr, ptr %5, align 8, !tbaa !5
  %41 = load i32, ptr %14, align 4, !tbaa !9
  %42 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #7
  %43 = add i32 %41, %42
  %44 = zext i32 %43 to i64
  %45 = getelementptr inbounds %struct.f4, ptr %40, i64 %44
  %46 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #7
  %47 = zext i32 %46 to i64
  %48 = getelementptr inbounds [0 x %struct.f4], ptr addrspacecast (ptr addrspace(3) @tile to ptr), i64 0, i64 %47
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %48, ptr align 4 %45, i64 16, i1 false), !tbaa.struct !13
  call void @llvm.nvvm.bar.sync(i32 0)
  call void @llvm.lifetime.start.p0(i64 4, ptr %16) #6
  store i32 0, ptr %16, align 4, !tbaa !9
  br label %49

49:                                               ; preds = %112, %39
  %50 = load i32, ptr %16, align 4, !tbaa !9
  %51 = call noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv() #7
  %52 = icmp ult i32 %50, %51
  br i1 %52, label %54, label %53

53:                                               ; preds = %49
  store i32 5, ptr %15, align 4
  call void @llvm.lifetime.end.p0(i64 4, ptr %16) #6
  br label %115

54:                                               ; preds = %49
  call void @llvm.lifetime.start.p0(i64 16, ptr %17) #6
  %55 = load i32, ptr %16, align 4, !tbaa !9
  %56 = sext i32 %55 to i64
  %57 = getelementptr inbounds [0 x %struct.f4], ptr addrspacecast (ptr addrspace(3) @tile to ptr), i64 0, i64 %56
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %17, ptr align 4 %57, i64 16, i1 false), !tbaa.struct !13
  call void @llvm.lifetime.start.p0(i64 4, ptr %18) #6
  %58 = getelementptr inbounds %struct.f4, ptr %17, i32 0, i32 0
  %59 = load float, ptr %58, align 4, !tbaa !14
  %60 = getelementptr inbounds %struct.f4, ptr %10, i32 0, i32 0
  %61 = load float, ptr %60, align 4, !tbaa !14
  %62 = fsub contract float %59, %61
  store float %62, ptr %18, align 4, !tbaa !11
  call void @llvm.lifetime.start.p0(i64 4, ptr %19) #6
  %63 = getelementptr inbounds %struct.f4, ptr %17, i32 0, i32 1
  %64 = load float, ptr %63, align 4, !tbaa !16
  %65 = getelementptr inbounds %struct.f4, ptr %10, i32 0, i32 1
  %66 = load float, ptr %65, align 4, !tbaa !16
  %67 = fsub contract float %64, %66
  store float %67, ptr %19, align 4, !tbaa !11
  call void @llvm.lifetime.start.p0(i64 4, ptr %20) #6
  %68 = getelementptr inbounds %struct.f4, ptr %17, i32 0, i32 2
  %69 = load float, ptr %68, align 4, !tbaa !17
  %70 = getelementptr inbounds %struct.f4, ptr %10, i32 0, i32 2
  %71 = load float, ptr %70, align 4, !tbaa !17
  %72 = fsub contract float %69, %71
  store float %72, ptr %20, align 4, !tbaa !11
  call void @llvm.lifetime.start.p0(i64 4, ptr %21) #6
  %73 = load float, ptr %18, align 4, !tbaa !11
  %74 = load float, ptr %18, align 4, !tbaa !11
  %75 = fmul contract float %73, %74
  %76 = load float, ptr %19, align 4, !tbaa !11
  %77 = load float, ptr %19, align 4, !tbaa !11
  %78 = fmul contract float %76, %77
  %79 = fadd contract float %75, %78
  %80 = load float, ptr %20, align 4, !tbaa !11
  %81 = load float, ptr %20, align 4, !tbaa !11
  %82 = fmul contract float %80, %81
  %83 = fadd contract float %79, %82
  %84 = load float, ptr %8, align 4, !tbaa !11
  %85 = fadd contract float %83, %84
  store float %85, ptr %21, align 4, !tbaa !11
  call void @llvm.lifetime.start.p0(i64 4, ptr %22) #6
  %86 = load float, ptr %21, align 4, !tbaa !11
  %87 = call contract float @llvm.sqrt.f32(float %86)
  %88 = fdiv contract float 1.000000e+00, %87
  store float %88, ptr %22, align 4, !tbaa !11
  call void @llvm.lifetime.start.p0(i64 4, ptr %23) #6
  %89 = getelementptr inbounds %struct.f4, ptr %17, i32 0, i32 3
  %90 = load float, ptr %89, align 4, !tbaa !18
  %91 = load float, ptr %22, align 4, !tbaa !11
  %92 = fmul contract float %90, %91
  %93 = load float, ptr %22, align 4, !tbaa !11
  %94 = fmul contract float %92, %93
  %95 = load float, ptr %22, align 4, !tbaa !11
  %96 = fmul contract float %94, %95
  store float %96, ptr %23, align 4, !tbaa !11
  %97 = load float, ptr %18, align 4, !tbaa !11
  %98 = load float, ptr %23, align 4, !tbaa !11
  %99 = fmul contract float %97, %98
  %100 = load float, ptr %11, align 4, !tbaa !11
  %101 = fadd contract float %100, %99
  store float %101, ptr %11, align 4, !tbaa !11
  %102 = load float, ptr %19, align 4, !tbaa !11
  %103 = load float, ptr %23, align 4, !tbaa !11
  %104 = fmul contract float %102, %103
  %105 = load float, ptr %12, align 4, !tbaa !11
  %106 = fadd contract float %105, %104
  store float %106, ptr %12, align 4, !tbaa !11
  %107 = load float, ptr %20, align 4, !tbaa !11
  %108 = load float, ptr %23, align 4, !tbaa !11
  %109 = fmul contract float %107, %108
  %110 = load float, ptr %13, align 4, !tbaa !11
  %111 = fadd contract float %110, %109
  store float %111, ptr %13, align 4, !tbaa !11
  call void @llvm.lifetime.end.p0(i64 4, ptr %23) #6
  call void @llvm.lifetime.end.p0(i64 4, ptr %22) #6
  call void @llvm.lifetime.end.p0(i64 4, ptr %21) #6
  call void @llvm.lifetime.end.p0(i64 4, ptr %20) #6
  call void @llvm.lifetime.end.p0(i64 4, ptr %19) #6
  call void @llvm.lifetime.end.p0(i64 4, ptr %18) #6
  call void @llvm.lifetime.end.p0(i64 16, ptr %17) #6
  br label %112

112:                                              ; preds = %54
  %113 = load i32, ptr %16, align 4, !tbaa !9
  %114 = add nsw i32 %113, 1
  store i32 %114, ptr %16, align 4, !tbaa !9
  br label %49, !llvm.loop !19

115:                                              ; preds = %53
  call void @llvm.nvvm.bar.sync(i32 0)
  br label %116

116:                                              ; preds = %115
  %117 = call noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv() #7
  %118 = load i32, ptr %14, align 4, !tbaa !9
  %119 = add i32 %118, %117
  store i32 %119, ptr %14, align 4, !tbaa !9
  br label %34, !llvm.loop !21

120:                                              ; preds = %38
  call void @llvm.lifetime.start.p0(i64 16, ptr %24) #6
  %121 = getelementptr inbounds %struct.f4, ptr %24, i32 0, i32 0
  %122 = load float, ptr %11, align 4, !tbaa !11
  store float %122, ptr %121, align 4, !tbaa !14
  %123 = getelementptr inbounds %struct.f4, ptr %24, i32 0, i32 1
  %124 = load float, ptr %12, align 4, !tbaa !11
  store float %124, ptr %123, align 4, !tbaa !16
  %125 = getelementptr inbounds %struct.f4, ptr %24, i32 0, i32 2
  %126 = load float, ptr %13, align 4, !tbaa !11
  store float %126, ptr %125, align 4, !tbaa !17
  %127 = getelementptr inbounds %struct.f4, ptr %24, i32 0, i32 3
  store float 0.000000e+00, ptr %127, align 4, !tbaa !18
  %128 = load ptr, ptr %6, align 8, !tbaa !5
  %129 = load i32, ptr %9, align 4, !tbaa !9
  %130 = sext i32 %129 to i64
  %131 = getelementptr inbounds %struct.f4, ptr %128, i64 %130
  call void @llvm.memcpy.p0.p0.i64(ptr align 4 %131, ptr align 4 %24, i64 16, i1 false), !tbaa.struct !13
  call void @llvm.lifetime.end.p0(i64 16, ptr %24) #6
  call void @llvm.lifetime.end.p0(i64 4, ptr %13) #6
  call void @llvm.lifetime.end.p0(i64 4, ptr %12) #6
  call void @llvm.lifetime.end.p0(i64 4, ptr %11) #6
  call void @llvm.lifetime.end.p0(i64 16, ptr %10) #6
  call void @llvm.lifetime.end.p0(i64 4, ptr %9) #6
  ret void
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv() #2 comdat align 2 {
  %1 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  ret i32 %1
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv() #2 comdat align 2 {
  %1 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  ret i32 %1
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define linkonce_odr dso_local noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #2 comdat align 2 {
  %1 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  ret i32 %1
}

; Function Attrs: nocallback nofree nounwind willreturn memory(argmem: readwrite)
declare void @llvm.memcpy.p0.p0.i64(ptr noalias nocapture writeonly, ptr noalias nocapture readonly, i64, i1 immarg) #3

; Function Attrs: convergent nocallback nounwind
declare void @llvm.nvvm.bar.sync(i32) #4

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.sqrt.f32(float) #5

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #5

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #5

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #5

attributes #0 = { convergent mustprogress norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" "uniform-work-group-size"="true" }
attributes #1 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { alwaysinline convergent mustprogress nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" }
attributes #3 = { nocallback nofree nounwind willreturn memory(argmem: readwrite) }
attributes #4 = { convergent nocallback nounwind }
attributes #5 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #6 = { nounwind }
attributes #7 = { convergent nounwind }

!nvvm.annotations = !{!0}
!llvm.module.flags = !{!1, !2, !3}

!0 = !{ptr @nbody_tile, !"kernel", i32 1}
!1 = !{i32 1, !"wchar_size", i32 4}
!2 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!3 = !{i32 7, !"frame-pointer", i32 2}
!5 = !{!6, !6, i64 0}
!6 = !{!"any pointer", !7, i64 0}
!7 = !{!"omnipotent char", !8, i64 0}
!8 = !{!"Simple C++ TBAA"}
!9 = !{!10, !10, i64 0}
!10 = !{!"int", !7, i64 0}
!11 = !{!12, !12, i64 0}
!12 = !{!"float", !7, i64 0}
!13 = !{i64 0, i64 4, !11, i64 4, i64 4, !11, i64 8, i64 4, !11, i64 12, i64 4, !11}
!14 = !{!15, !12, i64 0}
!15 = !{!"_ZTS2f4", !12, i64 0, !12, i64 4, !12, i64 8, !12, i64 12}
!16 = !{!15, !12, i64 4}
!17 = !{!15, !12, i64 8}
!18 = !{!15, !12, i64 12}
!19 = distinct !{!19, !20}
!20 = !{!"llvm.loop.mustprogress"}
!21 = distinct !{!21, !20}
