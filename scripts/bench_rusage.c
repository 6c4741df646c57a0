/*
 * bench_rusage - run a command and print what the kernel accounts for it:
 * "CPU_US PEAK_KIB STATUS" (user + system microseconds, largest resident
 * set, exit status). For scripts/bench_startup.py: a child's peak includes
 * the memory of the process it was forked from until its exec, so a
 * Python parent would add its own ~10 MiB; this one adds about 1 MiB.
 *
 *	bench-rusage COMMAND [ARG]...
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct rusage ru;
	int status, null;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: bench-rusage COMMAND [ARG]...\n");
		return 2;
	}
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	pid = fork();
	if (pid == 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) < 0) {
		perror("bench-rusage");
		return 2;
	}
	printf("%ld %ld %d\n",
	       (long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000L +
		       (long)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec),
	       ru.ru_maxrss,
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}
