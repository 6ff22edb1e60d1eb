# GPU tests: labelled `gpu`; without a driver or device they exit 77, which
# CTest reports as skipped. Included by tests/CMakeLists.txt.
add_executable(test_gpu_templates ${CMAKE_CURRENT_LIST_DIR}/test_templates.c)
target_link_libraries(test_gpu_templates PRIVATE kspec kspec_workloads cmocka)
add_test(NAME gpu_templates COMMAND test_gpu_templates)
set_tests_properties(gpu_templates PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)
add_executable(test_gpu_window ${CMAKE_CURRENT_LIST_DIR}/test_window.c)
target_link_libraries(test_gpu_window PRIVATE kspec m)
add_test(NAME gpu_window COMMAND test_gpu_window)
set_tests_properties(gpu_window PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)

# The offline occupancy calculator against the driver, every template.
add_executable(test_gpu_occupancy ${CMAKE_CURRENT_LIST_DIR}/test_occupancy.c)
target_link_libraries(test_gpu_occupancy PRIVATE kspec cmocka)
add_test(NAME gpu_occupancy COMMAND test_gpu_occupancy)
set_tests_properties(gpu_occupancy PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)

# The driver's cubin in the disk cache: stored, loaded by a fresh process,
# refused or damaged entries falling back to the PTX (jit/cubin.c).
add_executable(test_gpu_cubin ${CMAKE_CURRENT_LIST_DIR}/test_cubin.c)
target_link_libraries(test_gpu_cubin PRIVATE kspec_internal m)
target_include_directories(test_gpu_cubin PRIVATE ${LLVM_INCLUDE_DIRS})
add_test(NAME gpu_cubin COMMAND test_gpu_cubin)
set_tests_properties(gpu_cubin PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)

# Constant copies (const_promote): each launch gets its own taps, on one
# stream and across two.
add_executable(test_gpu_cmem ${CMAKE_CURRENT_LIST_DIR}/test_cmem.c)
target_link_libraries(test_gpu_cmem PRIVATE kspec m ${CMAKE_DL_LIBS})
target_include_directories(test_gpu_cmem PRIVATE ${KSPEC_CUDA_INCLUDE})
add_test(NAME gpu_cmem COMMAND test_gpu_cmem)
set_tests_properties(gpu_cmem PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)

# Private arrays out of local memory (smem_promote): a user's kernel with
# counters indexed by data, with and without the pass.
add_executable(test_gpu_local ${CMAKE_CURRENT_LIST_DIR}/test_local.c)
target_link_libraries(test_gpu_local PRIVATE kspec)
add_test(NAME gpu_local COMMAND test_gpu_local
         ${CMAKE_CURRENT_LIST_DIR}/../data/modes.ll)
set_tests_properties(gpu_local PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)

# Structs by value (the lower stage): read in place, copied to a local,
# handed to a call.
add_executable(test_gpu_byval ${CMAKE_CURRENT_LIST_DIR}/test_byval.c)
target_link_libraries(test_gpu_byval PRIVATE kspec m)
add_test(NAME gpu_byval COMMAND test_gpu_byval
         ${CMAKE_CURRENT_LIST_DIR}/../data/byval.ll)
set_tests_properties(gpu_byval PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)

# Module globals (ks_kernel_global_write/_read, bakes of globals): a
# __constant__ filter and struct set, a __device__ counter read back.
add_executable(test_gpu_globals ${CMAKE_CURRENT_LIST_DIR}/test_globals.c)
target_link_libraries(test_gpu_globals PRIVATE kspec m)
add_test(NAME gpu_globals COMMAND test_gpu_globals
         ${CMAKE_CURRENT_LIST_DIR}/../data/globals.ll)
set_tests_properties(gpu_globals PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)

# The kernel corpus three ways (nvcc's cubin, kspec generic, kspec
# specialized), compared and timed (tests/kernels/MANIFEST). The bitcode
# and cubins come from tests/kernels (ks_corpus_bitcode, ks_corpus_cubin);
# tools/gpu-pack.sh carries them to share/kspec/corpus. gpu_corpus.list is
# its CPU dry run: MANIFEST parsed, every case's host inputs set up.
add_executable(test_gpu_corpus ${CMAKE_CURRENT_LIST_DIR}/test_gpu_corpus.c
               ${CMAKE_CURRENT_LIST_DIR}/corpus_run.c)
target_link_libraries(test_gpu_corpus PRIVATE ks_corpus_manifest
                      ${CMAKE_DL_LIBS})
target_include_directories(test_gpu_corpus PRIVATE ${KSPEC_CUDA_INCLUDE})
target_compile_definitions(test_gpu_corpus PRIVATE
  KS_CORPUS_BUILD_DIR="${KSPEC_CORPUS_OUT}"
  KS_CORPUS_MANIFEST="${KSPEC_CORPUS_SRC}/MANIFEST")
add_test(NAME gpu_corpus COMMAND test_gpu_corpus)
set_tests_properties(gpu_corpus PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)
add_test(NAME gpu_corpus.list COMMAND test_gpu_corpus --list)
set_tests_properties(gpu_corpus.list PROPERTIES LABELS "cpu;kernels")

# Launches a real kernel needs: a grid-wide barrier under a cooperative
# launch at the largest co-resident grid, 100 KiB of dynamic shared memory.
add_executable(test_gpu_launch ${CMAKE_CURRENT_LIST_DIR}/test_launch.c)
target_link_libraries(test_gpu_launch PRIVATE kspec)
add_test(NAME gpu_launch COMMAND test_gpu_launch
         ${CMAKE_CURRENT_LIST_DIR}/../data/launch.ll)
set_tests_properties(gpu_launch PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)
