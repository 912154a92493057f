/* paths.c — the installed and in-tree locations of vmreplay's files (see paths.h). */
#include "paths.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The Makefile's install directories: absolute, and from bindir. */
#if !defined(VMREPLAY_PKGLIBEXECDIR) || !defined(VMREPLAY_PKGDATADIR) || \
    !defined(VMREPLAY_BIN_TO_LIBEXEC) || !defined(VMREPLAY_BIN_TO_DATA)
#error "paths.c is compiled with the install directories the Makefile defines"
#endif

/* The directory of the running binary, or -1. */
static int exe_dir(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	char *slash = strrchr(buf, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	return 0;
}

/* The first of the directories BASES[i] (NULL: skipped) that holds
 * NAME, executable when EXEC: BUF is that directory + "/" + NAME when
 * !DIR_ONLY, else the resolved directory. */
static int first_of(const char *const *bases, size_t n, const char *name, int exec,
		    int dir_only, char *buf, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		char cand[PATH_MAX + 256];
		if (!bases[i])
			continue;
		if ((size_t)snprintf(cand, sizeof(cand), "%s/%s", bases[i], name) >= sizeof(cand))
			continue;
		if (access(cand, exec ? X_OK : R_OK) != 0)
			continue;
		if (!dir_only) {
			if ((size_t)snprintf(buf, len, "%s", cand) >= len)
				continue;
			return 0;
		}
		char resolved[PATH_MAX];
		if (!realpath(bases[i], resolved) || (size_t)snprintf(buf, len, "%s", resolved) >= len)
			continue;
		return 0;
	}
	return -1;
}

int paths_libexec(const char *name, char *buf, size_t len)
{
	char dir[PATH_MAX], installed[PATH_MAX + 64];
	int have = exe_dir(dir, sizeof(dir)) == 0;
	if (have)
		snprintf(installed, sizeof(installed), "%s/%s", dir, VMREPLAY_BIN_TO_LIBEXEC);
	const char *bases[] = { have ? installed : NULL, have ? dir : NULL, VMREPLAY_PKGLIBEXECDIR };
	return first_of(bases, sizeof(bases) / sizeof(bases[0]), name, 1, 0, buf, len);
}

int paths_data(const char *sub, const char *probe, char *buf, size_t len)
{
	char dir[PATH_MAX], installed[PATH_MAX + 128], tree[PATH_MAX + 64], fixed[PATH_MAX];
	int have = exe_dir(dir, sizeof(dir)) == 0;
	if (have) {
		snprintf(installed, sizeof(installed), "%s/%s/%s", dir, VMREPLAY_BIN_TO_DATA, sub);
		snprintf(tree, sizeof(tree), "%s/../%s", dir, sub);
	}
	snprintf(fixed, sizeof(fixed), "%s/%s", VMREPLAY_PKGDATADIR, sub);
	const char *bases[] = { have ? installed : NULL, have ? tree : NULL, fixed };
	return first_of(bases, sizeof(bases) / sizeof(bases[0]), probe, 0, 1, buf, len);
}
