/*
 * comment.h - what the human table says after a count, as perf does:
 * ratios of two events from the same run (insn per cycle, branch-miss and
 * cache-miss rates; report/ratios.h), cycles over task-clock in GHz,
 * task-clock over the elapsed time in CPUs utilized, and the software
 * events per second of task-clock. Never the resolved name (-v adds it
 * when nothing else is said; JSON always has it).
 */
#ifndef PMUSTAT_COMMENT_H
#define PMUSTAT_COMMENT_H

#include <stddef.h>

struct stat_report;
struct stat_row;

/* The comment of @row into @buf ("#    2.00  insn per cycle"), or "". */
void
comment_of(const struct stat_report *rep, const struct stat_row *row, char *buf, size_t size);

/*
 * The same from the counts on the @c-th core of the report (-A: each
 * CPU's line, from that CPU's counts of the row and its partner); @c -1
 * is comment_of(). "" where either has no count per core.
 */
void
comment_at(const struct stat_report *rep, const struct stat_row *row, int c, char *buf, size_t size);

#endif
