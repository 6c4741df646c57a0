/*
 * emu-probe - pokes the machine the way pmustat does, one operation per
 * argument group, and prints what happened; the preload library's tests
 * run it under libpmuemu.so and compare the output with the msr driver's
 * documented behaviour.
 *
 *	open CPU ro|rw			-> "open ok" | "open EACCES"...
 *	rdmsr CPU MSR			-> "rdmsr 0x..." | "rdmsr EIO"
 *	wrmsr CPU MSR VALUE		-> "wrmsr ok" | "wrmsr EIO"
 *	rdmsr-ro-write CPU MSR		-> pwrite on a read-only fd
 *	rdmsr-size CPU MSR BYTES	-> pread of BYTES bytes
 *	read CPU MSR			-> lseek + read()
 *	stat PATH			-> "stat dir|chr|reg" | "stat ENOENT"
 *	file PATH			-> "file <first line>" | "file ENOENT" (open+read)
 *	fopen PATH			-> the same through fopen()
 *	write PATH TEXT			-> open O_WRONLY + write(): "write ok" | "write EINVAL"...
 *	rdpmc ECX			-> "rdpmc 0x..." | "rdpmc SIGSEGV" (own handler)
 *	cpuid LEAF SUBLEAF		-> via cpu_exec_cpuid_ext: "cpuid a b c d"
 *	cpuid-insn LEAF SUBLEAF		-> the CPUID instruction itself
 *	libcpuid			-> cpuid_get_raw_data + cpu_identify summary
 *	pin CPU				-> sched_setaffinity to CPU
 *	setuid UID			-> drop privileges
 *	fs DIR				-> every path call libpmuemu moves, on DIR
 *					   and files in it: "fs ok" | "fs CALL ERRNO";
 *					   leaves DIR/kept (written "kept")
 */
#include <cpuid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <setjmp.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <limits.h>

#include <libcpuid/libcpuid.h>

static sigjmp_buf segv_jmp;

static void
on_segv(int sig)
{
	(void)sig;
	siglongjmp(segv_jmp, 1);
}

static const char *
errname(int e)
{
	switch (e) {
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ENXIO: return "ENXIO";
	case EIO: return "EIO";
	case EBADF: return "EBADF";
	case EINVAL: return "EINVAL";
	default: return strerror(e);
	}
}

static unsigned long long
num(const char *s)
{
	return strtoull(s, NULL, 0);
}

static int
open_msr(const char *cpu, int flags)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/cpu/%s/msr", cpu);
	return open(path, flags | O_CLOEXEC);
}

static uint64_t
do_rdpmc(uint32_t ecx)
{
	uint32_t lo, hi;

	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(ecx) : "memory");
	return ((uint64_t)hi << 32) | lo;
}

/*
 * The path calls pmustat may make on its journals and locks (and the rest
 * libpmuemu moves), each on a name under @dir as a program writes it.
 * NULL when all worked, else the call that failed (errno says why).
 */
static const char *
fs_calls(const char *dir)
{
	char a[PATH_MAX], b[PATH_MAX], c[PATH_MAX], link_text[PATH_MAX];
	struct statx stx;
	struct stat st;
	struct dirent *e;
	int fd, dfd, entries = 0;
	DIR *d;
	FILE *f;

#define P(buf, name) snprintf(buf, sizeof(buf), "%s/%s", dir, name)
#define TRY(call, what) do { if ((call) < 0) return what; } while (0)
	TRY(mkdir(dir, 0755), "mkdir");
	P(a, "open");
	TRY(fd = open(a, O_WRONLY | O_CREAT | O_EXCL, 0600), "open");
	close(fd);
	P(b, "openat");
	TRY(fd = openat(AT_FDCWD, b, O_WRONLY | O_CREAT | O_EXCL, 0600), "openat");
	close(fd);
	P(c, "fopen");
	f = fopen(c, "w");
	if (!f)
		return "fopen";
	fclose(f);
	TRY(stat(a, &st), "stat");
	TRY(lstat(a, &st), "lstat");
	TRY(fstatat(AT_FDCWD, a, &st, AT_SYMLINK_NOFOLLOW), "fstatat");
	TRY(statx(AT_FDCWD, a, 0, STATX_INO, &stx), "statx");
	TRY(access(a, R_OK), "access");
	TRY(faccessat(AT_FDCWD, a, R_OK, 0), "faccessat");
	TRY(chmod(a, 0640), "chmod");
	TRY(fchmodat(AT_FDCWD, a, 0600, 0), "fchmodat");
	TRY(chown(a, getuid(), getgid()), "chown");
	TRY(lchown(a, getuid(), getgid()), "lchown");
	TRY(fchownat(AT_FDCWD, a, getuid(), getgid(), 0), "fchownat");
	TRY(truncate(a, 0), "truncate");
	TRY(rename(b, c), "rename");
	TRY(renameat(AT_FDCWD, c, AT_FDCWD, b), "renameat");
	TRY(renameat2(AT_FDCWD, b, AT_FDCWD, c, RENAME_NOREPLACE), "renameat2");
	P(b, "link");
	TRY(link(a, b), "link");
	TRY(unlink(b), "unlink");
	P(b, "symlink");
	TRY(symlink("open", b), "symlink");
	TRY(readlink(b, link_text, sizeof(link_text)), "readlink");
	TRY(readlinkat(AT_FDCWD, b, link_text, sizeof(link_text)), "readlinkat");
	TRY(unlinkat(AT_FDCWD, b, 0), "unlinkat");
	P(b, "sub");
	TRY(mkdirat(AT_FDCWD, b, 0700), "mkdirat");
	TRY(rmdir(b), "rmdir");
	TRY(mkdir(b, 0700), "mkdir");
	TRY(unlinkat(AT_FDCWD, b, AT_REMOVEDIR), "unlinkat");
	d = opendir(dir);
	if (!d)
		return "opendir";
	while ((e = readdir(d)) != NULL)
		entries += e->d_name[0] != '.';
	closedir(d);
	if (entries != 2) {
		errno = EEXIST;
		return "opendir";
	}
	/* Relative to a directory fd and to the working directory: where they were opened. */
	TRY(dfd = open(dir, O_RDONLY | O_DIRECTORY), "open");
	TRY(fd = openat(dfd, "relative", O_WRONLY | O_CREAT, 0600), "openat");
	close(fd);
	TRY(unlinkat(dfd, "relative", 0), "unlinkat");
	close(dfd);
	TRY(chdir(dir), "chdir");
	TRY(fd = open("kept", O_WRONLY | O_CREAT, 0644), "open");
	if (write(fd, "kept\n", 5) != 5)
		return "write";
	close(fd);
	TRY(chdir("/"), "chdir");
	TRY(unlink(a), "unlink");
	TRY(unlink(c), "unlink");
#undef P
#undef TRY
	return NULL;
}

/* One operation at argv[0]; returns how many arguments it used, 0 on error. */
static int
probe(int argc, char **argv)
{
	const char *op = argv[0];
	uint64_t val;
	ssize_t n;
	int fd;

#define NEED(k) do { if (argc < (k) + 1) return 0; } while (0)
	if (strcmp(op, "open") == 0) {
		NEED(2);
		fd = open_msr(argv[1], strcmp(argv[2], "rw") == 0 ? O_RDWR : O_RDONLY);
		printf("open %s\n", fd >= 0 ? "ok" : errname(errno));
		if (fd >= 0)
			close(fd);
		return 3;
	}
	if (strcmp(op, "rdmsr") == 0 || strcmp(op, "read") == 0) {
		NEED(2);
		fd = open_msr(argv[1], O_RDONLY);
		if (fd < 0) {
			printf("%s %s\n", op, errname(errno));
			return 3;
		}
		if (op[0] == 'r' && op[1] == 'e') {
			lseek(fd, (off_t)num(argv[2]), SEEK_SET);
			n = read(fd, &val, 8);
		} else {
			n = pread(fd, &val, 8, (off_t)num(argv[2]));
		}
		if (n == 8)
			printf("%s 0x%" PRIx64 "\n", op, val);
		else
			printf("%s %s\n", op, n < 0 ? errname(errno) : "short");
		close(fd);
		return 3;
	}
	if (strcmp(op, "rdmsr-size") == 0) {
		uint64_t two[2];

		NEED(3);
		fd = open_msr(argv[1], O_RDONLY);
		n = pread(fd, two, (size_t)num(argv[3]), (off_t)num(argv[2]));
		if (n < 0)
			printf("rdmsr-size %s\n", errname(errno));
		else
			printf("rdmsr-size %zd\n", n);
		close(fd);
		return 4;
	}
	if (strcmp(op, "wrmsr") == 0 || strcmp(op, "rdmsr-ro-write") == 0) {
		bool ro = op[0] == 'r';

		NEED(ro ? 2 : 3);
		fd = open_msr(argv[1], ro ? O_RDONLY : O_RDWR);
		if (fd < 0) {
			printf("%s %s\n", op, errname(errno));
			return ro ? 3 : 4;
		}
		val = ro ? 0 : num(argv[3]);
		n = pwrite(fd, &val, 8, (off_t)num(argv[2]));
		printf("%s %s\n", op, n == 8 ? "ok" : errname(errno));
		close(fd);
		return ro ? 3 : 4;
	}
	if (strcmp(op, "stat") == 0) {
		struct stat st;

		NEED(1);
		if (stat(argv[1], &st) < 0)
			printf("stat %s\n", errname(errno));
		else
			printf("stat %s\n", S_ISDIR(st.st_mode) ? "dir" : S_ISCHR(st.st_mode) ? "chr" : "reg");
		return 2;
	}
	if (strcmp(op, "file") == 0 || strcmp(op, "fopen") == 0) {
		char buf[256] = "";

		NEED(1);
		if (op[1] == 'i') {
			fd = open(argv[1], O_RDONLY);
			if (fd < 0) {
				printf("file %s\n", errname(errno));
				return 2;
			}
			n = read(fd, buf, sizeof(buf) - 1);
			buf[n > 0 ? n : 0] = '\0';
			close(fd);
		} else {
			FILE *f = fopen(argv[1], "re");

			if (!f) {
				printf("fopen %s\n", errname(errno));
				return 2;
			}
			if (!fgets(buf, sizeof(buf), f))
				buf[0] = '\0';
			fclose(f);
		}
		buf[strcspn(buf, "\n")] = '\0';
		printf("%s %s\n", op, buf);
		return 2;
	}
	if (strcmp(op, "write") == 0) {
		size_t len;
		ssize_t w;

		NEED(2);
		fd = open(argv[1], O_WRONLY | O_CLOEXEC);
		if (fd < 0) {
			printf("write %s\n", errname(errno));
			return 3;
		}
		len = strlen(argv[2]);
		w = write(fd, argv[2], len);
		if (w < 0)
			printf("write %s\n", errname(errno));
		else
			printf("write %s\n", (size_t)w == len ? "ok" : "short");
		close(fd);
		return 3;
	}
	if (strcmp(op, "rdpmc") == 0) {
		NEED(1);
		signal(SIGSEGV, on_segv);
		if (sigsetjmp(segv_jmp, 1) == 0)
			printf("rdpmc 0x%" PRIx64 "\n", do_rdpmc((uint32_t)num(argv[1])));
		else
			printf("rdpmc SIGSEGV\n");
		signal(SIGSEGV, SIG_DFL);
		return 2;
	}
	if (strcmp(op, "cpuid") == 0 || strcmp(op, "cpuid-insn") == 0) {
		uint32_t r[4] = { (uint32_t)num(argv[1]), 0, (uint32_t)num(argv[2]), 0 };

		NEED(2);
		if (op[5] == '-')
			__cpuid_count(r[0], r[2], r[0], r[1], r[2], r[3]);
		else
			cpu_exec_cpuid_ext(r);
		printf("%s %08x %08x %08x %08x\n", op, r[0], r[1], r[2], r[3]);
		return 3;
	}
	if (strcmp(op, "libcpuid") == 0) {
		struct cpu_raw_data_t raw;
		struct cpu_id_t id;

		if (cpuid_get_raw_data(&raw) != 0 || cpu_identify(&raw, &id) != 0) {
			printf("libcpuid %s\n", cpuid_error());
			return 1;
		}
		printf("libcpuid %s family %x model %x leafA %08x %08x %08x %08x leaf1A %08x\n",
		       id.vendor_str, id.ext_family, id.ext_model, raw.basic_cpuid[0xa][0],
		       raw.basic_cpuid[0xa][1], raw.basic_cpuid[0xa][2], raw.basic_cpuid[0xa][3],
		       raw.basic_cpuid[0x1a][0]);
		return 1;
	}
	if (strcmp(op, "pin") == 0) {
		cpu_set_t set;

		NEED(1);
		CPU_ZERO(&set);
		CPU_SET((int)num(argv[1]), &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0) {
			printf("pin %s\n", errname(errno));
			return 0;
		}
		return 2;
	}
	if (strcmp(op, "fs") == 0) {
		const char *failed;

		NEED(1);
		failed = fs_calls(argv[1]);
		if (failed)
			printf("fs %s %s\n", failed, errname(errno));
		else
			printf("fs ok\n");
		return 2;
	}
	if (strcmp(op, "setuid") == 0) {
		NEED(1);
		if (setresuid((uid_t)num(argv[1]), (uid_t)num(argv[1]), (uid_t)num(argv[1])) < 0) {
			printf("setuid %s\n", errname(errno));
			return 0;
		}
		return 2;
	}
#undef NEED
	return 0;
}

int
main(int argc, char **argv)
{
	int i = 1;

	while (i < argc) {
		int used = probe(argc - i, argv + i);

		if (used == 0) {
			fprintf(stderr, "emu-probe: cannot do '%s'\n", argv[i]);
			return 2;
		}
		fflush(stdout);
		i += used;
	}
	return 0;
}
