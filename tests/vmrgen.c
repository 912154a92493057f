/*
 * vmrgen — writes a synthetic .vmr (tests/synth_vmr.h) for the benchmarks
 * and for measuring the replay at scale by hand:
 *
 *   vmrgen procs OUT NR_PROCS PAGES NR_FILE STAGGER_NS THINK_NS
 *   vmrgen zipf OUT NR_REQUESTS NR_PAGES ALPHA SEED
 *
 * Exit status: 0 written, 1 it could not be, 2 usage.
 */
#include <errno.h>
#include "synth_vmr.h"

static int num(const char *s, uint64_t max, uint64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno || end == s || *end || x > max || s[0] == '-')
		return -1;
	*v = x;
	return 0;
}

int main(int argc, char **argv)
{
	char err[256];
	uint64_t a, b, c, d, x;
	int r;
	if (argc == 8 && strcmp(argv[1], "procs") == 0 && !num(argv[3], UINT32_MAX, &a) &&
	    !num(argv[4], UINT32_MAX, &b) && !num(argv[5], UINT32_MAX, &c) && !num(argv[6], 1ull << 40, &d) &&
	    !num(argv[7], VMR_DELTA_MAX, &x)) {
		r = synth_procs(argv[2], (uint32_t)a, (uint32_t)b, (uint32_t)c, d, (uint32_t)x, err, sizeof(err));
	} else if (argc == 7 && strcmp(argv[1], "zipf") == 0 && !num(argv[3], 1ull << 32, &a) &&
		   !num(argv[4], UINT32_MAX, &b) && !num(argv[6], UINT64_MAX, &d)) {
		char *end;
		double alpha = strtod(argv[5], &end);
		if (*end || end == argv[5] || !(alpha > 0 && alpha < 10)) {
			fprintf(stderr, "vmrgen: ALPHA '%s' is not a number in (0, 10)\n", argv[5]);
			return 2;
		}
		r = synth_zipf(argv[2], a, (uint32_t)b, alpha, d, err, sizeof(err));
	} else {
		fprintf(stderr, "usage: vmrgen procs OUT NR_PROCS PAGES NR_FILE STAGGER_NS THINK_NS\n"
				"       vmrgen zipf OUT NR_REQUESTS NR_PAGES ALPHA SEED\n");
		return 2;
	}
	if (r != 0) {
		fprintf(stderr, "vmrgen: %s\n", err);
		return 1;
	}
	return 0;
}
