/*
 * proc.c - see proc.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/text.h"
#include "hw/proc.h"

/* Fields 3 (state) and 22 (start time) of /proc/@pid/stat. */
int
proc_stat(pid_t pid, char *state, unsigned long long *start)
{
	char path[64], buf[1024], *p, *end;
	ssize_t n;
	int fd, rc;

	*start = 0;
	*state = '?';
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	/* Never 0 on failure, whatever errno says: the caller trusts *start on 0. */
	if (fd < 0) {
		int e = errno;

		return e == ENOENT ? -ESRCH : (e > 0 ? -e : -EIO);
	}
	n = read(fd, buf, sizeof(buf) - 1);
	rc = 0;
	if (n < 0) {
		int e = errno;

		rc = e > 0 ? -e : -EIO;
	}
	close(fd);
	if (rc)
		return rc;
	buf[n] = '\0';
	/* The command name may hold spaces and ')': fields start after the last ')'. */
	p = strrchr(buf, ')');
	if (!p)
		return -EINVAL;
	p++;
	if (p[0] == ' ' && p[1])
		*state = p[1];
	/* Field 3 (state) comes first; field 22 is the 20th from there. */
	for (int field = 3; field < 22; field++) {
		p = strchr(p + 1, ' ');
		if (!p)
			return -EINVAL;
	}
	errno = 0;
	*start = strtoull(p + 1, &end, 10);
	if (errno || end == p + 1 || (*end != ' ' && *end != '\n' && *end != '\0'))
		return -EINVAL;
	return 0;
}

/* "uid 0", the effective uid from /proc/PID/status; false when unreadable. */
bool
proc_uid(pid_t pid, unsigned *uid)
{
	char path[64], line[256];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	/* "Uid:\tREAL\tEFFECTIVE\tSAVED\tFS" */
	while (!found && fgets(line, sizeof(line), f)) {
		char *p, *end;
		unsigned long v;

		if (strncmp(line, "Uid:", 4) != 0)
			continue;
		errno = 0;
		(void)strtoul(line + 4, &p, 10);
		v = strtoul(p, &end, 10);
		if (errno || end == p || v > 0xfffffffful)
			break;
		*uid = (unsigned)v;
		found = true;
	}
	fclose(f);
	return found;
}

void
proc_command(pid_t pid, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	buf[0] = '\0';
	if (size < 2)
		return;
	snprintf(path, sizeof(path), "/proc/%ld/cmdline", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0) {
		buf[0] = '\0';
		return;
	}
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	/*
	 * Anybody's arguments (sudo pmustat -- COMMAND ARGS...): no control
	 * character reaches the terminal of whoever reads them.
	 */
	for (ssize_t i = 0; i < n; i++) {
		if (buf[i] == '\0')
			buf[i] = ' ';
		else if (text_is_control((unsigned char)buf[i]))
			buf[i] = '?';
	}
}

int
proc_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	long fd = syscall(SYS_pidfd_open, pid, 0);

	return fd < 0 ? -errno : (int)fd;
#else
	(void)pid;
	return -ENOSYS;
#endif
}
