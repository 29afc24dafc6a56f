# Per-ISA compile flags: only the file that implements an engine gets them, so the
# binary runs on any x86-64 and picks engines at run time.
# POREPLAB_NO_<ISA> leaves an engine out of the build (e.g. for old assemblers).
option(POREPLAB_NO_SHANI "Leave out the SHA-NI engines" OFF)
option(POREPLAB_NO_AVX2 "Leave out the AVX2 engines" OFF)
option(POREPLAB_NO_AVX512 "Leave out the AVX-512 engines" OFF)
option(POREPLAB_NO_IFMA "Leave out the AVX-512 IFMA engines" OFF)

set(POREPLAB_FLAGS_SHANI -msse4.1 -mssse3 -msha)
set(POREPLAB_FLAGS_AVX2 -mavx2 -mbmi2)
set(POREPLAB_FLAGS_AVX512 -mavx512f -mavx512vl -mavx512bw -mavx2 -mbmi2)
set(POREPLAB_FLAGS_IFMA -mavx512f -mavx512vl -mavx512bw -mavx512ifma -mavx2 -mbmi2)

function(poreplab_isa_source src isa)
  set_source_files_properties(${src} PROPERTIES COMPILE_OPTIONS "${POREPLAB_FLAGS_${isa}}")
endfunction()
