/*
 * std_streams.h - the standard descriptors pmustat starts with and the
 * standard output it ends with.
 *
 * Started with descriptor 0, 1 or 2 closed (cmd >&-), pmustat's first
 * open() would take that number: the lock file or /dev/cpu/N/msr would
 * become its "standard output", and the text printed there a write to
 * the MSR device. And a result printed to a standard output that cannot
 * take it (a full disk, a closed pipe) is a result lost: pmustat's
 * failure, not success.
 */
#ifndef PMUSTAT_STD_STREAMS_H
#define PMUSTAT_STD_STREAMS_H

struct pmustat_error;

/*
 * Put a placeholder on each closed standard descriptor that fails every
 * use as the closed one did (EBADF): /dev/full open for writing only on 0,
 * /dev/null open for reading only on 1 and 2, as the C library does for a
 * set-user-ID program. The command inherits them and sees what it would
 * have seen. 0, or -errno when a placeholder cannot be opened.
 */
int
std_streams_open(struct pmustat_error **err);

/*
 * Flush the standard output: @status as it is when that works or @status
 * is already a failure of pmustat's; otherwise the failure said on stderr
 * after @prog and EXIT_PMUSTAT_FAILURE. A write to the standard error
 * that failed (the human reports are there) is EXIT_PMUSTAT_FAILURE too,
 * with nowhere left to say so.
 */
int
std_streams_finish(const char *prog, int status);

#endif
