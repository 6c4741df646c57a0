/*
 * callgrind_regions.h - --regions --backend sim: the code regions of one
 * process, rebuilt from its Callgrind output file. libpmustat-region marks
 * every begin and end with a dump of the calling thread's costs since its
 * last dump (region_abi.h: PMUSTAT_REGION_SIM_MARK); with
 * --separate-threads=yes --combine-dumps=yes each dump is one "part" of
 * the file, of one thread ("thread: N"), its trigger the mark
 * ("desc: Trigger: Client Request: pmustat-region b NAME") and its
 * "summary:" the costs. A part's costs ran while the regions open in its
 * thread before its mark were open: they go to each of them once
 * (recursion: the outermost pair), and into its sums when its outermost
 * pair ends, as the library does with counters. The last part of each
 * thread (the program's end) goes to what is still open, which no sum
 * takes. Pure: text in, a struct region_result out, every field checked.
 */
#ifndef PMUSTAT_CALLGRIND_REGIONS_H
#define PMUSTAT_CALLGRIND_REGIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "events/sim_events.h"
#include "region/region_host.h"

struct reader;

/* Reading one file line by line (a file of many dumps is large: it is never held whole). */
struct callgrind_reader {
	struct reader *rd;
	uint64_t *totals;
	char *why;
	size_t why_size;
	char events[256];		/* the file's "events:" line */
	/* The part being read. */
	bool in_part;
	unsigned thread;
	char mark[PMUSTAT_REGION_NAME_SIZE + 32];
	size_t mark_len;
	char summary[512];
};

/*
 * The same as callgrind_regions_add(), a line at a time: begin, each line
 * without its newline, end (always, once begun: it frees). Each returns 0,
 * -ENOMEM, or -EPROTO with why in @why.
 */
int
callgrind_regions_begin(struct callgrind_reader *cr, struct region_result *r, const uint32_t *fields, pid_t pid,
			uint64_t totals[SIM_NFIELDS], char *why, size_t why_size);
int
callgrind_regions_line(struct callgrind_reader *cr, const char *line, size_t len);
int
callgrind_regions_end(struct callgrind_reader *cr);

/*
 * Add the regions of process @pid's Callgrind file (@len bytes of @text)
 * to @r, whose nevents events each sum the columns @fields[k] (SIM_BIT()s);
 * every part's costs also into @totals (the whole process, one per enum
 * sim_field). @r starts zeroed (nevents set); region_result_totals() once
 * every file is in. 0, -ENOMEM, or -EPROTO with why in @why.
 */
int
callgrind_regions_add(struct region_result *r, const uint32_t *fields, pid_t pid, const char *text, size_t len,
		      uint64_t totals[SIM_NFIELDS], char *why, size_t why_size);

#endif
