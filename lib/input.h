/*
 * input.h — opening a file the user named as an input.
 *
 * Only a regular file is read: a FIFO with no writer would block for
 * ever, /dev/zero never ends, a directory is not text.  Its size is held
 * to a budget (VMREPLAY_INPUT_MAX, a size; default 4G), so that what a
 * reader keeps in memory is bounded by a size the user can see and set.
 */
#ifndef INPUT_H
#define INPUT_H

#include <stdint.h>
#include <stdio.h>

/* The budget: VMREPLAY_INPUT_MAX, else 4 GiB. */
uint64_t input_budget(void);
/* Opens PATH for reading if it is a regular file within the budget;
 * NULL with a one-line reason naming PATH in err. */
FILE *input_open(const char *path, char *err, size_t errlen);

#endif
