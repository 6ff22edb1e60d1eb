; Real IR: clang-19 with CUDA 12.4's headers (-O2), from
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
;     -O2 -fno-discard-value-names -emit-llvm -S
;
; At -O2 LLVM's passes ran first (tail calls, range attributes, the int
; form's nsw mul and add): the same exchanges as at -O3 before them
; (real_transpose.ll).
;
; RUN: ks_passes_tool --stage smem_promote --kernel transpose_naive --block 32,8 %s | FileCheck %s --check-prefix=NAIVE
; RUN: ks_passes_tool --stage all --kernel transpose_int --block 32,8 --bind 2=3000 --bind 3=4000 %s | FileCheck %s --check-prefix=INT

; NAIVE: ; explain: smem_promote: exchanged out: stores of a 32x8 block go through a shared tile (2304 bytes), each warp writing runs of 32 contiguous bytes
; NAIVE-LABEL: define dso_local void @transpose_naive(
; NAIVE: call void @llvm.nvvm.barrier0()
; NAIVE: ks.exchange.store:
; NAIVE: store float

; INT: ; explain: smem_promote: exchanged out: stores of a 32x8 block go through a shared tile (3456 bytes), each warp writing runs of 64 contiguous bytes
; INT-LABEL: define dso_local void @transpose_int(
; INT: store double %{{.*}}, ptr addrspace(3)
; INT: call void @llvm.nvvm.barrier0()
; INT: ks.exchange.store:
; INT: store double %{{[0-9]+}}, ptr addrspace(1)
; INT-NOT: barrier0()
; INT: ret void

; ModuleID = 't.cu'
source_filename = "t.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite)
define dso_local void @transpose_naive(ptr nocapture noundef readonly %in, ptr nocapture noundef writeonly %out, i32 noundef %rows, i32 noundef %cols) local_unnamed_addr #0 {
entry:
  %0 = tail call noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %1 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %mul = mul i32 %0, %1
  %2 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %add = add i32 %mul, %2
  %3 = tail call noundef range(i32 0, 65535) i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %4 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
  %mul5 = mul nuw nsw i32 %3, %4
  %5 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %add7 = add nuw nsw i32 %mul5, %5
  %cmp = icmp slt i32 %add7, %rows
  %cmp8 = icmp slt i32 %add, %cols
  %or.cond = and i1 %cmp, %cmp8
  br i1 %or.cond, label %if.then, label %if.end

if.then:                                          ; preds = %entry
  %conv = zext nneg i32 %add7 to i64
  %conv9 = sext i32 %cols to i64
  %mul10 = mul nsw i64 %conv9, %conv
  %conv11 = sext i32 %add to i64
  %6 = getelementptr float, ptr %in, i64 %mul10
  %arrayidx = getelementptr float, ptr %6, i64 %conv11
  %7 = load float, ptr %arrayidx, align 4, !tbaa !9
  %conv14 = zext nneg i32 %rows to i64
  %mul15 = mul nsw i64 %conv14, %conv11
  %8 = getelementptr float, ptr %out, i64 %mul15
  %arrayidx18 = getelementptr float, ptr %8, i64 %conv
  store float %7, ptr %arrayidx18, align 4, !tbaa !9
  br label %if.end

if.end:                                           ; preds = %if.then, %entry
  ret void
}

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite)
define dso_local void @transpose_int(ptr nocapture noundef readonly %in, ptr nocapture noundef writeonly %out, i32 noundef %w, i32 noundef %h) local_unnamed_addr #0 {
entry:
  %0 = tail call noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %1 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %mul = mul i32 %0, %1
  %2 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %add = add i32 %mul, %2
  %3 = tail call noundef range(i32 0, 65535) i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %4 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
  %mul5 = mul nuw nsw i32 %3, %4
  %5 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %add7 = add nuw nsw i32 %mul5, %5
  %cmp = icmp slt i32 %add, %w
  %cmp8 = icmp slt i32 %add7, %h
  %or.cond = and i1 %cmp, %cmp8
  br i1 %or.cond, label %if.then, label %if.end

if.then:                                          ; preds = %entry
  %mul9 = mul nsw i32 %add7, %w
  %add10 = add nsw i32 %mul9, %add
  %idxprom = sext i32 %add10 to i64
  %arrayidx = getelementptr inbounds double, ptr %in, i64 %idxprom
  %6 = load double, ptr %arrayidx, align 8, !tbaa !13
  %mul11 = mul nsw i32 %add, %h
  %add12 = add nsw i32 %mul11, %add7
  %idxprom13 = sext i32 %add12 to i64
  %arrayidx14 = getelementptr inbounds double, ptr %out, i64 %idxprom13
  store double %6, ptr %arrayidx14, align 8, !tbaa !13
  br label %if.end

if.end:                                           ; preds = %if.then, %entry
  ret void
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.y() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.y() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.y() #1

attributes #0 = { mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx84,+sm_90" "uniform-work-group-size"="true" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }

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
!10 = !{!"float", !11, i64 0}
!11 = !{!"omnipotent char", !12, i64 0}
!12 = !{!"Simple C++ TBAA"}
!13 = !{!14, !14, i64 0}
!14 = !{!"double", !11, i64 0}
