/*
 * fuzz_result.c — a run's result file (analysis/result.c), as stats and
 * plot read it: refused with a reason or read whole, every value finite,
 * none negative.
 */
#include "fuzz.h"
#include "result.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_path("result.tsv");
	fuzz_write(path, data, size);
	struct result r;
	char err[1024];
	if (result_read(path, &r, err, sizeof(err)) == 0) {
		for (size_t i = 0; i < r.nr_metrics; i++)
			if (!isfinite(r.value[i]) || r.value[i] < 0)
				abort();   /* result_read promises neither */
		result_free(&r);
	}
	unlink(path);
	return 0;
}
