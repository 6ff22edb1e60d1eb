; A stand-in for NVIDIA's libdevice.10.bc in the tests (the real one is not
; in the repository): the same shape, much smaller. Its functions are
; alwaysinline and ask __nvvm_reflect what to do, __nv_powf calls a
; noinline internal helper that reads an internal table, and each of
; expf, sinf has a fast form. Built to bitcode by tests/CMakeLists.txt.
target datalayout = "e-i64:64-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-gpulibs"

@.str = private unnamed_addr constant [11 x i8] c"__CUDA_FTZ\00", align 1
@.str.1 = private unnamed_addr constant [17 x i8] c"__CUDA_PREC_SQRT\00", align 1
@.str.2 = private unnamed_addr constant [12 x i8] c"__CUDA_ARCH\00", align 1
@.str.3 = private unnamed_addr constant [16 x i8] c"__CUDA_PREC_DIV\00", align 1
@__cudart_table = internal addrspace(1) constant [2 x float] [float 1.0, float 2.0], align 4

define float @__nv_expf(float %a) #0 {
  %f = call i32 @__nvvm_reflect(ptr @.str)
  %c = icmp ne i32 %f, 0
  br i1 %c, label %ftz, label %ieee
ftz:
  %x = call float @llvm.nvvm.ex2.approx.ftz.f(float %a)
  ret float %x
ieee:
  %y = call float @llvm.nvvm.ex2.approx.f(float %a)
  ret float %y
}

define float @__nv_fast_expf(float %a) #0 {
  %m = fmul float %a, 0x3FF7154760000000
  %r = call float @llvm.nvvm.ex2.approx.ftz.f(float %m)
  ret float %r
}

define float @__nv_logf(float %a) #0 {
  %l = call float @llvm.nvvm.lg2.approx.f(float %a)
  %r = fmul float %l, 0x3FE62E4300000000
  ret float %r
}

define float @__nv_sqrtf(float %a) #0 {
  %p = call i32 @__nvvm_reflect(ptr @.str.1)
  %c = icmp ne i32 %p, 0
  br i1 %c, label %ieee, label %approx
ieee:
  %x = call float @llvm.nvvm.sqrt.rn.f(float %a)
  ret float %x
approx:
  %y = call float @llvm.nvvm.sqrt.approx.f(float %a)
  ret float %y
}

define float @__nv_powf(float %a, float %b) #0 {
  %l = call float @__internal_log2(float %a)
  %m = fmul float %l, %b
  %r = call float @llvm.nvvm.ex2.approx.f(float %m)
  ret float %r
}

define internal float @__internal_log2(float %a) #1 {
  %t = load float, ptr addrspace(1) getelementptr inbounds ([2 x float], ptr addrspace(1) @__cudart_table, i64 0, i64 1), align 4
  %l = call float @llvm.nvvm.lg2.approx.f(float %a)
  %r = fmul float %l, %t
  ret float %r
}

define float @__nv_sinf(float %a) #0 {
  %r = call float @llvm.nvvm.sin.approx.f(float %a)
  ret float %r
}

define float @__nv_fast_sinf(float %a) #0 {
  %r = call float @llvm.nvvm.sin.approx.ftz.f(float %a)
  ret float %r
}

define double @__nv_exp(double %a) #0 {
  %r = fadd double %a, 1.0
  ret double %r
}

define i32 @__nv_arch() #0 {
  %r = call i32 @__nvvm_reflect(ptr @.str.2)
  ret i32 %r
}

define i32 @__nv_precdiv() #0 {
  %r = call i32 @__nvvm_reflect(ptr @.str.3)
  ret i32 %r
}

define float @__nv_unused(float %a) #0 {
  ret float %a
}

declare i32 @__nvvm_reflect(ptr) #2
declare float @llvm.nvvm.ex2.approx.ftz.f(float)
declare float @llvm.nvvm.ex2.approx.f(float)
declare float @llvm.nvvm.lg2.approx.f(float)
declare float @llvm.nvvm.sqrt.rn.f(float)
declare float @llvm.nvvm.sqrt.approx.f(float)
declare float @llvm.nvvm.sin.approx.f(float)
declare float @llvm.nvvm.sin.approx.ftz.f(float)

attributes #0 = { alwaysinline nounwind }
attributes #1 = { noinline nounwind }
attributes #2 = { nounwind }
