#pragma once
// Private to poreplab_cpu's AVX-512 files: the intrinsics, without GCC 12's false
// warnings. Its AVX-512 intrinsics fill unused operands from self-initialised
// _mm*_undefined_*() values and then warn about them (GCC bug 105593, fixed in 13).
#include <immintrin.h>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
