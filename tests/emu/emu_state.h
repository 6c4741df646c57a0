/*
 * emu_state.h - an emu_pmu in a file, shared (mmap MAP_SHARED) by every
 * process of a test: pmu-emu, pmustat and the programs it starts, each
 * with libpmuemu.so preloaded. The file is the struct emu_pmu, byte for
 * byte; a snapshot is a copy of it.
 *
 * These functions use raw system calls only (no stdio, no malloc, no
 * interposable libc entry points), so the preload library can call them
 * from its constructor while it interposes open().
 */
#ifndef PMUSTAT_EMU_STATE_H
#define PMUSTAT_EMU_STATE_H

#include "emu_pmu.h"

/* Environment variable naming the state file (read by libpmuemu.so only). */
#define EMU_STATE_ENV "PMUSTAT_EMU_STATE"

/* Write @pmu to @path (created or truncated, mode 0644). 0 or -errno. */
int emu_state_write(const char *path, const struct emu_pmu *pmu);

/*
 * Map @path shared and read-write. -EINVAL if it is not a state file of
 * this build. 0 or -errno; *out is the mapping.
 */
int emu_state_map(const char *path, struct emu_pmu **out);
void emu_state_unmap(struct emu_pmu *pmu);

/* Read @path into @out (a private copy, e.g. of a snapshot). 0 or -errno. */
int emu_state_read(const char *path, struct emu_pmu *out);

/*
 * The cross-process lock in the mapping: a spin lock (tool and target run
 * at once). Never held across anything that can fail or block.
 */
void emu_state_lock(struct emu_pmu *pmu);
void emu_state_unlock(struct emu_pmu *pmu);

#endif
