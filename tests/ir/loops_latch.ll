; With its bound a constant, instcombine folds a loop's `c + 32 < 2048`
; into a test of the counter before its increment, `c < 2016`, and ptxas
; then does not unroll the loop (it unrolls the generic kernel's, whose test
; is on the incremented counter against an argument). The lower stage puts
; the test back on the incremented counter where it is the same test: the
; counter's start has a known range and nothing wraps. gemv_bf16<8>
; (tests/kernels/linalg.cu) as clang emits it, `for (c = lane; c < cols / 2;
; c += 32)`, rows and cols bound to 4096: the start is lane (0..31). In
; @from the start is an argument plus tid: its range is unknown, the
; incremented counter might wrap, and the test stays as it is.
;
; RUN: ks_passes_tool --stage all --kernel _Z9gemv_bf16ILi8EEvPK13__nv_bfloat16S2_Pfii --block 256 --bind 3=4096 --bind 4=4096 %s | FileCheck %s --check-prefix=BOUND
; RUN: ks_passes_tool --stage optimize --kernel _Z9gemv_bf16ILi8EEvPK13__nv_bfloat16S2_Pfii --block 256 --bind 3=4096 --bind 4=4096 %s | FileCheck %s --check-prefix=FOLDED
; RUN: ks_passes_tool --stage all --kernel from --block 256 %s | FileCheck %s --check-prefix=FROM

; BOUND: ; explain: lower: 1 loop tested on the incremented counter (i + s < c, not i < c - s), as ptxas unrolls them
; BOUND-LABEL: define {{.*}}@_Z9gemv_bf16ILi8EEvPK13__nv_bfloat16S2_Pfii(
; BOUND: %[[NEXT:[a-z0-9.]+]] = add nuw nsw i32 %{{[a-z0-9.]+}}, 32
; BOUND-NEXT: %{{[a-z0-9.]+}} = icmp ult i32 %[[NEXT]], 2048

; FOLDED-LABEL: define {{.*}}@_Z9gemv_bf16ILi8EEvPK13__nv_bfloat16S2_Pfii(
; FOLDED: icmp ult i32 %c.{{[0-9]+}}, 2016

; FROM-NOT: tested on the incremented counter
; FROM-LABEL: define void @from(
; FROM: icmp ult i32 %{{[a-z0-9.]+}}, 2016

source_filename = "linalg.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.float2.3 = type { float, float }
%struct.__nv_bfloat162 = type { %struct.__nv_bfloat16, %struct.__nv_bfloat16 }
%struct.__nv_bfloat16 = type { i16 }
%struct.__nv_bfloat162_raw = type { i16, i16 }

$_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv = comdat any

$_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv = comdat any

$_Z9gemv_bf16ILi8EEvPK13__nv_bfloat16S2_Pfii = comdat any

$_ZN14__nv_bfloat162C1ERKS_ = comdat any

$_Z15__shfl_xor_syncjfii = comdat any

$_ZNK14__nv_bfloat162cv18__nv_bfloat162_rawEv = comdat any

$_ZN14__nv_bfloat162C2ERKS_ = comdat any

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture) #0

; Function Attrs: alwaysinline convergent mustprogress nounwind
define weak_odr dso_local noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv() #1 comdat align 2 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  ret i32 %0
}

; Function Attrs: alwaysinline convergent mustprogress nounwind
define weak_odr dso_local noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #1 comdat align 2 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  ret i32 %0
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture) #0

; Function Attrs: convergent mustprogress norecurse nounwind
define dso_local void @_Z9gemv_bf16ILi8EEvPK13__nv_bfloat16S2_Pfii(ptr noundef %W, ptr noundef %x, ptr noundef %y, i32 noundef %rows, i32 noundef %cols) #2 comdat {
entry:
  %W.addr = alloca ptr, align 8
  %x.addr = alloca ptr, align 8
  %y.addr = alloca ptr, align 8
  %rows.addr = alloca i32, align 4
  %cols.addr = alloca i32, align 4
  %lane = alloca i32, align 4
  %row = alloca i32, align 4
  %cleanup.dest.slot = alloca i32, align 4
  %w2 = alloca ptr, align 8
  %x2 = alloca ptr, align 8
  %acc = alloca float, align 4
  %c = alloca i32, align 4
  %a = alloca %struct.float2.3, align 8
  %agg.tmp = alloca %struct.__nv_bfloat162, align 4
  %b = alloca %struct.float2.3, align 8
  %agg.tmp7 = alloca %struct.__nv_bfloat162, align 4
  %m = alloca i32, align 4
  store ptr %W, ptr %W.addr, align 8, !tbaa !16
  store ptr %x, ptr %x.addr, align 8, !tbaa !16
  store ptr %y, ptr %y.addr, align 8, !tbaa !16
  store i32 %rows, ptr %rows.addr, align 4, !tbaa !20
  store i32 %cols, ptr %cols.addr, align 4, !tbaa !20
  call void @llvm.lifetime.start.p0(i64 4, ptr %lane) #6
  %call = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #7
  %and = and i32 %call, 31
  store i32 %and, ptr %lane, align 4, !tbaa !20
  call void @llvm.lifetime.start.p0(i64 4, ptr %row) #6
  %call1 = call noundef i32 @_ZN25__cuda_builtin_blockIdx_t17__fetch_builtin_xEv() #7
  %mul = mul i32 %call1, 8
  %call2 = call noundef i32 @_ZN26__cuda_builtin_threadIdx_t17__fetch_builtin_xEv() #7
  %shr = lshr i32 %call2, 5
  %add = add i32 %mul, %shr
  store i32 %add, ptr %row, align 4, !tbaa !20
  %0 = load i32, ptr %row, align 4, !tbaa !20
  %1 = load i32, ptr %rows.addr, align 4, !tbaa !20
  %cmp = icmp sge i32 %0, %1
  br i1 %cmp, label %if.then, label %if.end

if.then:                                          ; preds = %entry
  store i32 1, ptr %cleanup.dest.slot, align 4
  br label %cleanup

if.end:                                           ; preds = %entry
  call void @llvm.lifetime.start.p0(i64 8, ptr %w2) #6
  %2 = load ptr, ptr %W.addr, align 8, !tbaa !16
  %3 = load i32, ptr %row, align 4, !tbaa !20
  %conv = sext i32 %3 to i64
  %4 = load i32, ptr %cols.addr, align 4, !tbaa !20
  %conv3 = sext i32 %4 to i64
  %mul4 = mul i64 %conv, %conv3
  %add.ptr = getelementptr inbounds %struct.__nv_bfloat16, ptr %2, i64 %mul4
  store ptr %add.ptr, ptr %w2, align 8, !tbaa !16
  call void @llvm.lifetime.start.p0(i64 8, ptr %x2) #6
  %5 = load ptr, ptr %x.addr, align 8, !tbaa !16
  store ptr %5, ptr %x2, align 8, !tbaa !16
  call void @llvm.lifetime.start.p0(i64 4, ptr %acc) #6
  store float 0.000000e+00, ptr %acc, align 4, !tbaa !22
  call void @llvm.lifetime.start.p0(i64 4, ptr %c) #6
  %6 = load i32, ptr %lane, align 4, !tbaa !20
  store i32 %6, ptr %c, align 4, !tbaa !20
  br label %for.cond

for.cond:                                         ; preds = %for.inc, %if.end
  %7 = load i32, ptr %c, align 4, !tbaa !20
  %8 = load i32, ptr %cols.addr, align 4, !tbaa !20
  %div = sdiv i32 %8, 2
  %cmp5 = icmp slt i32 %7, %div
  br i1 %cmp5, label %for.body, label %for.cond.cleanup

for.cond.cleanup:                                 ; preds = %for.cond
  store i32 2, ptr %cleanup.dest.slot, align 4
  call void @llvm.lifetime.end.p0(i64 4, ptr %c) #6
  br label %for.end

for.body:                                         ; preds = %for.cond
  call void @llvm.lifetime.start.p0(i64 8, ptr %a) #6
  %9 = load ptr, ptr %w2, align 8, !tbaa !16
  %10 = load i32, ptr %c, align 4, !tbaa !20
  %idxprom = sext i32 %10 to i64
  %arrayidx = getelementptr inbounds %struct.__nv_bfloat162, ptr %9, i64 %idxprom
  call void @_ZN14__nv_bfloat162C1ERKS_(ptr noundef nonnull align 4 dereferenceable(4) %agg.tmp, ptr noundef nonnull align 4 dereferenceable(4) %arrayidx) #7
  %call6 = call %struct.float2.3 @_ZL18__bfloat1622float214__nv_bfloat162(ptr noundef byval(%struct.__nv_bfloat162) align 4 %agg.tmp) #7
  %11 = getelementptr inbounds %struct.float2.3, ptr %a, i32 0, i32 0
  %12 = extractvalue %struct.float2.3 %call6, 0
  store float %12, ptr %11, align 8
  %13 = getelementptr inbounds %struct.float2.3, ptr %a, i32 0, i32 1
  %14 = extractvalue %struct.float2.3 %call6, 1
  store float %14, ptr %13, align 4
  call void @llvm.lifetime.start.p0(i64 8, ptr %b) #6
  %15 = load ptr, ptr %x2, align 8, !tbaa !16
  %16 = load i32, ptr %c, align 4, !tbaa !20
  %idxprom8 = sext i32 %16 to i64
  %arrayidx9 = getelementptr inbounds %struct.__nv_bfloat162, ptr %15, i64 %idxprom8
  call void @_ZN14__nv_bfloat162C1ERKS_(ptr noundef nonnull align 4 dereferenceable(4) %agg.tmp7, ptr noundef nonnull align 4 dereferenceable(4) %arrayidx9) #7
  %call10 = call %struct.float2.3 @_ZL18__bfloat1622float214__nv_bfloat162(ptr noundef byval(%struct.__nv_bfloat162) align 4 %agg.tmp7) #7
  %17 = getelementptr inbounds %struct.float2.3, ptr %b, i32 0, i32 0
  %18 = extractvalue %struct.float2.3 %call10, 0
  store float %18, ptr %17, align 8
  %19 = getelementptr inbounds %struct.float2.3, ptr %b, i32 0, i32 1
  %20 = extractvalue %struct.float2.3 %call10, 1
  store float %20, ptr %19, align 4
  %x11 = getelementptr inbounds %struct.float2.3, ptr %a, i32 0, i32 0
  %21 = load float, ptr %x11, align 8, !tbaa !24
  %x12 = getelementptr inbounds %struct.float2.3, ptr %b, i32 0, i32 0
  %22 = load float, ptr %x12, align 8, !tbaa !24
  %mul13 = fmul contract float %21, %22
  %y14 = getelementptr inbounds %struct.float2.3, ptr %a, i32 0, i32 1
  %23 = load float, ptr %y14, align 4, !tbaa !26
  %y15 = getelementptr inbounds %struct.float2.3, ptr %b, i32 0, i32 1
  %24 = load float, ptr %y15, align 4, !tbaa !26
  %mul16 = fmul contract float %23, %24
  %add17 = fadd contract float %mul13, %mul16
  %25 = load float, ptr %acc, align 4, !tbaa !22
  %add18 = fadd contract float %25, %add17
  store float %add18, ptr %acc, align 4, !tbaa !22
  call void @llvm.lifetime.end.p0(i64 8, ptr %b) #6
  call void @llvm.lifetime.end.p0(i64 8, ptr %a) #6
  br label %for.inc

for.inc:                                          ; preds = %for.body
  %26 = load i32, ptr %c, align 4, !tbaa !20
  %add19 = add nsw i32 %26, 32
  store i32 %add19, ptr %c, align 4, !tbaa !20
  br label %for.cond, !llvm.loop !27

for.end:                                          ; preds = %for.cond.cleanup
  call void @llvm.lifetime.start.p0(i64 4, ptr %m) #6
  store i32 16, ptr %m, align 4, !tbaa !20
  br label %for.cond20

for.cond20:                                       ; preds = %for.inc26, %for.end
  %27 = load i32, ptr %m, align 4, !tbaa !20
  %cmp21 = icmp sgt i32 %27, 0
  br i1 %cmp21, label %for.body23, label %for.cond.cleanup22

for.cond.cleanup22:                               ; preds = %for.cond20
  store i32 5, ptr %cleanup.dest.slot, align 4
  call void @llvm.lifetime.end.p0(i64 4, ptr %m) #6
  br label %for.end28

for.body23:                                       ; preds = %for.cond20
  %28 = load float, ptr %acc, align 4, !tbaa !22
  %29 = load i32, ptr %m, align 4, !tbaa !20
  %call24 = call contract noundef float @_Z15__shfl_xor_syncjfii(i32 noundef -1, float noundef %28, i32 noundef %29, i32 noundef 32) #7
  %30 = load float, ptr %acc, align 4, !tbaa !22
  %add25 = fadd contract float %30, %call24
  store float %add25, ptr %acc, align 4, !tbaa !22
  br label %for.inc26

for.inc26:                                        ; preds = %for.body23
  %31 = load i32, ptr %m, align 4, !tbaa !20
  %shr27 = ashr i32 %31, 1
  store i32 %shr27, ptr %m, align 4, !tbaa !20
  br label %for.cond20, !llvm.loop !29

for.end28:                                        ; preds = %for.cond.cleanup22
  %32 = load i32, ptr %lane, align 4, !tbaa !20
  %cmp29 = icmp eq i32 %32, 0
  br i1 %cmp29, label %if.then30, label %if.end33

if.then30:                                        ; preds = %for.end28
  %33 = load float, ptr %acc, align 4, !tbaa !22
  %34 = load ptr, ptr %y.addr, align 8, !tbaa !16
  %35 = load i32, ptr %row, align 4, !tbaa !20
  %idxprom31 = sext i32 %35 to i64
  %arrayidx32 = getelementptr inbounds float, ptr %34, i64 %idxprom31
  store float %33, ptr %arrayidx32, align 4, !tbaa !22
  br label %if.end33

if.end33:                                         ; preds = %if.then30, %for.end28
  call void @llvm.lifetime.end.p0(i64 4, ptr %acc) #6
  call void @llvm.lifetime.end.p0(i64 8, ptr %x2) #6
  call void @llvm.lifetime.end.p0(i64 8, ptr %w2) #6
  store i32 0, ptr %cleanup.dest.slot, align 4
  br label %cleanup

cleanup:                                          ; preds = %if.end33, %if.then
  call void @llvm.lifetime.end.p0(i64 4, ptr %row) #6
  call void @llvm.lifetime.end.p0(i64 4, ptr %lane) #6
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

; Function Attrs: convergent inlinehint mustprogress nounwind
define hidden %struct.float2.3 @_ZL18__bfloat1622float214__nv_bfloat162(ptr noundef byval(%struct.__nv_bfloat162) align 4 %a) #3 {
entry:
  %retval = alloca %struct.float2.3, align 8
  %hi_float = alloca float, align 4
  %lo_float = alloca float, align 4
  %ref.tmp = alloca %struct.__nv_bfloat162_raw, align 4
  %ref.tmp2 = alloca %struct.__nv_bfloat162_raw, align 4
  call void @llvm.lifetime.start.p0(i64 4, ptr %hi_float) #6
  call void @llvm.lifetime.start.p0(i64 4, ptr %lo_float) #6
  call void @llvm.lifetime.start.p0(i64 4, ptr %ref.tmp) #6
  %call = call %struct.__nv_bfloat162_raw @_ZNK14__nv_bfloat162cv18__nv_bfloat162_rawEv(ptr noundef nonnull align 4 dereferenceable(4) %a) #7
  %0 = getelementptr inbounds %struct.__nv_bfloat162_raw, ptr %ref.tmp, i32 0, i32 0
  %1 = extractvalue %struct.__nv_bfloat162_raw %call, 0
  store i16 %1, ptr %0, align 4
  %2 = getelementptr inbounds %struct.__nv_bfloat162_raw, ptr %ref.tmp, i32 0, i32 1
  %3 = extractvalue %struct.__nv_bfloat162_raw %call, 1
  store i16 %3, ptr %2, align 2
  %x = getelementptr inbounds %struct.__nv_bfloat162_raw, ptr %ref.tmp, i32 0, i32 0
  %4 = load i16, ptr %x, align 4, !tbaa !31
  %call1 = call contract noundef float @_ZL25__internal_bfloat162floatt(i16 noundef zeroext %4) #7
  store float %call1, ptr %lo_float, align 4, !tbaa !22
  call void @llvm.lifetime.end.p0(i64 4, ptr %ref.tmp) #6
  call void @llvm.lifetime.start.p0(i64 4, ptr %ref.tmp2) #6
  %call3 = call %struct.__nv_bfloat162_raw @_ZNK14__nv_bfloat162cv18__nv_bfloat162_rawEv(ptr noundef nonnull align 4 dereferenceable(4) %a) #7
  %5 = getelementptr inbounds %struct.__nv_bfloat162_raw, ptr %ref.tmp2, i32 0, i32 0
  %6 = extractvalue %struct.__nv_bfloat162_raw %call3, 0
  store i16 %6, ptr %5, align 4
  %7 = getelementptr inbounds %struct.__nv_bfloat162_raw, ptr %ref.tmp2, i32 0, i32 1
  %8 = extractvalue %struct.__nv_bfloat162_raw %call3, 1
  store i16 %8, ptr %7, align 2
  %y = getelementptr inbounds %struct.__nv_bfloat162_raw, ptr %ref.tmp2, i32 0, i32 1
  %9 = load i16, ptr %y, align 2, !tbaa !34
  %call4 = call contract noundef float @_ZL25__internal_bfloat162floatt(i16 noundef zeroext %9) #7
  store float %call4, ptr %hi_float, align 4, !tbaa !22
  call void @llvm.lifetime.end.p0(i64 4, ptr %ref.tmp2) #6
  %10 = load float, ptr %lo_float, align 4, !tbaa !22
  %11 = load float, ptr %hi_float, align 4, !tbaa !22
  %call5 = call %struct.float2.3 @_ZL11make_float2ff(float noundef %10, float noundef %11) #7
  %12 = getelementptr inbounds %struct.float2.3, ptr %retval, i32 0, i32 0
  %13 = extractvalue %struct.float2.3 %call5, 0
  store float %13, ptr %12, align 8
  %14 = getelementptr inbounds %struct.float2.3, ptr %retval, i32 0, i32 1
  %15 = extractvalue %struct.float2.3 %call5, 1
  store float %15, ptr %14, align 4
  call void @llvm.lifetime.end.p0(i64 4, ptr %lo_float) #6
  call void @llvm.lifetime.end.p0(i64 4, ptr %hi_float) #6
  %16 = load %struct.float2.3, ptr %retval, align 8
  ret %struct.float2.3 %16
}

; Function Attrs: convergent inlinehint mustprogress nounwind
define weak_odr dso_local void @_ZN14__nv_bfloat162C1ERKS_(ptr noundef nonnull align 4 dereferenceable(4) %this, ptr noundef nonnull align 4 dereferenceable(4) %src) unnamed_addr #3 comdat align 2 {
entry:
  %this.addr = alloca ptr, align 8
  %src.addr = alloca ptr, align 8
  store ptr %this, ptr %this.addr, align 8, !tbaa !16
  store ptr %src, ptr %src.addr, align 8, !tbaa !16
  %this1 = load ptr, ptr %this.addr, align 8
  %0 = load ptr, ptr %src.addr, align 8
  call void @_ZN14__nv_bfloat162C2ERKS_(ptr noundef nonnull align 4 dereferenceable(4) %this1, ptr noundef nonnull align 4 dereferenceable(4) %0) #7
  ret void
}

; Function Attrs: convergent inlinehint mustprogress nounwind
define weak_odr dso_local noundef float @_Z15__shfl_xor_syncjfii(i32 noundef %__mask, float noundef %__val, i32 noundef %__offset, i32 noundef %__width) #3 comdat {
entry:
  %__mask.addr = alloca i32, align 4
  %__val.addr = alloca float, align 4
  %__offset.addr = alloca i32, align 4
  %__width.addr = alloca i32, align 4
  store i32 %__mask, ptr %__mask.addr, align 4, !tbaa !20
  store float %__val, ptr %__val.addr, align 4, !tbaa !22
  store i32 %__offset, ptr %__offset.addr, align 4, !tbaa !20
  store i32 %__width, ptr %__width.addr, align 4, !tbaa !20
  %0 = load i32, ptr %__mask.addr, align 4, !tbaa !20
  %1 = load float, ptr %__val.addr, align 4, !tbaa !22
  %2 = load i32, ptr %__offset.addr, align 4, !tbaa !20
  %3 = load i32, ptr %__width.addr, align 4, !tbaa !20
  %sub = sub nsw i32 32, %3
  %shl = shl i32 %sub, 8
  %or = or i32 %shl, 31
  %4 = call contract float @llvm.nvvm.shfl.sync.bfly.f32(i32 %0, float %1, i32 %2, i32 %or)
  ret float %4
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #4

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #4

; Function Attrs: convergent inlinehint mustprogress nounwind
define hidden noundef float @_ZL25__internal_bfloat162floatt(i16 noundef zeroext %h) #3 {
entry:
  %h.addr = alloca i16, align 2
  %f = alloca float, align 4
  store i16 %h, ptr %h.addr, align 2, !tbaa !35
  call void @llvm.lifetime.start.p0(i64 4, ptr %f) #6
  %0 = load i16, ptr %h.addr, align 2, !tbaa !35
  %call = call contract noundef float @_ZL32__internal_device_bfloat162floatt(i16 noundef zeroext %0) #7
  store float %call, ptr %f, align 4, !tbaa !22
  %1 = load float, ptr %f, align 4, !tbaa !22
  call void @llvm.lifetime.end.p0(i64 4, ptr %f) #6
  ret float %1
}

; Function Attrs: convergent inlinehint mustprogress nounwind
define weak_odr dso_local %struct.__nv_bfloat162_raw @_ZNK14__nv_bfloat162cv18__nv_bfloat162_rawEv(ptr noundef nonnull align 4 dereferenceable(4) %this) #3 comdat align 2 {
entry:
  %retval = alloca %struct.__nv_bfloat162_raw, align 4
  %this.addr = alloca ptr, align 8
  store ptr %this, ptr %this.addr, align 8, !tbaa !16
  %this1 = load ptr, ptr %this.addr, align 8
  %x = getelementptr inbounds %struct.__nv_bfloat162_raw, ptr %retval, i32 0, i32 0
  store i16 0, ptr %x, align 4, !tbaa !31
  %y = getelementptr inbounds %struct.__nv_bfloat162_raw, ptr %retval, i32 0, i32 1
  store i16 0, ptr %y, align 2, !tbaa !34
  %0 = load i32, ptr %this1, align 4, !tbaa !20
  store i32 %0, ptr %retval, align 4, !tbaa !20
  %1 = load %struct.__nv_bfloat162_raw, ptr %retval, align 4
  ret %struct.__nv_bfloat162_raw %1
}

; Function Attrs: convergent inlinehint mustprogress nounwind
define hidden %struct.float2.3 @_ZL11make_float2ff(float noundef %x, float noundef %y) #3 {
entry:
  %retval = alloca %struct.float2.3, align 8
  %x.addr = alloca float, align 4
  %y.addr = alloca float, align 4
  store float %x, ptr %x.addr, align 4, !tbaa !22
  store float %y, ptr %y.addr, align 4, !tbaa !22
  %0 = load float, ptr %x.addr, align 4, !tbaa !22
  %x1 = getelementptr inbounds %struct.float2.3, ptr %retval, i32 0, i32 0
  store float %0, ptr %x1, align 8, !tbaa !24
  %1 = load float, ptr %y.addr, align 4, !tbaa !22
  %y2 = getelementptr inbounds %struct.float2.3, ptr %retval, i32 0, i32 1
  store float %1, ptr %y2, align 4, !tbaa !26
  %2 = load %struct.float2.3, ptr %retval, align 8
  ret %struct.float2.3 %2
}

; Function Attrs: convergent inlinehint mustprogress nounwind
define hidden noundef float @_ZL32__internal_device_bfloat162floatt(i16 noundef zeroext %h) #3 {
entry:
  %h.addr = alloca i16, align 2
  %f = alloca float, align 4
  store i16 %h, ptr %h.addr, align 2, !tbaa !35
  call void @llvm.lifetime.start.p0(i64 4, ptr %f) #6
  %0 = load i16, ptr %h.addr, align 2, !tbaa !35
  %1 = call contract float asm "{ cvt.f32.bf16 $0, $1;}\0A", "=f,h"(i16 %0) #8, !srcloc !36
  store float %1, ptr %f, align 4, !tbaa !22
  %2 = load float, ptr %f, align 4, !tbaa !22
  call void @llvm.lifetime.end.p0(i64 4, ptr %f) #6
  ret float %2
}

; Function Attrs: convergent inlinehint mustprogress nounwind
define weak_odr dso_local void @_ZN14__nv_bfloat162C2ERKS_(ptr noundef nonnull align 4 dereferenceable(4) %this, ptr noundef nonnull align 4 dereferenceable(4) %src) unnamed_addr #3 comdat align 2 {
entry:
  %this.addr = alloca ptr, align 8
  %src.addr = alloca ptr, align 8
  store ptr %this, ptr %this.addr, align 8, !tbaa !16
  store ptr %src, ptr %src.addr, align 8, !tbaa !16
  %this1 = load ptr, ptr %this.addr, align 8
  %x = getelementptr inbounds %struct.__nv_bfloat162, ptr %this1, i32 0, i32 0
  %y = getelementptr inbounds %struct.__nv_bfloat162, ptr %this1, i32 0, i32 1
  %0 = load ptr, ptr %src.addr, align 8, !tbaa !16
  %1 = load i32, ptr %0, align 4, !tbaa !20
  store i32 %1, ptr %this1, align 4, !tbaa !20
  ret void
}

; Function Attrs: convergent nocallback nounwind memory(inaccessiblemem: readwrite)
declare float @llvm.nvvm.shfl.sync.bfly.f32(i32, float, i32, i32) #5

attributes #0 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #1 = { alwaysinline convergent mustprogress nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx84,+sm_90" }
attributes #2 = { convergent mustprogress norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx84,+sm_90" "uniform-work-group-size"="true" }
attributes #3 = { convergent inlinehint mustprogress nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx84,+sm_90" }
attributes #4 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #5 = { convergent nocallback nounwind memory(inaccessiblemem: readwrite) }
attributes #6 = { nounwind }
attributes #7 = { convergent nounwind }
attributes #8 = { convergent nounwind memory(none) }

!llvm.module.flags = !{!0, !1, !2, !3}
!nvvm.annotations = !{!4, !5, !6, !7, !8, !9, !10, !11, !12}
!llvm.ident = !{!13, !14}
!nvvmir.version = !{!15}

!0 = !{i32 2, !"SDK Version", [2 x i32] [i32 12, i32 4]}
!1 = !{i32 1, !"wchar_size", i32 4}
!2 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!3 = !{i32 7, !"frame-pointer", i32 2}
!4 = distinct !{null, !"kernel", i32 1}
!5 = distinct !{null, !"kernel", i32 1}
!6 = distinct !{null, !"kernel", i32 1}
!7 = distinct !{null, !"kernel", i32 1}
!8 = distinct !{null, !"maxntidx", i32 256}
!9 = distinct !{null, !"minctasm", i32 4}
!10 = distinct !{null, !"kernel", i32 1}
!11 = !{ptr @_Z9gemv_bf16ILi8EEvPK13__nv_bfloat16S2_Pfii, !"kernel", i32 1}
!12 = !{ptr @_Z9gemv_bf16ILi8EEvPK13__nv_bfloat16S2_Pfii, !"maxntidx", i32 256}
!13 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!14 = !{!"clang version 3.8.0 (tags/RELEASE_380/final)"}
!15 = !{i32 2, i32 0}
!16 = !{!17, !17, i64 0}
!17 = !{!"any pointer", !18, i64 0}
!18 = !{!"omnipotent char", !19, i64 0}
!19 = !{!"Simple C++ TBAA"}
!20 = !{!21, !21, i64 0}
!21 = !{!"int", !18, i64 0}
!22 = !{!23, !23, i64 0}
!23 = !{!"float", !18, i64 0}
!24 = !{!25, !23, i64 0}
!25 = !{!"_ZTS6float2", !23, i64 0, !23, i64 4}
!26 = !{!25, !23, i64 4}
!27 = distinct !{!27, !28}
!28 = !{!"llvm.loop.mustprogress"}
!29 = distinct !{!29, !28, !30}
!30 = !{!"llvm.loop.unroll.enable"}
!31 = !{!32, !33, i64 0}
!32 = !{!"_ZTS18__nv_bfloat162_raw", !33, i64 0, !33, i64 2}
!33 = !{!"short", !18, i64 0}
!34 = !{!32, !33, i64 2}
!35 = !{!33, !33, i64 0}
!36 = !{i64 2156301860}

define void @from(ptr noalias %w, ptr noalias %y, i32 %start) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %s0 = add i32 %start, %tid
  %ok = icmp ult i32 %s0, 2016
  br i1 %ok, label %head, label %done

head:
  %c = phi i32 [ %s0, %entry ], [ %c.next, %head ]
  %acc = phi float [ 0.0, %entry ], [ %acc.next, %head ]
  %ce = zext i32 %c to i64
  %p = getelementptr inbounds float, ptr %w, i64 %ce
  %v = load float, ptr %p, align 4
  %w2 = fmul contract float %v, %v
  %w3 = fmul contract float %w2, %v
  %w4 = fmul contract float %w3, %w2
  %w5 = fadd contract float %w4, %w3
  %acc.next = fadd contract float %acc, %w5
  %c.next = add nuw i32 %c, 32
  %more = icmp ult i32 %c.next, 2048
  br i1 %more, label %head, label %done, !llvm.loop !100

done:
  %r = phi float [ 0.0, %entry ], [ %acc.next, %head ]
  %te = zext i32 %tid to i64
  %py = getelementptr inbounds float, ptr %y, i64 %te
  store float %r, ptr %py, align 4
  ret void
}

!100 = distinct !{!100, !101}
!101 = !{!"llvm.loop.unroll.disable"}
