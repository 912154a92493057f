/*
 * vmr_write.h — writes a .vmr section by section (see FORMAT.md).
 *
 * Sections are appended in kind order; checksums are computed while the
 * bytes go out, and the header is written last.  The file appears under
 * its final name only when vmr_writer_finish succeeds.
 */
#ifndef VMR_WRITE_H
#define VMR_WRITE_H

#include "vmr.h"

struct vmr_writer;

struct vmr_writer *vmr_writer_create(const char *path, char *err, size_t errlen);
/* Starts the section KIND; sections must come in increasing kind order. */
void vmr_writer_begin(struct vmr_writer *w, enum vmr_section_kind kind);
void vmr_writer_append(struct vmr_writer *w, const void *data, size_t size);
void vmr_writer_end(struct vmr_writer *w);
/* Fills in the counts of HDR (magic, version, sizes and sections are the
 * writer's), writes checksums and header, renames into place. */
int vmr_writer_finish(struct vmr_writer *w, const struct vmr_header *counts,
		      char *err, size_t errlen);
void vmr_writer_abort(struct vmr_writer *w);

#endif
