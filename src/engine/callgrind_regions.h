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

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "events/sim_events.h"
#include "region/region_host.h"

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
