/*
 * fuzz_events.c — a replay's events TSV, as analyze reads it
 * (analysis/analyze.c): refused with a reason or analysed.
 */
#include "fuzz.h"
#include "analyze.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_path("events.tsv");
	fuzz_write(path, data, size);
	struct analysis a;
	char err[1024];
	if (analyze_tsv(path, &a, err, sizeof(err)) == 0)
		analysis_free(&a);
	unlink(path);
	return 0;
}
