#include "config.h"
#include "events/arch_events.h"

#include <stddef.h>
#include <strings.h>

#include "events/cpu.h"

/* SDM vol. 3B, table "UMask and Event Select Encodings for Pre-Defined
 * Architectural Performance Events"; index = CPUID.0AH:EBX bit. */
static const struct arch_event arch_events[] = {
	{ 0, "UnHalted Core Cycles", "CORE_CYCLES", 0x3c, 0x00, 1, true },
	{ 1, "Instructions Retired", "INSTRUCTIONS_RETIRED", 0xc0, 0x00, 0, true },
	{ 2, "UnHalted Reference Cycles", "REF_CYCLES", 0x3c, 0x01, 2, false },
	{ 3, "LLC Reference", "LLC_REFERENCES", 0x2e, 0x4f, -1, false },
	{ 4, "LLC Misses", "LLC_MISSES", 0x2e, 0x41, -1, false },
	{ 5, "Branch Instructions Retired", "BRANCH_INSTRUCTIONS", 0xc4, 0x00, -1, false },
	{ 6, "Branch Mispredicts Retired", "BRANCH_MISSES", 0xc5, 0x00, -1, false },
	{ 7, "Topdown Slots", "TOPDOWN_SLOTS", 0xa4, 0x01, 3, true },
	{ 8, "Topdown Backend Bound", "TOPDOWN_BACKEND_BOUND", 0xa4, 0x02, -1, false },
	{ 9, "Topdown Bad Speculation", "TOPDOWN_BAD_SPECULATION", 0x73, 0x00, -1, false },
	{ 10, "Topdown Frontend Bound", "TOPDOWN_FRONTEND_BOUND", 0x9c, 0x01, -1, false },
	{ 11, "Topdown Retiring", "TOPDOWN_RETIRING", 0xc2, 0x02, -1, false },
	{ 12, "LBR Inserts", "LBR_INSERTS", 0xe4, 0x01, -1, false },
};

unsigned
arch_event_count(void)
{
	return sizeof(arch_events) / sizeof(arch_events[0]);
}

const struct arch_event *
arch_event_get(unsigned i)
{
	return i < arch_event_count() ? &arch_events[i] : NULL;
}

const struct arch_event *
arch_event_by_key(const char *key)
{
	unsigned i;

	for (i = 0; i < arch_event_count(); i++)
		if (strcasecmp(arch_events[i].key, key) == 0)
			return &arch_events[i];
	return NULL;
}

const struct arch_event *
arch_event_fixed_twin(int fixed)
{
	for (unsigned i = 0; i < arch_event_count(); i++)
		if (arch_events[i].fixed == fixed && fixed >= 0 && arch_events[i].fixed_twin)
			return &arch_events[i];
	return NULL;
}

bool
arch_event_available(const struct pmu_caps *caps, const struct arch_event *ev)
{
	return ev->bit < caps->arch_events_len && ev->bit < 32 &&
	       !(caps->arch_events_unavailable & (1u << ev->bit));
}
