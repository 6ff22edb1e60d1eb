; unclamp: the block with the most clamps of thread-affine indices gets a
; copy without them, run when a block-uniform check shows every thread of
; the block inside every bound; the copy's sext(x + c) become sext(x) + c.
; Declined: too few clamps, no fixed block, unsigned compares, switched off;
; never the entry block (the check must come before the copy).
;
; RUN: ks_passes_tool --kernel rows --stage unclamp --block 256 --no-pass tcoarsen %s | FileCheck %s --check-prefix=ROWS
; RUN: ks_passes_tool --kernel rows --stage all --block 256 --no-pass tcoarsen %s | FileCheck %s --check-prefix=ALL
; RUN: ks_passes_tool --kernel rows --stage unclamp --no-pass tcoarsen %s | FileCheck %s --check-prefix=NOTFIXED
; RUN: ks_passes_tool --kernel rows --stage unclamp --block 256 --no-pass tcoarsen --no-pass unclamp %s | FileCheck %s --check-prefix=OFF
; RUN: ks_passes_tool --kernel few --stage unclamp --block 256 --no-pass tcoarsen %s | FileCheck %s --check-prefix=FEW
; RUN: ks_passes_tool --kernel unsigned --stage unclamp --block 256 --no-pass tcoarsen %s | FileCheck %s --check-prefix=UNSIGNED

target triple = "nvptx64-nvidia-cuda"

; ROWS: ; explain: unclamp: {{[0-9]+}} selects of thread-affine indices against uniform bounds (clamps) dropped in a copy of block body
; ROWS-LABEL: define void @rows(
; the check: one range test and the two bounds for the four lanes
; ROWS: ks.uc.check:
; ROWS-COUNT-4: icmp s{{[lg][te]}} i64
; ROWS-NOT: icmp
; ROWS: br i1 %{{.*}}, label %ks.uc.fast, label %body
; the copy: no select, the index widened as a sum
; ROWS: ks.uc.fast:
; ROWS-NOT: select
; ROWS: %[[X:[0-9]+]] = sext i32 %x to i64
; ROWS-NEXT: add nsw i64 %[[X]], -1
; ROWS-NOT: select
; ROWS: br label %done
; ROWS: body:
; ROWS: select

; After the whole pipeline both versions are still there.
; ALL-LABEL: define void @rows(
; ALL: ks.uc.fast:
; ALL: body:

; NOTFIXED: ; explain: unclamp: declined rows: block size not fixed
; NOTFIXED-NOT: ks.uc
; OFF: ; explain: unclamp: switched off
; OFF-NOT: ks.uc
define void @rows(ptr %in, ptr %out, i32 %w) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = shl i32 %ctaid, 8
  %x = add i32 %base, %tid
  %in.x = icmp slt i32 %x, %w
  br i1 %in.x, label %body, label %done
body:
  %wm1 = add i32 %w, -1
  %e0 = add i32 %x, -1
  %lo0 = icmp slt i32 %e0, 0
  %hi0 = icmp slt i32 %e0, %w
  %m0 = select i1 %hi0, i32 %e0, i32 %wm1
  %c0 = select i1 %lo0, i32 0, i32 %m0
  %z0 = sext i32 %c0 to i64
  %p0 = getelementptr inbounds float, ptr %in, i64 %z0
  %v0 = load float, ptr %p0, align 4
  %e1 = add i32 %x, 0
  %lo1 = icmp slt i32 %e1, 0
  %hi1 = icmp slt i32 %e1, %w
  %m1 = select i1 %hi1, i32 %e1, i32 %wm1
  %c1 = select i1 %lo1, i32 0, i32 %m1
  %z1 = sext i32 %c1 to i64
  %p1 = getelementptr inbounds float, ptr %in, i64 %z1
  %v1 = load float, ptr %p1, align 4
  %e2 = add i32 %x, 1
  %lo2 = icmp slt i32 %e2, 0
  %hi2 = icmp slt i32 %e2, %w
  %m2 = select i1 %hi2, i32 %e2, i32 %wm1
  %c2 = select i1 %lo2, i32 0, i32 %m2
  %z2 = sext i32 %c2 to i64
  %p2 = getelementptr inbounds float, ptr %in, i64 %z2
  %v2 = load float, ptr %p2, align 4
  %e3 = add i32 %x, 2
  %lo3 = icmp slt i32 %e3, 0
  %hi3 = icmp slt i32 %e3, %w
  %m3 = select i1 %hi3, i32 %e3, i32 %wm1
  %c3 = select i1 %lo3, i32 0, i32 %m3
  %z3 = sext i32 %c3 to i64
  %p3 = getelementptr inbounds float, ptr %in, i64 %z3
  %v3 = load float, ptr %p3, align 4
  %s0 = fadd float %v0, %v1
  %s1 = fadd float %s0, %v2
  %s2 = fadd float %s1, %v3
  %zx = sext i32 %x to i64
  %po = getelementptr inbounds float, ptr %out, i64 %zx
  store float %s2, ptr %po, align 4
  br label %done
done:
  ret void
}

; FEW: ; explain: unclamp: declined few: {{[12]}} clamp-like selects, fewer than 4
; FEW-NOT: ks.uc
define void @few(ptr %in, ptr %out, i32 %w) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %go = icmp slt i32 %tid, %w
  br i1 %go, label %body, label %done
body:
  %wm1 = add i32 %w, -1
  %lo = icmp slt i32 %tid, 0
  %hi = icmp slt i32 %tid, %w
  %m = select i1 %hi, i32 %tid, i32 %wm1
  %c = select i1 %lo, i32 0, i32 %m
  %z = sext i32 %c to i64
  %p = getelementptr inbounds float, ptr %in, i64 %z
  %v = load float, ptr %p, align 4
  store float %v, ptr %out, align 4
  br label %done
done:
  ret void
}

; An unsigned compare is not a clamp it understands.
; UNSIGNED-NOT: ks.uc
define void @unsigned(ptr %in, ptr %out, i32 %w) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %e0 = add i32 %tid, 1
  %e1 = add i32 %tid, 2
  %e2 = add i32 %tid, 3
  %e3 = add i32 %tid, 4
  %h0 = icmp ult i32 %e0, %w
  %h1 = icmp ult i32 %e1, %w
  %h2 = icmp ult i32 %e2, %w
  %h3 = icmp ult i32 %e3, %w
  %c0 = select i1 %h0, i32 %e0, i32 0
  %c1 = select i1 %h1, i32 %e1, i32 0
  %c2 = select i1 %h2, i32 %e2, i32 0
  %c3 = select i1 %h3, i32 %e3, i32 0
  %s0 = add i32 %c0, %c1
  %s1 = add i32 %s0, %c2
  %s2 = add i32 %s1, %c3
  %z = sext i32 %s2 to i64
  %p = getelementptr inbounds float, ptr %in, i64 %z
  %v = load float, ptr %p, align 4
  store float %v, ptr %out, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

!nvvm.annotations = !{!0, !1, !2}
!0 = !{ptr @rows, !"kernel", i32 1}
!1 = !{ptr @few, !"kernel", i32 1}
!2 = !{ptr @unsigned, !"kernel", i32 1}
