/*
 * no_perf.c - `no-perf ERRNO COMMAND [ARG...]`: run COMMAND with
 * perf_event_open(2) refused by a seccomp filter with ERRNO (EACCES,
 * EPERM, ENOSYS), as a container runtime's default profile or a
 * sandbox does. Everything else passes. Exit 2 when the filter cannot
 * be set up.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	int err;

	if (argc < 3) {
		fprintf(stderr, "usage: no-perf EACCES|EPERM|ENOSYS COMMAND [ARG...]\n");
		return 2;
	}
	if (strcmp(argv[1], "EACCES") == 0)
		err = EACCES;
	else if (strcmp(argv[1], "EPERM") == 0)
		err = EPERM;
	else if (strcmp(argv[1], "ENOSYS") == 0)
		err = ENOSYS;
	else {
		fprintf(stderr, "no-perf: %s: want EACCES, EPERM or ENOSYS\n", argv[1]);
		return 2;
	}
#if defined(__x86_64__)
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(filter) / sizeof(filter[0]), filter };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
		perror("no-perf: seccomp");
		return 2;
	}
#else
	(void)err;
	fprintf(stderr, "no-perf: only x86-64 here\n");
	return 2;
#endif
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
