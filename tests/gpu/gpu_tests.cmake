# GPU tests: labelled `gpu`; without a driver or device they exit 77, which
# CTest reports as skipped. Included by tests/CMakeLists.txt.
set(ks_gpu ${CMAKE_CURRENT_LIST_DIR})
set(ks_data ${CMAKE_CURRENT_LIST_DIR}/../data)
add_ks_test(gpu_templates SOURCES ${ks_gpu}/test_templates.c
            LIBS kspec_workloads cmocka LABELS gpu SKIP_RETURN_CODE 77)
add_ks_test(gpu_window SOURCES ${ks_gpu}/test_window.c LIBS m
            LABELS gpu SKIP_RETURN_CODE 77)

# The offline occupancy calculator against the driver, every template.
add_ks_test(gpu_occupancy SOURCES ${ks_gpu}/test_occupancy.c LIBS cmocka
            LABELS gpu SKIP_RETURN_CODE 77)

# The driver's cubin in the disk cache: stored, loaded by a fresh process,
# refused or damaged entries falling back to the PTX (jit/cache/cubin.c).
add_ks_test(gpu_cubin SOURCES ${ks_gpu}/test_cubin.c INTERNAL LIBS m
            LABELS gpu SKIP_RETURN_CODE 77)

# Constant copies (const_promote): each launch gets its own taps, on one
# stream and across two.
add_ks_test(gpu_cmem SOURCES ${ks_gpu}/test_cmem.c LIBS m ${CMAKE_DL_LIBS}
            INCLUDES ${KSPEC_CUDA_INCLUDE} LABELS gpu SKIP_RETURN_CODE 77)

# Private arrays out of local memory (smem_promote): a user's kernel with
# counters indexed by data, with and without the pass.
add_ks_test(gpu_local SOURCES ${ks_gpu}/test_local.c ARGS ${ks_data}/modes.ll
            LABELS gpu SKIP_RETURN_CODE 77)

# Warp-shuffle reductions (the shfl pass): a user's tree reductions and
# reduce_sum at every block of 32 to 1024 threads, with and without the
# pass, bit for bit against the CPU's tree.
add_ks_test(gpu_shfl SOURCES ${ks_gpu}/test_shfl.c ARGS ${ks_data}/treesum.ll
            LABELS gpu SKIP_RETURN_CODE 77)

# sepfilter_fused (rows, grid barrier, columns in one cooperative launch)
# against sepfilter_rows + sepfilter_cols (bit for bit) and the CPU, at
# several sides, radii and blocks, on the co-resident grid and on grids
# smaller still. gpu_fused.mock is its CPU run over the mocked driver:
# every kernel specialized and launched (ks_launch makes it cooperative),
# the workload's grid within the co-resident maximum, one block over it
# refused; nothing runs.
add_ks_test(gpu_fused SOURCES ${ks_gpu}/test_fused.c LIBS kspec_workloads
            LABELS gpu SKIP_RETURN_CODE 77)
add_ks_test(gpu_fused.mock TARGET test_gpu_fused LABELS cpu
            ENVIRONMENT KSPEC_LIBCUDA=$<TARGET_FILE:kspec_cuda_mock> KSPEC_CACHE=off
            SKIP_RETURN_CODE 77)

# The dialect's sampling functions in software and with --tex (hardware
# textures), every filter, mode and element type, against the CPU; DIR
# holding tex.bc (tests/sim/tex_kernels.cu, built with the dialect's tests
# and carried by tools/gpu-pack.sh to share/kspec/dialect) as argument.
add_ks_test(gpu_tex SOURCES ${ks_gpu}/test_tex.c LIBS m
            DEFS KS_TEX_BC_DIR="${KSPEC_DIALECT_OUT}"
            DEPENDS ks_dialect_bitcode LABELS gpu SKIP_RETURN_CODE 77)

# Run-time alias checks (smem_promote's privatization under a check at
# the kernel's entry): a histogram with disjoint and overlapping buffers.
add_ks_test(gpu_alias SOURCES ${ks_gpu}/test_alias.c ARGS ${ks_data}/hist64.ll
            LABELS gpu SKIP_RETURN_CODE 77)

# Structs by value (the lower stage): read in place, copied to a local,
# handed to a call.
add_ks_test(gpu_byval SOURCES ${ks_gpu}/test_byval.c LIBS m
            ARGS ${ks_data}/byval.ll LABELS gpu SKIP_RETURN_CODE 77)

# Module globals (ks_kernel_global_write/_read, bakes of globals): a
# __constant__ filter and struct set, a __device__ counter read back.
add_ks_test(gpu_globals SOURCES ${ks_gpu}/test_globals.c LIBS m
            ARGS ${ks_data}/globals.ll LABELS gpu SKIP_RETURN_CODE 77)

# The kernel corpus three ways (nvcc's cubin, kspec generic, kspec
# specialized), compared and timed (tests/kernels/MANIFEST). The bitcode
# and cubins come from tests/kernels (ks_corpus_bitcode, ks_corpus_cubin);
# tools/gpu-pack.sh carries them to share/kspec/corpus. gpu_corpus.list is
# its CPU dry run: MANIFEST parsed, every case's host inputs set up.
add_ks_test(gpu_corpus
  SOURCES ${ks_gpu}/test_gpu_corpus.c ${ks_gpu}/corpus_run.c
  LIBS ks_corpus_manifest ${CMAKE_DL_LIBS} INCLUDES ${KSPEC_CUDA_INCLUDE}
  DEFS KS_CORPUS_BUILD_DIR="${KSPEC_CORPUS_OUT}"
       KS_CORPUS_MANIFEST="${KSPEC_CORPUS_SRC}/MANIFEST"
  LABELS gpu SKIP_RETURN_CODE 77)
add_ks_test(gpu_corpus.list TARGET test_gpu_corpus ARGS --list
            LABELS cpu kernels)

# Launches a real kernel needs: a grid-wide barrier under a cooperative
# launch at the largest co-resident grid, 100 KiB of dynamic shared memory.
add_ks_test(gpu_launch SOURCES ${ks_gpu}/test_launch.c ARGS ${ks_data}/launch.ll
            LABELS gpu SKIP_RETURN_CODE 77)

# The dialect's kernels (tests/dialect: warp functions, atomics under
# contention, half and bfloat16, bit functions, cache hints, grid sync,
# math), every result against the CPU, math's also against nvcc's build of
# math.cu where the exact value is not within CUDA's bound; DIR of bitcode
# (and math.nvcc.cubin, ks_dialect_cubin) as the argument
# (tools/gpu-pack.sh carries it to share/kspec/dialect). gpu_dialect.mock
# is its CPU run over the mocked driver: every kernel specialized both ways
# and launched, nothing checked.
add_ks_test(gpu_dialect SOURCES ${ks_gpu}/test_dialect.c ${ks_gpu}/dialect_math.c
            LIBS m ${CMAKE_DL_LIBS} INCLUDES ${KSPEC_CUDA_INCLUDE}
            DEFS KS_DIALECT_DIR="${KSPEC_DIALECT_OUT}"
            DEPENDS ks_dialect_bitcode LABELS gpu SKIP_RETURN_CODE 77)
add_ks_test(gpu_dialect.mock TARGET test_gpu_dialect
            ARGS ${KSPEC_DIALECT_OUT} LABELS cpu dialect
            ENVIRONMENT KSPEC_LIBCUDA=$<TARGET_FILE:kspec_cuda_mock> KSPEC_CACHE=off
            SKIP_RETURN_CODE 77)
