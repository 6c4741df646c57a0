/*
 * sim_workload.c - a tiny program for --backend sim's end-to-end tests
 * (Valgrind is slow: a few hundred thousand instructions at most). It
 * copies, fills and scans small buffers through glibc's string functions
 * (whose versions glibc picks by CPU features) and runs a branchy loop.
 *
 *	sim-workload [--loops N] [--echo] [--say TEXT] [--spawn] [--exit N] [--term]
 *
 * --echo copies stdin to stdout (argv[0] must be a path); --say writes TEXT to stdout and to
 * stderr; --spawn first runs a copy of itself (fork and execve, without
 * --spawn) and waits for it; --exit N exits N; --term ends by SIGTERM.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char a[4096], b[4096];
static char child_flag[] = "--child";

static unsigned long
work(unsigned loops)
{
	unsigned long t = 0;

	for (unsigned i = 0; i < loops; i++) {
		memset(a, 'a' + (int)(i % 26), sizeof(a) - 1);
		memcpy(b, a, sizeof(a));
		t += strlen(b) + (unsigned long)memcmp(a, b, sizeof(a));
		for (unsigned k = 0; k < 64; k++)
			t += (k * i) % 3 == 0 ? k : 1;
	}
	return t;
}

int
main(int argc, char **argv)
{
	unsigned loops = 20;
	int status = 0;
	char buf[4096];
	ssize_t n;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--loops") == 0 && i + 1 < argc) {
			loops = (unsigned)strtoul(argv[++i], NULL, 10);
		} else if (strcmp(argv[i], "--echo") == 0) {
			while ((n = read(0, buf, sizeof(buf))) > 0)
				if (write(1, buf, (size_t)n) != n)
					return 1;
		} else if (strcmp(argv[i], "--say") == 0 && i + 1 < argc) {
			printf("%s\n", argv[++i]);
			fflush(stdout);
			fprintf(stderr, "%s\n", argv[i]);
		} else if (strcmp(argv[i], "--spawn") == 0) {
			pid_t pid = fork();

			if (pid == 0) {
				argv[i] = child_flag;	/* the copy: the same run, without --spawn */
				execv(argv[0], argv);
				_exit(127);
			}
			if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
				return 1;
		} else if (strcmp(argv[i], "--exit") == 0 && i + 1 < argc) {
			status = atoi(argv[++i]);
		} else if (strcmp(argv[i], "--term") == 0) {
			status = -1;
		}
	}
	if (work(loops) == 0)
		return 1;
	if (status < 0)
		raise(SIGTERM);
	return status > 0 ? status : 0;
}
