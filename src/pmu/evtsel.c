/*
 * evtsel.c - encode IA32_PERFEVTSELx and IA32_FIXED_CTR_CTRL fields.
 *
 * The reserved-bit rules are the SDM's (vol. 3B, "Architectural
 * Performance Monitoring"): bits 63:32 of PERFEVTSELx are reserved except
 * EQ (36) and UMASK2 (47:40) on version 6; AnyThread is reserved once
 * CPUID.0AH:EDX[15] deprecates it. Bits 35:32 carry model-specific TSX
 * filters on some cores, and bit 35 Arch LBR's branch-counter logging;
 * pmustat never sets them, and accepts them in another user's saved value.
 */
#include <errno.h>
#include <stdio.h>

#include "events/cpu.h"
#include "events/event.h"
#include "pmu/evtsel.h"
#include "pmu/msr.h"
#include "base/err.h"

static bool
anythread_reserved(const struct pmu_caps *caps)
{
	/* AnyThread came with v3 (SDM vol. 3B); v5 and CPUID.0AH:EDX[15] deprecate it. */
	return caps->version < 3 || caps->anythread_deprecated || caps->version >= 5;
}

uint64_t
evtsel_writable_mask(const struct pmu_caps *caps)
{
	uint64_t mask = 0xffffffffull & ~(EVTSEL_PC | EVTSEL_INT);

	if (anythread_reserved(caps))
		mask &= ~EVTSEL_ANY;
	if (caps->version >= 6)
		mask |= EVTSEL_EQ | EVTSEL_UMASK2(0xff);
	return mask;
}

uint64_t
evtsel_accepted_mask(const struct pmu_caps *caps, unsigned index)
{
	uint64_t mask = evtsel_writable_mask(caps) | EVTSEL_PC | EVTSEL_INT;

	/* SDM vol. 3B, "Performance Monitoring and Intel TSX". */
	if (caps->tsx)
		mask |= EVTSEL_IN_TX | (index == 2 ? EVTSEL_IN_TXCP : 0);
	/* Linux sets it on its branch-counter events (perf record -j counter). */
	if (index < 32 && ((caps->lbr_log_counters >> index) & 1))
		mask |= EVTSEL_BR_CNTR;
	return mask;
}

static int
check_rings(const struct event *ev, struct pmustat_error **err)
{
	if (!ev->usr && !ev->os) {
		return err_set(err, -EINVAL, "event %s counts in no ring (neither :u nor :k)",
			 ev->requested[0] ? ev->requested : ev->name);
	}
	return 0;
}

static int
check_any(const struct event *ev, const struct pmu_caps *caps, struct pmustat_error **err)
{
	if (ev->any_thread && anythread_reserved(caps)) {
		return err_set(err, -EINVAL, "event %s asks for AnyThread, which this PMU (version %u) deprecates: drop the any modifier",
			 ev->requested[0] ? ev->requested : ev->name, caps->version);
	}
	return 0;
}

int
evtsel_encode(const struct event *ev, const struct pmu_caps *caps, bool enable,
	      uint64_t *val, struct pmustat_error **err)
{
	uint64_t v;
	int rc;

	rc = check_rings(ev, err);
	if (rc)
		return rc;
	rc = check_any(ev, caps, err);
	if (rc)
		return rc;
	if (ev->umask_ext && caps->version < 6) {
		return err_set(err, -EINVAL, "event %s needs UMASK2 (0x%02x), which needs PMU version 6; this one is version %u",
			 ev->requested[0] ? ev->requested : ev->name, ev->umask_ext, caps->version);
	}

	v = EVTSEL_EVENT(ev->code) | EVTSEL_UMASK(ev->umask) | EVTSEL_CMASK(ev->cmask);
	if (ev->usr)
		v |= EVTSEL_USR;
	if (ev->os)
		v |= EVTSEL_OS;
	if (ev->edge)
		v |= EVTSEL_EDGE;
	if (ev->inv)
		v |= EVTSEL_INV;
	if (ev->any_thread)
		v |= EVTSEL_ANY;
	if (ev->umask_ext)
		v |= EVTSEL_UMASK2(ev->umask_ext);
	if (enable)
		v |= EVTSEL_EN;

	/* A last guard: whatever the fields above, never a reserved bit. */
	if (v & ~evtsel_writable_mask(caps)) {
		return err_set(err, -EINVAL, "event %s encodes to 0x%llx, which sets reserved bits 0x%llx",
			 ev->requested[0] ? ev->requested : ev->name, (unsigned long long)v,
			 (unsigned long long)(v & ~evtsel_writable_mask(caps)));
	}
	*val = v;
	return 0;
}

bool
evtsel_fixed_ok(const struct event *ev, const struct pmu_caps *caps)
{
	if (ev->fixed < 0 || ev->fixed >= PMU_MAX_FIXED)
		return false;
	if (!(caps->fixed_mask & (1u << ev->fixed)))
		return false;
	/* A fixed counter has only ring and AnyThread controls. */
	if (ev->cmask || ev->inv || ev->edge || ev->umask_ext)
		return false;
	return true;
}

int
evtsel_fixed_field(const struct event *ev, const struct pmu_caps *caps,
		   unsigned *field, struct pmustat_error **err)
{
	unsigned f = 0;
	int rc;

	if (!evtsel_fixed_ok(ev, caps)) {
		return err_set(err, -EINVAL, "event %s cannot run on a fixed counter of this PMU",
			 ev->requested[0] ? ev->requested : ev->name);
	}
	rc = check_rings(ev, err);
	if (rc)
		return rc;
	rc = check_any(ev, caps, err);
	if (rc)
		return rc;
	if (ev->os)
		f |= FIXED_CTRL_OS;
	if (ev->usr)
		f |= FIXED_CTRL_USR;
	if (ev->any_thread)
		f |= FIXED_CTRL_ANY;
	*field = f;
	return 0;
}

uint64_t
fixed_ctrl_with_field(uint64_t ctrl, unsigned i, unsigned field)
{
	ctrl &= ~(0xfull << (4 * i));
	return ctrl | ((uint64_t)(field & 0xfu) << (4 * i));
}

uint64_t
fixed_ctrl_writable_mask(const struct pmu_caps *caps, unsigned i)
{
	uint64_t f = FIXED_CTRL_OS | FIXED_CTRL_USR;

	if (!anythread_reserved(caps))
		f |= FIXED_CTRL_ANY;
	return f << (4 * i);
}
