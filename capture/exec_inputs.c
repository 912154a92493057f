/*
 * exec_inputs.c — the page cache of what a command's exec reads, dropped
 * with its shadow entries before the session starts.
 *
 * Why: a file page that reclaim evicted leaves a shadow entry in its
 * mapping's xarray (workingset_eviction), and the shadow outlives the
 * memcg that evicted it.  When the next session's exec reads the page
 * again, workingset_refault counts WORKINGSET_REFAULT_FILE in the new
 * folio's memcg before workingset_test_recent finds the eviction memcg
 * gone (mem_cgroup_from_id / mem_cgroup_tryget fail) and declines to
 * activate it: a refault the session did not cause and its trace cannot
 * show (the 6.18 mt-anon sessions: ~906 of them, stress-ng's text evicted
 * by the capture before).  POSIX_FADV_DONTNEED over the whole file goes
 * through mapping_try_invalidate (mm/truncate.c), which evicts the clean
 * unmapped folios (mapping_evict_folio: no shadow, it is not reclaim) and
 * removes the batch's shadow entries (clear_shadow_entries); a folio some
 * other process maps stays, resident, and cannot refault.
 */
#include "exec_inputs.h"
#include "capture_sys.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FILES 256

struct files {
	char path[MAX_FILES][PATH_MAX];
	int n;
};

static int add(struct files *f, const char *path, size_t plen)
{
	if (plen == 0 || plen >= PATH_MAX)
		return 0;
	for (int i = 0; i < f->n; i++)
		if (strlen(f->path[i]) == plen && memcmp(f->path[i], path, plen) == 0)
			return 0;
	if (f->n == MAX_FILES)
		return -1;
	memcpy(f->path[f->n], path, plen);
	f->path[f->n][plen] = '\0';
	f->n++;
	return 0;
}

/* The file execvp runs for NAME: NAME itself when it has a slash, else
 * the first executable regular file of that name along $PATH. */
static int resolve(const char *name, char *out, size_t len)
{
	if (strchr(name, '/')) {
		snprintf(out, len, "%s", name);
		return access(out, X_OK);
	}
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *p = path; *p;) {
		size_t n = strcspn(p, ":");
		struct stat st;
		snprintf(out, len, "%.*s/%s", (int)(n ? n : 1), n ? p : ".", name);
		if (access(out, X_OK) == 0 && stat(out, &st) == 0 && S_ISREG(st.st_mode))
			return 0;
		p += n + (p[n] == ':');
	}
	return -1;
}

/* The ELF interpreter (PT_INTERP) of PATH into INTERP, "" for a static
 * or non-ELF file; a "#!" script's interpreter into SCRIPT_INTERP. */
static int read_interp(const char *path, char *interp, size_t ilen, char *script_interp, size_t slen)
{
	interp[0] = script_interp[0] = '\0';
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	Elf64_Ehdr eh;
	ssize_t n = pread(fd, &eh, sizeof(eh), 0);
	if (n >= 2 && memcmp(&eh, "#!", 2) == 0) {
		/* binfmt_script: the first word after "#!" is the interpreter */
		char line[256];
		memcpy(line, &eh, n < (ssize_t)sizeof(line) ? (size_t)n : sizeof(line) - 1);
		line[n < (ssize_t)sizeof(line) ? n : (ssize_t)sizeof(line) - 1] = '\0';
		char *s = line + 2;
		s += strspn(s, " \t");
		snprintf(script_interp, slen, "%.*s", (int)strcspn(s, " \t\n"), s);
	} else if (n == (ssize_t)sizeof(eh) && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
		   eh.e_ident[EI_CLASS] == ELFCLASS64) {
		for (int i = 0; i < eh.e_phnum; i++) {
			Elf64_Phdr ph;
			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * eh.e_phentsize)) !=
			    (ssize_t)sizeof(ph))
				break;
			if (ph.p_type == PT_INTERP && ph.p_filesz > 1 && ph.p_filesz < ilen &&
			    pread(fd, interp, ph.p_filesz, (off_t)ph.p_offset) == (ssize_t)ph.p_filesz) {
				interp[ph.p_filesz - 1] = '\0';
				break;
			}
		}
	}
	close(fd);
	return 0;
}

/* EXE and the shared libraries its dynamic loader maps, as the loader
 * resolves them (INTERP --list EXE, what ldd runs). */
static int add_elf(struct files *f, const char *exe, char *err, size_t errlen)
{
	char interp[PATH_MAX], script[PATH_MAX];
	if (read_interp(exe, interp, sizeof(interp), script, sizeof(script)) != 0) {
		snprintf(err, errlen, "%s: %s", exe, strerror(errno));
		return -1;
	}
	if (add(f, exe, strlen(exe)) != 0)
		goto full;
	if (!interp[0])
		return 0;
	static char out[65536];
	char *argv[] = { interp, "--list", (char *)exe, NULL };
	if (sys_run(argv, out, sizeof(out), 30000) != 0) {
		snprintf(err, errlen, "%s --list %s failed: %.200s", interp, exe, out);
		return -1;
	}
	/* lines "\tlibc.so.6 => /lib/.../libc.so.6 (0x...)" and the loader's
	 * "\t/lib64/ld-linux-x86-64.so.2 (0x...)"; the vDSO has no file */
	for (char *line = out; *line;) {
		size_t ll = strcspn(line, "\n");
		char *arrow = memmem(line, ll, "=> ", 3);
		char *p = arrow ? arrow + 3 : line + strspn(line, " \t");
		if (*p == '/') {
			size_t pl = 0;
			while (p + pl < line + ll && memcmp(p + pl, " (", 2) != 0)
				pl++;
			if (add(f, p, pl) != 0)
				goto full;
		}
		line += ll + (line[ll] == '\n');
	}
	return 0;
full:
	snprintf(err, errlen, "%s: more than %d files to drop", exe, MAX_FILES);
	return -1;
}

int exec_inputs_drop(char *const cmd[], char *list, size_t len, char *err, size_t errlen)
{
	static struct files f;
	f.n = 0;
	list[0] = '\0';
	char exe[PATH_MAX], interp[PATH_MAX], script[PATH_MAX];
	if (resolve(cmd[0], exe, sizeof(exe)) != 0) {
		snprintf(err, errlen, "%s: not found or not executable", cmd[0]);
		return -1;
	}
	if (read_interp(exe, interp, sizeof(interp), script, sizeof(script)) != 0) {
		snprintf(err, errlen, "%s: %s", exe, strerror(errno));
		return -1;
	}
	if (script[0]) {
		/* the script is read too; its interpreter is what runs */
		add(&f, exe, strlen(exe));
		if (add_elf(&f, script, err, errlen) != 0)
			return -1;
	} else if (add_elf(&f, exe, err, errlen) != 0)
		return -1;
	size_t used = 0;
	for (int i = 0; i < f.n; i++) {
		int fd = open(f.path[i], O_RDONLY | O_CLOEXEC);
		int e = fd < 0 ? errno : posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		if (fd >= 0)
			close(fd);
		if (e) {
			snprintf(err, errlen, "%s: cannot drop its page cache: %s", f.path[i], strerror(e));
			return -1;
		}
		int k = snprintf(list + used, len - used, "%s%s", i ? " " : "", f.path[i]);
		if (k > 0 && (size_t)k < len - used)
			used += (size_t)k;
	}
	return 0;
}
