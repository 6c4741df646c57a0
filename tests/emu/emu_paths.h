/*
 * emu_paths.h - the emulated machine's own files.
 *
 * Some files of a real machine belong to the machine, not to a program:
 * pmustat's crash journals and per-core lock files under /run. Two
 * emulated machines (two tests running at once) must not share them, and
 * no test may write the host's /run. So libpmuemu.so sends every
 * per-machine path to the same path under the machine's own directory,
 * STATE.d, next to its state file:
 *
 *	/run/pmustat, /run/pmustat/...	->  STATE.d/run/pmustat/...
 *	/run/lock/pmustat-*		->  STATE.d/run/lock/pmustat-*
 *
 * Whole prefixes, so any layout pmustat uses below them is covered. The
 * binary keeps its fixed paths: nothing in its environment moves them, the
 * redirection is the emulated machine's. Tests reach the same files
 * through emu_paths_map(). The kernel files of enum hw_file and
 * /dev/cpu/N/msr are not files there: libpmuemu.so serves them from the
 * state itself.
 *
 * emu_paths_dir(), emu_paths_map() and emu_paths_create() use no stdio,
 * no malloc and raw system calls only: the preload library calls them
 * from its interposers, unlink() among them from pmustat's fatal-signal
 * handler.
 */
#ifndef PMUSTAT_EMU_PATHS_H
#define PMUSTAT_EMU_PATHS_H

#include <stddef.h>

/* The suffix of the machine's directory: STATE.d. */
#define EMU_PATHS_SUFFIX ".d"

/* The machine directory of state file @state into @buf. 0 or -ENAMETOOLONG. */
int emu_paths_dir(const char *state, char *buf, size_t size);

/*
 * Whether @path (absolute, as the program wrote it) is one of the
 * machine's own: 1 with its place under machine directory @dir in @buf;
 * 0 when it is not (@buf untouched); -ENAMETOOLONG when it is but its
 * place does not fit in @size bytes (always, for @size 0).
 */
int emu_paths_map(const char *dir, const char *path, char *buf, size_t size);

/*
 * Give machine directory @dir what a booted Debian has: @dir and @dir/run
 * 0755, @dir/run/lock 01777 (sticky, world-writable, as /run/lock is).
 * What exists already is kept. 0 or -errno.
 */
int emu_paths_create(const char *dir);

/*
 * Clear what a reboot clears of the machine's files: @dir/run/pmustat and
 * @dir/run/lock/pmustat-* (never following a symbolic link). 0 or -errno.
 * Uses stdio-free libc (nftw, opendir): not for the preload's interposers.
 */
int emu_paths_clear(const char *dir);

#endif
