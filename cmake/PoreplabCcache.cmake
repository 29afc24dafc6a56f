# ccache as the compiler launcher for C, C++ and CUDA when it is installed
# (-DPOREPLAB_CCACHE=OFF turns it off; a launcher set by the caller is kept).
# base_dir makes the cached commands relative to the checkout, and nohashdir leaves the
# build directory out of the hash of -g builds, so a fresh clone in another folder (CI's)
# hits what this checkout compiled.
option(POREPLAB_CCACHE "Compile through ccache when it is installed" ON)
if(POREPLAB_CCACHE)
  find_program(POREPLAB_CCACHE_PROGRAM ccache)
  if(POREPLAB_CCACHE_PROGRAM)
    set(_pl_launcher ${CMAKE_COMMAND} -E env
        CCACHE_BASEDIR=${CMAKE_SOURCE_DIR} CCACHE_NOHASHDIR=true
        CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
        ${POREPLAB_CCACHE_PROGRAM})
    foreach(lang C CXX CUDA)
      if(NOT DEFINED CMAKE_${lang}_COMPILER_LAUNCHER)
        set(CMAKE_${lang}_COMPILER_LAUNCHER ${_pl_launcher})
      endif()
    endforeach()
    message(STATUS "poreplab: compiling through ${POREPLAB_CCACHE_PROGRAM}")
  endif()
endif()
