/* vmstat.c — the names of the vm event counters, as /proc/vmstat shows
 * them (mm/vmstat.c's vmstat_text). */
#include "mm.h"

#define VMSTAT_NAME(name) #name,
const char *const vmstat_text[NR_VM_ITEMS] = { VMSTAT_ITEMS(VMSTAT_NAME) };
