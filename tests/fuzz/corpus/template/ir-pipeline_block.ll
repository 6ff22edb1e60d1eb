; The block size is folded even where the kernel reads blockDim through a
; helper, as clang's __fetch_builtin_x does: the pipeline inlines before it
; binds. The kernel keeps reqntid for the backend.
;
; RUN: ks_passes_tool --stage all --block 256 %s | FileCheck %s --implicit-check-not=ntid
; RUN: ks_passes_tool --stage bind --block 256 %s | FileCheck %s --check-prefix=BIND
; RUN: ks_passes_tool --stage all %s | FileCheck %s --check-prefix=GEN

target triple = "nvptx64-nvidia-cuda"

; CHECK-LABEL: define void @k(
; CHECK: shl {{.*}}, 8
; CHECK: ret void
; CHECK-DAG: !{ptr @k, !"reqntidx", i32 256}

; BIND-LABEL: define void @k(
; BIND-NOT: ntid
; BIND-NOT: call {{.*}}@blockdim
; BIND: ret void

; GEN-LABEL: define void @k(
; GEN: call {{.*}}i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

define void @k(ptr %out) {
entry:
  %b = call i32 @blockdim()
  %c = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %m = mul i32 %c, %b
  %i = add i32 %m, %t
  %ie = sext i32 %i to i64
  %p = getelementptr inbounds i32, ptr %out, i64 %ie
  store i32 %i, ptr %p, align 4
  ret void
}

define linkonce_odr i32 @blockdim() #0 {
entry:
  %0 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  ret i32 %0
}

declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

attributes #0 = { alwaysinline }

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
