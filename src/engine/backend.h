/*
 * backend.h - --backend msr|perf|sim|auto: which mechanism counts the
 * hardware events of a run. Software events always go through
 * perf_event, beside msr or perf. sim is no hardware at all: Valgrind's
 * simulation counts (backend_sim.c); auto never picks it, so that
 * simulated and real counts are never mixed by accident.
 */
#ifndef PMUSTAT_BACKEND_H
#define PMUSTAT_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

struct cpu_info;
struct hw;

enum backend {
	BACKEND_AUTO = 0,
	BACKEND_MSR,
	BACKEND_PERF,
	BACKEND_SIM,
};

/* "msr", "perf", "sim" or "auto" into *@out: 0, or -EINVAL. */
int
backend_parse(const char *s, enum backend *out);

/* "msr", "perf", "sim", "auto". */
const char *
backend_name(enum backend b);

/*
 * Whether the MSR path is closed on @core, without writing anything: the
 * CPU verdict, /dev/cpu/N/msr for reading and writing, kernel lockdown and
 * msr.allow_writes (the MSR writes they refuse). When closed, the cause
 * and fix (access_blocker()'s words) go to @why and it returns true.
 */
bool
backend_msr_blocked(struct hw *hw, const struct cpu_info *cpu, int core, char *why, size_t size);

/*
 * The backend for a run of @hw_events hardware events on @core. An
 * explicit msr, perf or sim is kept. auto: perf when there is no hardware event
 * (software events only need no PMU access) or when the MSR path is
 * blocked (its reason in @why), else msr. @why is "" unless auto fell
 * back to perf because of a blocker.
 */
enum backend
backend_choose(enum backend asked, unsigned hw_events, struct hw *hw, const struct cpu_info *cpu,
	       int core, char *why, size_t size);

#endif
