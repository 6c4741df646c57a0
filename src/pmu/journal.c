/*
 * journal.c - see journal.h. The file is small text so that a person can
 * read it in an incident; it is trusted only after its checksum, its
 * version, its core and every register in it check out, and even then only
 * registers stat mode itself may write are written back.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pmu/delta.h"
#include "pmu/evtsel.h"
#include "hw/hw.h"
#include "hw/proc.h"
#include "pmu/journal.h"
#include "pmu/msr.h"
#include "pmu/pmu_impl.h"
#include "hw/run_dir.h"
#include "pmu/counter_sched.h"
#include "base/err.h"
#include "base/strbuf.h"

static char signal_path[PATH_MAX];
static volatile sig_atomic_t signal_armed;
/* Several cores' journals: paths made when armed (the handler only unlinks). */
static char (*signal_paths)[PATH_MAX];
static volatile sig_atomic_t signal_npaths;

void
journal_path(const char *dir, int core, char *buf, size_t size)
{
	snprintf(buf, size, "%s/cpu%d.journal", dir, core);
}

static uint64_t
fnv1a64(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

int
journal_proc_start_time(pid_t pid, unsigned long long *start)
{
	char state;

	return proc_stat(pid, &state, start);
}

void
journal_add_reg(struct journal *j, const struct pmu_reg *r)
{
	if (r->msr && j->nregs < JOURNAL_MAX_REGS)
		j->regs[j->nregs++] = (struct journal_reg){ r->msr, r->saved };
}

int
journal_add_wrote(struct journal *j, uint32_t msr, uint64_t v)
{
	for (unsigned i = 0; i < j->nwrote; i++)
		if (j->wrote[i].msr == msr && j->wrote[i].value == v)
			return 0;
	if (j->nwrote >= JOURNAL_MAX_WROTE)
		return -E2BIG;
	j->wrote[j->nwrote++] = (struct journal_reg){ msr, v };
	return 0;
}

/* Record what @w writes: EVTSEL and offcore values, fixed field values. */
static int
add_write(struct journal *j, const struct pmu_write *w, uint32_t *offcore)
{
	if (w->clear_ovf)
		return 0;
	for (unsigned i = 0; i < PMU_MAX_GP; i++)
		if (w->msr == msr_evtsel(i))
			return (w->mask & ~w->found) ? journal_add_wrote(j, w->msr, w->value) : 0;
	if (w->msr == MSR_OFFCORE_RSP_0 || w->msr == MSR_OFFCORE_RSP_1) {
		*offcore |= 1u << (w->msr - MSR_OFFCORE_RSP_0);
		return journal_add_wrote(j, w->msr, w->value);
	}
	if (w->msr == MSR_IA32_FIXED_CTR_CTRL) {
		for (unsigned i = 0; i < PMU_MAX_FIXED; i++) {
			uint64_t f = 0xfull << (4 * i);

			if ((w->mask & ~w->found) & f)
				j->fields[i] |= (uint16_t)(1u << FIXED_CTRL_FIELD(w->value, i));
		}
	}
	return 0;
}

int
journal_from_programs(struct journal *j, const struct pmu *p, const struct pmu_program *progs,
		      unsigned nprogs, struct pmustat_error **err)
{
	uint32_t offcore = 0;
	bool perf_metrics = false;
	int rc;

	memset(j, 0, sizeof(*j));
	j->core = p->cpu;
	j->pid = getpid();
	rc = journal_proc_start_time(j->pid, &j->start_time);
	if (rc)
		return err_set(err, rc, "cannot read this process's start time: %s", strerror(-rc));
	/* Exactly what the runs write: the programs pmu_program() executes. */
	for (unsigned r = 0; r < nprogs; r++) {
		const struct pmu_program *prog = &progs[r];

		j->own_gp |= prog->gp;
		j->own_fixed |= prog->fixed;
		perf_metrics |= prog->perf_metrics_reg;
		for (unsigned i = 0; i < prog->nprogram; i++)
			if (add_write(j, &prog->program[i], &offcore))
				goto too_many;
		for (unsigned i = 0; i < prog->nenable; i++)
			if (add_write(j, &prog->enable[i], &offcore))
				goto too_many;
		for (unsigned i = 0; i < prog->ndisable; i++)
			if (add_write(j, &prog->disable[i], &offcore))
				goto too_many;
	}
	if (p->caps.family && p->caps.family->journal_from)
		return p->caps.family->journal_from(j, p, progs, nprogs, err);
	j->taken_gp = j->own_gp & p->taken_gp;
	j->taken_fixed = j->own_fixed & p->taken_fixed;
	j->status = p->status_saved;
	/* Shared registers first: that is also the order of the restore. */
	journal_add_reg(j, &p->global_ctrl);
	if (j->own_fixed)
		journal_add_reg(j, &p->fixed_ctrl);
	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		if (j->own_gp & (1u << i)) {
			journal_add_reg(j, &p->evtsel[i]);
			journal_add_reg(j, &p->pmc[i]);
		}
	}
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++)
		if (j->own_fixed & (1u << i))
			journal_add_reg(j, &p->fixed_ctr[i]);
	/* After FIXED_CTR3: restored in this order, counter first. */
	if (perf_metrics)
		journal_add_reg(j, &p->perf_metrics);
	for (unsigned o = 0; o < PMU_NUM_OFFCORE; o++)
		if (offcore & (1u << o))
			journal_add_reg(j, &p->offcore[o]);
	return 0;
too_many:
	return err_set(err, -E2BIG, "the plan writes more than %d distinct values to EVTSELs and offcore MSRs; count fewer events",
		       JOURNAL_MAX_WROTE);
}

/*
 * Open @dir (creating it 0700 when @create): anybody who can put a journal
 * there could make root write PMU MSRs (run_dir.h).
 */
static int
open_dir(const char *dir, bool create, struct pmustat_error **err)
{
	return run_dir_open(AT_FDCWD, dir, 0700, create, dir, err);
}

int
journal_write(const char *dir, const struct journal *j, struct pmustat_error **err)
{
	char buf[JOURNAL_MAX_BYTES], name[64], path[PATH_MAX];
	size_t len = 0;
	int dfd, rc;

	journal_path(dir, j->core, path, sizeof(path));
	if (j->nregs > JOURNAL_MAX_REGS || j->nwrote > JOURNAL_MAX_WROTE)
		return err_set(err, -EINVAL, "%s: %u registers and %u values, at most %d and %d", path,
			    j->nregs, j->nwrote, JOURNAL_MAX_REGS, JOURNAL_MAX_WROTE);
#define PUT(...) (len += len < sizeof(buf) ? (size_t)snprintf(buf + len, sizeof(buf) - len, __VA_ARGS__) : 0)
	PUT("%s %d\n", JOURNAL_MAGIC, JOURNAL_VERSION);
	PUT("core %d\n", j->core);
	PUT("pid %ld\n", (long)j->pid);
	PUT("start %llu\n", j->start_time);
	PUT("own 0x%" PRIx32 " 0x%" PRIx32 "\n", j->own_gp, j->own_fixed);
	PUT("taken 0x%" PRIx32 " 0x%" PRIx32 "\n", j->taken_gp, j->taken_fixed);
	PUT("status 0x%" PRIx64 "\n", j->status);
	if (j->family)
		PUT("%s 0x%" PRIx32 " %u %d\n", j->family->name, j->own_family, j->family_model, j->family_ht ? 1 : 0);
	for (unsigned i = 0; i < j->nregs; i++)
		PUT("msr 0x%" PRIx32 " 0x%" PRIx64 "\n", j->regs[i].msr, j->regs[i].value);
	for (unsigned i = 0; i < j->nwrote; i++)
		PUT("wrote 0x%" PRIx32 " 0x%" PRIx64 "\n", j->wrote[i].msr, j->wrote[i].value);
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++)
		if (j->fields[i])
			PUT("field %u 0x%x\n", i, (unsigned)j->fields[i]);
	PUT("fnv1a64 0x%016" PRIx64 "\n", fnv1a64(buf, len));
#undef PUT
	if (len >= sizeof(buf))
		return err_set(err, -EOVERFLOW, "%s: journal too large", path);

	dfd = open_dir(dir, true, err);
	if (dfd < 0)
		return dfd;
	snprintf(name, sizeof(name), "cpu%d.journal", j->core);
	rc = run_dir_write_file(dfd, dir, name, buf, len, err);
	close(dfd);
	return rc;
}

/* "KEY VALUE...\n" at *@p: the rest of the line after "KEY " into @rest. */
static bool
take_line(const char **p, const char *end, const char *key, char *rest, size_t size)
{
	size_t klen = strlen(key);
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	size_t n;

	if (!nl || (size_t)(nl - *p) <= klen + 1 || strncmp(*p, key, klen) != 0 || (*p)[klen] != ' ')
		return false;
	n = (size_t)(nl - (*p + klen + 1));
	if (n >= size)
		return false;
	memcpy(rest, *p + klen + 1, n);
	rest[n] = '\0';
	*p = nl + 1;
	return true;
}

/* Strict numbers: the whole string, no sign, no spaces. */
static bool
num(const char *s, int base, unsigned long long max, unsigned long long *out)
{
	char *end;

	if (!s[0] || s[0] == '-' || s[0] == '+' || s[0] == ' ')
		return false;
	if (base == 16 && strncmp(s, "0x", 2) != 0)
		return false;
	errno = 0;
	*out = strtoull(s, &end, base);
	return !errno && end != s && *end == '\0' && *out <= max;
}

/* "A B" into two strict numbers. */
static bool
num2(char *s, unsigned long long max1, unsigned long long max2,
     unsigned long long *a, unsigned long long *b)
{
	char *sp = strchr(s, ' ');

	if (!sp)
		return false;
	*sp = '\0';
	return num(s, 16, max1, a) && num(sp + 1, 16, max2, b);
}

/*
 * A family's line at *@p ("NAME 0x3000 2 0": a family with a journal of
 * its own, pmu/family.h), into @j. True, *@p moved on, when the line is
 * one and well formed, or (*@p as it was) when it names no such family;
 * false for a malformed one.
 */
static bool
take_family_line(const char **p, const char *end, struct journal *j)
{
	for (const struct pmu_family *const *f = pmu_families; *f; f++) {
		unsigned long long own, model, ht;
		char line[128], rest[sizeof(line)], *sp;
		size_t n = strlen((*f)->name);

		if (!(*f)->journal_from || (size_t)(end - *p) <= n || strncmp(*p, (*f)->name, n) != 0 ||
		    (*p)[n] != ' ')
			continue;
		if (!take_line(p, end, (*f)->name, line, sizeof(line)))
			return false;
		sp = strchr(line, ' ');
		if (!sp)
			return false;
		*sp++ = '\0';
		if (!num(line, 16, (1ull << (*f)->plain_counters) - 1, &own))
			return false;
		snprintf(rest, sizeof(rest), "%s", sp);
		sp = strchr(rest, ' ');
		if (!sp)
			return false;
		*sp++ = '\0';
		if (!num(rest, 10, 0xff, &model) || !num(sp, 10, 1, &ht))
			return false;
		j->family = *f;
		j->own_family = (uint32_t)own;
		j->family_model = (unsigned)model;
		j->family_ht = ht == 1;
		return true;
	}
	return true;
}

bool
journal_has_reg(const struct journal *j, uint32_t msr)
{
	for (unsigned i = 0; i < j->nregs; i++)
		if (j->regs[i].msr == msr)
			return true;
	return false;
}

/*
 * A "wrote" line names an EVTSEL of a counter the run programs, or a saved
 * offcore MSR; in a family's journal, what its journal_wrote_ok() says.
 */
static bool
wrote_ok(const struct journal *j, uint32_t msr)
{
	if (j->family)
		return j->family->journal_wrote_ok(j, msr);
	for (unsigned i = 0; i < PMU_MAX_GP; i++)
		if (msr == msr_evtsel(i))
			return j->own_gp & (1u << i);
	return (msr == MSR_OFFCORE_RSP_0 || msr == MSR_OFFCORE_RSP_1) && journal_has_reg(j, msr);
}

/* Every counter named has its registers saved: what recovery compares and restores. */
static bool
regs_complete(const struct journal *j)
{
	if (j->family)
		return !j->own_gp && !j->own_fixed && j->family->journal_complete(j);
	if (!journal_has_reg(j, MSR_IA32_PERF_GLOBAL_CTRL))
		return false;
	if (j->own_fixed && !journal_has_reg(j, MSR_IA32_FIXED_CTR_CTRL))
		return false;
	for (unsigned i = 0; i < PMU_MAX_GP; i++)
		if ((j->own_gp & (1u << i)) && (!journal_has_reg(j, msr_evtsel(i)) || !journal_has_reg(j, msr_pmc(i))))
			return false;
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++)
		if ((j->own_fixed & (1u << i)) && !journal_has_reg(j, msr_fixed_ctr(i)))
			return false;
	return true;
}

int
journal_read(const char *dir, int core, struct journal *j, struct pmustat_error **err)
{
	char buf[JOURNAL_MAX_BYTES + 1], path[PATH_MAX], line[128], name[64];
	unsigned long long a, b;
	const char *p, *end, *sum;
	struct stat st;
	ssize_t n;
	int dfd, fd, rc;

	memset(j, 0, sizeof(*j));
	journal_path(dir, core, path, sizeof(path));
	dfd = open_dir(dir, false, err);
	if (dfd < 0)
		return dfd;
	snprintf(name, sizeof(name), "cpu%d.journal", core);
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	close(dfd);
	if (fd < 0) {
		rc = -errno;
		if (rc == -ENOENT)
			return rc;
		return err_set(err, rc == -ELOOP ? -EBADMSG : rc, "cannot open the journal %s: %s",
			    path, rc == -ELOOP ? "it is a symbolic link" : strerror(-rc));
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) {
		close(fd);
		return err_set(err, -EBADMSG,
			    "the journal %s is not a private regular file of this user; not trusted", path);
	}
	n = read(fd, buf, sizeof(buf));
	if (n < 0) {
		rc = -errno;
		close(fd);
		return err_set(err, rc, "cannot read the journal %s: %s", path, strerror(-rc));
	}
	close(fd);
	if (n > JOURNAL_MAX_BYTES)
		return err_set(err, -EBADMSG, "the journal %s is corrupt: larger than %d bytes", path,
			    JOURNAL_MAX_BYTES);
	buf[n] = '\0';
	if (memchr(buf, '\0', (size_t)n))
		return err_set(err, -EBADMSG, "the journal %s is corrupt: it contains NUL bytes", path);

	/* The checksum line is the last line; it covers everything before it. */
	end = buf + n;
	if (n < 2 || buf[n - 1] != '\n')
		return err_set(err, -EBADMSG, "the journal %s is truncated (no final newline)", path);
	for (sum = end - 1; sum > buf && sum[-1] != '\n'; sum--)
		;
	p = sum;
	if (!take_line(&p, end, "fnv1a64", line, sizeof(line)) || strlen(line) != 18 ||
	    !num(line, 16, UINT64_MAX, &a))
		return err_set(err, -EBADMSG, "the journal %s is corrupt or truncated: no checksum line", path);
	if (a != fnv1a64(buf, (size_t)(sum - buf)))
		return err_set(err, -EBADMSG, "the journal %s is corrupt: checksum mismatch", path);

	end = sum;
	p = buf;
	if (!take_line(&p, end, JOURNAL_MAGIC, line, sizeof(line)))
		return err_set(err, -EBADMSG, "%s is not a pmustat journal", path);
	if (!num(line, 10, INT_MAX, &a) || a != JOURNAL_VERSION)
		return err_set(err, -EBADMSG, "the journal %s has version %s; this pmustat reads version %d only",
			    path, line, JOURNAL_VERSION);
	if (!take_line(&p, end, "core", line, sizeof(line)) || !num(line, 10, INT_MAX, &a))
		goto bad;
	j->core = (int)a;
	if (j->core != core)
		return err_set(err, -EBADMSG, "the journal %s is for core %d, not %d", path, j->core, core);
	if (!take_line(&p, end, "pid", line, sizeof(line)) || !num(line, 10, INT_MAX, &a) || a == 0)
		goto bad;
	j->pid = (pid_t)a;
	if (!take_line(&p, end, "start", line, sizeof(line)) || !num(line, 10, ULLONG_MAX, &a))
		goto bad;
	j->start_time = a;
	if (!take_line(&p, end, "own", line, sizeof(line)) ||
	    !num2(line, (1u << PMU_MAX_GP) - 1, (1u << PMU_MAX_FIXED) - 1, &a, &b))
		goto bad;
	j->own_gp = (uint32_t)a;
	j->own_fixed = (uint32_t)b;
	if (!take_line(&p, end, "taken", line, sizeof(line)) ||
	    !num2(line, j->own_gp, j->own_fixed, &a, &b) || (a & ~(unsigned long long)j->own_gp) ||
	    (b & ~(unsigned long long)j->own_fixed))
		goto bad;
	j->taken_gp = (uint32_t)a;
	j->taken_fixed = (uint32_t)b;
	if (!take_line(&p, end, "status", line, sizeof(line)) || !num(line, 16, UINT64_MAX, &a))
		goto bad;
	j->status = a;
	if (p < end && !take_family_line(&p, end, j))
		goto bad;
	/* The saved registers, then the values written, then the fixed fields: in that order. */
	while (p < end && strncmp(p, "msr ", 4) == 0) {
		if (j->nregs >= JOURNAL_MAX_REGS || !take_line(&p, end, "msr", line, sizeof(line)) ||
		    !num2(line, UINT32_MAX, UINT64_MAX, &a, &b))
			goto bad;
		for (unsigned i = 0; i < j->nregs; i++)
			if (j->regs[i].msr == a)
				goto bad;
		j->regs[j->nregs++] = (struct journal_reg){ (uint32_t)a, b };
	}
	while (p < end && strncmp(p, "wrote ", 6) == 0) {
		if (j->nwrote >= JOURNAL_MAX_WROTE || !take_line(&p, end, "wrote", line, sizeof(line)) ||
		    !num2(line, UINT32_MAX, UINT64_MAX, &a, &b) || !wrote_ok(j, (uint32_t)a))
			goto bad;
		for (unsigned i = 0; i < j->nwrote; i++)
			if (j->wrote[i].msr == a && j->wrote[i].value == b)
				goto bad;
		j->wrote[j->nwrote++] = (struct journal_reg){ (uint32_t)a, b };
	}
	while (p < end) {
		char *sp;

		if (!take_line(&p, end, "field", line, sizeof(line)))
			goto bad;
		sp = strchr(line, ' ');
		if (!sp)
			goto bad;
		*sp = '\0';
		if (!num(line, 10, PMU_MAX_FIXED - 1, &a) || !num(sp + 1, 16, 0xffff, &b) || b == 0 ||
		    !(j->own_fixed & (1u << a)) || j->fields[a])
			goto bad;
		j->fields[a] = (uint16_t)b;
	}
	if (!regs_complete(j))
		return err_set(err, -EBADMSG,
			    "the journal %s is corrupt: a counter it names lacks a saved register", path);
	return 0;
bad:
	{
		unsigned lineno = 1;

		for (const char *c = buf; c < p; c++)
			lineno += *c == '\n';
		return err_set(err, -EBADMSG, "the journal %s is corrupt: bad line %u", path, lineno);
	}
}

int
journal_remove(const char *dir, int core)
{
	char path[PATH_MAX];

	journal_path(dir, core, path, sizeof(path));
	return unlink(path) < 0 ? -errno : 0;
}

enum journal_owner
journal_owner(const struct journal *j)
{
	unsigned long long start;
	char state;
	int rc;

	if (kill(j->pid, 0) < 0 && errno == ESRCH)
		return JOURNAL_OWNER_DEAD;
	rc = proc_stat(j->pid, &state, &start);
	if (rc == -ESRCH)
		return JOURNAL_OWNER_DEAD;
	/*
	 * A zombie (killed, not reaped yet by its parent) counts no more and
	 * holds no lock: the run is gone.
	 */
	if (rc == 0 && start == j->start_time && (state == 'Z' || state == 'X' || state == 'x'))
		return JOURNAL_OWNER_DEAD;
	/*
	 * Alive but started at another time: the pid was reused, and that
	 * process cannot be the run that wrote the journal. When /proc
	 * cannot tell, assume the run lives: never touch a live run's core.
	 */
	if (rc == 0 && start != j->start_time)
		return JOURNAL_OWNER_REUSED;
	return JOURNAL_OWNER_LIVE;
}

void
journal_arm_signal_remove(const char *dir, int core)
{
	signal_armed = 0;
	if (!dir)
		return;
	journal_path(dir, core, signal_path, sizeof(signal_path));
	signal_armed = 1;
}

void
journal_remove_from_signal(void)
{
	/* unlink() is async-signal-safe; the path was built when armed. */
	if (signal_armed)
		(void)unlink(signal_path);
	for (sig_atomic_t i = 0; signal_paths && i < signal_npaths; i++)
		(void)unlink(signal_paths[i]);
}

int
journal_arm_signal_remove_cores(const char *dir, const int *cores, unsigned n)
{
	char (*paths)[PATH_MAX] = NULL;

	signal_npaths = 0;
	free(signal_paths);
	signal_paths = NULL;
	if (!dir || n == 0)
		return 0;
	paths = calloc(n, sizeof(*paths));
	if (!paths)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++)
		journal_path(dir, cores[i], paths[i], sizeof(paths[i]));
	signal_paths = paths;
	signal_npaths = (sig_atomic_t)n;
	return 0;
}
