/*
 * mix.h - splitmix64's finalizer (Steele, Lea and Flood, "Fast splittable
 * pseudorandom number generators", OOPSLA 2014): a 64-bit value to a
 * well-mixed one, the same on every machine.  The replay's seeded
 * generator (engine_rand) and ingest's fixed functions of the trace
 * (damon_phase, place_young) use it.
 */
#ifndef VMREPLAY_MIX_H
#define VMREPLAY_MIX_H

#include <stdint.h>

static inline uint64_t splitmix64_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

#endif
