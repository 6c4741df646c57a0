/*
 * perf-touch MiB [STATUS] - write one byte in every page of MiB mebibytes
 * of fresh memory, then exit with STATUS: at least MiB * 256 page faults,
 * a known lower bound for the software-event tests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len;
	volatile char *p;

	if (argc < 2 || atol(argv[1]) <= 0) {
		fprintf(stderr, "usage: perf-touch MiB [STATUS]\n");
		return 2;
	}
	len = (size_t)atol(argv[1]) << 20;
	/* mmap, not malloc: fresh anonymous pages, each faulted in once. */
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("perf-touch: mmap");
		return 2;
	}
	for (size_t i = 0; i < len; i += (size_t)page)
		p[i] = 1;
	return argc > 2 ? atoi(argv[2]) : 0;
}
