/*
 * pte_young_agent.h - the accessed-bit sampler as the agent drives it
 * (capture/pte_young.c).
 */
#ifndef VMREPLAY_PTE_YOUNG_AGENT_H
#define VMREPLAY_PTE_YOUNG_AGENT_H

/* Loads and attaches the sampler for the process tree of ROOT_PID,
 * polled every PERIOD_MS (0: off); 0 on, -1 off (the summary says why). */
int pte_young_start(int root_pid, unsigned period_ms);
/* One poll: walks the regions, emits the transitions it saw. */
void pte_young_poll(void);
/* The period the sampler runs at, 0 when off. */
unsigned pte_young_period_ms(void);
/* A last poll, the summary event, and unload. */
void pte_young_stop(void);

#endif
