/*
 * pmus/netburst/ - pmustat's second PMU: NetBurst (Pentium 4, Pentium D and the
 * family-15 Xeons), SDM vol. 3B, "Performance Monitoring (Processors Based
 * on Intel NetBurst Microarchitecture)". 18 counters, 40 bits wide, in 9
 * pairs; 18 CCCRs (one per counter: enable, ESCR select, filters); 45 ESCRs
 * (43 from model 3 on) that select the events.
 *
 * What lives here, one concept per file, all of it pure (values in, values
 * out; no I/O, no hardware) except nb_probe(), which reads one MSR:
 *
 *   nb_regs    the register map: counter, CCCR and ESCR addresses, which
 *              counters each ESCR feeds, the CCCR ESCR-select values,
 *              the field layouts, reserved bits, and the allow-list
 *   nb_table   events/netburst.json loaded and looked up by name
 *   nb_spec    -e terms (instr_retired:NBOGUSNTAG:threshold=3:edge:u)
 *              resolved against a table into struct nb_event values
 *   nb_sched   events placed on ESCRs and counters, split into runs
 *   nb_encode  ESCR and CCCR values, and the MSR writes of a run
 *   nb_detect  IA32_MISC_ENABLE decoded; nb_probe() reads it (read only)
 *   nb_list    `pmustat list` of a NetBurst table, text and JSON
 *
 * What they may call: libc, jansson (nb_table, nb_list), src/cpu.h and
 * src/event.h for shared limits, and, in nb_probe() only, the hardware
 * seam src/hw.h for one read. Nothing here writes an MSR: the pmu layer
 * does that, with the writes nb_encode computes and only after
 * nb_msr_allowed() agrees.
 */
#ifndef PMUSTAT_NETBURST_H
#define PMUSTAT_NETBURST_H

#include "pmus/netburst/nb_detect.h"
#include "pmus/netburst/nb_encode.h"
#include "pmus/netburst/nb_regs.h"
#include "pmus/netburst/nb_sched.h"
#include "pmus/netburst/nb_spec.h"
#include "pmus/netburst/nb_table.h"

#endif
