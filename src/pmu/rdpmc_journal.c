/*
 * rdpmc_journal.c - see rdpmc_journal.h.
 */
#include "pmu/rdpmc_journal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "hw/run_dir.h"
#include "pmu/journal.h"

#define RDPMC_JOURNAL_MAX_BYTES	512
#define CORRUPT_HINT "it is not applied: set the rdpmc file yourself (the kernel's default is 1) and remove the journal"


void
rdpmc_journal_path(const char *dir, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s", dir, RDPMC_JOURNAL_NAME);
}

int
rdpmc_journal_write(const char *dir, enum hw_file file, int found, struct pmustat_error **err)
{
	char buf[RDPMC_JOURNAL_MAX_BYTES], path[PATH_MAX];
	unsigned long long start = 0;
	int dfd, rc, len;

	rdpmc_journal_path(dir, path, sizeof(path));
	if (!hw_file_is_rdpmc(file) || found < 0 || found > 2)
		return err_set(err, -EINVAL, "%s: not an rdpmc file or value", path);
	(void)journal_proc_start_time(getpid(), &start);
	len = snprintf(buf, sizeof(buf), "%s %d\nfile %s\nfound %d\npid %ld\nstart %llu\n", RDPMC_JOURNAL_MAGIC,
		       RDPMC_JOURNAL_VERSION, hw_file_key(file), found, (long)getpid(), start);
	if (len < 0 || (size_t)len >= sizeof(buf))
		return err_set(err, -EOVERFLOW, "%s: journal too large", path);
	dfd = run_dir_open(AT_FDCWD, dir, 0700, true, dir, err);
	if (dfd < 0)
		return dfd;
	rc = run_dir_write_file(dfd, dir, RDPMC_JOURNAL_NAME, buf, (size_t)len, err);
	close(dfd);
	return rc;
}

/* The enum hw_file of an rdpmc file's short name, or -1. */
static int
file_of_name(const char *name)
{
	for (int f = 0; f < HW_FILE_COUNT; f++)
		if (hw_file_is_rdpmc((enum hw_file)f) && hw_file_key((enum hw_file)f) &&
		    strcmp(hw_file_key((enum hw_file)f), name) == 0)
			return f;
	return -1;
}

/* Line @n (0-based) of @buf is "KEY VALUE": VALUE into @val. */
static bool
line_value(const char *buf, unsigned n, const char *key, char *val, size_t size)
{
	const char *p = buf, *end;
	size_t klen = strlen(key), len;

	for (unsigned i = 0; i < n; i++) {
		p = strchr(p, '\n');
		if (!p)
			return false;
		p++;
	}
	end = strchr(p, '\n');
	if (!end || strncmp(p, key, klen) != 0 || p[klen] != ' ')
		return false;
	p += klen + 1;
	len = (size_t)(end - p);
	if (len == 0 || len >= size)
		return false;
	memcpy(val, p, len);
	val[len] = '\0';
	return true;
}

/* A decimal number in [@min, @max], the whole of @s. */
static bool
decimal(const char *s, long long min, long long max, long long *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

int
rdpmc_journal_read(const char *dir, struct rdpmc_journal *j, struct pmustat_error **err)
{
	char buf[RDPMC_JOURNAL_MAX_BYTES + 1], path[PATH_MAX], name[32], field[4][32];
	long long version, found, pid, start;
	unsigned lines = 0;
	int dfd, fd, file;
	ssize_t n;

	rdpmc_journal_path(dir, path, sizeof(path));
	dfd = run_dir_open(AT_FDCWD, dir, 0700, false, dir, err);
	if (dfd < 0)
		return dfd;
	fd = openat(dfd, RDPMC_JOURNAL_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	close(dfd);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : err_set(err, -errno, "cannot open %s: %s", path, strerror(errno));
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return err_set(err, -errno, "cannot read %s: %s", path, strerror(errno));
	if ((size_t)n > RDPMC_JOURNAL_MAX_BYTES)
		return err_set(err, -EBADMSG, "the journal %s is corrupt: too large; %s", path, CORRUPT_HINT);
	buf[n] = '\0';
	for (ssize_t i = 0; i < n; i++)
		lines += buf[i] == '\n';
	/* Exactly its five lines, each "KEY VALUE", nothing after. */
	if (strlen(buf) != (size_t)n || lines != 5 || buf[n - 1] != '\n' ||
	    !line_value(buf, 0, RDPMC_JOURNAL_MAGIC, field[0], sizeof(field[0])) ||
	    !line_value(buf, 1, "file", name, sizeof(name)) ||
	    !line_value(buf, 2, "found", field[1], sizeof(field[1])) ||
	    !line_value(buf, 3, "pid", field[2], sizeof(field[2])) ||
	    !line_value(buf, 4, "start", field[3], sizeof(field[3])))
		return err_set(err, -EBADMSG, "the journal %s is corrupt or of another version; %s", path,
			       CORRUPT_HINT);
	file = file_of_name(name);
	if (!decimal(field[0], RDPMC_JOURNAL_VERSION, RDPMC_JOURNAL_VERSION, &version) || file < 0 ||
	    !decimal(field[1], 0, 2, &found) || !decimal(field[2], 1, INT_MAX, &pid) ||
	    !decimal(field[3], 0, LLONG_MAX, &start))
		return err_set(err, -EBADMSG, "the journal %s is corrupt: version %s, file '%s', found %s, pid %s; %s",
			       path, field[0], name, field[1], field[2], CORRUPT_HINT);
	j->file = (enum hw_file)file;
	j->found = (int)found;
	j->pid = (pid_t)pid;
	j->start_time = (unsigned long long)start;
	return 0;
}

int
rdpmc_journal_remove(const char *dir)
{
	char path[PATH_MAX];

	rdpmc_journal_path(dir, path, sizeof(path));
	return unlink(path) < 0 ? -errno : 0;
}

static char signal_path[PATH_MAX];
static volatile sig_atomic_t signal_armed;

void
rdpmc_journal_arm_signal_remove(const char *dir)
{
	signal_armed = 0;
	if (!dir)
		return;
	rdpmc_journal_path(dir, signal_path, sizeof(signal_path));
	signal_armed = 1;
}

void
rdpmc_journal_remove_from_signal(void)
{
	if (signal_armed)
		(void)unlink(signal_path);
}

int
rdpmc_journal_recover(const char *dir, struct hw *hw, char **note, struct pmustat_error **err)
{
	static struct journal owner;	/* journal_owner()'s view: pid and start time only */
	struct rdpmc_journal j = { .found = -1 };
	char now[32] = "", text[8], path[PATH_MAX];
	int rc;

	*note = NULL;
	rc = rdpmc_journal_read(dir, &j, err);
	if (rc == -ENOENT)
		return 0;
	if (rc)
		return rc;
	rdpmc_journal_path(dir, path, sizeof(path));
	if (j.pid != getpid()) {
		owner.pid = j.pid;
		owner.start_time = j.start_time;
		if (journal_owner(&owner) == JOURNAL_OWNER_LIVE)
			return err_set(err, -EBUSY, "%s belongs to pmustat %ld, which still runs: it restores %s itself",
				       path, (long)j.pid, hw_file_path(j.file));
	}
	rc = hw_read_file(hw, j.file, now, sizeof(now));
	if (rc == 0 && now[0] == '2' && j.found != 2) {
		snprintf(text, sizeof(text), "%d\n", j.found);
		rc = hw_write_file(hw, j.file, text);
		if (rc)
			return err_set(err, rc, "cannot put %d back into %s (%s), which a killed pmustat run set to 2: %s",
				       j.found, hw_file_path(j.file), strerror(-rc),
				       "run as root, or write it yourself; the journal is kept");
		rc = asprintf(note, "a killed run had allowed rdpmc for every process: %s is %d again, as it found it",
			      hw_file_path(j.file), j.found);
	} else {
		rc = asprintf(note, "a killed run's rdpmc journal: %s holds %s, not what that run set: left alone",
			      hw_file_path(j.file), rc == 0 ? strtok(now, "\n") : "nothing readable");
	}
	if (rc < 0)
		*note = NULL;
	(void)rdpmc_journal_remove(dir);
	return 1;
}
