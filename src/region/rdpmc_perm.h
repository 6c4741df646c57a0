/*
 * rdpmc_perm.h - let the counted program execute rdpmc, and put the
 * setting back: /sys/bus/event_source/devices/cpu/rdpmc (cpu_core/ or
 * cpu_atom/ on a hybrid), read and written through the hw seam.
 *
 * The kernel's values: 0 rdpmc faults for every process; 1 (the default)
 * only a process that has mmap'ed a perf event may use it; 2 any process
 * may, on any CPU. A program counting regions with pmustat's MSR backend
 * has no perf event, so it needs 2 for the run; while it is 2, every
 * process on the machine can read every counter (a side channel), which is
 * why pmustat restores the value it found on every exit path.
 *
 *	struct rdpmc_perm perm;
 *	err = rdpmc_perm_allow(hw, access.rdpmc_source, &perm);	// refuse --regions on error
 *	... run ...
 *	rdpmc_perm_restore(hw, &perm);
 *
 * The struct is a plain value, so the crash journal can carry it.
 */
#ifndef PMUSTAT_RDPMC_PERM_H
#define PMUSTAT_RDPMC_PERM_H

#include <stdbool.h>
#include <stddef.h>

#include "hw/hw.h"

#define RDPMC_ALLOW_ANY	2

struct rdpmc_perm {
	enum hw_file file;
	int found;		/* the value read before any change: 0, 1 or 2 */
	bool changed;		/* rdpmc_perm_allow() wrote the file; restore writes @found back */
};

/* The current value of @file: 0, 1 or 2; -ENOENT, -errno, or -EPROTO for text that is none of them. */
int rdpmc_perm_read(struct hw *hw, enum hw_file file);

/*
 * Make rdpmc allowed for every process (write 2) unless it already is.
 * Fills @p either way. 0, or -errno: -ENOENT no such file (no core PMU
 * driver, or the wrong PMU for a hybrid), -EACCES not root, -EINVAL not an
 * rdpmc file or the kernel refused the value, -EPROTO unreadable value,
 * -EIO the write took but the file did not change (a kernel that forces it).
 */
int rdpmc_perm_allow(struct hw *hw, enum hw_file file, struct rdpmc_perm *p);

/*
 * Write back what rdpmc_perm_allow() found if it changed it; then there is
 * nothing left to restore (calling it again does nothing). 0 or -errno.
 */
int rdpmc_perm_restore(struct hw *hw, struct rdpmc_perm *p);

/*
 * For the fatal signal handler (engine/signals.c): arm with the setting to
 * put back (its text made now), disarm with NULL; the restore writes it
 * through @hw (hw_linux: open, write, close: async-signal-safe). 0, or
 * -errno; 0 when nothing is armed.
 */
void rdpmc_perm_arm_signal_restore(struct hw *hw, const struct rdpmc_perm *p);
int rdpmc_perm_restore_from_signal(void);

/* What failed and what the user can do, for an error of the functions above. */
void rdpmc_perm_explain(enum hw_file file, int err, char *buf, size_t size);

#endif
