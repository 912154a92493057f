/*
 * exec_inputs.h — the files a command's exec reads (its executable, a
 * script's interpreter, the shared libraries the dynamic loader maps),
 * taken out of the page cache with their shadow entries before a capture.
 */
#ifndef VMREPLAY_EXEC_INPUTS_H
#define VMREPLAY_EXEC_INPUTS_H

#include <stddef.h>

/* Drops the page cache, and the shadow entries earlier reclaim left in
 * it, of the files CMD's exec reads (posix_fadvise POSIX_FADV_DONTNEED:
 * the kernel's mapping_try_invalidate evicts the clean unmapped folios
 * and clear_shadow_entries the shadows of the range).  Writes the files'
 * paths, space-separated, to LIST (NUL-terminated, truncated to LEN).
 * Returns 0, or -1 with a one-line reason in ERR. */
int exec_inputs_drop(char *const cmd[], char *list, size_t len, char *err, size_t errlen);

#endif
