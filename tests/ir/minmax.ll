; minmax: selects that are a min or max of the compared value and a
; constant (plus a constant), or of a value and one past another, become
; llvm.smin/smax/umin/umax; everything else stays a select.
;
; RUN: ks_passes_tool --stage minmax-only %s | FileCheck %s
; RUN: ks_passes_tool --stage all --kernel rows %s | FileCheck %s --check-prefix=ALL
; RUN: ks_passes_tool --stage all --kernel rows --no-pass minmax %s | FileCheck %s --check-prefix=OFF

target triple = "nvptx64-nvidia-cuda"

; CHECK: ; explain: minmax: 15 clamp selects made min/max

; x < 8 ? 0 : x - 8 (the row filter's low clamp): smax(x, 8) - 8, nsw kept.
; CHECK-LABEL: define i32 @low(
; CHECK-NEXT: [[M:%.*]] = call i32 @llvm.smax.i32(i32 %x, i32 8)
; CHECK-NEXT: [[R:%.*]] = add nsw i32 [[M]], -8
; CHECK-NEXT: ret i32 [[R]]
define i32 @low(i32 %x) {
  %d = add nsw i32 %x, -8
  %c = icmp slt i32 %x, 8
  %s = select i1 %c, i32 0, i32 %d
  ret i32 %s
}

; x > 0 ? x - 1 : 0: K1 = K + 1, smax(x, 1) - 1.
; CHECK-LABEL: define i32 @above(
; CHECK-NEXT: [[M:%.*]] = call i32 @llvm.smax.i32(i32 %x, i32 1)
; CHECK-NEXT: [[R:%.*]] = add nsw i32 [[M]], -1
define i32 @above(i32 %x) {
  %d = add nsw i32 %x, -1
  %c = icmp sgt i32 %x, 0
  %s = select i1 %c, i32 %d, i32 0
  ret i32 %s
}

; x <= 7 ? 0 : x - 8, inverted to x > 7 ? x - 8 : 0: smax(x, 8) - 8.
; CHECK-LABEL: define i32 @le(
; CHECK-NEXT: [[M:%.*]] = call i32 @llvm.smax.i32(i32 %x, i32 8)
; CHECK-NEXT: add nsw i32 [[M]], -8
define i32 @le(i32 %x) {
  %d = add nsw i32 %x, -8
  %c = icmp sle i32 %x, 7
  %s = select i1 %c, i32 0, i32 %d
  ret i32 %s
}

; x < 100 ? x + 3 : 103: smin(x, 100) + 3.
; CHECK-LABEL: define i32 @high(
; CHECK-NEXT: [[M:%.*]] = call i32 @llvm.smin.i32(i32 %x, i32 100)
; CHECK-NEXT: add nsw i32 [[M]], 3
define i32 @high(i32 %x) {
  %d = add nsw i32 %x, 3
  %c = icmp slt i32 %x, 100
  %s = select i1 %c, i32 %d, i32 103
  ret i32 %s
}

; Unsigned: x <u 16 ? 16 : x, umax(x, 16), no add.
; CHECK-LABEL: define i16 @unsigned(
; CHECK-NEXT: [[M:%.*]] = call i16 @llvm.umax.i16(i16 %x, i16 16)
; CHECK-NEXT: ret i16 [[M]]
define i16 @unsigned(i16 %x) {
  %c = icmp ult i16 %x, 16
  %s = select i1 %c, i16 16, i16 %x
  ret i16 %s
}

; Where the constant arm is reached, K1 + d overflows: the new add drops nsw
; (the old one was poison only where the select did not take it).
; x < -2147483647 ? 2147483647 : x - 2 is smax(x, INT_MIN + 1) - 2; at
; x = INT_MIN + 1 that is INT_MAX, wrapped.
; CHECK-LABEL: define i32 @wraps(
; CHECK-NEXT: [[M:%.*]] = call i32 @llvm.smax.i32(i32 %x, i32 -2147483647)
; CHECK-NEXT: [[R:%.*]] = add i32 [[M]], -2
; CHECK-NEXT: ret i32 [[R]]
define i32 @wraps(i32 %x) {
  %d = add nsw i32 %x, -2
  %c = icmp slt i32 %x, -2147483647
  %s = select i1 %c, i32 2147483647, i32 %d
  ret i32 %s
}

; x + 9 < w ? x + 9 : w - 1 (the high clamp): smin(x + 9, w - 1).
; CHECK-LABEL: define i32 @bound(
; CHECK: [[M:%.*]] = call i32 @llvm.smin.i32(i32 %v, i32 %wm1)
; CHECK-NEXT: ret i32 [[M]]
define i32 @bound(i32 %x, i32 %w) {
  %v = add nsw i32 %x, 9
  %wm1 = add nsw i32 %w, -1
  %c = icmp slt i32 %v, %w
  %s = select i1 %c, i32 %v, i32 %wm1
  ret i32 %s
}

; The same with the compare's sides swapped: w > v.
; CHECK-LABEL: define i32 @bound_swapped(
; CHECK: call i32 @llvm.smin.i32(i32 %v, i32 %wm1)
define i32 @bound_swapped(i32 %v, i32 %w) {
  %wm1 = add nsw i32 %w, -1
  %c = icmp sgt i32 %w, %v
  %s = select i1 %c, i32 %v, i32 %wm1
  ret i32 %s
}

; lo < v ? v : lo + 1: smax(v, lo + 1).
; CHECK-LABEL: define i32 @bound_low(
; CHECK: call i32 @llvm.smax.i32(i32 %v, i32 %lo1)
define i32 @bound_low(i32 %v, i32 %lo) {
  %lo1 = add nsw i32 %lo, 1
  %c = icmp slt i32 %lo, %v
  %s = select i1 %c, i32 %v, i32 %lo1
  ret i32 %s
}

; Declined: w - 1 without nsw (w = INT_MIN: the select gives INT_MAX, the
; min gives v).
; CHECK-LABEL: define i32 @bound_wraps(
; CHECK-NOT: call
; CHECK: select
define i32 @bound_wraps(i32 %v, i32 %w) {
  %wm1 = add i32 %w, -1
  %c = icmp slt i32 %v, %w
  %s = select i1 %c, i32 %v, i32 %wm1
  ret i32 %s
}

; Declined: the constant arm is not K1 + d for K1 = K - 1 or K.
; CHECK-LABEL: define i32 @gap(
; CHECK-NOT: call
; CHECK: select
define i32 @gap(i32 %x) {
  %d = add nsw i32 %x, -8
  %c = icmp slt i32 %x, 8
  %s = select i1 %c, i32 -5, i32 %d
  ret i32 %s
}

; Declined: the outer clamp x < -1 ? 0 : smin(x + 1, w - 1) is
; smax(smin(..), 0) only where w >= 1.
; CHECK-LABEL: define i32 @outer(
; CHECK: call i32 @llvm.smin.i32
; CHECK: select i1
define i32 @outer(i32 %x, i32 %w) {
  %v = add nsw i32 %x, 1
  %wm1 = add nsw i32 %w, -1
  %m = call i32 @llvm.smin.i32(i32 %v, i32 %wm1)
  %c = icmp slt i32 %x, -1
  %s = select i1 %c, i32 0, i32 %m
  ret i32 %s
}

; Declined: 64 bits, an equality, a compare of another type.
; CHECK-LABEL: define i64 @wide(
; CHECK-NOT: call
; CHECK: select
define i64 @wide(i64 %x) {
  %d = add nsw i64 %x, -8
  %c = icmp slt i64 %x, 8
  %s = select i1 %c, i64 0, i64 %d
  ret i64 %s
}
; CHECK-LABEL: define i32 @equal(
; CHECK-NOT: call
; CHECK: select
define i32 @equal(i32 %x) {
  %c = icmp eq i32 %x, 8
  %s = select i1 %c, i32 8, i32 %x
  ret i32 %s
}
; CHECK-LABEL: define i32 @narrow(
; CHECK-NOT: call
; CHECK: select
define i32 @narrow(i32 %x, i16 %y) {
  %c = icmp slt i16 %y, 8
  %s = select i1 %c, i32 0, i32 %x
  ret i32 %s
}

; The compare and the arm that only the select used go; one used elsewhere
; stays.
; CHECK-LABEL: define i32 @shared(
; CHECK-NEXT: %d = add nsw i32 %x, -8
; CHECK-NEXT: [[M:%.*]] = call i32 @llvm.smax.i32(i32 %x, i32 8)
; CHECK-NEXT: [[R:%.*]] = add nsw i32 [[M]], -8
; CHECK-NEXT: [[T:%.*]] = add i32 [[R]], %d
; CHECK-NEXT: ret i32 [[T]]
define i32 @shared(i32 %x) {
  %d = add nsw i32 %x, -8
  %c = icmp slt i32 %x, 8
  %s = select i1 %c, i32 0, i32 %d
  %t = add i32 %s, %d
  ret i32 %t
}

; Rule 3: v <u h ? v : h - 1 is umin(v, h - 1) where h != 0. Here the
; branch to the block says y < h with y a row index (special registers,
; nsw: non-negative), so h >= 1 and h - 1 (nsw) is not poison either.
; CHECK-LABEL: define i32 @ubound(
; CHECK: body:
; CHECK-NEXT: %v = add nsw i32 %y, 3
; CHECK-NEXT: %hm1 = add nsw i32 %h, -1
; CHECK-NEXT: [[M:%.*]] = call i32 @llvm.umin.i32(i32 %v, i32 %hm1)
; CHECK-NEXT: ret i32 [[M]]
define i32 @ubound(i32 %h) {
entry:
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
  %base = mul nuw nsw i32 %ctaid, %ntid
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %y = add nuw nsw i32 %base, %tid
  %ok = icmp slt i32 %y, %h
  %more = icmp sgt i32 %h, 7
  %both = and i1 %more, %ok
  br i1 %both, label %mid, label %done

mid:
  br label %body

body:
  %v = add nsw i32 %y, 3
  %hm1 = add nsw i32 %h, -1
  %c = icmp ult i32 %v, %h
  %s = select i1 %c, i32 %v, i32 %hm1
  ret i32 %s

done:
  ret i32 0
}

; Declined: nothing on the way says h != 0 (h = 0: the select gives -1,
; the min v).
; CHECK-LABEL: define i32 @ubound_unknown(
; CHECK-NOT: call
; CHECK: select
define i32 @ubound_unknown(i32 %v, i32 %h) {
  %hm1 = add i32 %h, -1
  %c = icmp ult i32 %v, %h
  %s = select i1 %c, i32 %v, i32 %hm1
  ret i32 %s
}

; a <u h on the way: h != 0, enough for h - 1 without nsw.
; CHECK-LABEL: define i32 @ubound_ult(
; CHECK: call i32 @llvm.umin.i32(i32 %v, i32 %hm1)
define i32 @ubound_ult(i32 %a, i32 %v, i32 %h) {
entry:
  %ok = icmp ult i32 %a, %h
  br i1 %ok, label %body, label %done

body:
  %hm1 = add i32 %h, -1
  %c = icmp ult i32 %v, %h
  %s = select i1 %c, i32 %v, i32 %hm1
  ret i32 %s

done:
  ret i32 0
}

; Declined: with nsw, h - 1 is poison at h = INT_MIN, which a <u h allows,
; and where the select took v the min would be poison.
; CHECK-LABEL: define i32 @ubound_ult_nsw(
; CHECK-NOT: call
; CHECK: select
define i32 @ubound_ult_nsw(i32 %a, i32 %v, i32 %h) {
entry:
  %ok = icmp ult i32 %a, %h
  br i1 %ok, label %body, label %done

body:
  %hm1 = add nsw i32 %h, -1
  %c = icmp ult i32 %v, %h
  %s = select i1 %c, i32 %v, i32 %hm1
  ret i32 %s

done:
  ret i32 0
}

; Declined: a < h says nothing of h when a may be negative; nor does the
; edge where a < h failed.
; CHECK-LABEL: define i32 @ubound_signed(
; CHECK-NOT: call
; CHECK: select
; CHECK-NOT: call
; CHECK: select
define i32 @ubound_signed(i32 %a, i32 %v, i32 %h) {
entry:
  %ok = icmp slt i32 %a, %h
  br i1 %ok, label %body, label %other

body:
  %hm1 = add i32 %h, -1
  %c = icmp ult i32 %v, %h
  %s = select i1 %c, i32 %v, i32 %hm1
  ret i32 %s

other:
  %ok2 = icmp ult i32 %a, %h
  br i1 %ok2, label %done, label %body2

body2:
  %hm2 = add i32 %h, -1
  %c2 = icmp ult i32 %v, %h
  %s2 = select i1 %c2, i32 %v, i32 %hm2
  ret i32 %s2

done:
  ret i32 0
}

; Rules 3 and 4 together on the column filter's clamp as the optimize
; stage leaves it, y <u 8 ? 0 : (y - 8 <u h ? y - 8 : h - 1):
; umin(umax(y, 8) - 8, h - 1). The old arm and its add go.
; CHECK-LABEL: define i32 @cols(
; CHECK: body:
; CHECK-NEXT: %hm1 = add nsw i32 %h, -1
; CHECK-NEXT: [[X:%.*]] = call i32 @llvm.umax.i32(i32 %y, i32 8)
; CHECK-NEXT: [[D:%.*]] = add nsw i32 [[X]], -8
; CHECK-NEXT: [[M:%.*]] = call i32 @llvm.umin.i32(i32 [[D]], i32 %hm1)
; CHECK-NEXT: ret i32 [[M]]
define i32 @cols(i32 noundef %h) {
entry:
  %y = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %ok = icmp sgt i32 %h, %y
  br i1 %ok, label %body, label %done

body:
  %hm1 = add nsw i32 %h, -1
  %lo = icmp ult i32 %y, 8
  %v = add nsw i32 %y, -8
  %in = icmp ult i32 %v, %h
  %hi = select i1 %in, i32 %v, i32 %hm1
  %s = select i1 %lo, i32 0, i32 %hi
  ret i32 %s

done:
  ret i32 0
}

; Rule 4 needs the other operand of the min not poison where the select
; took the constant: a noundef argument is not; a plain one may be.
; CHECK-LABEL: define i32 @wrapped(
; CHECK: [[X:%.*]] = call i32 @llvm.umax.i32(i32 %a, i32 8)
; CHECK-NEXT: [[D:%.*]] = add i32 [[X]], -8
; CHECK-NEXT: call i32 @llvm.umin.i32(i32 [[D]], i32 %z)
define i32 @wrapped(i32 %a, i32 noundef %z) {
  %v = add i32 %a, -8
  %m = call i32 @llvm.umin.i32(i32 %v, i32 %z)
  %lo = icmp ult i32 %a, 8
  %s = select i1 %lo, i32 0, i32 %m
  ret i32 %s
}
; CHECK-LABEL: define i32 @wrapped_poison(
; CHECK-NOT: umax
; CHECK: select
define i32 @wrapped_poison(i32 %a, i32 %z) {
  %v = add i32 %a, -8
  %m = call i32 @llvm.umin.i32(i32 %v, i32 %z)
  %lo = icmp ult i32 %a, 8
  %s = select i1 %lo, i32 0, i32 %m
  ret i32 %s
}

; Declined: 1 is not what umin absorbs (umin(1, z) is 0 for z = 0).
; CHECK-LABEL: define i32 @wrapped_one(
; CHECK-NOT: umax
; CHECK: select
define i32 @wrapped_one(i32 %a, i32 noundef %z) {
  %v = add i32 %a, -7
  %m = call i32 @llvm.umin.i32(i32 %v, i32 %z)
  %lo = icmp ult i32 %a, 8
  %s = select i1 %lo, i32 1, i32 %m
  ret i32 %s
}

; Signed: smax absorbs INT_MAX, but a > 100 ? INT_MAX : smax(a + 5, z)
; has no rule-1 form inside (INT_MAX is not K1 + 5 for K1 = 100 or 101):
; declined.
; CHECK-LABEL: define i32 @wrapped_gap(
; CHECK-NOT: call i32 @llvm.smax.i32(i32 %a
; CHECK: select
define i32 @wrapped_gap(i32 %a, i32 noundef %z) {
  %v = add nsw i32 %a, 5
  %m = call i32 @llvm.smax.i32(i32 %v, i32 %z)
  %hi = icmp sgt i32 %a, 100
  %s = select i1 %hi, i32 2147483647, i32 %m
  ret i32 %s
}

; Two clamped taps of a row filter, through the whole pipeline: the
; optimize stage leaves the low clamp x - 2 as a select on x < 2, which
; becomes smax(x, 2) - 2.
; ALL: ; explain: minmax: {{[0-9]+}} clamp selects made min/max
; ALL-LABEL: define void @rows(
; ALL: call i32 @llvm.smax.i32(i32 %tid, i32 2)
; OFF: ; explain: minmax: switched off
; OFF-LABEL: define void @rows(
; OFF-NOT: @llvm.smax
; OFF: select i1 %cl, i32 0, i32 %xl
; OFF: ret void
define void @rows(ptr noalias readonly %in, ptr noalias %out, i32 %w) {
entry:
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %ctaid, %ntid
  %tid0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %tid = add i32 %base, %tid0
  %ok = icmp slt i32 %tid, %w
  br i1 %ok, label %body, label %done

body:
  %wm1 = add nsw i32 %w, -1
  %xl = add nsw i32 %tid, -2
  %cl = icmp slt i32 %xl, 0
  %hl = icmp sgt i32 %xl, %wm1
  %il0 = select i1 %hl, i32 %wm1, i32 %xl
  %il = select i1 %cl, i32 0, i32 %il0
  %xh = add nsw i32 %tid, 2
  %ch = icmp slt i32 %xh, 0
  %hh = icmp sgt i32 %xh, %wm1
  %ih0 = select i1 %hh, i32 %wm1, i32 %xh
  %ih = select i1 %ch, i32 0, i32 %ih0
  %pl = getelementptr inbounds float, ptr %in, i32 %il
  %ph = getelementptr inbounds float, ptr %in, i32 %ih
  %a = load float, ptr %pl
  %b = load float, ptr %ph
  %s = fadd float %a, %b
  %po = getelementptr inbounds float, ptr %out, i32 %tid
  store float %s, ptr %po
  br label %done

done:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.y()
declare i32 @llvm.umin.i32(i32, i32)
declare i32 @llvm.smax.i32(i32, i32)
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.smin.i32(i32, i32)

!nvvm.annotations = !{!0}
!0 = !{ptr @rows, !"kernel", i32 1}
