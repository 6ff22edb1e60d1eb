# The problem instances of the built-in templates (workloads.h), shared by
# the kspec tool, the GPU tests and the benchmark. Included by
# tools/CMakeLists.txt.
add_library(kspec_workloads STATIC ${CMAKE_CURRENT_LIST_DIR}/workloads.c)
target_link_libraries(kspec_workloads PUBLIC kspec m)
target_include_directories(kspec_workloads PUBLIC ${CMAKE_CURRENT_LIST_DIR})
ks_target_warnings(kspec_workloads)
