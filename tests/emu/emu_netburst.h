/*
 * emu_netburst.h - the emulated NetBurst PMU (SDM vol. 3B, "Performance
 * Monitoring (Processors Based on Intel NetBurst Microarchitecture)"),
 * behind the same struct emu_pmu and front ends as the architectural
 * models: emu_rdmsr(), emu_wrmsr() and emu_rdpmc() pass NetBurst CPUs here.
 *
 * The rules, each with its SDM basis, and the choices the SDM leaves open:
 *
 *  - MSR map: counters 0x300-0x311 (40 bits), CCCRs 0x360-0x371, the ESCRs
 *    the SDM's ESCR-select table names (45 addresses in 0x3a0-0x3e1;
 *    IQ_ESCR0/1 at 0x3ba/0x3bb only on models 1 and 2), and
 *    IA32_MISC_ENABLE 0x1a0 (bit 7 performance monitoring available, bit
 *    12 PEBS unavailable; read-only here: a write is #GP). Any other
 *    address, and a write that sets a reserved bit, is #GP (-EIO) and
 *    changes nothing. Reserved: ESCR bits 63:31 (and 1:0 without HT), CCCR
 *    bits 63:32, 29:28, 11:0 (and 27 without HT), counter bits 63:40 (the
 *    SDM does not say what the CPU does with those; the emulator faults so
 *    that a sloppy write is seen).
 *  - Power-up: everything 0 ("The CCCRs are initialized to all 0s on reset").
 *  - Routing: counter i counts when its CCCR's enable bit is set; its ESCR
 *    is the one the CCCR's ESCR select names for counter i (an ESCR select
 *    that names none gives the counter input 0). CCCR bits 17:16 must be
 *    11b ("reserved, must be set to 11B") on a part without HT or the
 *    counter counts nothing; with HT they are the active-thread field, and
 *    as the sibling thread is taken to be halted while one retires, 11
 *    (any) and 01 (single) count, 10 (both) and 00 (none) do not.
 *  - Clocks: emu_nb_clocks() is @count clocks of the core in which the
 *    event (ESCR event select @sel) happens with sub-event bits @mask and
 *    an input value @value (0-15: the four input lines as binary digits,
 *    line 0 = 1 ... line 3 = 8; the seed's "input 3 has a value of 4" is a
 *    typo of the SDM excerpt for line 2). Every enabled counter of the core
 *    sees those clocks: its input is @value when its ESCR selects @sel, has
 *    a mask bit in common with @mask, and has the privilege bit of the
 *    calling thread (T0_USR/T0_OS bits 2/3, T1_USR/T1_OS bits 0/1; USR
 *    for ring > 0), and 0 otherwise.
 *  - Thread-independent events (the SDM's table "Event Mask Qualification
 *    for Logical Processors": the 13 TI events, x87_FP_uop, packed_SP_uop,
 *    ..., by ESCR unit and event select): with HT the counter counts the
 *    event on either logical processor, whatever the T0/T1 bits say; the
 *    ESCR's USR/OS bit of either thread qualifies the ring (the choice:
 *    the SDM says only that TI events are not qualified by thread).
 *  - Filtering ("Filtering Events"): without the compare flag a counter
 *    adds its input every clock. With it, the threshold comparison's
 *    output is true when input > threshold, or, with complement, when
 *    input <= threshold; the counter adds 1 per clock the output is true,
 *    never the input value. With edge (active only with compare) it adds
 *    1 only on a clock whose output is true after a false one; the last
 *    output is remembered per counter across calls and reset to false by
 *    any write to the CCCR (the SDM does not say; this is the choice).
 *  - Overflow: counters wrap at 40 bits and set the CCCR's OVF flag
 *    (bit 31, sticky until software writes it 0); FORCE_OVF sets it on
 *    every increment. No PMI, cascading or PEBS (their bits are stored).
 *  - rdpmc: ECX[30:0] is the counter index, 0-17 (the 18-25 of the Xeons
 *    with L3 are not modelled); anything else is #GP. ECX[31] set is a
 *    "fast" read: EAX = bits 31:0, EDX = 0. Otherwise all 40 bits.
 *  - HT: CPUs 2k and 2k+1 are the two threads of one core and share one
 *    register file (held by CPU 2k); their CPUID initial APIC IDs are 2k
 *    and 2k+1. With emu_config.nb_ht_split (`--ht-split`) CPUs k and
 *    k + N/2 are, as Linux numbers many machines (held by CPU k); their
 *    APIC IDs are still 2k and 2k+1, so CPU numbers and APIC IDs differ.
 *  - emu_retire() (architectural event codes) counts nothing here.
 */
#ifndef PMUSTAT_EMU_NETBURST_H
#define PMUSTAT_EMU_NETBURST_H

#include <stddef.h>
#include <stdint.h>

#include "emu_pmu.h"

/* RDMSR / WRMSR / RDPMC on a NetBurst CPU; 0 or -EIO (#GP). */
int emu_nb_rdmsr(const struct emu_pmu *pmu, unsigned cpu, uint32_t msr, uint64_t *val);
int emu_nb_wrmsr(struct emu_pmu *pmu, unsigned cpu, uint32_t msr, uint64_t val);
int emu_nb_rdpmc(const struct emu_pmu *pmu, unsigned cpu, uint32_t ecx, uint64_t *val);

/*
 * @count clocks on @cpu of event @sel (ESCR[30:25] value, 0-63) with
 * sub-event bits @mask (ESCR[24:9] bits, 16-bit) and input value @value
 * (0-15) at privilege @ring (0 kernel, 3 user). 0, -ENXIO (no such CPU),
 * -EINVAL (not a NetBurst CPU, @sel > 63, @value > 15, @count > 2^59).
 */
int emu_nb_clocks(struct emu_pmu *pmu, unsigned cpu, unsigned sel, unsigned mask,
		  unsigned ring, unsigned value, uint64_t count);

/* The MSRs a NetBurst CPU implements, ascending (see emu_msr_list()). */
size_t emu_nb_msr_list(const struct emu_pmu *pmu, unsigned cpu, uint32_t *msrs, size_t max);
/* "MSR_IQ_CCCR0", "MSR_CRU_ESCR2", "IA32_MISC_ENABLE" or "MSR_0x..." into @buf. */
const char *emu_nb_msr_name(uint32_t msr, char *buf, size_t size);
/*
 * A NetBurst core type from its CPUID (already in @t, with its threads
 * per core): model, HT, the IA32_MISC_ENABLE @cfg asks for. 0, or -EINVAL
 * for options the model does not have (--gp, --fixed, --watchdog).
 */
int emu_nb_setup_type(struct emu_core_type *t, const struct emu_config *cfg);
/*
 * @cpu's initial APIC ID (CPUID.1:EBX[31:24]): with HT, its core's number
 * times two plus its thread (bit 0), wherever the CPU numbering puts the
 * threads (emu_config.nb_ht_split); without, the CPU number.
 */
unsigned emu_nb_apic_id(const struct emu_pmu *pmu, unsigned cpu);
/* Power-up state of @cpu's registers. */
void emu_nb_power_up(struct emu_pmu *pmu, unsigned cpu);

#endif
