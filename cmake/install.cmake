# SPDX-License-Identifier: MIT
# `make install PREFIX=...` (cmake --install build --prefix ...): the library file with its
# freednn names and cuDNN's names (libcudnn.so.7, libcudnn.so.9, libcudnn.so; DESIGN D2), the
# headers, freednn.pc and a CMake package (find_package(freednn) -> freednn::freednn).
# Everything is relocatable: the prefix can be chosen at install time. docs/compat.md explains
# how to put the cuDNN names in front of (or behind) NVIDIA's library.
include(CMakePackageConfigHelpers)

option(FREEDNN_INSTALL_CUDNN_NAMES "Install libcudnn.so.7/.9/.so symlinks to libfreednn" ON)

install(TARGETS freednn EXPORT freednnTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${FD_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

if(FREEDNN_INSTALL_CUDNN_NAMES)
  # All three name the one file (its soname stays libfreednn.so.0); relative links.
  set(FD_LIB_FILE libfreednn.so.${PROJECT_VERSION})
  foreach(name libcudnn.so.7 libcudnn.so.9 libcudnn.so)
    install(CODE "
      set(fd_link \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/${name}\")
      message(STATUS \"Installing: \${fd_link} -> ${FD_LIB_FILE}\")
      file(REMOVE \"\${fd_link}\")
      file(CREATE_LINK ${FD_LIB_FILE} \"\${fd_link}\" SYMBOLIC)")
  endforeach()
endif()

# pkg-config: paths relative to the .pc file, so a later --prefix is honoured.
file(RELATIVE_PATH FD_PC_TO_PREFIX /fd/${CMAKE_INSTALL_LIBDIR}/pkgconfig /fd)
string(REGEX REPLACE "/$" "" FD_PC_TO_PREFIX "${FD_PC_TO_PREFIX}")
set(FD_PC ${CMAKE_BINARY_DIR}/gen/freednn.pc)
file(WRITE ${FD_PC}.in "\
prefix=\${pcfiledir}/${FD_PC_TO_PREFIX}
libdir=\${prefix}/${CMAKE_INSTALL_LIBDIR}
includedir=\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}

Name: freednn
Description: Open implementation of the cuDNN classic C API (cudnn.h); CPU and CUDA backends
Version: ${PROJECT_VERSION}
Libs: -L\${libdir} -lfreednn
Cflags: -I\${includedir}
")
configure_file(${FD_PC}.in ${FD_PC} COPYONLY)
install(FILES ${FD_PC} DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# CMake package: freednnConfig.cmake, freednnConfigVersion.cmake, freednnTargets*.cmake.
set(FD_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/freednn)
file(WRITE ${CMAKE_BINARY_DIR}/gen/freednnConfig.cmake.in "\
# freednn: find_package(freednn) gives the imported target freednn::freednn (libfreednn plus
# the include directory holding cudnn.h and freednn.h).
@PACKAGE_INIT@
include(\"\${CMAKE_CURRENT_LIST_DIR}/freednnTargets.cmake\")
check_required_components(freednn)
")
configure_package_config_file(${CMAKE_BINARY_DIR}/gen/freednnConfig.cmake.in
  ${CMAKE_BINARY_DIR}/gen/freednnConfig.cmake INSTALL_DESTINATION ${FD_CMAKE_DIR})
# 0.x: minor versions are not compatible with each other.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/gen/freednnConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(EXPORT freednnTargets NAMESPACE freednn:: DESTINATION ${FD_CMAKE_DIR})
install(FILES ${CMAKE_BINARY_DIR}/gen/freednnConfig.cmake
  ${CMAKE_BINARY_DIR}/gen/freednnConfigVersion.cmake DESTINATION ${FD_CMAKE_DIR})
