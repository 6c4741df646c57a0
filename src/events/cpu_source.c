#include "events/cpu_source.h"

#include <errno.h>
#include <fcntl.h>
#include <libcpuid/libcpuid.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "events/cpu.h"
#include "events/cpu_dump_leaf23.h"
#include "hw/hw.h"
#include "base/invoker.h"
#include "base/err.h"

/* libcpuid prints warnings on stderr by default; a bad dump is our error to report. */
static void
quiet_warning(const char *msg)
{
	(void)msg;
}

/*
 * Open the dump once, without following a symlink, and keep it open: libcpuid
 * then reads it through /proc/self/fd/N, so what was checked is what is read
 * (no swapping the path for a link in between). Returns the fd or -errno.
 */
static int
open_dump_file(const char *path, struct pmustat_error **err)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	int ret = 0;

	if (fd < 0) {
		int e = errno;

		if (e == ELOOP)
			return err_set(err, -e, "%s: is a symbolic link; give the dump file itself", path);
		return err_set(err, -e, "%s: cannot open CPUID dump: %s", path, strerror(e));
	}
	if (fstat(fd, &st) < 0) {
		ret = err_set(err, -errno, "%s: cannot stat CPUID dump: %s", path, strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		ret = err_set(err, -EINVAL, "%s: not a regular file; give a libcpuid raw CPUID dump", path);
	} else if ((unsigned long long)st.st_size > CPU_DUMP_MAX_BYTES) {
		ret = err_set(err, -EFBIG, "%s: %lld bytes is too large for a CPUID dump (limit %u MiB)",
			 path, (long long)st.st_size, CPU_DUMP_MAX_BYTES >> 20);
	}
	if (ret < 0) {
		close(fd);
		return ret;
	}
	return fd;
}

/*
 * What libcpuid's reader does with one line, as far as memory safety goes.
 * sscanf on purpose: the point is to parse exactly as libcpuid does.
 */
/* NOLINTBEGIN(cert-err34-c) */
#define DATA_LINE(fmt) (sscanf(line, fmt, &i, &r[0], &r[1], &r[2], &r[3]) >= 5)
static const char *
dump_line_problem(const char *line, bool *is_header, bool *aida, bool *have_cpu)
{
	/* libcpuid's own table sizes for the sub-leaf arrays. */
	static const struct {
		uint32_t leaf;
		int max;
	} subleaves[] = {
		{ 0x4, MAX_INTELFN4_LEVEL }, { 0xb, MAX_INTELFN11_LEVEL },
		{ 0x12, MAX_INTELFN12H_LEVEL }, { 0x14, MAX_INTELFN14H_LEVEL },
		{ 0x8000001d, MAX_AMDFN8000001DH_LEVEL },
	};
	char word[100];
	uint32_t addr, r[4];
	int i, cpu, subleaf, assigned;

	if (*is_header) {
		if (sscanf(line, "version=%99s", word) >= 1)
			return strlen(word) >= 8 ? "a version= longer than 7 characters" : NULL;
		if (sscanf(line, "basic_cpuid[%d]=%x %x %x %x", &i, &r[0], &r[1], &r[2], &r[3]) >= 5) {
			*is_header = false;
			*have_cpu = true;
		} else if (strcmp(line, "------[ Versions ]------") == 0 ||
			   strcmp(line, "------[ Logical CPU #0 ]------") == 0 ||
			   strcmp(line, "------[ CPUID Registers / Logical CPU #0 ]------") == 0) {
			*is_header = false;
			*aida = true;
		}
	}
	if (!*aida) {
		if (sscanf(line, "_________________ Logical CPU #%d _________________", &cpu) >= 1) {
			*is_header = false;
			*have_cpu = true;
			return cpu < 0 || cpu >= CPU_SETSIZE ? "a logical CPU number out of range" : NULL;
		}
		if (DATA_LINE("basic_cpuid[%d]=%x %x %x %x") || DATA_LINE("ext_cpuid[%d]=%x %x %x %x") ||
		    DATA_LINE("intel_fn4[%d]=%x %x %x %x") || DATA_LINE("intel_fn11[%d]=%x %x %x %x") ||
		    DATA_LINE("intel_fn12h[%d]=%x %x %x %x") ||
		    DATA_LINE("intel_fn14h[%d]=%x %x %x %x") ||
		    DATA_LINE("amd_fn8000001dh[%d]=%x %x %x %x"))
			return *have_cpu ? NULL : "CPUID data before any CPU";
		return NULL;
	}
	if (sscanf(line, "------[ Logical CPU #%d ]------", &cpu) >= 1 ||
	    sscanf(line, "------[ CPUID Registers / Logical CPU #%d ]------", &cpu) >= 1) {
		*have_cpu = true;
		return cpu < 0 || cpu >= CPU_SETSIZE ? "a logical CPU number out of range" : NULL;
	}
	subleaf = 0;
	assigned = sscanf(line, "CPUID %x: %x-%x-%x-%x [SL %02i]", &addr, &r[0], &r[1], &r[2],
			  &r[3], &subleaf);
	if (assigned < 5)
		return NULL;
	if (!*have_cpu)
		return "CPUID data before any CPU";
	for (size_t k = 0; assigned >= 6 && k < sizeof(subleaves) / sizeof(subleaves[0]); k++) {
		if (addr == subleaves[k].leaf && (subleaf < 0 || subleaf >= subleaves[k].max))
			return "a sub-leaf out of range";
	}
	return NULL;
}
/* NOLINTEND(cert-err34-c) */
#undef DATA_LINE

/*
 * libcpuid 0.6.2 trusts dump files: a long version=, a negative CPU number,
 * an AIDA64 sub-leaf past its table or CPUID data before the first CPU
 * header make it write out of bounds (found by tests/fuzz). So the file is
 * first read exactly as libcpuid reads it (fgets into 100 bytes, the same
 * formats) and refused if any line would do that.
 */
static int
check_dump_text(int fd, const char *path, struct pmustat_error **err)
{
	bool is_header = true, aida = false, have_cpu = false;
	unsigned lineno = 0;
	char line[100];
	int ret = 0;
	int dupfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	FILE *f = dupfd >= 0 ? fdopen(dupfd, "r") : NULL;

	if (!f) {
		ret = err_set(err, -errno, "%s: cannot read CPUID dump: %s", path, strerror(errno));
		if (dupfd >= 0)
			close(dupfd);
		return ret;
	}
	while (fgets(line, sizeof(line), f)) {
		const char *problem;

		line[strcspn(line, "\n")] = '\0';
		if (!line[0])
			continue;
		if (strcmp(line, "--------------------------------------------------------------------------------") == 0)
			break;
		lineno++;
		problem = dump_line_problem(line, &is_header, &aida, &have_cpu);
		if (problem) {
			ret = err_set(err, -EINVAL, "%s: line %u has %s; this is not a raw dump as written by --save-cpu-dump or cpuid_tool --save",
				      path, lineno, problem);
			break;
		}
	}
	if (!ret && ferror(f)) {
		ret = err_set(err, -EIO, "%s: read error", path);
	}
	fclose(f);
	return ret;
}

static bool
raw_is_empty(const struct cpu_raw_data_t *raw)
{
	static const uint32_t zero[4];

	return memcmp(raw->basic_cpuid[0], zero, sizeof(zero)) == 0;
}

/* @fd_path names the checked dump; messages name @path, as the user gave it. */
static int
read_dump(const char *path, const char *fd_path, int cpu, struct cpu_info *out,
	  int *used_cpu, struct pmustat_error **err)
{
	struct cpu_raw_data_array_t all;
	struct cpu_raw_data_t one;
	struct cpu_leaf23 l23;
	int idx = 0;

	cpuid_set_warn_function(quiet_warning);
	memset(&all, 0, sizeof(all));
	/*
	 * libcpuid 0.6.2 returns success even when it understood nothing, so
	 * an empty result is the failure signal. Single-CPU native dumps have
	 * no per-CPU blocks and come back empty from the all-CPU reader.
	 */
	if (cpuid_deserialize_all_raw_data(&all, fd_path) == 0 && all.num_raw > 0) {
		idx = cpu < 0 ? all.num_raw - 1 : cpu;

		if (idx >= all.num_raw) {
			err_set(err, -ENXIO, "%s: the dump has %d CPU%s (0-%d); CPU %d is not in it",
				path, all.num_raw, all.num_raw == 1 ? "" : "s", all.num_raw - 1, cpu);
			cpuid_free_raw_data_array(&all);
			return -ENXIO;
		}
		one = all.raw[idx];
		cpuid_free_raw_data_array(&all);
		if (used_cpu)
			*used_cpu = idx;
	} else {
		cpuid_free_raw_data_array(&all);
		memset(&one, 0, sizeof(one));
		if (cpuid_deserialize_raw_data(&one, fd_path) != 0 || raw_is_empty(&one)) {
			return err_set(err, -EINVAL, "%s: libcpuid could not read any CPUID data from it; expected a raw dump as written by --save-cpu-dump or cpuid_tool --save",
				 path);
		}
		if (cpu > 0) {
			return err_set(err, -ENXIO, "%s: the dump has one CPU (0); CPU %d is not in it", path, cpu);
		}
		if (used_cpu)
			*used_cpu = 0;
	}
	if (raw_is_empty(&one)) {
		return err_set(err, -EINVAL, "%s: the CPU block in the dump holds no CPUID leaf 0", path);
	}
	cpu_dump_leaf23(fd_path, idx, &l23);
	cpu_decode_ext(&one, &l23, out);
	return 0;
}

static int
load_dump(const char *path, int cpu, struct cpu_info *out, int *used_cpu,
	  struct pmustat_error **err)
{
	struct invoker inv;
	struct invoker_fs fs;
	char fd_path[32];
	int fd, ret;

	/* Opened with the rights of the user who named it: root's files are not theirs to read. */
	ret = invoker_get(&inv, err);
	if (ret == 0)
		ret = invoker_fs_enter(&inv, &fs, err);
	if (ret)
		return ret;
	fd = open_dump_file(path, err);
	invoker_fs_leave(&fs);
	if (fd < 0)
		return fd;
	ret = check_dump_text(fd, path, err);
	if (ret == 0) {
		snprintf(fd_path, sizeof(fd_path), "/proc/self/fd/%d", fd);
		ret = read_dump(path, fd_path, cpu, out, used_cpu, err);
	}
	close(fd);
	return ret;
}

int
cpu_parse_number(const char *arg, int *cpu)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 0 || v >= CPU_SETSIZE)
		return -EINVAL;
	*cpu = (int)v;
	return 0;
}

static bool
cpu_num(const char **s, int ncpus, int *out)
{
	char *end;
	long v;

	if (**s < '0' || **s > '9')
		return false;
	errno = 0;
	v = strtol(*s, &end, 10);
	if (errno || v < 0 || v >= ncpus)
		return false;
	*s = end;
	*out = (int)v;
	return true;
}

int
cpu_parse_list(const char *list, int ncpus, bool *set, struct pmustat_error **err)
{
	const char *s = list;

	memset(set, 0, (size_t)ncpus * sizeof(*set));
	if (strcmp(list, "all") == 0) {
		for (int i = 0; i < ncpus; i++)
			set[i] = true;
		return 0;
	}
	for (;;) {
		int a, b;

		if (!cpu_num(&s, ncpus, &a))
			goto bad;
		b = a;
		if (*s == '-') {
			s++;
			if (!cpu_num(&s, ncpus, &b) || b < a)
				goto bad;
		}
		for (int i = a; i <= b; i++)
			set[i] = true;
		if (*s == '\0')
			return 0;
		if (*s != ',')
			goto bad;
		s++;
	}
bad:
	return err_set(err, -EINVAL, "-C %s: not a CPU list; use \"all\", or CPUs and ranges below %d such as 0-3,6",
		       list, ncpus);
}

int
cpu_default_core(void)
{
	cpu_set_t set;
	int last = 0;

	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 0;
	for (int i = 0; i < CPU_SETSIZE; i++) {
		if (CPU_ISSET(i, &set))
			last = i;
	}
	return last;
}

/* Leaf 0x23 of a live CPU whose maximum leaf reaches it; not read when the seam cannot. */
static void
read_leaf23(struct hw *hw, int cpu, const struct cpu_raw_data_t *raw, struct cpu_leaf23 *l23)
{
	memset(l23, 0, sizeof(*l23));
	if (raw->ext_cpuid[0][0] >= 0x80000022u && hw_cpuid_leaf(hw, cpu, 0x80000022u, 0, l23->ext22) == 0)
		l23->ext22_read = true;
	if (raw->basic_cpuid[0][0] < 0x23)
		return;
	for (uint32_t sub = 0; sub < CPU_LEAF23_SUBLEAVES; sub++) {
		if (hw_cpuid_leaf(hw, cpu, 0x23, sub, l23->sub[sub]) < 0) {
			memset(l23->sub, 0, sizeof(l23->sub));
			return;
		}
	}
	l23->read = true;
}

int
cpu_source_load(struct hw *hw, const char *dump_path, int cpu, struct cpu_info *out,
		int *used_cpu, struct pmustat_error **err)
{
	struct cpu_raw_data_t raw;
	struct cpu_leaf23 l23;
	int ret;

	if (dump_path)
		return load_dump(dump_path, cpu, out, used_cpu, err);

	if (cpu < 0)
		cpu = cpu_default_core();
	memset(&raw, 0, sizeof(raw));
	ret = hw_cpuid(hw, cpu, &raw);
	if (ret < 0) {
		if (ret == -ENXIO || ret == -EINVAL)
			return err_set(err, ret, "CPU %d: no such CPU, or not in pmustat's allowed set (see taskset -p $$)", cpu);
		return err_set(err, ret, "CPU %d: reading CPUID failed: %s", cpu, strerror(-ret));
	}
	if (used_cpu)
		*used_cpu = cpu;
	read_leaf23(hw, cpu, &raw, &l23);
	cpu_decode_ext(&raw, &l23, out);
	return 0;
}

/*
 * Copy libcpuid's dump from @fd to @out, with each CPU's leaf 0x23 (@l23,
 * @ncpus of them, indexed as libcpuid numbers the blocks) as lines of the
 * AIDA64 form right after the block's header: libcpuid's reader passes
 * over them, cpu_dump_leaf23() reads them.
 */
static int
copy_dump(int fd, const struct cpu_leaf23 *l23, int ncpus, FILE *out)
{
	int dupfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	FILE *in = dupfd >= 0 ? fdopen(dupfd, "r") : NULL;
	char *line = NULL;
	size_t cap = 0;
	int ret = 0, n;

	if (!in) {
		ret = -errno;
		if (dupfd >= 0)
			close(dupfd);
		return ret;
	}
	while (getline(&line, &cap, in) > 0) {
		if (fputs(line, out) == EOF) {
			ret = -EIO;
			break;
		}
		/* NOLINTNEXTLINE(cert-err34-c): the header libcpuid just wrote */
		if (sscanf(line, "_________________ Logical CPU #%d", &n) != 1 || n < 0 || n >= ncpus)
			continue;
		if (l23[n].ext22_read) {
			const uint32_t *r = l23[n].ext22;

			if (fprintf(out, "CPUID 80000022: %08X-%08X-%08X-%08X\n", r[0], r[1], r[2], r[3]) < 0)
				ret = -EIO;
		}
		if (!l23[n].read)
			continue;
		for (unsigned sub = 0; sub < CPU_LEAF23_SUBLEAVES; sub++) {
			const uint32_t *r = l23[n].sub[sub];

			if (fprintf(out, "CPUID 00000023: %08X-%08X-%08X-%08X [SL %02X]\n", r[0], r[1], r[2], r[3],
				    sub) < 0)
				ret = -EIO;
		}
	}
	free(line);
	fclose(in);
	return ret;
}

int
cpu_source_save(struct hw *hw, const int *cpus, int ncpus, FILE *out, const char *path,
		struct pmustat_error **err)
{
	struct cpu_raw_data_array_t all;
	struct cpu_leaf23 *l23;
	char fd_path[32];
	int fd = -1, ret = 0;

	memset(&all, 0, sizeof(all));
	all.with_affinity = true;
	all.num_raw = (logical_cpu_t)ncpus;
	all.raw = calloc((size_t)ncpus, sizeof(*all.raw));
	l23 = calloc((size_t)ncpus, sizeof(*l23));
	if (!all.raw || !l23) {
		free(all.raw);
		free(l23);
		return err_set(err, -ENOMEM, "out of memory");
	}
	for (int i = 0; i < ncpus; i++) {
		ret = hw_cpuid(hw, cpus[i], &all.raw[i]);
		if (ret < 0) {
			err_set(err, ret, "CPU %d: reading CPUID failed: %s", cpus[i], strerror(-ret));
			goto out;
		}
		read_leaf23(hw, cpus[i], &all.raw[i], &l23[i]);
	}
	/*
	 * libcpuid writes to a path it opens itself (and truncates): a file of
	 * our own in memory, copied to @out, which may be a descriptor that
	 * must not be reopened.
	 */
	fd = memfd_create("pmustat-cpuid", MFD_CLOEXEC);
	if (fd < 0) {
		ret = err_set(err, -errno, "%s: cannot write the CPUID dump: %s", path, strerror(errno));
		goto out;
	}
	snprintf(fd_path, sizeof(fd_path), "/proc/self/fd/%d", fd);
	if (cpuid_serialize_all_raw_data(&all, fd_path) != 0) {
		ret = err_set(err, -EIO, "%s: cannot write the CPUID dump: %s", path, cpuid_error());
		goto out;
	}
	/* libcpuid wrote through a file of its own: ours is still at offset 0. */
	ret = copy_dump(fd, l23, ncpus, out);
	if (ret < 0)
		err_set(err, ret, "%s: cannot write the CPUID dump: %s", path, strerror(-ret));
out:
	if (fd >= 0)
		close(fd);
	free(all.raw);
	free(l23);
	return ret;
}
