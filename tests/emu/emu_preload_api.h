/*
 * emu_preload_api.h - what libpmuemu.so offers the programs it is preloaded into
 * (tests/emu/emu-workload and test helpers). Look the functions up with
 * dlsym(RTLD_DEFAULT, "pmuemu_retire"): a program that links them directly
 * would not start without the preload.
 */
#ifndef PMUSTAT_EMU_PRELOAD_API_H
#define PMUSTAT_EMU_PRELOAD_API_H

#include <stdint.h>

#include "emu_action.h"

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
 * Do @a (emu_action.h: a write from outside, the kernel's PMI handler,
 * perf taking a counter, top-down slots, offcore responses, NetBurst
 * clocks) on the CPU the caller runs on, under the state lock. emu_act()'s
 * results, or -ENODEV when the PMU is not emulated.
 */
int pmuemu_act(const struct emu_action *a);

typedef int (*pmuemu_active_fn)(void);
typedef int (*pmuemu_retire_fn)(unsigned code, unsigned umask, unsigned ring, uint64_t n);
typedef int (*pmuemu_act_fn)(const struct emu_action *a);

#endif
