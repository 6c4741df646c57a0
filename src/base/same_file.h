/*
 * same_file.h - do two paths the user gave name one file? Two results
 * written to one file leave only the last (and an output written over the
 * baseline it was compared with destroys that baseline), whatever the
 * spelling: "out.json" and "./out.json", a hard link, a symbolic link.
 */
#ifndef PMUSTAT_SAME_FILE_H
#define PMUSTAT_SAME_FILE_H

#include <stdbool.h>

/*
 * True when @a and @b are one regular file, or one file still to be made
 * (the same name in the same directory). Devices, FIFOs and descriptors
 * (/dev/null, /dev/stdout) take any number of writers: false.
 */
bool
same_file(const char *a, const char *b);

/*
 * True when descriptor @fd is open on the regular file @path names (an
 * inherited --log-fd, or a standard error appended to a file); false for
 * a device, a pipe, a closed descriptor or a path that is not there.
 */
bool
same_file_fd(int fd, const char *path);

#endif
