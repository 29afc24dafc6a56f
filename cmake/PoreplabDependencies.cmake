# Every third-party dependency is a distribution package found with find_package;
# scripts/setup installs them. A missing one fails here with the package to install.
macro(poreplab_require pkg debian)
  find_package(${pkg} ${ARGN} QUIET)
  if(NOT ${pkg}_FOUND)
    message(FATAL_ERROR "poreplab needs ${pkg}: install the Debian package '${debian}' (scripts/setup does this)")
  endif()
endmacro()

find_package(Threads REQUIRED)
find_package(OpenMP REQUIRED COMPONENTS CXX)
poreplab_require(OpenSSL libssl-dev)
poreplab_require(nlohmann_json nlohmann-json3-dev)
poreplab_require(CLI11 libcli11-dev)
# hwloc: the machine's packages, cores and SMT siblings (cpu/src/topology.cpp).
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(HWLOC QUIET IMPORTED_TARGET hwloc)
endif()
if(NOT HWLOC_FOUND)
  message(FATAL_ERROR "poreplab needs hwloc: install the Debian packages 'libhwloc-dev' and 'pkg-config' (scripts/setup does this)")
endif()
# liburing: io_uring for the reads of layers kept on disk (common/src/read_queue.cpp);
# without it those reads go through a pool of pread threads.
if(PkgConfig_FOUND)
  pkg_check_modules(LIBURING QUIET IMPORTED_TARGET liburing)
endif()
if(NOT LIBURING_FOUND)
  message(STATUS "liburing not found (Debian package 'liburing-dev'): disk reads use a pread thread pool")
endif()
if(POREPLAB_TESTS)
  poreplab_require(Catch2 catch2)
endif()
