; Grid coarsening declines kernels whose result is not a sum of the blocks'
; values, says why, and leaves the kernel (and its parameters) as it was.
;
; RUN: ks_passes_tool --stage gcoarsen --kernel store2 --block 256 %s | FileCheck %s --check-prefix=STORE2
; RUN: ks_passes_tool --stage gcoarsen --kernel addr --block 256 %s | FileCheck %s --check-prefix=ADDR
; RUN: ks_passes_tool --stage gcoarsen --kernel nctaid --block 256 %s | FileCheck %s --check-prefix=NCTAID
; RUN: ks_passes_tool --stage gcoarsen --kernel ydim --block 256 %s | FileCheck %s --check-prefix=YDIM
; RUN: ks_passes_tool --stage gcoarsen --kernel first --block 256 %s | FileCheck %s --check-prefix=FIRST
; RUN: ks_passes_tool --stage gcoarsen --kernel square --block 256 %s | FileCheck %s --check-prefix=SQUARE
; RUN: ks_passes_tool --stage gcoarsen --kernel scaled --block 256 %s | FileCheck %s --check-prefix=SCALED
; RUN: ks_passes_tool --stage gcoarsen --kernel affine --block 256 %s | FileCheck %s --check-prefix=AFFINE
; RUN: ks_passes_tool --stage gcoarsen --kernel inregion --block 256 %s | FileCheck %s --check-prefix=INREGION
; RUN: ks_passes_tool --stage gcoarsen --kernel mixed --block 256 %s | FileCheck %s --check-prefix=MIXED
; RUN: ks_passes_tool --stage gcoarsen --kernel loaded --block 256 %s | FileCheck %s --check-prefix=LOADED
; RUN: ks_passes_tool --stage gcoarsen --kernel ptrload --block 256 %s | FileCheck %s --check-prefix=PTRLOAD
; RUN: ks_passes_tool --stage gcoarsen --kernel oldval --block 256 %s | FileCheck %s --check-prefix=OLDVAL
; RUN: ks_passes_tool --stage gcoarsen --kernel maxop --block 256 %s | FileCheck %s --check-prefix=MAXOP
; RUN: ks_passes_tool --stage gcoarsen --kernel early --block 256 %s | FileCheck %s --check-prefix=EARLY
; RUN: ks_passes_tool --stage gcoarsen --kernel nobid --block 256 %s | FileCheck %s --check-prefix=NOBID

target triple = "nvptx64-nvidia-cuda"

@sh = internal addrspace(3) global [256 x float] undef, align 4

; A second global store.
; STORE2: ; explain: gcoarsen: declined store2: a store to global memory
; STORE2-NOT: coarsened the grid
; STORE2-LABEL: define void @store2(ptr %x, ptr %y, ptr %out)
; STORE2-NOT: ks.gc
define void @store2(ptr %x, ptr %y, ptr %out) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = shl i32 %bid, 8
  %i = add i32 %base, %tid
  %ix = zext i32 %i to i64
  %p = getelementptr inbounds float, ptr %x, i64 %ix
  %v = load float, ptr %p, align 4
  %q = getelementptr inbounds float, ptr %y, i64 %ix
  store float %v, ptr %q, align 4
  %old = atomicrmw fadd ptr %out, float %v monotonic, align 4
  ret void
}

; The atomic's address depends on %ctaid.x (one sum per block).
; ADDR: ; explain: gcoarsen: declined addr: several values depend on %ctaid.x
; ADDR-LABEL: define void @addr(ptr %x, ptr %out)
; ADDR-NOT: ks.gc
define void @addr(ptr %x, ptr %out) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = shl i32 %bid, 8
  %i = add i32 %base, %tid
  %ix = zext i32 %i to i64
  %p = getelementptr inbounds float, ptr %x, i64 %ix
  %v = load float, ptr %p, align 4
  %b64 = zext i32 %bid to i64
  %o = getelementptr inbounds float, ptr %out, i64 %b64
  %old = atomicrmw fadd ptr %o, float %v monotonic, align 4
  ret void
}

; The grid's shape matters.
; NCTAID: ; explain: gcoarsen: declined nctaid: reads %nctaid.x (the grid's shape)
; NCTAID-LABEL: define void @nctaid(ptr %x, ptr %out)
define void @nctaid(ptr %x, ptr %out) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %nb = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %base = shl i32 %bid, 8
  %i = add i32 %base, %tid
  %ok = icmp ult i32 %i, %nb
  %ix = zext i32 %i to i64
  %p = getelementptr inbounds float, ptr %x, i64 %ix
  %v = load float, ptr %p, align 4
  %w = select i1 %ok, float %v, float 0.0
  %old = atomicrmw fadd ptr %out, float %w monotonic, align 4
  ret void
}

; YDIM: ; explain: gcoarsen: declined ydim: reads %ctaid.y (the grid's shape)
define void @ydim(ptr %x, ptr %out) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %by = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %b2 = add i32 %bid, %by
  %base = shl i32 %b2, 8
  %i = add i32 %base, %tid
  %ix = zext i32 %i to i64
  %p = getelementptr inbounds float, ptr %x, i64 %ix
  %v = load float, ptr %p, align 4
  %old = atomicrmw fadd ptr %out, float %v monotonic, align 4
  ret void
}

; if (blockIdx.x == 0): a branch outside the region on %ctaid.x.
; FIRST: ; explain: gcoarsen: declined first: several values depend on %ctaid.x
; FIRST-LABEL: define void @first(ptr %x, ptr %out)
; FIRST-NOT: ks.gc
define void @first(ptr %x, ptr %out) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = shl i32 %bid, 8
  %i = add i32 %base, %tid
  %ix = zext i32 %i to i64
  %p = getelementptr inbounds float, ptr %x, i64 %ix
  %v = load float, ptr %p, align 4
  %t64 = zext i32 %tid to i64
  %s = getelementptr inbounds [256 x float], ptr addrspace(3) @sh, i64 0, i64 %t64
  store float %v, ptr addrspace(3) %s, align 4
  call void @llvm.nvvm.barrier0()
  %isfirst = icmp eq i32 %bid, 0
  %t0 = icmp eq i32 %tid, 0
  %both = and i1 %isfirst, %t0
  br i1 %both, label %atomic, label %done
atomic:
  %r = load float, ptr addrspace(3) @sh, align 4
  %old = atomicrmw fadd ptr %out, float %r monotonic, align 4
  br label %done
done:
  ret void
}

; v * v is not linear in v.
; SQUARE: ; explain: gcoarsen: declined square: %sq uses a sum of the blocks' values other than by adding (not additive)
; SQUARE-LABEL: define void @square(ptr %x, ptr %out)
; SQUARE-NOT: ks.gc
define void @square(ptr %x, ptr %out) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = shl i32 %bid, 8
  %i = add i32 %base, %tid
  %ix = zext i32 %i to i64
  %p = getelementptr inbounds float, ptr %x, i64 %ix
  %v = load float, ptr %p, align 4
  %t64 = zext i32 %tid to i64
  %s = getelementptr inbounds [256 x float], ptr addrspace(3) @sh, i64 0, i64 %t64
  store float %v, ptr addrspace(3) %s, align 4
  call void @llvm.nvvm.barrier0()
  %r = load float, ptr addrspace(3) @sh, align 4
  %sq = fmul float %r, %r
  %old = atomicrmw fadd ptr %out, float %sq monotonic, align 4
  ret void
}

; The sum times a loaded value.
; SCALED: ; explain: gcoarsen: declined scaled: %sc uses a sum of the blocks' values other than by adding (not additive)
; SCALED-LABEL: define void @scaled(ptr %x, ptr %w, ptr %out)
define void @scaled(ptr %x, ptr %w, ptr %out) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = shl i32 %bid, 8
  %i = add i32 %base, %tid
  %ix = zext i32 %i to i64
  %p = getelementptr inbounds float, ptr %x, i64 %ix
  %v = load float, ptr %p, align 4
  %t64 = zext i32 %tid to i64
  %s = getelementptr inbounds [256 x float], ptr addrspace(3) @sh, i64 0, i64 %t64
  store float %v, ptr addrspace(3) %s, align 4
  call void @llvm.nvvm.barrier0()
  %r = load float, ptr addrspace(3) @sh, align 4
  %k = load float, ptr %w, align 4
  %sc = fmul float %r, %k
  %old = atomicrmw fadd ptr %out, float %sc monotonic, align 4
  ret void
}

; sum + 1 per block after the tree: C blocks would add C, the coarsened one 1.
; AFFINE: ; explain: gcoarsen: declined affine: %plus1 combines a sum of the blocks' values with another value (not additive)
define void @affine(ptr %x, ptr %out) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = shl i32 %bid, 8
  %i = add i32 %base, %tid
  %ix = zext i32 %i to i64
  %p = getelementptr inbounds float, ptr %x, i64 %ix
  %v = load float, ptr %p, align 4
  %t64 = zext i32 %tid to i64
  %s = getelementptr inbounds [256 x float], ptr addrspace(3) @sh, i64 0, i64 %t64
  store float %v, ptr addrspace(3) %s, align 4
  call void @llvm.nvvm.barrier0()
  %r = load float, ptr addrspace(3) @sh, align 4
  %plus1 = fadd float %r, 1.0
  %old = atomicrmw fadd ptr %out, float %plus1 monotonic, align 4
  ret void
}

; Inside the region the same is fine: each block's values are v + 1.
; INREGION: ; explain: gcoarsen: coarsened the grid by 16: each block sums %plus1
define void @inregion(ptr %x, ptr %out) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = shl i32 %bid, 8
  %i = add i32 %base, %tid
  %ix = zext i32 %i to i64
  %p = getelementptr inbounds float, ptr %x, i64 %ix
  %v = load float, ptr %p, align 4
  %plus1 = fadd float %v, 1.0
  %old = atomicrmw fadd ptr %out, float %plus1 monotonic, align 4
  ret void
}

; The shared array also holds a value that is not a sum (a weight).
; MIXED: ; explain: gcoarsen: declined mixed: a shared array also holds a value that is not a sum of the blocks' values
; MIXED-LABEL: define void @mixed(ptr %x, ptr %w, ptr %out)
define void @mixed(ptr %x, ptr %w, ptr %out) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = shl i32 %bid, 8
  %i = add i32 %base, %tid
  %ix = zext i32 %i to i64
  %p = getelementptr inbounds float, ptr %x, i64 %ix
  %v = load float, ptr %p, align 4
  %t64 = zext i32 %tid to i64
  %s = getelementptr inbounds [256 x float], ptr addrspace(3) @sh, i64 0, i64 %t64
  store float %v, ptr addrspace(3) %s, align 4
  call void @llvm.nvvm.barrier0()
  %r = load float, ptr addrspace(3) @sh, align 4
  call void @llvm.nvvm.barrier0()
  %k = load float, ptr %w, align 4
  store float %k, ptr addrspace(3) @sh, align 4
  %old = atomicrmw fadd ptr %out, float %r monotonic, align 4
  ret void
}

; The atomic's address comes from memory: one index, the same for all
; blocks, but read while other blocks add.
; LOADED: ; explain: gcoarsen: declined loaded: an atomic's address depends on loaded data
define void @loaded(ptr %x, ptr %out, ptr %idx) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = shl i32 %bid, 8
  %i = add i32 %base, %tid
  %ix = zext i32 %i to i64
  %p = getelementptr inbounds float, ptr %x, i64 %ix
  %v = load float, ptr %p, align 4
  %k = load i32, ptr %idx, align 4
  %k64 = zext i32 %k to i64
  %o = getelementptr inbounds float, ptr %out, i64 %k64
  %old = atomicrmw fadd ptr %o, float %v monotonic, align 4
  ret void
}

; A pointer the pass cannot follow.
; PTRLOAD: ; explain: gcoarsen: declined ptrload: an atomic through a pointer it cannot follow
define void @ptrload(ptr %x, ptr %outs) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = shl i32 %bid, 8
  %i = add i32 %base, %tid
  %ix = zext i32 %i to i64
  %p = getelementptr inbounds float, ptr %x, i64 %ix
  %v = load float, ptr %p, align 4
  %out = load ptr, ptr %outs, align 8
  %old = atomicrmw fadd ptr %out, float %v monotonic, align 4
  ret void
}

; The old value of the atomic is used.
; OLDVAL: ; explain: gcoarsen: declined oldval: an atomic whose old value is used
define void @oldval(ptr %x, ptr %out, ptr %y) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = shl i32 %bid, 8
  %i = add i32 %base, %tid
  %ix = zext i32 %i to i64
  %p = getelementptr inbounds i32, ptr %x, i64 %ix
  %v = load i32, ptr %p, align 4
  %old = atomicrmw add ptr %out, i32 %v monotonic, align 4
  %z = atomicrmw add ptr %y, i32 %old monotonic, align 4
  ret void
}

; MAXOP: ; explain: gcoarsen: declined maxop: an atomic other than add
define void @maxop(ptr %x, ptr %out) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = shl i32 %bid, 8
  %i = add i32 %base, %tid
  %ix = zext i32 %i to i64
  %p = getelementptr inbounds i32, ptr %x, i64 %ix
  %v = load i32, ptr %p, align 4
  %old = atomicrmw max ptr %out, i32 %v monotonic, align 4
  ret void
}

; if (i >= n) return; before the atomic: the exit depends on %ctaid.x.
; EARLY: ; explain: gcoarsen: declined early: the branch on %ctaid.x guards more than the computation of a value
define void @early(ptr %x, ptr %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %base = shl i32 %bid, 8
  %i = add i32 %base, %tid
  %in = icmp slt i32 %i, %n
  br i1 %in, label %body, label %done
body:
  %ix = zext i32 %i to i64
  %p = getelementptr inbounds float, ptr %x, i64 %ix
  %v = load float, ptr %p, align 4
  %old = atomicrmw fadd ptr %out, float %v monotonic, align 4
  br label %done
done:
  ret void
}

; Every block adds the same: nothing to sum over the blocks.
; NOBID: ; explain: gcoarsen: declined nobid: does not read %ctaid.x
define void @nobid(ptr %x, ptr %out) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ix = zext i32 %tid to i64
  %p = getelementptr inbounds float, ptr %x, i64 %ix
  %v = load float, ptr %p, align 4
  %old = atomicrmw fadd ptr %out, float %v monotonic, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
declare void @llvm.nvvm.barrier0()
