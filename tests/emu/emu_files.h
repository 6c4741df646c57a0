/*
 * emu_files.h - writes to the emulated machine's kernel files, with the
 * kernel's rules. Only the rdpmc files take writes (as pmustat only ever
 * writes those): arch/x86/events/core.c set_attr_rdpmc() parses the text
 * with kstrtoul(buf, 0) and refuses values above 2; "2" sets CR4.PCE for
 * every process, "0" and "1" leave rdpmc faulting here (1 allows only
 * processes with a perf mmap, and the emulator has no perf events).
 *
 * Both front ends call it: emu_hw.c (the in-process struct hw) and, for the
 * real binary, libpmuemu.so when a program writes one of these files.
 */
#ifndef PMUSTAT_EMU_FILES_H
#define PMUSTAT_EMU_FILES_H

#include "emu_pmu.h"

/*
 * Write @text to @file of @pmu: 0, -EINVAL for a value the kernel refuses
 * or a file that is not an rdpmc file, -ENOENT when the machine has no such
 * file. On success the file reads "N\n" and config.rdpmc_off follows it
 * (on a hybrid: rdpmc works only while every present rdpmc file says 2).
 * Permission (root only) is the front end's business.
 */
int emu_write_file(struct emu_pmu *pmu, enum hw_file file, const char *text);

/* Whether @file takes writes (the rdpmc files). */
bool emu_file_writable(enum hw_file file);

#endif
