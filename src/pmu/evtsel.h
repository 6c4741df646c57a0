/*
 * evtsel.h - the values pmustat writes to IA32_PERFEVTSELx and to its own
 * fields of IA32_FIXED_CTR_CTRL, built from a resolved struct event and
 * checked against the reserved bits of the CPU's PMU version.
 *
 * Pure: nothing here touches hardware. PC and INT are never set (pmustat
 * counts, it does not sample); EN is set only when the caller asks.
 */
#ifndef PMUSTAT_EVTSEL_H
#define PMUSTAT_EVTSEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pmustat_error;

struct event;
struct pmu_caps;

/*
 * Bits of IA32_PERFEVTSELx that may be non-zero in a value pmustat writes
 * on a PMU described by @caps: 31:0 less PC and INT (less ANY when
 * AnyThread is deprecated), plus EQ and UMASK2 on v6 and later.
 */
uint64_t
evtsel_writable_mask(const struct pmu_caps *caps);

/*
 * Every bit the hardware accepts in IA32_PERFEVTSEL@index, whoever sets it:
 * pmustat's own bits, INT and PC (perf's), IN_TX with TSX and IN_TXCP on
 * EVTSEL2 with TSX (perf's cycles-t). For values pmustat puts back.
 */
uint64_t
evtsel_accepted_mask(const struct pmu_caps *caps, unsigned index);

/*
 * IA32_PERFEVTSELx for @ev, with EN when @enable. 0 on success; -EINVAL
 * with a message in @err when the event needs a bit this PMU reserves or
 * counts in no ring at all.
 */
int
evtsel_encode(const struct event *ev, const struct pmu_caps *caps, bool enable,
	      uint64_t *val, struct pmustat_error **err);

/*
 * Whether @ev can run on its fixed counter: it has one, the PMU has it, and
 * it uses no modifier a fixed counter cannot apply (umask, cmask, inv, edge).
 */
bool
evtsel_fixed_ok(const struct event *ev, const struct pmu_caps *caps);

/*
 * The 4-bit IA32_FIXED_CTR_CTRL field for @ev (OS, USR, ANY; never PMI).
 * 0 or -EINVAL with a message, as evtsel_encode().
 */
int
evtsel_fixed_field(const struct event *ev, const struct pmu_caps *caps,
		   unsigned *field, struct pmustat_error **err);

/* @ctrl with field @i replaced by @field; other fields untouched. */
uint64_t
fixed_ctrl_with_field(uint64_t ctrl, unsigned i, unsigned field);

/*
 * Bits of IA32_FIXED_CTR_CTRL a field of fixed counter @i may have in a
 * value pmustat writes (OS, USR, and ANY unless deprecated), in place.
 */
uint64_t
fixed_ctrl_writable_mask(const struct pmu_caps *caps, unsigned i);

#endif
