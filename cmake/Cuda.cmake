# NETDP_CUDA = AUTO | ON | OFF. Sets NETDP_HAVE_CUDA and enables the CUDA language when used.
set(NETDP_HAVE_CUDA OFF)
if(NOT NETDP_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # The GPUs of this machine when nvidia-smi sees one; otherwise sm_90 (H100/H200) only: a machine without a
    # GPU (CI) compiles the module to check it, and each architecture costs a full device compilation of every
    # engine (docs/reliability.md §5 "Compile time"). -DCMAKE_CUDA_ARCHITECTURES="80;90" for a portable module.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      execute_process(COMMAND nvidia-smi -L RESULT_VARIABLE netdp_no_gpu OUTPUT_QUIET ERROR_QUIET)
      if(netdp_no_gpu EQUAL 0)
        set(CMAKE_CUDA_ARCHITECTURES native CACHE STRING "CUDA architectures")
      else()
        set(CMAKE_CUDA_ARCHITECTURES 90 CACHE STRING "CUDA architectures")
      endif()
    endif()
    enable_language(CUDA)
    # CMake 3.25 does not know nvcc's C++20 flag yet; tell it (newer CMake defines these itself).
    if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    set(NETDP_HAVE_CUDA ON)
    # Debug aid: NETDP_CUDA_CHECK_LAUNCH() (kernels/cuda/base/cuda_check.hpp) also synchronises the device
    # after every kernel launch and checks the result, so a kernel that faults is named at its launch rather
    # than at the next synchronising call. Slow; scripts/gpu_bundle.sh builds the sanitizer binaries with it.
    option(NETDP_CUDA_SYNC_LAUNCHES "Synchronise and check after every CUDA kernel launch (debugging)" OFF)
    if(NETDP_CUDA_SYNC_LAUNCHES)
      add_compile_definitions(NETDP_CUDA_SYNC_LAUNCHES=1)
      message(STATUS "netdp: CUDA launches are synchronised and checked (NETDP_CUDA_SYNC_LAUNCHES)")
    endif()
  elseif(NETDP_CUDA STREQUAL "ON")
    message(FATAL_ERROR "NETDP_CUDA=ON but no CUDA compiler was found (set CMAKE_CUDA_COMPILER)")
  else()
    message(STATUS "netdp: no CUDA compiler found, building the CPU backend only")
  endif()
endif()
