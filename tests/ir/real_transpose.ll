; Real IR: clang-19 with CUDA 12.4's headers (-O3 -Xclang -disable-llvm-passes), from
;
; // the corpus's naive transpose (tests/kernels/transpose.cu), and the
; // same with int indices as real code writes it, out[x*h + y]: clang
; // emits sext(x *nsw h +nsw y)
; extern "C" __global__ void transpose_naive(const float *in, float *out,
;                                            int rows, int cols) {
;   int c = blockIdx.x * blockDim.x + threadIdx.x;
;   int r = blockIdx.y * blockDim.y + threadIdx.y;
;   if (r < rows && c < cols)
;     out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
; }
; extern "C" __global__ void transpose_int(const double *in, double *out, int w,
;                                          int h) {
;   int x = blockIdx.x * blockDim.x + threadIdx.x;
;   int y = blockIdx.y * blockDim.y + threadIdx.y;
;   if (x < w && y < h)
;     out[x * h + y] = in[y * w + x];
; }
;
; compiled with
;   clang-19 -x cuda --cuda-device-only --cuda-gpu-arch=sm_90 \
;     --cuda-path=.dev/cuda-12.4 -isystem .dev/cuda-12.4/include \
;     -O3 -Xclang -disable-llvm-passes -fno-discard-value-names -emit-llvm -S
;
; The store exchange (smem_promote) needs the block fixed, not the sizes:
; with the corpus's block 32x8 (not square) each warp's 32 stores become 4
; runs of 8 floats, sizes bound or not. The int form is judged contiguous
; along y through its nsw operations; the store is rebuilt from a clone
; evaluated only where the original stored.
;
; RUN: ks_passes_tool --stage smem_promote --kernel transpose_naive --block 32,8 %s | FileCheck %s --check-prefix=FREE
; RUN: ks_passes_tool --stage all --kernel transpose_naive --block 32,8 --bind 2=4000 --bind 3=3000 %s | FileCheck %s --check-prefix=BOUND
; RUN: ks_passes_tool --stage all --kernel transpose_naive %s | FileCheck %s --check-prefix=GENERIC
; RUN: ks_passes_tool --stage smem_promote --kernel transpose_int --block 32,8 %s | FileCheck %s --check-prefix=INT
; RUN: ks_passes_tool --stage smem_promote --kernel transpose_int --block 128,2 %s | FileCheck %s --check-prefix=SHORT

; Sizes unbound: rows stays an argument of the rebuilt address.
; FREE: ; explain: smem_promote: exchanged out: stores of a 32x8 block go through a shared tile (2304 bytes), each warp writing runs of 32 contiguous bytes
; FREE-LABEL: define dso_local void @transpose_naive(
; FREE: store float %{{.*}}, ptr addrspace(3)
; FREE: store i32 1, ptr addrspace(3)
; FREE: ks.exchange:
; FREE-NEXT: call void @llvm.nvvm.barrier0()
; FREE: %[[A:ks.exchange.a]] = udiv i32 %{{[0-9]+}}, 8
; FREE-NEXT: %[[B:ks.exchange.b]] = urem i32 %{{[0-9]+}}, 8
; FREE: ks.exchange.store:
; FREE: add i32 %{{[0-9]+}}, %[[A]]
; FREE: sext i32 %rows to i64
; FREE: add i32 %{{[0-9]+}}, %[[B]]
; FREE: store float %{{[0-9]+}}, ptr %{{[0-9]+}}, align 4
; FREE-NEXT: br label %ks.exchange.next

; Sizes bound (the corpus's case): rows * 4 bytes is the constant 16000.
; BOUND: ; explain: smem_promote: exchanged out
; BOUND-LABEL: define dso_local void @transpose_naive(
; BOUND: load float, ptr addrspace(1)
; BOUND: store float %{{.*}}, ptr addrspace(3)
; BOUND: call void @llvm.nvvm.barrier0()
; BOUND: ks.exchange.store:
; BOUND: mul nsw i64 %{{[0-9]+}}, 16000
; BOUND: store float %{{[0-9]+}}, ptr addrspace(1)
; BOUND-NOT: barrier0()
; BOUND: ret void

; The tile is the block's: without a fixed block, nothing changes.
; GENERIC: ; explain: smem_promote: declined window staging: block size not fixed (use --block)
; GENERIC-NOT: exchange
; GENERIC-LABEL: define dso_local void @transpose_naive(
; GENERIC-NOT: barrier0()
; GENERIC: ret void

; INT: ; explain: smem_promote: exchanged out: stores of a 32x8 block go through a shared tile (3456 bytes), each warp writing runs of 64 contiguous bytes
; INT-LABEL: define dso_local void @transpose_int(
; INT: store double %{{.*}}, ptr addrspace(3)
; INT: call void @llvm.nvvm.barrier0()
; INT: ks.exchange.store:
; INT: store double %{{[0-9]+}}, ptr %{{[0-9]+}}, align 8

; SHORT: ; explain: smem_promote: declined exchange of out: a 2-row block stores runs of 16 bytes, under a 32-byte sector
; SHORT-LABEL: define dso_local void @transpose_int(
; SHORT-NOT: barrier0()
; SHORT: ret void

; ModuleID = 't.cu'
source_filename = "t.cu"
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

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @transpose_naive(ptr noundef %in, ptr noundef %out, i32 noundef %rows, i32 noundef %cols) #0 {
entry:
  %in.addr = alloca ptr, align 8
  %out.addr = alloca ptr, align 8
  %rows.addr = alloca i32, align 4
  %cols.addr = alloca i32, align 4
  %c = alloca i32, align 4
  %r = alloca i32, align 4
  store ptr %in, ptr %in.addr, align 8, !tbaa !9
  store ptr %out, ptr %out.addr, align 8, !tbaa !9
  store i32 %rows, ptr %rows.addr, align 4, !tbaa !13
  store i32 %cols, ptr %cols.addr, align 4, !tbaa !13
  call void @llvm.lifetime.start.p0(i64 4, ptr %c) #4
  %call = call noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv() #5
  %call1 = call noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv() #5
  %mul = mul i32 %call, %call1
  %call2 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #5
  %add = add i32 %mul, %call2
  store i32 %add, ptr %c, align 4, !tbaa !13
  call void @llvm.lifetime.start.p0(i64 4, ptr %r) #4
  %call3 = call noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_yEv() #5
  %call4 = call noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_yEv() #5
  %mul5 = mul i32 %call3, %call4
  %call6 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_yEv() #5
  %add7 = add i32 %mul5, %call6
  store i32 %add7, ptr %r, align 4, !tbaa !13
  %0 = load i32, ptr %r, align 4, !tbaa !13
  %1 = load i32, ptr %rows.addr, align 4, !tbaa !13
  %cmp = icmp slt i32 %0, %1
  br i1 %cmp, label %land.lhs.true, label %if.end

land.lhs.true:                                    ; preds = %entry
  %2 = load i32, ptr %c, align 4, !tbaa !13
  %3 = load i32, ptr %cols.addr, align 4, !tbaa !13
  %cmp8 = icmp slt i32 %2, %3
  br i1 %cmp8, label %if.then, label %if.end

if.then:                                          ; preds = %land.lhs.true
  %4 = load ptr, ptr %in.addr, align 8, !tbaa !9
  %5 = load i32, ptr %r, align 4, !tbaa !13
  %conv = sext i32 %5 to i64
  %6 = load i32, ptr %cols.addr, align 4, !tbaa !13
  %conv9 = sext i32 %6 to i64
  %mul10 = mul i64 %conv, %conv9
  %7 = load i32, ptr %c, align 4, !tbaa !13
  %conv11 = sext i32 %7 to i64
  %add12 = add i64 %mul10, %conv11
  %arrayidx = getelementptr inbounds float, ptr %4, i64 %add12
  %8 = load float, ptr %arrayidx, align 4, !tbaa !15
  %9 = load ptr, ptr %out.addr, align 8, !tbaa !9
  %10 = load i32, ptr %c, align 4, !tbaa !13
  %conv13 = sext i32 %10 to i64
  %11 = load i32, ptr %rows.addr, align 4, !tbaa !13
  %conv14 = sext i32 %11 to i64
  %mul15 = mul i64 %conv13, %conv14
  %12 = load i32, ptr %r, align 4, !tbaa !13
  %conv16 = sext i32 %12 to i64
  %add17 = add i64 %mul15, %conv16
  %arrayidx18 = getelementptr inbounds float, ptr %9, i64 %add17
  store float %8, ptr %arrayidx18, align 4, !tbaa !15
  br label %if.end

if.end:                                           ; preds = %if.then, %land.lhs.true, %entry
  call void @llvm.lifetime.end.p0(i64 4, ptr %r) #4
  call void @llvm.lifetime.end.p0(i64 4, ptr %c) #4
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

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @transpose_int(ptr noundef %in, ptr noundef %out, i32 noundef %w, i32 noundef %h) #0 {
entry:
  %in.addr = alloca ptr, align 8
  %out.addr = alloca ptr, align 8
  %w.addr = alloca i32, align 4
  %h.addr = alloca i32, align 4
  %x = alloca i32, align 4
  %y = alloca i32, align 4
  store ptr %in, ptr %in.addr, align 8, !tbaa !9
  store ptr %out, ptr %out.addr, align 8, !tbaa !9
  store i32 %w, ptr %w.addr, align 4, !tbaa !13
  store i32 %h, ptr %h.addr, align 4, !tbaa !13
  call void @llvm.lifetime.start.p0(i64 4, ptr %x) #4
  %call = call noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv() #5
  %call1 = call noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_xEv() #5
  %mul = mul i32 %call, %call1
  %call2 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #5
  %add = add i32 %mul, %call2
  store i32 %add, ptr %x, align 4, !tbaa !13
  call void @llvm.lifetime.start.p0(i64 4, ptr %y) #4
  %call3 = call noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_yEv() #5
  %call4 = call noundef i32 @_ZN25__cuda_builtin_blockDim_t17__fetch_builtin_yEv() #5
  %mul5 = mul i32 %call3, %call4
  %call6 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_yEv() #5
  %add7 = add i32 %mul5, %call6
  store i32 %add7, ptr %y, align 4, !tbaa !13
  %0 = load i32, ptr %x, align 4, !tbaa !13
  %1 = load i32, ptr %w.addr, align 4, !tbaa !13
  %cmp = icmp slt i32 %0, %1
  br i1 %cmp, label %land.lhs.true, label %if.end

land.lhs.true:                                    ; preds = %entry
  %2 = load i32, ptr %y, align 4, !tbaa !13
  %3 = load i32, ptr %h.addr, align 4, !tbaa !13
  %cmp8 = icmp slt i32 %2, %3
  br i1 %cmp8, label %if.then, label %if.end

if.then:                                          ; preds = %land.lhs.true
  %4 = load ptr, ptr %in.addr, align 8, !tbaa !9
  %5 = load i32, ptr %y, align 4, !tbaa !13
  %6 = load i32, ptr %w.addr, align 4, !tbaa !13
  %mul9 = mul nsw i32 %5, %6
  %7 = load i32, ptr %x, align 4, !tbaa !13
  %add10 = add nsw i32 %mul9, %7
  %idxprom = sext i32 %add10 to i64
  %arrayidx = getelementptr inbounds double, ptr %4, i64 %idxprom
  %8 = load double, ptr %arrayidx, align 8, !tbaa !17
  %9 = load ptr, ptr %out.addr, align 8, !tbaa !9
  %10 = load i32, ptr %x, align 4, !tbaa !13
  %11 = load i32, ptr %h.addr, align 4, !tbaa !13
  %mul11 = mul nsw i32 %10, %11
  %12 = load i32, ptr %y, align 4, !tbaa !13
  %add12 = add nsw i32 %mul11, %12
  %idxprom13 = sext i32 %add12 to i64
  %arrayidx14 = getelementptr inbounds double, ptr %9, i64 %idxprom13
  store double %8, ptr %arrayidx14, align 8, !tbaa !17
  br label %if.end

if.end:                                           ; preds = %if.then, %land.lhs.true, %entry
  call void @llvm.lifetime.end.p0(i64 4, ptr %y) #4
  call void @llvm.lifetime.end.p0(i64 4, ptr %x) #4
  ret void
}

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

attributes #0 = { convergent mustprogress norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx84,+sm_90" "uniform-work-group-size"="true" }
attributes #1 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { alwaysinline convergent mustprogress nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx84,+sm_90" }
attributes #3 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #4 = { nounwind }
attributes #5 = { convergent nounwind }

!llvm.module.flags = !{!0, !1, !2, !3}
!nvvm.annotations = !{!4, !5}
!llvm.ident = !{!6, !7}
!nvvmir.version = !{!8}

!0 = !{i32 2, !"SDK Version", [2 x i32] [i32 12, i32 4]}
!1 = !{i32 1, !"wchar_size", i32 4}
!2 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!3 = !{i32 7, !"frame-pointer", i32 2}
!4 = !{ptr @transpose_naive, !"kernel", i32 1}
!5 = !{ptr @transpose_int, !"kernel", i32 1}
!6 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!7 = !{!"clang version 3.8.0 (tags/RELEASE_380/final)"}
!8 = !{i32 2, i32 0}
!9 = !{!10, !10, i64 0}
!10 = !{!"any pointer", !11, i64 0}
!11 = !{!"omnipotent char", !12, i64 0}
!12 = !{!"Simple C++ TBAA"}
!13 = !{!14, !14, i64 0}
!14 = !{!"int", !11, i64 0}
!15 = !{!16, !16, i64 0}
!16 = !{!"float", !11, i64 0}
!17 = !{!18, !18, i64 0}
!18 = !{!"double", !11, i64 0}
