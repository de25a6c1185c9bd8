# SPDX-License-Identifier: MIT
# The libcudnn.so.7 / libcudnn.so.9 personalities of target freednn (DESIGN D2, docs/compat.md):
# tools/gen_personalities.py reads include/*.h and writes, into the build tree,
#   gen/freednn.map           the linker version script (nodes libcudnn.so.7, libcudnn.so.9,
#                             FREEDNN_0), replacing a hand-kept export list;
#   gen/fd_personality_v7.c   the v7 wrappers, bound as cudnnX@libcudnn.so.7 by .symver.
# Also a directory cudnn-names/ holding libcudnn.so.7, libcudnn.so.9 and libcudnn.so symlinks to
# the built library, for running programs linked against NVIDIA's names (tests/compat).
if(EXISTS /usr/bin/python3)
  set(FD_PYTHON /usr/bin/python3)
else()
  find_program(FD_PYTHON python3 REQUIRED)
endif()

set(FD_GEN_DIR ${CMAKE_BINARY_DIR}/gen)
set(FD_VERSION_SCRIPT ${FD_GEN_DIR}/freednn.map)
set(FD_V7_WRAPPERS ${FD_GEN_DIR}/fd_personality_v7.c)
set(FD_GEN_PERSONALITIES ${CMAKE_SOURCE_DIR}/tools/gen_personalities.py)
file(GLOB FD_PUBLIC_HEADERS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/include/*.h)

add_custom_command(
  OUTPUT ${FD_VERSION_SCRIPT} ${FD_V7_WRAPPERS}
  COMMAND ${FD_PYTHON} ${FD_GEN_PERSONALITIES} lib --include ${CMAKE_SOURCE_DIR}/include
          --map ${FD_VERSION_SCRIPT} --wrappers ${FD_V7_WRAPPERS}
  DEPENDS ${FD_GEN_PERSONALITIES} ${FD_PUBLIC_HEADERS}
  COMMENT "Generating the libcudnn.so.7/.9 version script and v7 wrappers"
  VERBATIM)

target_sources(freednn PRIVATE ${FD_V7_WRAPPERS})
set_source_files_properties(${FD_V7_WRAPPERS} PROPERTIES
  GENERATED TRUE INCLUDE_DIRECTORIES ${CMAKE_SOURCE_DIR}/src/core)
set_property(TARGET freednn APPEND PROPERTY LINK_DEPENDS ${FD_VERSION_SCRIPT})
target_link_options(freednn PRIVATE -Wl,--version-script=${FD_VERSION_SCRIPT})

# cuDNN's names for the one library file, next to it in the build tree (install: cmake/install.cmake).
set(FD_CUDNN_NAMES_DIR ${CMAKE_BINARY_DIR}/cudnn-names)
add_custom_command(TARGET freednn POST_BUILD
  COMMAND ${CMAKE_COMMAND} -E make_directory ${FD_CUDNN_NAMES_DIR}
  COMMAND ${CMAKE_COMMAND} -E create_symlink $<TARGET_FILE:freednn> ${FD_CUDNN_NAMES_DIR}/libcudnn.so.7
  COMMAND ${CMAKE_COMMAND} -E create_symlink $<TARGET_FILE:freednn> ${FD_CUDNN_NAMES_DIR}/libcudnn.so.9
  COMMAND ${CMAKE_COMMAND} -E create_symlink $<TARGET_FILE:freednn> ${FD_CUDNN_NAMES_DIR}/libcudnn.so
  VERBATIM)
