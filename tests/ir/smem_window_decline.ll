; Window staging declines what it cannot prove, and says why.
;
; RUN: ks_passes_tool --stage smem_promote --kernel stored --block 128 --bind 4=4 --no-pass tcoarsen %s | FileCheck %s --check-prefix=STORED
; RUN: ks_passes_tool --stage smem_promote --kernel atomic --block 128 --bind 4=4 --no-pass tcoarsen %s | FileCheck %s --check-prefix=ATOMIC
; RUN: ks_passes_tool --stage smem_promote --kernel coef2 --block 128 --bind 4=4 --no-pass tcoarsen %s | FileCheck %s --check-prefix=COEF2
; RUN: ks_passes_tool --stage smem_promote --kernel loaded --block 128 --bind 4=4 --no-pass tcoarsen %s | FileCheck %s --check-prefix=LOADED
; RUN: ks_passes_tool --stage smem_promote --kernel notfixed --bind 4=4 --no-pass tcoarsen %s | FileCheck %s --check-prefix=NOTFIXED
; RUN: ks_passes_tool --stage smem_promote --kernel oddguard --block 128 --bind 4=4 --no-pass tcoarsen %s | FileCheck %s --check-prefix=ODDGUARD
; RUN: ks_passes_tool --stage smem_promote --kernel single --block 128 --bind 4=1 --no-pass tcoarsen %s | FileCheck %s --check-prefix=SINGLE
; RUN: ks_passes_tool --stage smem_promote --kernel gap --block 128 --bind 4=2 --no-pass tcoarsen %s | FileCheck %s --check-prefix=GAP
; RUN: ks_passes_tool --stage smem_promote --kernel rolled --block 128 --no-pass tcoarsen %s | FileCheck %s --check-prefix=ROLLED
; RUN: ks_passes_tool --stage smem_promote --kernel barrier --block 128 --bind 4=4 --no-pass tcoarsen %s | FileCheck %s --check-prefix=BARRIER
; RUN: ks_passes_tool --stage smem_promote --kernel inloop --block 128 --no-pass tcoarsen %s | FileCheck %s --check-prefix=INLOOP
; RUN: ks_passes_tool --stage smem_promote --kernel byhand --block 128 --no-pass tcoarsen %s | FileCheck %s --check-prefix=BYHAND

target triple = "nvptx64-nvidia-cuda"

; x is also written, before the loads: staging would read stale values.
; STORED: ; explain: smem_promote: declined x: a store (in block entry) may run before the loads
; STORED-NOT: addrspace(3)
; STORED-NOT: call void @llvm.nvvm.barrier0()
; STORED-LABEL: define void @stored(
; STORED-NOT: barrier0
; STORED: ret void

; An atomic may write x (it may alias y) before the loads.
; ATOMIC: ; explain: smem_promote: declined x: an atomic (in block entry) may run before the loads
; ATOMIC-NOT: addrspace(3)
; ATOMIC-NOT: call void @llvm.nvvm.barrier0()
; ATOMIC-LABEL: define void @atomic(
; ATOMIC-NOT: barrier0
; ATOMIC: ret void

; x[2*i + k]: neighbouring threads do not read neighbouring elements.
; COEF2: ; explain: smem_promote: declined x: index with tid.x coefficient 2
; COEF2-NOT: addrspace(3)
; COEF2-NOT: call void @llvm.nvvm.barrier0()
; COEF2-LABEL: define void @coef2(
; COEF2-NOT: barrier0
; COEF2: ret void

; x[i + k + f[0]]: an index read from memory.
; LOADED: ; explain: smem_promote: declined x: index not understood: index depends on a load
; LOADED-NOT: addrspace(3)
; LOADED-NOT: call void @llvm.nvvm.barrier0()
; LOADED-LABEL: define void @loaded(
; LOADED-NOT: barrier0
; LOADED: ret void

; No fixed block: the tile has no size.
; NOTFIXED: ; explain: smem_promote: declined window staging: block size not fixed (use --block)
; NOTFIXED-NOT: addrspace(3)
; NOTFIXED-NOT: call void @llvm.nvvm.barrier0()
; NOTFIXED-LABEL: define void @notfixed(
; NOTFIXED-NOT: barrier0
; NOTFIXED: ret void

; Only even threads read: a guard of another form.
; ODDGUARD: ; explain: smem_promote: declined x: guard on tid.x of another form than tid.x + uniform < uniform
; ODDGUARD-NOT: addrspace(3)
; ODDGUARD-NOT: call void @llvm.nvvm.barrier0()
; ODDGUARD-LABEL: define void @oddguard(
; ODDGUARD-NOT: barrier0
; ODDGUARD: ret void

; One tap: nothing to reuse.
; SINGLE: ; explain: smem_promote: declined x: a single offset, nothing to reuse
; SINGLE-NOT: addrspace(3)
; SINGLE-NOT: call void @llvm.nvvm.barrier0()
; SINGLE-LABEL: define void @single(
; SINGLE-NOT: barrier0
; SINGLE: ret void

; x[i + 2k]: offsets 0 and 2 only.
; GAP: ; explain: smem_promote: declined x: offsets 0..2 along tid.x with a gap at 1
; GAP-NOT: addrspace(3)
; GAP-NOT: call void @llvm.nvvm.barrier0()
; GAP-LABEL: define void @gap(
; GAP-NOT: barrier0
; GAP: ret void

; The loop stays (its trip count is not bound): one load at a varying offset.
; ROLLED: ; explain: smem_promote: declined x: index not understood: index depends on a phi
; ROLLED-NOT: addrspace(3)
; ROLLED-NOT: call void @llvm.nvvm.barrier0()
; ROLLED-LABEL: define void @rolled(
; ROLLED-NOT: barrier0
; ROLLED: ret void

; The kernel synchronizes already.
; BARRIER: ; explain: smem_promote: declined x: the kernel already has barriers
; BARRIER-NOT: addrspace(3)
; BARRIER-NOT: call void @llvm.nvvm.barrier0()
; BARRIER-LABEL: define void @barrier(

define void @stored(ptr %x, ptr %f, ptr %y, i32 %n, i32 %LEN) {
entry:
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %base = mul i32 %bid, %ntid
  %i = add i32 %base, %tid
  %o0 = sext i32 %i to i64
  %p0 = getelementptr inbounds float, ptr %x, i64 %o0
  store float 0.0, ptr %p0, align 4
  %inb = icmp slt i32 %i, %n
  br i1 %inb, label %pre, label %exit

pre:
  br label %head

head:
  %k = phi i32 [ 0, %pre ], [ %k.next, %body ]
  %s = phi float [ 0.0, %pre ], [ %s.next, %body ]
  %c = icmp slt i32 %k, %LEN
  br i1 %c, label %body, label %done

body:
  %ik = add nsw i32 %i, %k
  %ie = sext i32 %ik to i64
  %px = getelementptr inbounds float, ptr %x, i64 %ie
  %vx = load float, ptr %px, align 4
  %ke = sext i32 %k to i64
  %pf = getelementptr inbounds float, ptr %f, i64 %ke
  %vf = load float, ptr %pf, align 4
  %m = fmul contract float %vx, %vf
  %s.next = fadd contract float %s, %m
  %k.next = add nsw i32 %k, 1
  br label %head, !llvm.loop !1

done:
  %o = sext i32 %i to i64
  %py = getelementptr inbounds float, ptr %y, i64 %o
  store float %s, ptr %py, align 4
  br label %exit

exit:
  ret void
}

define void @atomic(ptr %x, ptr %f, ptr %y, i32 %n, i32 %LEN) {
entry:
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %base = mul i32 %bid, %ntid
  %i = add i32 %base, %tid
  %old = atomicrmw add ptr %y, i32 1 monotonic, align 4
  %inb = icmp slt i32 %i, %n
  br i1 %inb, label %pre, label %exit

pre:
  br label %head

head:
  %k = phi i32 [ 0, %pre ], [ %k.next, %body ]
  %s = phi float [ 0.0, %pre ], [ %s.next, %body ]
  %c = icmp slt i32 %k, %LEN
  br i1 %c, label %body, label %done

body:
  %ik = add nsw i32 %i, %k
  %ie = sext i32 %ik to i64
  %px = getelementptr inbounds float, ptr %x, i64 %ie
  %vx = load float, ptr %px, align 4
  %ke = sext i32 %k to i64
  %pf = getelementptr inbounds float, ptr %f, i64 %ke
  %vf = load float, ptr %pf, align 4
  %m = fmul contract float %vx, %vf
  %s.next = fadd contract float %s, %m
  %k.next = add nsw i32 %k, 1
  br label %head, !llvm.loop !1

done:
  %o = sext i32 %i to i64
  %py = getelementptr inbounds float, ptr %y, i64 %o
  store float %s, ptr %py, align 4
  br label %exit

exit:
  ret void
}

define void @coef2(ptr %x, ptr %f, ptr %y, i32 %n, i32 %LEN) {
entry:
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %base = mul i32 %bid, %ntid
  %i = add i32 %base, %tid
  %inb = icmp slt i32 %i, %n
  br i1 %inb, label %pre, label %exit

pre:
  br label %head

head:
  %k = phi i32 [ 0, %pre ], [ %k.next, %body ]
  %s = phi float [ 0.0, %pre ], [ %s.next, %body ]
  %c = icmp slt i32 %k, %LEN
  br i1 %c, label %body, label %done

body:
  %i2 = shl i32 %i, 1
  %ik = add nsw i32 %i2, %k
  %ie = sext i32 %ik to i64
  %px = getelementptr inbounds float, ptr %x, i64 %ie
  %vx = load float, ptr %px, align 4
  %ke = sext i32 %k to i64
  %pf = getelementptr inbounds float, ptr %f, i64 %ke
  %vf = load float, ptr %pf, align 4
  %m = fmul contract float %vx, %vf
  %s.next = fadd contract float %s, %m
  %k.next = add nsw i32 %k, 1
  br label %head, !llvm.loop !1

done:
  %o = sext i32 %i to i64
  %py = getelementptr inbounds float, ptr %y, i64 %o
  store float %s, ptr %py, align 4
  br label %exit

exit:
  ret void
}

define void @loaded(ptr %x, ptr %f, ptr %y, i32 %n, i32 %LEN) {
entry:
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %base = mul i32 %bid, %ntid
  %i = add i32 %base, %tid
  %inb = icmp slt i32 %i, %n
  br i1 %inb, label %pre, label %exit

pre:
  br label %head

head:
  %k = phi i32 [ 0, %pre ], [ %k.next, %body ]
  %s = phi float [ 0.0, %pre ], [ %s.next, %body ]
  %c = icmp slt i32 %k, %LEN
  br i1 %c, label %body, label %done

body:
  %v = load i32, ptr %f, align 4
  %ik0 = add nsw i32 %i, %k
  %ik = add nsw i32 %ik0, %v
  %ie = sext i32 %ik to i64
  %px = getelementptr inbounds float, ptr %x, i64 %ie
  %vx = load float, ptr %px, align 4
  %ke = sext i32 %k to i64
  %pf = getelementptr inbounds float, ptr %f, i64 %ke
  %vf = load float, ptr %pf, align 4
  %m = fmul contract float %vx, %vf
  %s.next = fadd contract float %s, %m
  %k.next = add nsw i32 %k, 1
  br label %head, !llvm.loop !1

done:
  %o = sext i32 %i to i64
  %py = getelementptr inbounds float, ptr %y, i64 %o
  store float %s, ptr %py, align 4
  br label %exit

exit:
  ret void
}

define void @notfixed(ptr %x, ptr %f, ptr %y, i32 %n, i32 %LEN) {
entry:
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %base = mul i32 %bid, %ntid
  %i = add i32 %base, %tid
  %inb = icmp slt i32 %i, %n
  br i1 %inb, label %pre, label %exit

pre:
  br label %head

head:
  %k = phi i32 [ 0, %pre ], [ %k.next, %body ]
  %s = phi float [ 0.0, %pre ], [ %s.next, %body ]
  %c = icmp slt i32 %k, %LEN
  br i1 %c, label %body, label %done

body:
  %ik = add nsw i32 %i, %k
  %ie = sext i32 %ik to i64
  %px = getelementptr inbounds float, ptr %x, i64 %ie
  %vx = load float, ptr %px, align 4
  %ke = sext i32 %k to i64
  %pf = getelementptr inbounds float, ptr %f, i64 %ke
  %vf = load float, ptr %pf, align 4
  %m = fmul contract float %vx, %vf
  %s.next = fadd contract float %s, %m
  %k.next = add nsw i32 %k, 1
  br label %head, !llvm.loop !1

done:
  %o = sext i32 %i to i64
  %py = getelementptr inbounds float, ptr %y, i64 %o
  store float %s, ptr %py, align 4
  br label %exit

exit:
  ret void
}

define void @oddguard(ptr %x, ptr %f, ptr %y, i32 %n, i32 %LEN) {
entry:
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %base = mul i32 %bid, %ntid
  %i = add i32 %base, %tid
  %odd = and i32 %tid, 1
  %even = icmp eq i32 %odd, 0
  %lt = icmp slt i32 %i, %n
  %inb = and i1 %even, %lt
  br i1 %inb, label %pre, label %exit

pre:
  br label %head

head:
  %k = phi i32 [ 0, %pre ], [ %k.next, %body ]
  %s = phi float [ 0.0, %pre ], [ %s.next, %body ]
  %c = icmp slt i32 %k, %LEN
  br i1 %c, label %body, label %done

body:
  %ik = add nsw i32 %i, %k
  %ie = sext i32 %ik to i64
  %px = getelementptr inbounds float, ptr %x, i64 %ie
  %vx = load float, ptr %px, align 4
  %ke = sext i32 %k to i64
  %pf = getelementptr inbounds float, ptr %f, i64 %ke
  %vf = load float, ptr %pf, align 4
  %m = fmul contract float %vx, %vf
  %s.next = fadd contract float %s, %m
  %k.next = add nsw i32 %k, 1
  br label %head, !llvm.loop !1

done:
  %o = sext i32 %i to i64
  %py = getelementptr inbounds float, ptr %y, i64 %o
  store float %s, ptr %py, align 4
  br label %exit

exit:
  ret void
}

define void @single(ptr %x, ptr %f, ptr %y, i32 %n, i32 %LEN) {
entry:
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %base = mul i32 %bid, %ntid
  %i = add i32 %base, %tid
  %inb = icmp slt i32 %i, %n
  br i1 %inb, label %pre, label %exit

pre:
  br label %head

head:
  %k = phi i32 [ 0, %pre ], [ %k.next, %body ]
  %s = phi float [ 0.0, %pre ], [ %s.next, %body ]
  %c = icmp slt i32 %k, %LEN
  br i1 %c, label %body, label %done

body:
  %ik = add nsw i32 %i, %k
  %ie = sext i32 %ik to i64
  %px = getelementptr inbounds float, ptr %x, i64 %ie
  %vx = load float, ptr %px, align 4
  %ke = sext i32 %k to i64
  %pf = getelementptr inbounds float, ptr %f, i64 %ke
  %vf = load float, ptr %pf, align 4
  %m = fmul contract float %vx, %vf
  %s.next = fadd contract float %s, %m
  %k.next = add nsw i32 %k, 1
  br label %head, !llvm.loop !1

done:
  %o = sext i32 %i to i64
  %py = getelementptr inbounds float, ptr %y, i64 %o
  store float %s, ptr %py, align 4
  br label %exit

exit:
  ret void
}

define void @gap(ptr %x, ptr %f, ptr %y, i32 %n, i32 %LEN) {
entry:
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %base = mul i32 %bid, %ntid
  %i = add i32 %base, %tid
  %inb = icmp slt i32 %i, %n
  br i1 %inb, label %pre, label %exit

pre:
  br label %head

head:
  %k = phi i32 [ 0, %pre ], [ %k.next, %body ]
  %s = phi float [ 0.0, %pre ], [ %s.next, %body ]
  %c = icmp slt i32 %k, %LEN
  br i1 %c, label %body, label %done

body:
  %k2 = shl i32 %k, 1
  %ik = add nsw i32 %i, %k2
  %ie = sext i32 %ik to i64
  %px = getelementptr inbounds float, ptr %x, i64 %ie
  %vx = load float, ptr %px, align 4
  %ke = sext i32 %k to i64
  %pf = getelementptr inbounds float, ptr %f, i64 %ke
  %vf = load float, ptr %pf, align 4
  %m = fmul contract float %vx, %vf
  %s.next = fadd contract float %s, %m
  %k.next = add nsw i32 %k, 1
  br label %head, !llvm.loop !1

done:
  %o = sext i32 %i to i64
  %py = getelementptr inbounds float, ptr %y, i64 %o
  store float %s, ptr %py, align 4
  br label %exit

exit:
  ret void
}

define void @rolled(ptr %x, ptr %f, ptr %y, i32 %n, i32 %LEN) {
entry:
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %base = mul i32 %bid, %ntid
  %i = add i32 %base, %tid
  %inb = icmp slt i32 %i, %n
  br i1 %inb, label %pre, label %exit

pre:
  br label %head

head:
  %k = phi i32 [ 0, %pre ], [ %k.next, %body ]
  %s = phi float [ 0.0, %pre ], [ %s.next, %body ]
  %c = icmp slt i32 %k, %LEN
  br i1 %c, label %body, label %done

body:
  %ik = add nsw i32 %i, %k
  %ie = sext i32 %ik to i64
  %px = getelementptr inbounds float, ptr %x, i64 %ie
  %vx = load float, ptr %px, align 4
  %ke = sext i32 %k to i64
  %pf = getelementptr inbounds float, ptr %f, i64 %ke
  %vf = load float, ptr %pf, align 4
  %m = fmul contract float %vx, %vf
  %s.next = fadd contract float %s, %m
  %k.next = add nsw i32 %k, 1
  br label %head, !llvm.loop !1

done:
  %o = sext i32 %i to i64
  %py = getelementptr inbounds float, ptr %y, i64 %o
  store float %s, ptr %py, align 4
  br label %exit

exit:
  ret void
}

define void @barrier(ptr %x, ptr %f, ptr %y, i32 %n, i32 %LEN) {
entry:
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %base = mul i32 %bid, %ntid
  %i = add i32 %base, %tid
  call void @llvm.nvvm.barrier0()
  %inb = icmp slt i32 %i, %n
  br i1 %inb, label %pre, label %exit

pre:
  br label %head

head:
  %k = phi i32 [ 0, %pre ], [ %k.next, %body ]
  %s = phi float [ 0.0, %pre ], [ %s.next, %body ]
  %c = icmp slt i32 %k, %LEN
  br i1 %c, label %body, label %done

body:
  %ik = add nsw i32 %i, %k
  %ie = sext i32 %ik to i64
  %px = getelementptr inbounds float, ptr %x, i64 %ie
  %vx = load float, ptr %px, align 4
  %ke = sext i32 %k to i64
  %pf = getelementptr inbounds float, ptr %f, i64 %ke
  %vf = load float, ptr %pf, align 4
  %m = fmul contract float %vx, %vf
  %s.next = fadd contract float %s, %m
  %k.next = add nsw i32 %k, 1
  br label %head, !llvm.loop !1

done:
  %o = sext i32 %i to i64
  %py = getelementptr inbounds float, ptr %y, i64 %o
  store float %s, ptr %py, align 4
  br label %exit

exit:
  ret void
}

; A window of three (an inner loop, unrolled) re-read in an outer loop that
; stays rolled.
; INLOOP: ; explain: smem_promote: declined x: the loads are in a loop
; INLOOP-NOT: addrspace(3)
; INLOOP-LABEL: define void @inloop(
; INLOOP-NOT: barrier0
; INLOOP: ret void
define void @inloop(ptr %x, ptr %f, ptr %y, i32 %n, i32 %LEN) {
entry:
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %base = mul i32 %bid, %ntid
  %i = add i32 %base, %tid
  br label %outer

outer:
  %r = phi i32 [ 0, %entry ], [ %r.next, %latch ]
  %s = phi float [ 0.0, %entry ], [ %t, %latch ]
  %c = icmp slt i32 %r, %LEN
  br i1 %c, label %inner, label %done

inner:
  %k = phi i32 [ 0, %outer ], [ %k.next, %ibody ]
  %t = phi float [ %s, %outer ], [ %t.next, %ibody ]
  %ck = icmp slt i32 %k, 3
  br i1 %ck, label %ibody, label %latch

ibody:
  %ik = add nsw i32 %i, %k
  %ie = sext i32 %ik to i64
  %px = getelementptr inbounds float, ptr %x, i64 %ie
  %v = load float, ptr %px, align 4
  %t.next = fadd float %t, %v
  %k.next = add nsw i32 %k, 1
  br label %inner, !llvm.loop !3

latch:
  %r.next = add nsw i32 %r, 1
  br label %outer, !llvm.loop !1

done:
  %o = sext i32 %i to i64
  %py = getelementptr inbounds float, ptr %y, i64 %o
  store float %s, ptr %py, align 4
  ret void
}

; x[i] + x[i+1] written out: instcombine turns sext(i + 1) into sext(i) + 1
; before the pass runs, and without the nsw that justified it the two
; addresses are not one expression shifted along tid.x (they differ where
; i wraps). Declined; the unrolled loops of the templates keep the form.
; BYHAND: ; explain: smem_promote: declined x: index not of the form f(tid.x + uniform + c) or f(tid.y + uniform + c)
; BYHAND-NOT: addrspace(3)
define void @byhand(ptr %x, ptr %f, ptr %y, i32 %n, i32 %LEN) {
entry:
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %base = mul i32 %bid, %ntid
  %i = add i32 %base, %tid
  %ie = sext i32 %i to i64
  %px0 = getelementptr inbounds float, ptr %x, i64 %ie
  %i1 = add nsw i32 %i, 1
  %i1e = sext i32 %i1 to i64
  %px1 = getelementptr inbounds float, ptr %x, i64 %i1e
  %v0 = load float, ptr %px0, align 4
  %v1 = load float, ptr %px1, align 4
  %a = fadd float %v0, %v1
  %py = getelementptr inbounds float, ptr %y, i64 %ie
  store float %a, ptr %py, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare void @llvm.nvvm.barrier0()

!nvvm.annotations = !{!31, !30, !10, !11, !12, !13, !14, !15, !16, !17, !18, !19}
!10 = !{ptr @stored, !"kernel", i32 1}
!11 = !{ptr @atomic, !"kernel", i32 1}
!12 = !{ptr @coef2, !"kernel", i32 1}
!13 = !{ptr @loaded, !"kernel", i32 1}
!14 = !{ptr @notfixed, !"kernel", i32 1}
!15 = !{ptr @oddguard, !"kernel", i32 1}
!16 = !{ptr @single, !"kernel", i32 1}
!17 = !{ptr @gap, !"kernel", i32 1}
!18 = !{ptr @rolled, !"kernel", i32 1}
!19 = !{ptr @barrier, !"kernel", i32 1}
!30 = !{ptr @inloop, !"kernel", i32 1}
!31 = !{ptr @byhand, !"kernel", i32 1}
!1 = distinct !{!1, !2}
!2 = !{!"llvm.loop.mustprogress"}
!3 = distinct !{!3, !2}
