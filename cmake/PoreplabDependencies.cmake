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
if(POREPLAB_TESTS)
  poreplab_require(Catch2 catch2)
endif()
