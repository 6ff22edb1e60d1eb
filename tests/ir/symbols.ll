; The shared-memory globals the passes add are named after the argument
; they stand for, and PTX takes only letters, digits, '_' and '$' in a
; name: an unnamed argument (clang names none at -O1 and above) gives
; "arg<index>", and a name with other characters has them made '_'.
; Before, window staging named its tile "ks_window_argument 0", which the
; backend screen refused ("which the NVPTX backend cannot compile").
;
; RUN: ks_passes_tool --stage smem_promote --kernel conv --block 128 --bind 4=4 --bake 1=1,1,1,1 --no-pass tcoarsen %s | FileCheck %s --check-prefix=CONV
; RUN: ks_passes_tool --stage smem_promote --kernel hist --bind 3=256 %s | FileCheck %s --check-prefix=HIST
; tests/tool_test.sh compiles clang's output for such a kernel
; (tests/data/unnamed.ll) to PTX.

; CONV: ; explain: smem_promote: staged argument 0:
; CONV: @ks_window_arg0 = internal addrspace(3) global [131 x float] undef, align 16

; HIST: @ks_smem_my_hist = internal addrspace(3) global [256 x i32] undef, align 16

target triple = "nvptx64-nvidia-cuda"

define void @conv(ptr %0, ptr %1, ptr %2, i32 %3, i32 %4) {
entry:
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %base = mul i32 %bid, %ntid
  %i = add i32 %base, %tid
  %inb = icmp slt i32 %i, %3
  br i1 %inb, label %pre, label %exit

pre:
  br label %head

head:
  %k = phi i32 [ 0, %pre ], [ %k.next, %body ]
  %s = phi float [ 0.0, %pre ], [ %s.next, %body ]
  %c = icmp slt i32 %k, %4
  br i1 %c, label %body, label %done

body:
  %ik = add nsw i32 %i, %k
  %ie = sext i32 %ik to i64
  %px = getelementptr inbounds float, ptr %0, i64 %ie
  %vx = load float, ptr %px, align 4
  %ke = sext i32 %k to i64
  %pf = getelementptr inbounds float, ptr %1, i64 %ke
  %vf = load float, ptr %pf, align 4
  %m = fmul contract float %vx, %vf
  %s.next = fadd contract float %s, %m
  %k.next = add nsw i32 %k, 1
  br label %head, !llvm.loop !1

done:
  %o = sext i32 %i to i64
  %py = getelementptr inbounds float, ptr %2, i64 %o
  store float %s, ptr %py, align 4
  br label %exit

exit:
  ret void
}

define void @hist(ptr noalias %"in data", ptr noalias %"my.hist", i32 %n, i32 %BINS) {
entry:
  %nctaid = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %stride = mul i32 %nctaid, %ntid
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = mul i32 %ctaid, %ntid
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i0 = add i32 %base, %tid
  %in = icmp slt i32 %i0, %n
  br i1 %in, label %body, label %early

early:
  ret void

body:
  %i = phi i32 [ %i0, %entry ], [ %inext, %body ]
  %ie = sext i32 %i to i64
  %pd = getelementptr inbounds i8, ptr %"in data", i64 %ie
  %v8 = load i8, ptr %pd, align 1
  %v = zext i8 %v8 to i32
  %m = mul nsw i32 %v, %BINS
  %bin = sdiv i32 %m, 256
  %be = sext i32 %bin to i64
  %ph = getelementptr inbounds i32, ptr %"my.hist", i64 %be
  %old = atomicrmw add ptr %ph, i32 1 seq_cst, align 4
  %inext = add nsw i32 %i, %stride
  %more = icmp slt i32 %inext, %n
  br i1 %more, label %body, label %done

done:
  ret void
}


declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

!nvvm.annotations = !{!10, !11}
!10 = !{ptr @conv, !"kernel", i32 1}
!11 = !{ptr @hist, !"kernel", i32 1}
!1 = distinct !{!1, !2}
!2 = !{!"llvm.loop.mustprogress"}
