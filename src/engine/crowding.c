/*
 * crowding.c - see crowding.h.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/crowding.h"

#define MAX_TREE 256

/* /proc/PID/stat's state and parent (the fields after the command's closing parenthesis). */
static bool
stat_of(const char *path, char *state, pid_t *ppid)
{
	char buf[512], *p, *end;
	FILE *f = fopen(path, "re");
	size_t n;
	long parent;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	/* ") S 1234 ...": the state, then the parent's pid. */
	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
		return false;
	*state = p[2];
	errno = 0;
	parent = strtol(p + 4, &end, 10);
	if (errno || end == p + 4)
		return false;
	*ppid = (pid_t)parent;
	return true;
}

/* Every process whose parent chain reaches @root, @root first: how many (at most @max). */
static unsigned
tree_of(pid_t root, pid_t *tree, unsigned max)
{
	pid_t pids[4096], parents[4096];
	unsigned n = 0, in = 0;
	struct dirent *d;
	DIR *dir = opendir("/proc");

	if (!dir)
		return 0;
	while ((d = readdir(dir)) != NULL && n < sizeof(pids) / sizeof(pids[0])) {
		char path[64], state;
		long v = strtol(d->d_name, NULL, 10);

		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/stat", v);
		if (stat_of(path, &state, &parents[n]))
			pids[n++] = (pid_t)v;
	}
	closedir(dir);
	tree[in++] = root;
	/* Breadth first: each found process's children. */
	for (unsigned k = 0; k < in && in < max; k++)
		for (unsigned i = 0; i < n && in < max; i++)
			if (parents[i] == tree[k] && pids[i] != root)
				tree[in++] = pids[i];
	return in;
}

unsigned
crowding_runnable(pid_t pid)
{
	pid_t tree[MAX_TREE];
	unsigned n = tree_of(pid, tree, MAX_TREE), running = 0;

	for (unsigned k = 0; k < n; k++) {
		char path[64];
		struct dirent *d;
		DIR *dir;

		snprintf(path, sizeof(path), "/proc/%d/task", (int)tree[k]);
		dir = opendir(path);
		if (!dir)
			continue;
		while ((d = readdir(dir)) != NULL) {
			char tpath[96], state;
			pid_t ppid;

			if (d->d_name[0] < '1' || d->d_name[0] > '9')
				continue;
			snprintf(tpath, sizeof(tpath), "/proc/%d/task/%.16s/stat", (int)tree[k], d->d_name);
			if (stat_of(tpath, &state, &ppid) && state == 'R')
				running++;
		}
		closedir(dir);
	}
	return running;
}

static void *
watch(void *arg)
{
	struct crowding *w = arg;
	const struct timespec period = { 0, CROWDING_PERIOD_MS * 1000000L };

	while (!w->stop) {
		unsigned n = crowding_runnable(w->pid);

		if (n > w->most)
			w->most = n;
		w->crowded += n > w->ncores;
		nanosleep(&period, NULL);
	}
	return NULL;
}

int
crowding_start(struct crowding *w, pid_t pid, unsigned ncores)
{
	int rc;

	memset(w, 0, sizeof(*w));
	w->pid = pid;
	w->ncores = ncores;
	rc = pthread_create(&w->thread, NULL, watch, w);
	w->started = rc == 0;
	return -rc;
}

unsigned
crowding_stop(struct crowding *w)
{
	if (!w->started)
		return 0;
	w->stop = true;
	pthread_join(w->thread, NULL);
	w->started = false;
	return w->crowded >= CROWDING_MIN_SAMPLES ? w->most : 0;
}
