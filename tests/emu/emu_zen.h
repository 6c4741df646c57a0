/*
 * emu_zen.h - the emulated AMD Zen core PMU (APM vol. 2, "Performance
 * Monitoring Counters"; Linux arch/x86/events/amd/core.c), behind the
 * same struct emu_pmu and front ends as the other models: emu_rdmsr(),
 * emu_wrmsr(), emu_rdpmc() and emu_retire() pass Zen CPUs here. Its
 * registers live in struct emu_regs: PERF_CTLi in evtsel[i], PERF_CTRi
 * in pmc[i], PerfCntrGlobalCtl in global_ctrl, PerfCntrGlobalStatus in
 * global_status.
 *
 * The rules, each with its basis, and the choices the APM leaves open:
 *
 *  - Models: "zen4" is the Ryzen 9 7950X dump (family 19h, PerfCtrExtCore,
 *    PerfMonV2 with six counters: its CPUID 0x8000_0022 is
 *    00000003-00084106-00000003-00000000). "zen5" and "zen2" are that dump
 *    with the signature edited (1Ah model 44h; 17h model 31h), as no dump
 *    of those is in the reference set; "zen2" has no PerfMonV2 (its
 *    highest extended leaf is 0x8000_0020, so 0x8000_0022 reads 0).
 *  - MSR map: PERF_CTLi at 0xC001_0200 + 2i and PERF_CTRi at 0xC001_0201 +
 *    2i (six); the legacy 0xC001_0000-3 (CTL) and 0xC001_0004-7 (CTR) are
 *    the first four counters too (APM: "aliased"). With PerfMonV2,
 *    GlobalStatus 0xC000_0300 (read only), GlobalCtl 0xC000_0301 and
 *    GlobalStatusClr 0xC000_0302 (write 1 to clear; reads 0); without,
 *    those addresses #GP. Any other address #GP.
 *  - Reserved bits #GP (-EIO) and change nothing: PERF_CTL 63:42, 39:36,
 *    21 and 19; PERF_CTR above bit 47 (the APM leaves writes there
 *    undefined; the emulator faults so that a sloppy write is seen);
 *    GlobalCtl and StatusClr bits of counters that do not exist.
 *  - Counting: counter i counts an event when PERF_CTL.En and (with
 *    PerfMonV2) GlobalCtl bit i are both set, the ring's bit (USR for
 *    ring > 0, OS for ring 0), and the 12-bit event select (7:0, 35:32)
 *    and unit mask equal the event's. HostOnly and GuestOnly both clear,
 *    or HostOnly set, count (this is the host); GuestOnly alone does not.
 *    CntMask, Inv as emu_retire() describes for the architectural PMU.
 *  - Overflow: counters wrap at 48 bits; a wrap sets GlobalStatus bit i
 *    (with PerfMonV2). No interrupt is modelled (INT is stored).
 *  - rdpmc: ECX is the counter index, 0-5; anything else #GP.
 *  - The NMI watchdog (emu_config.watchdog): Linux's hardlockup detector
 *    takes counter 0: PERF_CTL0 = cycles (0x76) with USR, OS, INT and En,
 *    PERF_CTR0 = -(its period), and with PerfMonV2 perf's enable writes
 *    every counter's GlobalCtl bit (amd_pmu_v2_enable_all()).
 *  - Workloads: emu_retire()'s architectural codes count on their AMD
 *    twins: 0xC0 instructions (PMCx0C0, retired instructions), 0x3C core
 *    cycles (PMCx076), 0xC4 branches (PMCx0C2), 0xC5 mispredicted
 *    branches (PMCx0C3); other codes count as AMD's event of that code.
 */
#ifndef PMUSTAT_EMU_ZEN_H
#define PMUSTAT_EMU_ZEN_H

#include <stddef.h>
#include <stdint.h>

#include "emu_pmu.h"

/* RDMSR / WRMSR / RDPMC on a Zen CPU; 0 or -EIO (#GP). */
int emu_zen_rdmsr(const struct emu_pmu *pmu, unsigned cpu, uint32_t msr, uint64_t *val);
int emu_zen_wrmsr(struct emu_pmu *pmu, unsigned cpu, uint32_t msr, uint64_t val);
int emu_zen_rdpmc(const struct emu_pmu *pmu, unsigned cpu, uint32_t ecx, uint64_t *val);

/*
 * @n events of AMD's 12-bit event select @event with unit mask @umask
 * at privilege @ring, in one burst on @cpu. 0, -ENXIO (no such CPU),
 * -EINVAL (not a Zen CPU, @event above 0xFFF).
 */
int emu_zen_retire(struct emu_pmu *pmu, unsigned cpu, unsigned event, uint8_t umask, unsigned ring, uint64_t n);

/* emu_retire()'s architectural code @code as AMD's event (see above). */
unsigned emu_zen_event_of(uint8_t code, uint8_t umask, uint8_t *amd_umask);

/* The MSRs a Zen CPU implements, ascending (see emu_msr_list()). */
size_t emu_zen_msr_list(const struct emu_pmu *pmu, unsigned cpu, uint32_t *msrs, size_t max);
/* "PERF_CTL0", "PerfCntrGlobalCtl" or "MSR_0x..." into @buf. */
const char *emu_zen_msr_name(uint32_t msr, char *buf, size_t size);
/* A Zen core type from the Zen 4 dump in @t: the signature and leaf 0x8000_0022 of model @zen (2, 4, 5). */
int emu_zen_setup_type(struct emu_core_type *t, unsigned zen, const struct emu_config *cfg);
/* Power-up state of @cpu's registers (the watchdog's counter when configured). */
void emu_zen_power_up(struct emu_pmu *pmu, unsigned cpu);

#endif
