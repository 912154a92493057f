/* input.c — opening a file the user named as an input (see input.h). */
#include "input.h"
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define INPUT_DEFAULT_MAX (4ull << 30)

uint64_t input_budget(void)
{
	const char *e = getenv("VMREPLAY_INPUT_MAX");
	uint64_t v;
	if (e && *e && cli_parse_size(e, &v) == 0 && v > 0)
		return v;
	return INPUT_DEFAULT_MAX;
}

FILE *input_open(const char *path, char *err, size_t errlen)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file (%s)", path,
			 S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" :
			 S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : "a socket");
		close(fd);
		return NULL;
	}
	uint64_t max = input_budget();
	if ((uint64_t)st.st_size > max) {
		snprintf(err, errlen, "%s: %llu bytes is more than the input budget of %llu bytes "
			 "(VMREPLAY_INPUT_MAX)", path, (unsigned long long)st.st_size,
			 (unsigned long long)max);
		close(fd);
		return NULL;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	FILE *f = fdopen(fd, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
	}
	return f;
}
