/*
 * rdpmc_journal.c - see rdpmc_journal.h.
 */
#include "pmu/rdpmc_journal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
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

int
rdpmc_journal_read(const char *dir, struct rdpmc_journal *j, struct pmustat_error **err)
{
	char buf[RDPMC_JOURNAL_MAX_BYTES + 1], path[PATH_MAX], name[32], extra;
	int dfd, fd, version, found, file;
	long pid;
	unsigned long long start;
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
	if (strlen(buf) != (size_t)n ||
	    sscanf(buf, RDPMC_JOURNAL_MAGIC " %d\nfile %31s\nfound %d\npid %ld\nstart %llu\n%c", &version, name,
		   &found, &pid, &start, &extra) != 5)
		return err_set(err, -EBADMSG, "the journal %s is corrupt or of another version; %s", path,
			       CORRUPT_HINT);
	file = file_of_name(name);
	if (version != RDPMC_JOURNAL_VERSION || file < 0 || found < 0 || found > 2 || pid <= 0 || pid > INT_MAX)
		return err_set(err, -EBADMSG, "the journal %s is corrupt: version %d, file '%s', found %d, pid %ld; %s",
			       path, version, name, found, pid, CORRUPT_HINT);
	j->file = (enum hw_file)file;
	j->found = found;
	j->pid = (pid_t)pid;
	j->start_time = start;
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
	struct rdpmc_journal j;
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
