/*
 * emu_zen.c - the emulated AMD Zen core PMU: the rules emu_zen.h states,
 * each from the APM vol. 2's "Performance Monitoring Counters".
 */
#include "emu_zen.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "emu_internal.h"

#define CTL0		0xc0010200u
#define CTR0		0xc0010201u
#define LEGACY_CTL0	0xc0010000u
#define LEGACY_CTR0	0xc0010004u
#define LEGACY_N	4u
#define GLOBAL_STATUS	0xc0000300u
#define GLOBAL_CTL	0xc0000301u
#define GLOBAL_STATUS_CLR 0xc0000302u
#define WIDTH		48u

#define CTL_USR		(1ull << 16)
#define CTL_OS		(1ull << 17)
#define CTL_INT		(1ull << 20)
#define CTL_EN		(1ull << 22)
#define CTL_INV		(1ull << 23)
#define CTL_GUEST_ONLY	(1ull << 40)
#define CTL_HOST_ONLY	(1ull << 41)
/* Reserved: 63:42, 39:36, 21, 19. */
#define CTL_RESERVED	(~((1ull << 42) - 1) | (0xfull << 36) | (1ull << 21) | (1ull << 19))

/* Linux's watchdog period on a 48-bit counter: a large one, as Intel's model has. */
#define WATCHDOG_PERIOD	30000000000ull

static const struct emu_core_type *
zen_type(const struct emu_pmu *pmu, unsigned cpu)
{
	const struct emu_core_type *t = emu_cpu_type(pmu, cpu);

	return t && t->zen ? t : NULL;
}

static uint64_t
counters_mask(const struct emu_core_type *t)
{
	return emu_low_bits(t->gp);
}

/* @msr as counter @i's CTL (*ctl true) or CTR: the extended addresses, or the legacy aliases of 0-3. */
static bool
counter_reg(const struct emu_core_type *t, uint32_t msr, unsigned *i, bool *ctl)
{
	if (t->zen_ext && msr >= CTL0 && msr < CTL0 + 2 * t->gp) {
		*i = (msr - CTL0) / 2;
		*ctl = (msr - CTL0) % 2 == 0;
		return true;
	}
	if (msr >= LEGACY_CTL0 && msr < LEGACY_CTL0 + LEGACY_N && msr - LEGACY_CTL0 < t->gp) {
		*i = msr - LEGACY_CTL0;
		*ctl = true;
		return true;
	}
	if (msr >= LEGACY_CTR0 && msr < LEGACY_CTR0 + LEGACY_N && msr - LEGACY_CTR0 < t->gp) {
		*i = msr - LEGACY_CTR0;
		*ctl = false;
		return true;
	}
	return false;
}

int
emu_zen_rdmsr(const struct emu_pmu *pmu, unsigned cpu, uint32_t msr, uint64_t *val)
{
	const struct emu_core_type *t = zen_type(pmu, cpu);
	const struct emu_regs *r;
	unsigned i;
	bool ctl;

	if (!t)
		return -EIO;
	r = &pmu->cpu[cpu].regs;
	if (counter_reg(t, msr, &i, &ctl)) {
		*val = ctl ? r->evtsel[i] : r->pmc[i];
		return 0;
	}
	if (!t->zen_v2)
		return -EIO;
	switch (msr) {
	case GLOBAL_STATUS:
		*val = r->global_status;
		return 0;
	case GLOBAL_CTL:
		*val = r->global_ctrl;
		return 0;
	case GLOBAL_STATUS_CLR:
		*val = 0;
		return 0;
	default:
		return -EIO;
	}
}

int
emu_zen_wrmsr(struct emu_pmu *pmu, unsigned cpu, uint32_t msr, uint64_t val)
{
	const struct emu_core_type *t = zen_type(pmu, cpu);
	struct emu_regs *r;
	unsigned i;
	bool ctl;

	if (!t)
		return -EIO;
	r = &pmu->cpu[cpu].regs;
	if (counter_reg(t, msr, &i, &ctl)) {
		if (ctl ? (val & CTL_RESERVED) != 0 : (val & ~emu_low_bits(WIDTH)) != 0)
			return -EIO;
		if (ctl)
			r->evtsel[i] = val;
		else
			r->pmc[i] = val;
		return 0;
	}
	if (!t->zen_v2)
		return -EIO;
	switch (msr) {
	case GLOBAL_CTL:
		if (val & ~counters_mask(t))
			return -EIO;
		r->global_ctrl = val;
		return 0;
	case GLOBAL_STATUS_CLR:
		if (val & ~counters_mask(t))
			return -EIO;
		r->global_status &= ~val;
		return 0;
	default:
		/* GlobalStatus is read only. */
		return -EIO;
	}
}

int
emu_zen_rdpmc(const struct emu_pmu *pmu, unsigned cpu, uint32_t ecx, uint64_t *val)
{
	const struct emu_core_type *t = zen_type(pmu, cpu);

	if (!t || ecx >= t->gp)
		return -EIO;
	*val = pmu->cpu[cpu].regs.pmc[ecx];
	return 0;
}

static unsigned
ctl_event(uint64_t ctl)
{
	return (unsigned)((ctl & 0xff) | ((ctl >> 24) & 0xf00));
}

/* Whether counter @i counts this burst; its increment. */
static bool
counts(const struct emu_core_type *t, const struct emu_regs *r, unsigned i, unsigned event, uint8_t umask,
       unsigned ring, uint64_t n, uint64_t *inc)
{
	uint64_t ctl = r->evtsel[i];
	unsigned cmask = (ctl >> 24) & 0xff;

	/* A counter counts only when its GlobalCtl bit AND its En are set. */
	if (!(ctl & CTL_EN) || (t->zen_v2 && !(r->global_ctrl & (1ull << i))))
		return false;
	if (!(ctl & (ring == 0 ? CTL_OS : CTL_USR)))
		return false;
	if ((ctl & (CTL_GUEST_ONLY | CTL_HOST_ONLY)) == CTL_GUEST_ONLY)
		return false;
	if (ctl_event(ctl) != event || ((ctl >> 8) & 0xff) != umask)
		return false;
	*inc = n;
	if (cmask) {
		bool cond = n >= cmask;

		if (ctl & CTL_INV)
			cond = !cond;
		*inc = cond ? 1 : 0;
	}
	return *inc != 0;
}

int
emu_zen_retire(struct emu_pmu *pmu, unsigned cpu, unsigned event, uint8_t umask, unsigned ring, uint64_t n)
{
	const struct emu_core_type *t = emu_cpu_type(pmu, cpu);
	struct emu_regs *r;

	if (!t)
		return -ENXIO;
	if (!t->zen || event > 0xfff)
		return -EINVAL;
	pmu->cpu[cpu].stats.retired++;
	r = &pmu->cpu[cpu].regs;
	for (unsigned i = 0; i < t->gp && n; i++) {
		uint64_t mask = emu_low_bits(WIDTH), inc, before;

		if (!counts(t, r, i, event, umask, ring, n, &inc))
			continue;
		before = r->pmc[i] & mask;
		r->pmc[i] = (before + inc) & mask;
		if (inc > mask - before && t->zen_v2)
			r->global_status |= 1ull << i;
	}
	return 0;
}

unsigned
emu_zen_event_of(uint8_t code, uint8_t umask, uint8_t *amd_umask)
{
	*amd_umask = umask;
	switch (code) {
	case 0x3c:
		*amd_umask = 0;
		return 0x76;
	case 0xc4:
		*amd_umask = 0;
		return 0xc2;
	case 0xc5:
		*amd_umask = 0;
		return 0xc3;
	default:
		return code;
	}
}

size_t
emu_zen_msr_list(const struct emu_pmu *pmu, unsigned cpu, uint32_t *msrs, size_t max)
{
	const struct emu_core_type *t = zen_type(pmu, cpu);
	size_t n = 0;

	if (!t)
		return 0;
	if (t->zen_v2)
		for (uint32_t m = GLOBAL_STATUS; m <= GLOBAL_STATUS_CLR && n < max; m++)
			msrs[n++] = m;
	for (unsigned i = 0; i < LEGACY_N && i < t->gp && !t->zen_ext && n < max; i++)
		msrs[n++] = LEGACY_CTL0 + i;
	for (unsigned i = 0; i < LEGACY_N && i < t->gp && !t->zen_ext && n < max; i++)
		msrs[n++] = LEGACY_CTR0 + i;
	for (unsigned i = 0; t->zen_ext && i < 2 * t->gp && n < max; i++)
		msrs[n++] = CTL0 + i;
	return n;
}

const char *
emu_zen_msr_name(uint32_t msr, char *buf, size_t size)
{
	if (msr >= CTL0 && msr < CTL0 + 32)
		snprintf(buf, size, "%s%u", (msr - CTL0) % 2 ? "PERF_CTR" : "PERF_CTL", (msr - CTL0) / 2);
	else if (msr >= LEGACY_CTL0 && msr < LEGACY_CTL0 + LEGACY_N)
		snprintf(buf, size, "PERF_LEGACY_CTL%u", msr - LEGACY_CTL0);
	else if (msr >= LEGACY_CTR0 && msr < LEGACY_CTR0 + LEGACY_N)
		snprintf(buf, size, "PERF_LEGACY_CTR%u", msr - LEGACY_CTR0);
	else if (msr == GLOBAL_STATUS)
		snprintf(buf, size, "PerfCntrGlobalStatus");
	else if (msr == GLOBAL_CTL)
		snprintf(buf, size, "PerfCntrGlobalCtl");
	else if (msr == GLOBAL_STATUS_CLR)
		snprintf(buf, size, "PerfCntrGlobalStatusClr");
	else
		snprintf(buf, size, "MSR_0x%x", msr);
	return buf;
}

int
emu_zen_setup_type(struct emu_core_type *t, unsigned zen, const struct emu_config *cfg)
{
	/* The dump's CPUID 0x8000_0022 (Ryzen 9 7950X). */
	static const uint32_t v2_leaf[4] = { 0x00000003, 0x00084106, 0x00000003, 0x00000000 };
	uint32_t sig;

	if (cfg->fixed > 0 || cfg->gp > 6)
		return -EINVAL;
	switch (zen) {
	case 2:
		sig = 0x00830f10;	/* family 17h, model 31h */
		break;
	case 4:
		sig = 0x00a60f12;	/* the dump's: family 19h, model 61h */
		break;
	case 5:
		sig = 0x00b40f40;	/* family 1Ah, model 44h */
		break;
	default:
		return -EINVAL;
	}
	t->cpuid.basic_cpuid[1][0] = sig;
	t->cpuid.ext_cpuid[1][0] = sig;
	t->zen = true;
	t->zen_ext = (t->cpuid.ext_cpuid[1][2] >> 23) & 1;
	t->zen_v2 = zen != 2;
	if (t->zen_v2) {
		memcpy(t->ext22, v2_leaf, sizeof(v2_leaf));
	} else {
		memset(t->ext22, 0, sizeof(t->ext22));
		t->cpuid.ext_cpuid[0][0] = 0x80000020u;
	}
	t->version = 0;
	t->gp = cfg->gp >= 0 ? (unsigned)cfg->gp : 6;
	if (t->zen_v2)
		t->ext22[1] = (t->ext22[1] & ~0xfu) | t->gp;
	t->gp_mask = (uint32_t)emu_low_bits(t->gp);
	t->gp_width = WIDTH;
	t->fixed = 0;
	t->fixed_mask = 0;
	return 0;
}

void
emu_zen_power_up(struct emu_pmu *pmu, unsigned cpu)
{
	const struct emu_core_type *t = zen_type(pmu, cpu);
	struct emu_regs *r = &pmu->cpu[cpu].regs;

	memset(r, 0, sizeof(*r));
	if (!t)
		return;
	/* Linux's perf leaves every counter's GlobalCtl bit set (amd_pmu_v2_enable_all()). */
	if (t->zen_v2)
		r->global_ctrl = counters_mask(t);
	if (pmu->config.watchdog && t->gp > 0) {
		r->evtsel[0] = 0x76 | CTL_USR | CTL_OS | CTL_INT | CTL_EN;
		r->pmc[0] = (emu_low_bits(WIDTH) + 1 - WATCHDOG_PERIOD) & emu_low_bits(WIDTH);
	}
}
