# poreplab_warnings: an interface target every poreplab target links, so that warning
# policy lives in one place. CUDA sources get the host flags through -Xcompiler.
add_library(poreplab_warnings INTERFACE)
set(_pl_host_warnings -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion)
if(POREPLAB_WERROR)
  list(APPEND _pl_host_warnings -Werror)
endif()
target_compile_options(poreplab_warnings INTERFACE
  "$<$<COMPILE_LANGUAGE:CXX>:${_pl_host_warnings}>")
if(POREPLAB_WERROR)
  # nvcc: host-side warnings become errors; device-side warnings too.
  target_compile_options(poreplab_warnings INTERFACE
    "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra,-Werror;-Werror=all-warnings>")
else()
  target_compile_options(poreplab_warnings INTERFACE
    "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>")
endif()

if(POREPLAB_SANITIZE)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined;-fno-omit-frame-pointer;-fno-sanitize-recover=all>")
  add_link_options(-fsanitize=address,undefined)
  # GCC documents that sanitizer instrumentation causes false -Wmaybe-uninitialized
  # reports (seen in libstdc++'s <regex> and <functional> under -Werror).
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-Wno-maybe-uninitialized>")
endif()

if(POREPLAB_FUZZ)
  # libFuzzer (tests/fuzz): every library instrumented for coverage, with ASan and UBSan.
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-fsanitize=fuzzer-no-link,address,undefined;-fno-omit-frame-pointer;-fno-sanitize-recover=all>")
  add_link_options(-fsanitize=address,undefined)
endif()
