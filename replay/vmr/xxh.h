/*
 * xxh.h — XXH3 for the trace hash and the .vmr block checksums.
 *
 * The library's plain XXH3 functions are built for the baseline x86-64
 * (SSE2, about 1 instruction a byte); its x86 dispatch functions pick
 * AVX2 or AVX-512 at run time where the CPU has them (0.3 instructions a
 * byte with AVX2, callgrind) and give the same hashes.  Ingest hashes
 * each trace and checksums each .vmr it writes, tens of MB, so the
 * XXH3_* names used here are the dispatching ones where the header
 * exists.
 */
#ifndef VMR_XXH_H
#define VMR_XXH_H

#include <xxhash.h>
#if (defined(__x86_64__) || defined(__i386__)) && __has_include(<xxh_x86dispatch.h>)
#include <xxh_x86dispatch.h>
#endif

#endif
