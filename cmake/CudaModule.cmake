# The CUDA backend as a module loaded on first use (docs/cuda_loader.md), included by kernels/CMakeLists.txt in
# CUDA builds: the engines of kernels/cuda/ and the CUDA libraries go into libnetdp_cuda.so (next to the netdp
# program in the build tree, LIBDIR/netdp/ when installed); netdp_kernels holds kernels/cuda_loader.cpp, which
# opens it with dlopen the first time a device is asked for.
file(GLOB cuda_engines CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/cuda/*.cu)
# The module names its build (version, commit) in its table, so it has its own copy of version_info.cpp.
add_library(netdp_cuda MODULE ${cuda_engines} ${CMAKE_CURRENT_SOURCE_DIR}/cuda/module_entry.cpp
                              ${NETDP_VERSION_CPP})
add_dependencies(netdp_cuda netdp_version_info)
set_target_properties(netdp_cuda PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR} PREFIX lib
                                            CUDA_RUNTIME_LIBRARY Shared)
target_include_directories(netdp_cuda PRIVATE ${PROJECT_SOURCE_DIR}/include ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(netdp_cuda PRIVATE CUDA::cudart CUDA::cusparse CUDA::cublas CUDA::cusolver)
target_compile_options(netdp_cuda PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${NETDP_WARNINGS}>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --expt-relaxed-constexpr --fmad=false>)
# --fmad=false: no product and sum contracted into one FMA, so the twins round as the CPU does
# (docs/cuda_backend.md "Rounding").
# Only the entry point is exported, so the module's copies of inline functions never interpose on netdp's;
# every symbol must resolve at link time (the module calls nothing in netdp: docs/cuda_backend.md "The ground").
target_link_options(netdp_cuda PRIVATE "LINKER:--version-script=${CMAKE_CURRENT_SOURCE_DIR}/cuda/module.map"
                    "LINKER:--no-undefined")
set_property(TARGET netdp_cuda APPEND PROPERTY LINK_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/cuda/module.map)

set(netdp_cuda_module_dir ${CMAKE_INSTALL_LIBDIR}/netdp)
file(RELATIVE_PATH netdp_cuda_module_relative ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}
     ${CMAKE_INSTALL_PREFIX}/${netdp_cuda_module_dir}/libnetdp_cuda.so)
set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/cuda_loader.cpp PROPERTIES COMPILE_DEFINITIONS
  "NETDP_BUILD_DIR=\"${CMAKE_BINARY_DIR}\";NETDP_CUDA_MODULE_BUILD=\"$<TARGET_FILE:netdp_cuda>\";NETDP_CUDA_MODULE_RELATIVE=\"${netdp_cuda_module_relative}\";NETDP_CUDA_MODULE_INSTALL=\"${CMAKE_INSTALL_PREFIX}/${netdp_cuda_module_dir}/libnetdp_cuda.so\"")
# Whatever links netdp_kernels can run on a device, so the module is built with it.
add_dependencies(netdp_kernels netdp_cuda)
install(TARGETS netdp_cuda LIBRARY DESTINATION ${netdp_cuda_module_dir})
