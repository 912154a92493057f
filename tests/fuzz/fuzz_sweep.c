/*
 * fuzz_sweep.c — the sweep-file parser (replay/sweep/sweep_file.c) on any
 * text: a spec or one "PATH:LINE: KEY: reason".
 */
#include "fuzz.h"
#include "sweep/sweep_file.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size);
	if (!text)
		return 0;
	struct sweep_spec s;
	char err[1024];
	if (sweep_file_parse("/nonexistent/fuzz.sweep", text, &s, err, sizeof(err)) == 0)
		sweep_file_free(&s);
	free(text);
	return 0;
}
