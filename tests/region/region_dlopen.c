/*
 * region-dlopen LIB - libpmustat-region loaded with dlopen() after the
 * program started, as a plugin or an interpreter's extension would load
 * it: its thread-local state (each thread's stack top starts at a guard
 * frame, an address the dynamic linker relocates) is then set up by
 * dlopen, not at startup. "hot" around 100 LLC misses in the main thread
 * twice and 1000 in a second thread, "inner" nested in the first "hot"
 * around 5 of them.
 *
 * Exit status: 0, 2 when the library cannot be loaded or a retire fails.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "emu_preload_api.h"

typedef void region_fn(const char *name);

static region_fn *begin, *end;
static pmuemu_retire_fn retire_fn;

static void
work(uint64_t n)
{
	if (!retire_fn || retire_fn(0x2e, 0x41, 3, n) != 0 || retire_fn(0xc0, 0x00, 3, 10 * n) != 0) {
		fprintf(stderr, "region-dlopen: pmuemu_retire failed (is libpmuemu.so preloaded?)\n");
		exit(2);
	}
}

static void *
worker(void *arg)
{
	(void)arg;
	begin("hot");
	work(1000);
	end("hot");
	return NULL;
}

int
main(int argc, char **argv)
{
	pthread_t t;
	void *lib;

	retire_fn = (pmuemu_retire_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "pmuemu_retire");
	lib = argc == 2 ? dlopen(argv[1], RTLD_NOW | RTLD_LOCAL) : NULL;
	if (!lib) {
		fprintf(stderr, "region-dlopen: %s\n", argc == 2 ? dlerror() : "usage: region-dlopen LIB");
		return 2;
	}
	begin = (region_fn *)(uintptr_t)dlsym(lib, "pmustat_region_begin");
	end = (region_fn *)(uintptr_t)dlsym(lib, "pmustat_region_end");
	if (!begin || !end) {
		fprintf(stderr, "region-dlopen: %s\n", dlerror());
		return 2;
	}
	for (int i = 0; i < 2; i++) {
		begin("hot");
		work(100);
		if (i == 0) {
			begin("inner");
			work(5);
			end("inner");
		}
		end("hot");
	}
	if (pthread_create(&t, NULL, worker, NULL) != 0 || pthread_join(t, NULL) != 0) {
		fprintf(stderr, "region-dlopen: cannot run the worker thread\n");
		return 2;
	}
	return 0;
}
