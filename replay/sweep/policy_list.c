/* policy_list.c — what `vmreplay run --list-policies` says (policy_list.h). */
#include "policy_list.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int yes_no(const char *s, int *out)
{
	if (strcmp(s, "yes") == 0)
		*out = 1;
	else if (strcmp(s, "no") == 0)
		*out = 0;
	else
		return -1;
	return 0;
}

int policy_list_parse(const char *text, struct policy_list *l, char *err, size_t errlen)
{
	memset(l, 0, sizeof(*l));
	char *copy = strdup(text);
	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int lineno = 0, rc = 0;
	for (char *line = copy, *next; line && *line && rc == 0; line = next) {
		lineno++;
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		char *f[4] = { 0 };
		int nf = 0;
		for (char *s = line, *tab; nf < 4 && s; s = tab) {
			tab = strchr(s, '\t');
			if (tab)
				*tab++ = 0;
			f[nf++] = s;
		}
		struct policy_desc d = { 0 };
		if (nf != 3 || !*f[0] || strlen(f[0]) >= sizeof(d.name) ||
		    yes_no(f[1], &d.takes_swappiness) || yes_no(f[2], &d.stochastic)) {
			snprintf(err, errlen, "--list-policies line %d: expected "
				 "NAME<TAB>yes|no<TAB>yes|no", lineno);
			rc = -1;
			break;
		}
		strcpy(d.name, f[0]);
		if (policy_list_find(l, d.name)) {
			snprintf(err, errlen, "--list-policies line %d: %s listed twice", lineno, d.name);
			rc = -1;
			break;
		}
		struct policy_desc *grown = realloc(l->p, (l->n + 1) * sizeof(*grown));
		if (!grown) {
			snprintf(err, errlen, "out of memory");
			rc = -1;
			break;
		}
		l->p = grown;
		l->p[l->n++] = d;
	}
	free(copy);
	if (rc == 0 && l->n == 0) {
		snprintf(err, errlen, "--list-policies printed no policy");
		rc = -1;
	}
	if (rc)
		policy_list_free(l);
	return rc;
}

int policy_list_load(const char *exe, struct policy_list *l, char *err, size_t errlen)
{
	int fd[2];
	if (pipe(fd) != 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		execl(exe, exe, "run", "--list-policies", (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	char buf[16384];
	size_t len = 0;
	ssize_t n;
	while ((n = read(fd[0], buf + len, sizeof(buf) - 1 - len)) > 0 || (n < 0 && errno == EINTR))
		if (n > 0)
			len += n;
	close(fd[0]);
	buf[len] = 0;
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(err, errlen, "%s run --list-policies failed (%s %d)", exe,
			 WIFEXITED(status) ? "exit" : "signal",
			 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		return -1;
	}
	return policy_list_parse(buf, l, err, errlen);
}

const struct policy_desc *policy_list_find(const struct policy_list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->p[i].name, name) == 0)
			return &l->p[i];
	return NULL;
}

void policy_list_free(struct policy_list *l)
{
	free(l->p);
	memset(l, 0, sizeof(*l));
}
