/*
 * tracedir.h — finding and checking the CTF traces under a directory.
 *
 * source.ctf.fs does not recurse, so ingest walks the session directory
 * itself: every directory holding a `metadata` file is one physical trace.
 * Before babeltrace2 sees a trace its packetized metadata is checked for
 * complete packets, because babeltrace2 2.0 spins forever on a truncated
 * one (tracing-notes.md §1.9).
 */
#ifndef TRACEDIR_H
#define TRACEDIR_H

#include <stddef.h>
#include <stdint.h>

struct tracedir_list {
	char **dirs;                   /* sorted */
	size_t nr;
};

/* Every directory under ROOT (ROOT included) that holds a `metadata` file. */
int tracedir_find(const char *root, struct tracedir_list *out, char *err, size_t errlen);
void tracedir_free(struct tracedir_list *l);

/* Checks the framing of DIR/metadata: text metadata is accepted as is;
 * packetized metadata must be whole packets with the CTF magic. */
int tracedir_check_metadata(const char *dir, char *err, size_t errlen);
/* Checks the streams of the trace directory DIR: each a regular file
 * (a FIFO would block the decoder), each index file naming one. */
int tracedir_check_streams(const char *dir, char *err, size_t errlen);
/* The root of the one session under ROOT, into SESSION: the folder that
 * holds an LTTng session's ust/ and kernel/ traces, else the one trace
 * directory.  Several sessions are refused, naming them. */
int tracedir_session(const char *root, char *session, size_t len, char *err, size_t errlen);

/* Lists every regular file under ROOT, as sorted paths relative to ROOT. */
int tracedir_files(const char *root, char ***files, size_t *nr, char *err, size_t errlen);

#endif
