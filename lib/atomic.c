/* atomic.c — write to a temporary file, then rename (see atomic.h). */
#include "atomic.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int atomic_open(struct atomic_file *af, const char *path, char *err, size_t errlen)
{
	memset(af, 0, sizeof(*af));
	if (strcmp(path, "-") == 0) {
		af->fp = stdout;
		return 0;
	}
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		af->fp = fopen(path, "w");
		if (!af->fp) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return -1;
		}
		af->direct = 1;
		return 0;
	}
	af->path = strdup(path);
	if (!af->path || asprintf(&af->tmp, "%s.XXXXXX.tmp", path) < 0) {
		free(af->path);
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	int fd = mkstemps(af->tmp, 4);
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot create a temporary file: %s", path, strerror(errno));
		free(af->path);
		free(af->tmp);
		return -1;
	}
	/* mkstemp makes the file 0600; give it the mode a plain create would. */
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	af->fp = fdopen(fd, "w");
	if (!af->fp) {
		close(fd);
		unlink(af->tmp);
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		free(af->path);
		free(af->tmp);
		return -1;
	}
	return 0;
}

static void release(struct atomic_file *af)
{
	free(af->path);
	free(af->tmp);
	memset(af, 0, sizeof(*af));
}

static int commit(struct atomic_file *af, int sync, char *err, size_t errlen)
{
	if (af->direct) {
		int bad = ferror(af->fp) || fclose(af->fp) != 0;
		memset(af, 0, sizeof(*af));
		if (bad) {
			snprintf(err, errlen, "write failed: %s", strerror(errno));
			return -1;
		}
		return 0;
	}
	if (!af->path) {        /* stdout */
		if (fflush(af->fp) != 0 || ferror(af->fp)) {
			snprintf(err, errlen, "stdout: write failed");
			return -1;
		}
		return 0;
	}
	int bad = ferror(af->fp) || fflush(af->fp) != 0 || (sync && fsync(fileno(af->fp)) != 0);
	int saved = errno;
	if (fclose(af->fp) != 0 && !bad) {
		bad = 1;
		saved = errno;
	}
	if (!bad && rename(af->tmp, af->path) != 0) {
		bad = 1;
		saved = errno;
	}
	if (bad) {
		snprintf(err, errlen, "%s: write failed: %s", af->path, strerror(saved));
		unlink(af->tmp);
		release(af);
		return -1;
	}
	release(af);
	return 0;
}

int atomic_commit(struct atomic_file *af, char *err, size_t errlen)
{
	return commit(af, 1, err, errlen);
}

int atomic_commit_nosync(struct atomic_file *af, char *err, size_t errlen)
{
	return commit(af, 0, err, errlen);
}

void atomic_abort(struct atomic_file *af)
{
	if (af->direct) {
		fclose(af->fp);
		memset(af, 0, sizeof(*af));
		return;
	}
	if (!af->path)
		return;
	fclose(af->fp);
	unlink(af->tmp);
	release(af);
}

int mkdir_p(const char *dir)
{
	char tmp[4096];
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s", dir) >= sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(tmp, 0777) != 0 && errno != EEXIST ? -1 : 0;
}
