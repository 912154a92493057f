/*
 * fuzz_options.c — the option and value parsers: sizes, whole numbers,
 * swap devices, cgroup paths and a .vmr's META section, on any bytes.
 * Each must answer (0 or -1, a reason) without reading past its input.
 */
#include "cli.h"
#include "fuzz.h"
#include "sim/backing.h"
#include "vmr/vmr.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size);
	if (!s)
		return 0;
	uint64_t v;
	if (cli_parse_size(s, &v) == 0 && strlen(s) == 0)
		abort();               /* an empty string is no size */
	if (cli_parse_u64(s, 1, 1000, &v) == 0 && (v < 1 || v > 1000))
		abort();               /* the range it was given */
	struct backing_params bp;
	uint64_t swap_size = 0;
	char err[512];
	backing_parse(s, &bp, &swap_size, err, sizeof(err));
	vmr_cgroup_path_check((const char *)data, size);
	/* META is bytes, not a string: give the parser the exact length */
	vmr_meta_check((const char *)data, size, err, sizeof(err));
	vmr_cgroup_line_check((const char *)data, size, 4096, err, sizeof(err));
	free(s);
	return 0;
}
