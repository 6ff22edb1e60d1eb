# sim_lib.sh - what the sim/*_sim.sh scripts share; sourced, not run.

# host_ir IN OUT: NVPTX IR from kspec as host IR. The special registers
# become calls to the simulated grid's functions (sreg_tid_x, ...), the
# target goes, every function is built with AddressSanitizer, and the
# constant address space (const_promote's copies) becomes the default one.
host_ir() {
  sed -e '/^target /d' -e '/^@gridDim\|^@blockDim\|^@blockIdx\|^@threadIdx/d' \
      -e 's/@llvm\.nvvm\.read\.ptx\.sreg\.\([a-z]*\)\.\([xyz]\)/@sreg_\1_\2/g' \
      -e 's/^\(declare .*@sreg_[a-z]*_[xyz]()\) #[0-9]*/\1/' \
      -e 's/"target-cpu"="sm_[0-9]*" "target-features"="[^"]*"//' \
      -e 's/^attributes #0 = { /attributes #0 = { sanitize_address /' \
      -e 's/ addrspace(4)//g' \
      -e '/^!nvvm.annotations/d' "$1" > "$2"
}

# need_asan CLANG: exits 77 (skipped) where CLANG cannot build with ASan.
need_asan() {
  if ! echo 'int main(void){return 0;}' > asan.c ||
     ! "$1" -fsanitize=address asan.c -o asan 2>/dev/null; then
    echo "no AddressSanitizer: skipped"
    exit 77
  fi
}
