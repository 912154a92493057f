/*
 * capture_testbed.h — `vmreplay capture --kernel K`: the capture made
 * inside the test bed's User-Mode Linux guest (capture/testbed/).
 */
#ifndef CAPTURE_TESTBED_H
#define CAPTURE_TESTBED_H

/* Where the guest sees the job folder (capture/testbed/guest-init.sh),
 * and where the capture inside writes its trace. */
#define TESTBED_GUEST_JOB   "/run/vmreplay-job"
#define TESTBED_GUEST_TRACE TESTBED_GUEST_JOB "/trace"

struct testbed_run {
	const char *kernel;         /* run.sh --kernel                       */
	const char *mem;            /* --mem, e.g. "1024M"                   */
	const char *lru_gen;        /* --lru-gen, or NULL: as built          */
	const char *swap;           /* --swap: "none", "ubd:SIZE", "delay:SIZE:MS" */
	const char *outabs;         /* the output directory, created empty   */
	char **inner;               /* the guest's command: vmreplay capture
				     * -o TESTBED_GUEST_TRACE ..., NULL-ended */
	int quiet;
};

/* Runs the capture in the guest and moves its trace to t->outabs (with
 * the guest's kernel log as guest-console.log).  Returns the inner
 * capture's exit status (the workload's), 1 if the guest could not run
 * it, 128+N if signal N stopped it. */
int testbed_capture(const struct testbed_run *t);

#endif
