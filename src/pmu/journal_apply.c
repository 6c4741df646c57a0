/*
 * journal_apply.c - the journal's restore (journal.h): what a crashed or
 * killed run left programmed, checked register by register against the
 * journal and against what is there now, and written back through the PMU
 * executor (pmu.c) only where it is still the run's. journal.c writes and
 * reads the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmu/delta.h"
#include "pmu/evtsel.h"
#include "pmu/family.h"
#include "hw/hw.h"
#include "hw/proc.h"
#include "pmu/journal.h"
#include "pmu/msr.h"
#include "pmu/pmu_impl.h"
#include "hw/run_dir.h"
#include "pmu/counter_sched.h"
#include "base/err.h"
#include "base/strbuf.h"

/* Is @v a value a restore may write to @msr of counter set @j? "" if so, else why not. */
static const char *
check_reg(const struct pmu *p, const struct journal *j, uint32_t msr, uint64_t v)
{
	const struct pmu_caps *caps = &p->caps;

	if (!pmu_msr_allowed(p, msr))
		return "not an MSR pmustat writes on this core";
	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		if (msr == msr_evtsel(i)) {
			/* A saved EVTSEL may be another user's (--force): whatever the hardware accepted. */
			uint64_t ok = evtsel_accepted_mask(caps, i);

			if (!(j->own_gp & (1u << i)))
				return "a counter the run did not own";
			return (v & ~ok) ? "reserved bits set" : "";
		}
		if (msr == msr_pmc(i)) {
			if (!(j->own_gp & (1u << i)))
				return "a counter the run did not own";
			return (v & ~delta_width_mask(caps->gp_width)) ? "wider than the counter" : "";
		}
	}
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++) {
		if (msr == msr_fixed_ctr(i)) {
			if (!(j->own_fixed & (1u << i)))
				return "a counter the run did not own";
			return (v & ~delta_width_mask(caps->fixed_width)) ? "wider than the counter" : "";
		}
	}
	if (msr == MSR_IA32_FIXED_CTR_CTRL) {
		for (unsigned i = 0; i < PMU_MAX_FIXED; i++) {
			uint64_t ok = fixed_ctrl_writable_mask(caps, i) | ((uint64_t)FIXED_CTRL_PMI << (4 * i));

			if ((j->own_fixed & (1u << i)) && (v & (0xfull << (4 * i)) & ~ok))
				return "reserved bits set in a field the run owned";
		}
		return "";
	}
	if (msr == MSR_IA32_PERF_METRICS)
		return (j->own_fixed & (1u << PERF_METRICS_FIXED)) ? "" : "IA32_PERF_METRICS without fixed counter 3";
	if (msr == MSR_IA32_PERF_GLOBAL_CTRL || msr == MSR_OFFCORE_RSP_0 || msr == MSR_OFFCORE_RSP_1)
		return "";
	return "not a register a stat run saves";
}

/* The journal's saved value of @msr (0 when absent: regs_complete() made sure it is not). */
uint64_t
journal_saved_of(const struct journal *j, uint32_t msr)
{
	for (unsigned i = 0; i < j->nregs; i++)
		if (j->regs[i].msr == msr)
			return j->regs[i].value;
	return 0;
}

bool
journal_wrote_value(const struct journal *j, uint32_t msr, uint64_t v)
{
	for (unsigned i = 0; i < j->nwrote; i++)
		if (j->wrote[i].msr == msr && j->wrote[i].value == v)
			return true;
	return false;
}

/*
 * Which counters of @j still hold what the run wrote, now that @p has read
 * the core: the EVTSEL (fixed field) is a value the run wrote, or still
 * the one it saved when that was nobody's (a counter the run had not
 * reached yet, or had put back already). Anything else is someone else's
 * programming since the run died.
 */
static void
still_ours(const struct pmu *p, const struct journal *j, struct journal_result *res)
{
	uint64_t fc_saved = journal_saved_of(j, MSR_IA32_FIXED_CTR_CTRL);

	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		uint64_t now = p->evtsel[i].saved;

		if (!(j->own_gp & (1u << i)))
			continue;
		if (journal_wrote_value(j, msr_evtsel(i), now) ||
		    (now == journal_saved_of(j, msr_evtsel(i)) && !(j->taken_gp & (1u << i)))) {
			res->restored_gp |= 1u << i;
		} else {
			res->left_gp |= 1u << i;
			res->left_evtsel[i] = now;
		}
	}
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++) {
		unsigned now = (unsigned)FIXED_CTRL_FIELD(p->fixed_ctrl.saved, i);

		if (!(j->own_fixed & (1u << i)))
			continue;
		if ((j->fields[i] & (1u << now)) ||
		    (now == FIXED_CTRL_FIELD(fc_saved, i) && !(j->taken_fixed & (1u << i))))
			res->restored_fixed |= 1u << i;
		else
			res->left_fixed |= 1u << i;
	}
}

/* The family whose own journal a core with @caps writes (journal.family), NULL for pmu/'s. */
static const struct pmu_family *
own_journal(const struct pmu_caps *caps)
{
	return caps->family && caps->family->journal_from ? caps->family : NULL;
}

int
journal_apply(struct hw *hw, const struct pmu_caps *caps, const struct journal *j,
	      struct journal_result *res, struct pmustat_error **err)
{
	static struct pmu p;	/* ~1 KiB; static keeps the caller's stack small */
	bool offcore = false;
	char name[40];
	uint64_t bits = 0;
	int rc;

	memset(res, 0, sizeof(*res));
	if (j->family != own_journal(caps))
		return err_set(err, -EBADMSG, "core %d: the journal was written for the %s PMU, and this CPU's is %s; not applied",
			       j->core, j->family ? j->family->name : "architectural",
			       caps->family ? caps->family->name : "none pmustat programs");
	if (j->family)
		return j->family->journal_apply(hw, caps, j, res, err);
	if (j->own_gp & ~caps->gp_mask || j->own_fixed & ~caps->fixed_mask)
		return err_set(err, -EBADMSG,
			    "core %d: the journal names counters this PMU does not have (GP 0x%x, fixed 0x%x); not applied",
			    j->core, j->own_gp, j->own_fixed);
	for (unsigned i = 0; i < j->nregs; i++)
		if (j->regs[i].msr == MSR_OFFCORE_RSP_0 || j->regs[i].msr == MSR_OFFCORE_RSP_1)
			offcore = true;
	rc = pmu_open_at(&p, hw, j->core, caps, offcore, NULL, err);
	if (rc)
		return rc;
	/* Everything is checked before anything is written. */
	for (unsigned i = 0; i < j->nregs; i++) {
		const char *why = check_reg(&p, j, j->regs[i].msr, j->regs[i].value);

		if (why[0] || !pmu_reg_of(&p, j->regs[i].msr))
			return err_set(err, -EBADMSG,
				    "core %d: the journal's %s (0x%x) = 0x%llx is refused (%s); nothing was written",
				    j->core, pmu_msr_name(j->regs[i].msr, name, sizeof(name)), j->regs[i].msr,
				    (unsigned long long)j->regs[i].value, why[0] ? why : "unknown register");
	}
	for (unsigned i = 0; i < j->nwrote; i++) {
		const char *why = check_reg(&p, j, j->wrote[i].msr, j->wrote[i].value);

		/* pmustat never sets INT or PC itself. */
		if (!why[0] && j->wrote[i].msr != MSR_OFFCORE_RSP_0 && j->wrote[i].msr != MSR_OFFCORE_RSP_1 &&
		    (j->wrote[i].value & (EVTSEL_PC | EVTSEL_INT)))
			why = "an interrupt or pin-control bit, which pmustat never sets";
		if (why[0])
			return err_set(err, -EBADMSG,
				    "core %d: the journal says the run wrote %s (0x%x) = 0x%llx, which is refused (%s); nothing was written",
				    j->core, pmu_msr_name(j->wrote[i].msr, name, sizeof(name)), j->wrote[i].msr,
				    (unsigned long long)j->wrote[i].value, why);
	}
	still_ours(&p, j, res);
	for (unsigned i = 0; i < PMU_MAX_GP; i++)
		if (res->restored_gp & (1u << i))
			bits |= 1ull << i;
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++)
		if (res->restored_fixed & (1u << i))
			bits |= GLOBAL_FIXED_BIT(i);
	/* PERF_METRICS' enable goes with fixed counter 3, when the run read it. */
	for (unsigned i = 0; i < j->nregs; i++)
		if (j->regs[i].msr == MSR_IA32_PERF_METRICS && (res->restored_fixed & (1u << PERF_METRICS_FIXED)))
			bits |= GLOBAL_PERF_METRICS_BIT;
	for (unsigned i = 0; i < j->nregs; i++) {
		uint32_t msr = j->regs[i].msr;
		struct pmu_reg *r = pmu_reg_of(&p, msr);
		uint64_t v = j->regs[i].value;
		bool put_back = true;

		if (!r)
			continue;	/* checked above */
		/* Shared registers: the bits and fields of the counters put back; the rest stays as it is now. */
		if (r == &p.global_ctrl) {
			v = (r->saved & ~bits) | (v & bits);
		} else if (r == &p.fixed_ctrl) {
			uint64_t now = r->saved;

			for (unsigned f = 0; f < PMU_MAX_FIXED; f++)
				if (res->restored_fixed & (1u << f))
					now = fixed_ctrl_with_field(now, f, (unsigned)FIXED_CTRL_FIELD(v, f));
			v = now;
		} else if (msr == MSR_OFFCORE_RSP_0 || msr == MSR_OFFCORE_RSP_1) {
			/* Shared by every counter: put back only while it holds what the run wrote. */
			put_back = journal_wrote_value(j, msr, r->saved);
		} else {
			for (unsigned c = 0; c < PMU_MAX_GP; c++)
				if (msr == msr_evtsel(c) || msr == msr_pmc(c))
					put_back = res->restored_gp & (1u << c);
			for (unsigned c = 0; c < PMU_MAX_FIXED; c++)
				if (msr == msr_fixed_ctr(c))
					put_back = res->restored_fixed & (1u << c);
			if (msr == MSR_IA32_PERF_METRICS)
				put_back = res->restored_fixed & (1u << PERF_METRICS_FIXED);
		}
		if (!put_back)
			continue;
		r->saved = v;
		r->dirty = true;
		r->mine = UINT64_MAX;	/* merged above from the register as found now */
		/* A killed run's counters may still count: read values are stale, write them all. */
		r->cur_known = false;
	}
	/*
	 * A --force run over a frozen PMU cleared CTR_Frz (only such a run
	 * gets past a frozen PMU, so the journal's status says it): frozen
	 * again, as the run found it, unless something froze it since.
	 */
	p.unfroze = caps->version >= 4 && (j->status & GLOBAL_STATUS_CTR_FRZ) &&
		    !(p.status_saved & GLOBAL_STATUS_CTR_FRZ);
	/* Overflow bits of the counters put back go back to what they were too. */
	p.status_saved = j->status;
	p.armed = 1;
	rc = pmu_restore(&p);
	if (rc < 0)
		return err_set(err, rc, "core %d: restoring the journal's registers failed: %s; %s",
			    j->core, strerror(-rc), hw_msr_hint(rc, true));
	return rc;
}

bool
journal_matches(const char *dir, int core, struct hw *hw)
{
	struct journal j;
	uint64_t own_bits = 0, v;
	if (journal_read(dir, core, &j, NULL) != 0)
		return false;
	for (unsigned i = 0; i < PMU_MAX_GP; i++)
		if (j.own_gp & (1u << i))
			own_bits |= 1ull << i;
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++)
		if (j.own_fixed & (1u << i))
			own_bits |= GLOBAL_FIXED_BIT(i);
	for (unsigned i = 0; i < j.nregs; i++) {
		uint64_t mask = UINT64_MAX;

		if (j.regs[i].msr == MSR_IA32_PERF_GLOBAL_CTRL) {
			mask = own_bits;
		} else if (j.regs[i].msr == MSR_IA32_FIXED_CTR_CTRL) {
			mask = 0;
			for (unsigned f = 0; f < PMU_MAX_FIXED; f++)
				if (j.own_fixed & (1u << f))
					mask |= 0xfull << (4 * f);
		}
		if (hw_rdmsr(hw, core, j.regs[i].msr, &v) != 0 || ((v ^ j.regs[i].value) & mask))
			return false;
	}
	return true;
}

int
journal_recover(const char *dir, int core, struct hw *hw, const struct pmu_caps *caps,
		char **note, struct pmustat_error **err)
{
	struct strbuf b = STRBUF_INIT;
	struct journal j;
	struct journal_result res;
	char path[PATH_MAX];
	enum journal_owner owner;
	int rc, applied;

	*note = NULL;
	journal_path(dir, core, path, sizeof(path));
	rc = journal_read(dir, core, &j, err);
	if (rc == -ENOENT) {
		err_clear(err);
		return 0;
	}
	if (rc == -EBADMSG)
		return err_append(err,
				  "; it was NOT applied. Inspect the core with 'pmustat state -C %d', then clear pmustat-style programming there and remove the journal with 'pmustat reset --zero -C %d' (it asks first; --yes does not)",
				  core, core);
	if (rc)
		return rc;
	owner = journal_owner(&j);
	if (owner == JOURNAL_OWNER_LIVE)
		return err_set(err, -EBUSY,
			       "core %d: pmustat pid %ld is still counting there (journal %s); leave it be, or stop that process first",
			       core, (long)j.pid, path);
	applied = journal_apply(hw, caps, &j, &res, err);
	if (applied < 0)
		return err_append(err, " (journal %s kept)", path);
	rc = journal_remove(dir, core);
	if (rc && rc != -ENOENT)
		return err_set(err, rc, "core %d: restored, but cannot remove the journal %s: %s", core, path,
			       strerror(-rc));
	strbuf_printf(&b, "core %d: pmustat pid %ld %s while counting; restored what it had programmed%s (journal %s, now removed)",
		      core, (long)j.pid,
		      owner == JOURNAL_OWNER_DEAD ? "was killed" : "is gone (its pid now belongs to another process)",
		      applied == 1 ? ", a counter value not exactly (no full-width writes)" : "", path);
	for (unsigned i = 0; i < PMU_MAX_GP; i++)
		if (res.left_gp & (1u << i))
			strbuf_printf(&b, "; left pmc%u alone: someone else programmed it since (IA32_PERFEVTSEL%u = 0x%llx)",
				      i, i, (unsigned long long)res.left_evtsel[i]);
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++)
		if (res.left_fixed & (1u << i))
			strbuf_printf(&b, "; left fixed%u alone: someone else programmed it since", i);
	if (j.family && j.family->journal_left)
		j.family->journal_left(&res, &b);
	*note = strbuf_take(&b);
	return 1;
}
