; const_promote, the read-only path: loads of a pointer argument the kernel
; never writes get !invariant.load (ld.global.nc) when no write to global
; memory can execute before them and every later write uses their value.
;
; RUN: ks_passes_tool --kernel ro --stage const_promote %s | FileCheck %s --check-prefix=RO
; RUN: ks_passes_tool --kernel ro --stage all %s | FileCheck %s --check-prefix=ROALL
; RUN: ks_passes_tool --kernel ro --stage const_promote --no-pass const_promote %s | FileCheck %s --check-prefix=OFF
; RUN: ks_passes_tool --kernel shared --stage const_promote %s | FileCheck %s --check-prefix=SHARED
; RUN: ks_passes_tool --kernel staged --stage const_promote %s | FileCheck %s --check-prefix=STAGED

target triple = "nvptx64-nvidia-cuda"

; RO: ; explain: const_promote: x: 2 loads read-only, marked for ld.global.nc
; RO: ; explain: const_promote: y: not read-only: it is stored to
; RO-LABEL: define void @ro(
; RO: %a = load float, ptr %px, align 4, !invariant.load ![[MD:[0-9]+]]
; RO: %b = load float, ptr %px1, align 4, !invariant.load ![[MD]]
; RO: store float %s, ptr %py, align 4{{$}}
; RO: ![[MD]] = !{}

; After the whole pipeline the marks are still there.
; ROALL-LABEL: define void @ro(
; ROALL-COUNT-2: load float, ptr {{.*}}, !invariant.load

; OFF-NOT: invariant.load
define void @ro(ptr %x, ptr %y) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t = zext i32 %tid to i64
  %px = getelementptr inbounds float, ptr %x, i64 %t
  %a = load float, ptr %px, align 4
  %px1 = getelementptr inbounds float, ptr %px, i64 1
  %b = load float, ptr %px1, align 4
  %s = fadd float %a, %b
  %py = getelementptr inbounds float, ptr %y, i64 %t
  store float %s, ptr %py, align 4
  ret void
}

; Shared-memory loads are left alone; a store to shared memory cannot
; overlap x, so it does not keep x's load coherent.
; SHARED: ; explain: const_promote: x: 1 loads read-only, marked for ld.global.nc
; SHARED-LABEL: define void @shared(
; SHARED: store float 1.000000e+00, ptr addrspace(3) @tile
; SHARED: %a = load float, ptr %px, align 4, !invariant.load
; SHARED: %b = load float, ptr addrspace(3) %ps, align 4{{$}}
@tile = internal addrspace(3) global [32 x float] undef, align 4
define void @shared(ptr %x, ptr %y, i64 %i) {
  store float 1.0, ptr addrspace(3) @tile, align 4
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %a = load float, ptr %px, align 4
  %ps = getelementptr inbounds float, ptr addrspace(3) @tile, i64 %i
  %b = load float, ptr addrspace(3) %ps, align 4
  %s = fadd float %a, %b
  store float %s, ptr %y, align 4
  ret void
}

; A barrier that only shared-memory writes precede (window staging's)
; orders no global write before the loads: they are still marked.
; STAGED: ; explain: const_promote: x: 1 loads read-only, marked for ld.global.nc
; STAGED-LABEL: define void @staged(
; STAGED: call void @llvm.nvvm.barrier0()
; STAGED: %a = load float, ptr %px, align 4, !invariant.load
define void @staged(ptr %x, ptr %y, i64 %i) {
  store float 1.0, ptr addrspace(3) @tile, align 4
  call void @llvm.nvvm.barrier0()
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %a = load float, ptr %px, align 4
  %ps = getelementptr inbounds float, ptr addrspace(3) @tile, i64 %i
  %b = load float, ptr addrspace(3) %ps, align 4
  %s = fadd float %a, %b
  store float %s, ptr %y, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()

!nvvm.annotations = !{!0, !1, !2}
!0 = !{ptr @ro, !"kernel", i32 1}
!1 = !{ptr @shared, !"kernel", i32 1}
!2 = !{ptr @staged, !"kernel", i32 1}
