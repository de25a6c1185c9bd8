# SPDX-License-Identifier: MIT
# The cuda backend (DESIGN D3, D7). FREEDNN_CUDA is AUTO (the default: ON when CMake finds a
# CUDA compiler), ON or OFF; after this file it is a plain ON/OFF variable that subdirectories
# test with if(FREEDNN_CUDA). An ON build compiles src/cuda/*.cu into the library for sm_80 and
# sm_90 with PTX for later GPUs, defines FD_HAVE_CUDA and links the CUDA runtime statically, so
# the library loads on machines without the toolkit or a driver and answers cpu there
# (src/cuda/probe.cu). The ASan build never has CUDA: the runtime and ASan's shadow memory clash.
string(TOUPPER "${FREEDNN_CUDA}" fd_cuda_request)
if(FREEDNN_SANITIZE AND fd_cuda_request)
  message(STATUS "freednn: FREEDNN_SANITIZE=ON builds without the cuda backend "
                 "(FREEDNN_CUDA=${FREEDNN_CUDA} taken as OFF: ASan and the CUDA runtime do not mix)")
  set(fd_cuda_request OFF)
endif()

if(fd_cuda_request STREQUAL "AUTO" OR fd_cuda_request)
  include(CheckLanguage)
  check_language(CUDA)
  if(NOT CMAKE_CUDA_COMPILER)
    if(NOT fd_cuda_request STREQUAL "AUTO")
      message(FATAL_ERROR "freednn: FREEDNN_CUDA=${FREEDNN_CUDA} but CMake finds no CUDA compiler: "
                          "put nvcc on PATH or set CMAKE_CUDA_COMPILER (or configure with "
                          "-DFREEDNN_CUDA=AUTO or OFF)")
    endif()
    message(STATUS "freednn: no CUDA compiler found; building without the cuda backend (FREEDNN_CUDA=AUTO)")
    set(FREEDNN_CUDA OFF)
  else()
    set(FREEDNN_CUDA ON)
  endif()
else()
  message(STATUS "freednn: cuda backend OFF (FREEDNN_CUDA=${FREEDNN_CUDA})")
  set(FREEDNN_CUDA OFF)
endif()

if(FREEDNN_CUDA)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 80-real 90-real 90-virtual)
  endif()
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  message(STATUS "freednn: cuda backend ON (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, "
                 "architectures ${CMAKE_CUDA_ARCHITECTURES})")
  file(GLOB FD_CUDA_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/cuda/*.cu)
  # The wgmma rows need sm_90a code: their files (src/cuda/*__sm90.cu) are built apart with
  # 90-real replaced by 90a-real (a fat binary with both images would leave the pick on an H100
  # to the driver). Without sm_90 in the list, or before CUDA 12.0, FD_WGMMA_SM90A stays unset
  # and the rows decline.
  file(GLOB fd_wgmma_src CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/cuda/*__sm90.cu)
  list(REMOVE_ITEM FD_CUDA_SOURCES ${fd_wgmma_src})
  set(fd_wgmma_archs ${CMAKE_CUDA_ARCHITECTURES})
  set(fd_wgmma_defs FD_HAVE_CUDA=1)
  if(CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.0 AND
     ("90-real" IN_LIST fd_wgmma_archs OR "90" IN_LIST fd_wgmma_archs))
    list(REMOVE_ITEM fd_wgmma_archs 90-real 90)
    list(APPEND fd_wgmma_archs 90a-real)
    list(APPEND fd_wgmma_defs FD_WGMMA_SM90A=1)
  endif()
  add_library(fd_wgmma OBJECT ${fd_wgmma_src})
  set_target_properties(fd_wgmma PROPERTIES CUDA_ARCHITECTURES "${fd_wgmma_archs}"
    POSITION_INDEPENDENT_CODE ON)
  target_include_directories(fd_wgmma PRIVATE ${CMAKE_SOURCE_DIR}/include)
  target_compile_definitions(fd_wgmma PRIVATE ${fd_wgmma_defs})
  target_sources(freednn PRIVATE ${FD_CUDA_SOURCES} $<TARGET_OBJECTS:fd_wgmma>)
  target_compile_definitions(freednn PRIVATE FD_HAVE_CUDA=1)
  foreach(fd_target freednn fd_wgmma)
    target_compile_options(${fd_target} PRIVATE
      "$<$<COMPILE_LANGUAGE:CUDA>:SHELL:--Werror all-warnings>"
      # a register spill in any kernel of any shipped architecture fails the build (issue 7
      # item 1: no spills), through --Werror above
      "$<$<COMPILE_LANGUAGE:CUDA>:SHELL:-Xptxas -warn-spills>"
      "$<$<COMPILE_LANGUAGE:CUDA>:SHELL:-Xcompiler -Wall,-Wextra,-Werror>")
  endforeach()
  # freednn was made before CUDA was enabled: its properties take the values here. The static
  # runtime (cudart_static, as CMake links it for CUDA_RUNTIME_LIBRARY Static) keeps the library
  # loadable where no toolkit is installed; programs may use the shared runtime beside it.
  set_target_properties(freednn PROPERTIES CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}"
    CUDA_RUNTIME_LIBRARY Static)
  # NVTX v3 (header-only, in the toolkit): every public call is a named range (src/core/trace.c).
  # C files see the toolkit headers as system headers, so their warnings stay out of -Werror;
  # NVTX dlopens a profiler's injection library, hence the dl libraries.
  # CUDAToolkit_INCLUDE_DIRS may be a list (CUDA 13 adds include/cccl): search, don't test one path.
  find_path(FD_NVTX_INCLUDE_DIR nvtx3/nvToolsExt.h HINTS ${CUDAToolkit_INCLUDE_DIRS} NO_DEFAULT_PATH)
  if(FD_NVTX_INCLUDE_DIR)
    set(FREEDNN_NVTX ON)
    target_include_directories(freednn SYSTEM PRIVATE
      "$<$<COMPILE_LANGUAGE:C>:${FD_NVTX_INCLUDE_DIR}>")
    target_compile_definitions(freednn PRIVATE "$<$<COMPILE_LANGUAGE:C>:FD_HAVE_NVTX=1>")
    target_link_libraries(freednn PRIVATE ${CMAKE_DL_LIBS})
  else()
    message(STATUS "freednn: no nvtx3/nvToolsExt.h in ${CUDAToolkit_INCLUDE_DIRS}: no NVTX ranges")
  endif()
endif()
