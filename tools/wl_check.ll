; wl_check.ll - the workloads' compare on the device (workloads.c,
; ks_wl_compile_checker): a kernel's float output against the CPU
; reference kept in device memory, element by element, by the rule the
; host applies (compare_close, resize_compare):
;
;   bad(i) = !(|(double)got[i] - ref[i]| <= lim(i))
;   lim(i) = tolv ? tolv[i] : tol * (1 + |ref[i]|)
;
; in double, as the host computes it (no operation of the rule can fuse,
; so each is rounded as the host rounds it; NaN compares false, so NaN
; is bad). A grid-stride loop; each thread adds what it found to
; out[0] (elements outside the tolerance), keeps the smallest such
; index in out[1] (atomic min) and adds the elements it examined to
; out[2]: the host accepts the output only when out[2] is n (every
; element examined: a compare that did not run, or ran short, passes
; nothing) and out[0] is 0.
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define void @ks_wl_close(ptr noalias readonly %got, ptr noalias readonly %ref, ptr noalias readonly %tolv, i64 %n, double %tol, ptr %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %nctaid = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %tid64 = zext i32 %tid to i64
  %ntid64 = zext i32 %ntid to i64
  %ctaid64 = zext i32 %ctaid to i64
  %nctaid64 = zext i32 %nctaid to i64
  %base = mul i64 %ctaid64, %ntid64
  %start = add i64 %base, %tid64
  %stride = mul i64 %nctaid64, %ntid64
  %pertol = icmp ne ptr %tolv, null
  br label %head

head:
  %i = phi i64 [ %start, %entry ], [ %inext, %cmp ]
  %bad = phi i64 [ 0, %entry ], [ %bad2, %cmp ]
  %first = phi i64 [ -1, %entry ], [ %first2, %cmp ]
  %seen = phi i64 [ 0, %entry ], [ %seen2, %cmp ]
  %more = icmp ult i64 %i, %n
  br i1 %more, label %body, label %done

body:
  %gp = getelementptr inbounds float, ptr %got, i64 %i
  %g = load float, ptr %gp, align 4
  %rp = getelementptr inbounds double, ptr %ref, i64 %i
  %r = load double, ptr %rp, align 8
  %gd = fpext float %g to double
  %diff = fsub double %gd, %r
  %adiff = call double @llvm.fabs.f64(double %diff)
  br i1 %pertol, label %given, label %relative

given:
  %tp = getelementptr inbounds double, ptr %tolv, i64 %i
  %tv = load double, ptr %tp, align 8
  br label %cmp

relative:
  %ar = call double @llvm.fabs.f64(double %r)
  %one = fadd double 1.000000e+00, %ar
  %tr = fmul double %tol, %one
  br label %cmp

cmp:
  %lim = phi double [ %tv, %given ], [ %tr, %relative ]
  %ok = fcmp ole double %adiff, %lim
  %inc = select i1 %ok, i64 0, i64 1
  %bad2 = add i64 %bad, %inc
  %low = call i64 @llvm.umin.i64(i64 %first, i64 %i)
  %first2 = select i1 %ok, i64 %first, i64 %low
  %seen2 = add i64 %seen, 1
  %inext = add i64 %i, %stride
  br label %head

done:
  %anybad = icmp ne i64 %bad, 0
  br i1 %anybad, label %report, label %tally

report:
  %r0 = atomicrmw add ptr %out, i64 %bad monotonic, align 8
  %o1 = getelementptr inbounds i64, ptr %out, i64 1
  %r1 = atomicrmw umin ptr %o1, i64 %first monotonic, align 8
  br label %tally

tally:
  %any = icmp ne i64 %seen, 0
  br i1 %any, label %count, label %exit

count:
  %o2 = getelementptr inbounds i64, ptr %out, i64 2
  %r2 = atomicrmw add ptr %o2, i64 %seen monotonic, align 8
  br label %exit

exit:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
declare double @llvm.fabs.f64(double)
declare i64 @llvm.umin.i64(i64, i64)

!nvvm.annotations = !{!0}
!0 = !{ptr @ks_wl_close, !"kernel", i32 1}
