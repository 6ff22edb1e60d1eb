; ModuleID = 'modes.cu'
source_filename = "modes.cu"
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: mustprogress nofree norecurse nosync nounwind memory(argmem: readwrite)
define dso_local void @modes(ptr nocapture noundef readonly %0, ptr nocapture noundef writeonly %1, i32 noundef %2, i32 noundef %3) local_unnamed_addr #0 {
  %5 = alloca [16 x i32], align 4
  %6 = tail call noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %7 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
  %8 = mul i32 %6, %7
  %9 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %10 = add i32 %8, %9
  %11 = tail call noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %12 = mul i32 %10, %11
  %13 = tail call noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %14 = add i32 %12, %13
  %15 = icmp slt i32 %14, %2
  br i1 %15, label %16, label %214

16:                                               ; preds = %4
  call void @llvm.lifetime.start.p0(i64 64, ptr nonnull %5) #4
  %17 = getelementptr inbounds i8, ptr %5, i64 4
  %18 = getelementptr inbounds i8, ptr %5, i64 8
  %19 = getelementptr inbounds i8, ptr %5, i64 12
  %20 = getelementptr inbounds i8, ptr %5, i64 16
  %21 = getelementptr inbounds i8, ptr %5, i64 20
  %22 = getelementptr inbounds i8, ptr %5, i64 24
  %23 = getelementptr inbounds i8, ptr %5, i64 28
  %24 = getelementptr inbounds i8, ptr %5, i64 32
  %25 = getelementptr inbounds i8, ptr %5, i64 36
  %26 = getelementptr inbounds i8, ptr %5, i64 40
  %27 = getelementptr inbounds i8, ptr %5, i64 44
  %28 = getelementptr inbounds i8, ptr %5, i64 48
  %29 = getelementptr inbounds i8, ptr %5, i64 52
  %30 = getelementptr inbounds i8, ptr %5, i64 56
  %31 = getelementptr inbounds i8, ptr %5, i64 60
  %32 = icmp sgt i32 %3, 0
  call void @llvm.memset.p0.i64(ptr noundef nonnull align 4 dereferenceable(64) %5, i8 0, i64 64, i1 false)
  br i1 %32, label %35, label %33

33:                                               ; preds = %16
  %34 = sext i32 %14 to i64
  br label %78

35:                                               ; preds = %16
  %36 = sext i32 %2 to i64
  %37 = sext i32 %14 to i64
  %38 = getelementptr i8, ptr %0, i64 %37
  %39 = and i32 %3, 3
  %40 = icmp ult i32 %3, 4
  br i1 %40, label %43, label %41

41:                                               ; preds = %35
  %42 = and i32 %3, 2147483644
  br label %169

43:                                               ; preds = %169, %35
  %44 = phi i32 [ 0, %35 ], [ %211, %169 ]
  %45 = icmp eq i32 %39, 0
  br i1 %45, label %61, label %46

46:                                               ; preds = %43, %46
  %47 = phi i32 [ %58, %46 ], [ %44, %43 ]
  %48 = phi i32 [ %59, %46 ], [ 0, %43 ]
  %49 = zext nneg i32 %47 to i64
  %50 = mul nsw i64 %49, %36
  %51 = getelementptr i8, ptr %38, i64 %50
  %52 = load i8, ptr %51, align 1, !tbaa !5
  %53 = and i8 %52, 15
  %54 = zext nneg i8 %53 to i64
  %55 = getelementptr inbounds [16 x i32], ptr %5, i64 0, i64 %54
  %56 = load i32, ptr %55, align 4, !tbaa !8
  %57 = add nsw i32 %56, 1
  store i32 %57, ptr %55, align 4, !tbaa !8
  %58 = add nuw nsw i32 %47, 1
  %59 = add i32 %48, 1
  %60 = icmp eq i32 %59, %39
  br i1 %60, label %61, label %46, !llvm.loop !10

61:                                               ; preds = %46, %43
  %62 = load i32, ptr %17, align 4, !tbaa !8
  %63 = load i32, ptr %5, align 4, !tbaa !8
  %64 = load i32, ptr %18, align 4, !tbaa !8
  %65 = load i32, ptr %19, align 4, !tbaa !8
  %66 = load i32, ptr %20, align 4, !tbaa !8
  %67 = load i32, ptr %21, align 4, !tbaa !8
  %68 = load i32, ptr %22, align 4, !tbaa !8
  %69 = load i32, ptr %23, align 4, !tbaa !8
  %70 = load i32, ptr %24, align 4, !tbaa !8
  %71 = load i32, ptr %25, align 4, !tbaa !8
  %72 = load i32, ptr %26, align 4, !tbaa !8
  %73 = load i32, ptr %27, align 4, !tbaa !8
  %74 = load i32, ptr %28, align 4, !tbaa !8
  %75 = load i32, ptr %29, align 4, !tbaa !8
  %76 = load i32, ptr %30, align 4, !tbaa !8
  %77 = load i32, ptr %31, align 4, !tbaa !8
  br label %78

78:                                               ; preds = %33, %61
  %79 = phi i64 [ %34, %33 ], [ %37, %61 ]
  %80 = phi i32 [ 0, %33 ], [ %77, %61 ]
  %81 = phi i32 [ 0, %33 ], [ %76, %61 ]
  %82 = phi i32 [ 0, %33 ], [ %75, %61 ]
  %83 = phi i32 [ 0, %33 ], [ %74, %61 ]
  %84 = phi i32 [ 0, %33 ], [ %73, %61 ]
  %85 = phi i32 [ 0, %33 ], [ %72, %61 ]
  %86 = phi i32 [ 0, %33 ], [ %71, %61 ]
  %87 = phi i32 [ 0, %33 ], [ %70, %61 ]
  %88 = phi i32 [ 0, %33 ], [ %69, %61 ]
  %89 = phi i32 [ 0, %33 ], [ %68, %61 ]
  %90 = phi i32 [ 0, %33 ], [ %67, %61 ]
  %91 = phi i32 [ 0, %33 ], [ %66, %61 ]
  %92 = phi i32 [ 0, %33 ], [ %65, %61 ]
  %93 = phi i32 [ 0, %33 ], [ %64, %61 ]
  %94 = phi i32 [ 0, %33 ], [ %63, %61 ]
  %95 = phi i32 [ 0, %33 ], [ %62, %61 ]
  %96 = icmp sgt i32 %95, %94
  %97 = zext i1 %96 to i32
  %98 = zext i1 %96 to i64
  %99 = getelementptr inbounds [16 x i32], ptr %5, i64 0, i64 %98
  %100 = load i32, ptr %99, align 4, !tbaa !8
  %101 = icmp sgt i32 %93, %100
  %102 = select i1 %101, i32 2, i32 %97
  %103 = zext nneg i32 %102 to i64
  %104 = getelementptr inbounds [16 x i32], ptr %5, i64 0, i64 %103
  %105 = load i32, ptr %104, align 4, !tbaa !8
  %106 = icmp sgt i32 %92, %105
  %107 = select i1 %106, i32 3, i32 %102
  %108 = zext nneg i32 %107 to i64
  %109 = getelementptr inbounds [16 x i32], ptr %5, i64 0, i64 %108
  %110 = load i32, ptr %109, align 4, !tbaa !8
  %111 = icmp sgt i32 %91, %110
  %112 = select i1 %111, i32 4, i32 %107
  %113 = zext nneg i32 %112 to i64
  %114 = getelementptr inbounds [16 x i32], ptr %5, i64 0, i64 %113
  %115 = load i32, ptr %114, align 4, !tbaa !8
  %116 = icmp sgt i32 %90, %115
  %117 = select i1 %116, i32 5, i32 %112
  %118 = zext nneg i32 %117 to i64
  %119 = getelementptr inbounds [16 x i32], ptr %5, i64 0, i64 %118
  %120 = load i32, ptr %119, align 4, !tbaa !8
  %121 = icmp sgt i32 %89, %120
  %122 = select i1 %121, i32 6, i32 %117
  %123 = zext nneg i32 %122 to i64
  %124 = getelementptr inbounds [16 x i32], ptr %5, i64 0, i64 %123
  %125 = load i32, ptr %124, align 4, !tbaa !8
  %126 = icmp sgt i32 %88, %125
  %127 = select i1 %126, i32 7, i32 %122
  %128 = zext nneg i32 %127 to i64
  %129 = getelementptr inbounds [16 x i32], ptr %5, i64 0, i64 %128
  %130 = load i32, ptr %129, align 4, !tbaa !8
  %131 = icmp sgt i32 %87, %130
  %132 = select i1 %131, i32 8, i32 %127
  %133 = zext nneg i32 %132 to i64
  %134 = getelementptr inbounds [16 x i32], ptr %5, i64 0, i64 %133
  %135 = load i32, ptr %134, align 4, !tbaa !8
  %136 = icmp sgt i32 %86, %135
  %137 = select i1 %136, i32 9, i32 %132
  %138 = zext nneg i32 %137 to i64
  %139 = getelementptr inbounds [16 x i32], ptr %5, i64 0, i64 %138
  %140 = load i32, ptr %139, align 4, !tbaa !8
  %141 = icmp sgt i32 %85, %140
  %142 = select i1 %141, i32 10, i32 %137
  %143 = zext nneg i32 %142 to i64
  %144 = getelementptr inbounds [16 x i32], ptr %5, i64 0, i64 %143
  %145 = load i32, ptr %144, align 4, !tbaa !8
  %146 = icmp sgt i32 %84, %145
  %147 = select i1 %146, i32 11, i32 %142
  %148 = zext nneg i32 %147 to i64
  %149 = getelementptr inbounds [16 x i32], ptr %5, i64 0, i64 %148
  %150 = load i32, ptr %149, align 4, !tbaa !8
  %151 = icmp sgt i32 %83, %150
  %152 = select i1 %151, i32 12, i32 %147
  %153 = zext nneg i32 %152 to i64
  %154 = getelementptr inbounds [16 x i32], ptr %5, i64 0, i64 %153
  %155 = load i32, ptr %154, align 4, !tbaa !8
  %156 = icmp sgt i32 %82, %155
  %157 = select i1 %156, i32 13, i32 %152
  %158 = zext nneg i32 %157 to i64
  %159 = getelementptr inbounds [16 x i32], ptr %5, i64 0, i64 %158
  %160 = load i32, ptr %159, align 4, !tbaa !8
  %161 = icmp sgt i32 %81, %160
  %162 = select i1 %161, i32 14, i32 %157
  %163 = zext nneg i32 %162 to i64
  %164 = getelementptr inbounds [16 x i32], ptr %5, i64 0, i64 %163
  %165 = load i32, ptr %164, align 4, !tbaa !8
  %166 = icmp sgt i32 %80, %165
  %167 = select i1 %166, i32 15, i32 %162
  %168 = getelementptr inbounds i32, ptr %1, i64 %79
  store i32 %167, ptr %168, align 4, !tbaa !8
  call void @llvm.lifetime.end.p0(i64 64, ptr nonnull %5) #4
  br label %214

169:                                              ; preds = %169, %41
  %170 = phi i32 [ 0, %41 ], [ %211, %169 ]
  %171 = phi i32 [ 0, %41 ], [ %212, %169 ]
  %172 = zext nneg i32 %170 to i64
  %173 = mul nsw i64 %172, %36
  %174 = getelementptr i8, ptr %38, i64 %173
  %175 = load i8, ptr %174, align 1, !tbaa !5
  %176 = and i8 %175, 15
  %177 = zext nneg i8 %176 to i64
  %178 = getelementptr inbounds [16 x i32], ptr %5, i64 0, i64 %177
  %179 = load i32, ptr %178, align 4, !tbaa !8
  %180 = add nsw i32 %179, 1
  store i32 %180, ptr %178, align 4, !tbaa !8
  %181 = or disjoint i32 %170, 1
  %182 = zext nneg i32 %181 to i64
  %183 = mul nsw i64 %182, %36
  %184 = getelementptr i8, ptr %38, i64 %183
  %185 = load i8, ptr %184, align 1, !tbaa !5
  %186 = and i8 %185, 15
  %187 = zext nneg i8 %186 to i64
  %188 = getelementptr inbounds [16 x i32], ptr %5, i64 0, i64 %187
  %189 = load i32, ptr %188, align 4, !tbaa !8
  %190 = add nsw i32 %189, 1
  store i32 %190, ptr %188, align 4, !tbaa !8
  %191 = or disjoint i32 %170, 2
  %192 = zext nneg i32 %191 to i64
  %193 = mul nsw i64 %192, %36
  %194 = getelementptr i8, ptr %38, i64 %193
  %195 = load i8, ptr %194, align 1, !tbaa !5
  %196 = and i8 %195, 15
  %197 = zext nneg i8 %196 to i64
  %198 = getelementptr inbounds [16 x i32], ptr %5, i64 0, i64 %197
  %199 = load i32, ptr %198, align 4, !tbaa !8
  %200 = add nsw i32 %199, 1
  store i32 %200, ptr %198, align 4, !tbaa !8
  %201 = or disjoint i32 %170, 3
  %202 = zext nneg i32 %201 to i64
  %203 = mul nsw i64 %202, %36
  %204 = getelementptr i8, ptr %38, i64 %203
  %205 = load i8, ptr %204, align 1, !tbaa !5
  %206 = and i8 %205, 15
  %207 = zext nneg i8 %206 to i64
  %208 = getelementptr inbounds [16 x i32], ptr %5, i64 0, i64 %207
  %209 = load i32, ptr %208, align 4, !tbaa !8
  %210 = add nsw i32 %209, 1
  store i32 %210, ptr %208, align 4, !tbaa !8
  %211 = add nuw nsw i32 %170, 4
  %212 = add i32 %171, 4
  %213 = icmp eq i32 %212, %42
  br i1 %213, label %43, label %169, !llvm.loop !12

214:                                              ; preds = %4, %78
  ret void
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.y() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.y() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x() #2

; Function Attrs: nocallback nofree nounwind willreturn memory(argmem: write)
declare void @llvm.memset.p0.i64(ptr nocapture writeonly, i8, i64, i1 immarg) #3

attributes #0 = { mustprogress nofree norecurse nosync nounwind memory(argmem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_90" "target-features"="+ptx85,+sm_90" "uniform-work-group-size"="true" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { nocallback nofree nounwind willreturn memory(argmem: write) }
attributes #4 = { nounwind }

!nvvm.annotations = !{!0}
!llvm.module.flags = !{!1, !2, !3}
!llvm.ident = !{!4}

!0 = !{ptr @modes, !"kernel", i32 1}
!1 = !{i32 1, !"wchar_size", i32 4}
!2 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!3 = !{i32 7, !"frame-pointer", i32 2}
!4 = !{!"Debian clang version 19.1.7 (3~deb12u1)"}
!5 = !{!6, !6, i64 0}
!6 = !{!"omnipotent char", !7, i64 0}
!7 = !{!"Simple C++ TBAA"}
!8 = !{!9, !9, i64 0}
!9 = !{!"int", !6, i64 0}
!10 = distinct !{!10, !11}
!11 = !{!"llvm.loop.unroll.disable"}
!12 = distinct !{!12, !13}
!13 = !{!"llvm.loop.mustprogress"}
