/*
 * nb-region-demo - a program with code regions for pmustat --regions on
 * the emulated NetBurst machines: "a" twice (100 each), "b" once (7), 1
 * outside. Each number is a run of that many clocks of instr_retired
 * (event select 0x02, NBOGUSNTAG) with input 1, and ten times as many of
 * global_power_events (0x13, RUNNING), in user mode, on the CPU it runs
 * on, through libpmuemu.so's pmuemu_act(). Expected: a 2 calls 200/2000,
 * b 1 call 7/70, the whole run 208/2080.
 */
#define PMUSTAT_REGIONS
#include <pmustat/region.h>

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_preload_api.h"

static pmuemu_act_fn act_fn;

static void
clocks(unsigned sel, uint64_t n)
{
	struct emu_action a;

	memset(&a, 0, sizeof(a));
	a.kind = EMU_ACT_NB_CLOCKS;
	a.code = (uint8_t)sel;
	a.val = 0x1;
	a.index = 1;
	a.ring = 3;
	a.n = n;
	if (act_fn(&a) != 0) {
		fprintf(stderr, "nb-region-demo: pmuemu_act failed (not a NetBurst machine?)\n");
		exit(2);
	}
}

static void
work(uint64_t n)
{
	clocks(0x02, n);
	clocks(0x13, 10 * n);
}

int
main(void)
{
	act_fn = (pmuemu_act_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "pmuemu_act");
	if (!act_fn) {
		fprintf(stderr, "nb-region-demo: runs under libpmuemu.so only\n");
		return 2;
	}
	work(1);
	for (int i = 0; i < 2; i++) {
		PMUSTAT_REGION_BEGIN("a");
		work(100);
		PMUSTAT_REGION_END("a");
	}
	PMUSTAT_REGION_BEGIN("b");
	work(7);
	PMUSTAT_REGION_END("b");
	return 0;
}
