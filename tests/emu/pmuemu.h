/*
 * pmuemu.h - what libpmuemu.so offers the programs it is preloaded into
 * (tests/emu/emu-workload and test helpers). Look the functions up with
 * dlsym(RTLD_DEFAULT, "pmuemu_retire"): a program that links them directly
 * would not start without the preload.
 */
#ifndef PMUSTAT_PMUEMU_H
#define PMUSTAT_PMUEMU_H

#include <stdint.h>

/* 1 when the PMU is emulated (PMUSTAT_EMU_STATE named a usable state file). */
int pmuemu_active(void);

/*
 * Retire @n events (@code, @umask) at privilege @ring (0 kernel, 3 user) on
 * the CPU the caller runs on (emu_retire() semantics). 0, -ENODEV when the
 * PMU is not emulated, -EINVAL for a code or umask above 0xff, -ENXIO when
 * the CPU is not in the emulated machine.
 */
int pmuemu_retire(unsigned code, unsigned umask, unsigned ring, uint64_t n);

/*
 * NetBurst models: @count clocks of event @sel (ESCR event select) with
 * sub-event bits @mask and input value @value (0-15) at @ring on the
 * caller's CPU (emu_nb_clocks() semantics). 0, -ENODEV, -EINVAL (not a
 * NetBurst CPU, values out of range), -ENXIO.
 */
int pmuemu_nb_clocks(unsigned sel, unsigned mask, unsigned ring, unsigned value, uint64_t count);

typedef int (*pmuemu_active_fn)(void);
typedef int (*pmuemu_retire_fn)(unsigned code, unsigned umask, unsigned ring, uint64_t n);
typedef int (*pmuemu_nb_clocks_fn)(unsigned sel, unsigned mask, unsigned ring, unsigned value,
				   uint64_t count);

#endif
