/*
 * exit_codes.h - pmustat's exit statuses (coreutils/time(1) style). The man
 * page's EXIT STATUS section lists the same values; keep them in step.
 */
#ifndef PMUSTAT_EXIT_CODES_H
#define PMUSTAT_EXIT_CODES_H

/* `pmustat info`: this machine cannot count (the verdict says why). */
#define EXIT_PMU_UNUSABLE	1
/*
 * The command exited 0 but a --check or a --baseline comparison failed
 * (the command's own non-zero status wins). Not 1 (`info`'s "cannot
 * count"), not 2 (a usage status in many tools), not 125-127.
 */
#define EXIT_GATE_FAILED	3
/* pmustat itself failed: usage, bad event, no PMU access, MSR error... */
#define EXIT_PMUSTAT_FAILURE	125
/* The command was found but could not be executed. */
#define EXIT_CANNOT_EXEC	126
/* The command was not found. */
#define EXIT_NOT_FOUND		127
/* The command died of signal N: 128 + N. */
#define EXIT_SIGNAL_BASE	128

#endif
