/* archive.c — compressed traces, unpacked with libarchive (archive.h). */
#include "archive.h"
#include "atomic.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const suffixes[] = { ".tar.xz", ".txz", ".tar.zst", ".tar.gz", ".tgz", ".tar" };

static int is_archive_name(const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t k = strlen(suffixes[i]);
		if (n > k && strcmp(name + n - k, suffixes[i]) == 0)
			return 1;
	}
	return 0;
}

/* Is there a CTF metadata file anywhere under DIR (two levels are enough
 * to tell a trace from a folder that only holds an archive)? */
static int has_metadata(const char *dir, int depth)
{
	char p[4200];
	struct stat st;
	snprintf(p, sizeof(p), "%s/metadata", dir);
	if (stat(p, &st) == 0)
		return 1;
	if (depth == 0)
		return 0;
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	struct dirent *de;
	int found = 0;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, de->d_name) >= sizeof(p))
			continue;
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
			found = has_metadata(p, depth - 1);
	}
	closedir(d);
	return found;
}

int trace_archive_find(const char *input, char *archive, size_t len)
{
	struct stat st;
	if (stat(input, &st) != 0)
		return 0;
	if (S_ISREG(st.st_mode))
		return is_archive_name(input) && (size_t)snprintf(archive, len, "%s", input) < len;
	if (!S_ISDIR(st.st_mode) || has_metadata(input, 6))
		return 0;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		if ((size_t)snprintf(archive, len, "%s/ctf%s", input, suffixes[i]) >= len)
			return 0;
		if (stat(archive, &st) == 0 && S_ISREG(st.st_mode))
			return 1;
	}
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void trace_archive_remove(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* A member name that stays inside the extraction directory. */
static int safe_name(const char *name)
{
	if (!name || !*name || name[0] == '/')
		return 0;
	for (const char *p = name; *p;) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return 0;
		p += n + (slash ? 1 : 0);
	}
	return 1;
}

/* mkdir -p of the directories leading to PATH's last component. */
static int make_parents(const char *path)
{
	char tmp[4200];
	snprintf(tmp, sizeof(tmp), "%s", path);
	char *last = strrchr(tmp, '/');
	if (!last || last == tmp)
		return 0;
	*last = '\0';
	return mkdir_p(tmp);
}

int trace_archive_extract(const char *archive, const char *parent, unsigned long long limit,
			  char *dir, size_t dirlen, char *err, size_t errlen)
{
	if ((size_t)snprintf(dir, dirlen, "%s/unpack.XXXXXX", parent) >= dirlen || !mkdtemp(dir)) {
		snprintf(err, errlen, "%s: cannot make a directory to unpack it in %s: %s", archive, parent,
			 strerror(errno));
		return -1;
	}
	struct archive *a = archive_read_new();
	if (!a) {
		snprintf(err, errlen, "out of memory");
		trace_archive_remove(dir);
		return -1;
	}
	archive_read_support_filter_all(a);
	archive_read_support_format_tar(a);
	int rc = -1;
	unsigned long long total = 0;
	char *buf = malloc(1 << 16);
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (archive_read_open_filename(a, archive, 1 << 16) != ARCHIVE_OK) {
		snprintf(err, errlen, "%s: not a readable trace archive: %s", archive, archive_error_string(a));
		goto out;
	}
	struct archive_entry *ent;
	int r;
	while ((r = archive_read_next_header(a, &ent)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(ent);
		while (name && name[0] == '.' && name[1] == '/')
			name += 2;
		mode_t type = archive_entry_filetype(ent);
		if (name && (!*name || strcmp(name, ".") == 0) && type == AE_IFDIR)
			continue;
		if (!safe_name(name) || (type != AE_IFREG && type != AE_IFDIR)) {
			snprintf(err, errlen, "%s: member '%s': only regular files and directories inside "
				 "the archive are accepted", archive, name ? name : "");
			goto out;
		}
		char path[4200];
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path)) {
			snprintf(err, errlen, "%s: member '%s': path too long", archive, name);
			goto out;
		}
		size_t n = strlen(path);
		while (n > 0 && path[n - 1] == '/')
			path[--n] = '\0';
		if (make_parents(path) != 0) {
			snprintf(err, errlen, "%s: %s: %s", archive, path, strerror(errno));
			goto out;
		}
		if (type == AE_IFDIR) {
			if (mkdir(path, 0755) != 0 && errno != EEXIST) {
				snprintf(err, errlen, "%s: %s: %s", archive, path, strerror(errno));
				goto out;
			}
			continue;
		}
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0) {
			snprintf(err, errlen, "%s: member '%s': %s", archive, name, strerror(errno));
			goto out;
		}
		la_ssize_t got;
		int bad = 0;
		while ((got = archive_read_data(a, buf, 1 << 16)) > 0) {
			total += (unsigned long long)got;
			if (total > limit) {
				snprintf(err, errlen, "%s: unpacks to more than %llu bytes (a damaged or "
					 "hostile archive?)", archive, limit);
				bad = 1;
				break;
			}
			if (write(fd, buf, (size_t)got) != got) {
				snprintf(err, errlen, "%s: %s: write failed: %s", archive, path, strerror(errno));
				bad = 1;
				break;
			}
		}
		if (got < 0 && !bad) {
			snprintf(err, errlen, "%s: member '%s': %s", archive, name, archive_error_string(a));
			bad = 1;
		}
		if (close(fd) != 0 && !bad) {
			snprintf(err, errlen, "%s: %s: %s", archive, path, strerror(errno));
			bad = 1;
		}
		if (bad)
			goto out;
	}
	if (r != ARCHIVE_EOF) {
		snprintf(err, errlen, "%s: damaged archive: %s", archive, archive_error_string(a));
		goto out;
	}
	rc = 0;
out:
	free(buf);
	archive_read_free(a);
	if (rc != 0)
		trace_archive_remove(dir);
	return rc;
}
