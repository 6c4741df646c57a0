/*
 * thread_storm.c - a command that creates threads while pmustat may go
 * away under it (test_pin_threads_e2e.c):
 *
 *   thread-storm PIDFILE DONEFILE storm N   starts N threads (created and
 *                                           joined 8 at a time), then ends
 *   thread-storm PIDFILE DONEFILE term N    waits for SIGTERM, catches it,
 *                                           starts N threads, then ends
 *
 * PIDFILE gets its pid once it runs, DONEFILE "done" just before its own
 * clean exit (0): a command held stopped never writes it.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *
nothing(void *arg)
{
	return arg;
}

static void
put(const char *path, const char *text)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0 || rename(tmp, path) != 0) {
		perror(path);
		exit(2);
	}
}

static void
storm(long n)
{
	for (long k = 0; k < n; k += 8) {
		pthread_t t[8];
		int m = 0;

		while (m < 8 && k + m < n && pthread_create(&t[m], NULL, nothing, NULL) == 0)
			m++;
		for (int i = 0; i < m; i++)
			pthread_join(t[i], NULL);
	}
}

int
main(int argc, char **argv)
{
	char pid[32];
	sigset_t term;
	long n;
	int sig;

	if (argc != 5 || (strcmp(argv[3], "storm") && strcmp(argv[3], "term"))) {
		fprintf(stderr, "usage: thread-storm PIDFILE DONEFILE storm|term N\n");
		return 2;
	}
	n = strtol(argv[4], NULL, 0);
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, NULL);
	snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	put(argv[1], pid);
	if (!strcmp(argv[3], "term"))
		sigwait(&term, &sig);
	storm(n);
	put(argv[2], "done\n");
	return 0;
}
