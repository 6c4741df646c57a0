/*
 * state.c - `pmustat state [-C LIST] [--json] [--raw] [--watch MS
 * [--count N]]`: what the PMU of each core holds right now, decoded, and
 * who probably programmed it.
 *
 * Read-only: the MSR devices are opened read-only and nothing is written,
 * not even a stale journal's restore (that is `pmustat reset`'s job; state
 * only says a journal is there). This file reads, frame by frame;
 * state_print.c prints.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/err.h"
#include "base/exit_codes.h"
#include "cli/cli.h"
#include "cli/state.h"
#include "pmus/netburst/nb_table.h"
#include "engine/target.h"
#include "events/cpu_source.h"
#include "hw/cpulock.h"
#include "hw/hw.h"
#include "hw/proc.h"
#include "hw/run_dir.h"
#include "pmu/journal.h"
#include "pmu/owner.h"
#include "pmu/snapshot.h"

#define WATCH_MIN_MS 100

struct state_opts {
	const char *cpus;
	bool json;
	bool raw;
	long watch_ms;		/* 0: once */
	long count;		/* frames with --watch; 0: until ^C */
};

static volatile sig_atomic_t state_stop;

static void
on_stop(int sig)
{
	(void)sig;
	state_stop = 1;
}

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: pmustat state [-C LIST] [--json] [--raw] [--watch MS [--count N]]\n"
		"\n"
		"  -C, --cpu LIST   cores to show: N, ranges and lists (0-3,6), or all\n"
		"                   (default: the last allowed CPU)\n"
		"      --json       one JSON object (one per line and frame with --watch)\n"
		"      --raw        the registers' addresses and values, not decoded\n"
		"      --watch MS   redraw every MS milliseconds (at least %d) with rates;\n"
		"                   Ctrl-C stops\n"
		"      --count N    with --watch: stop after N frames\n"
		"Reads only: never writes an MSR.\n", WATCH_MIN_MS);
}

static int
parse_long(const char *s, long min, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min)
		return -EINVAL;
	*out = v;
	return 0;
}

#define STATE_PROG "pmustat state"
#define STATE_OPTSTRING "C:h"

/* 0, 1 for --help (printed), or -EINVAL with the usage error. */
static int
parse_opts(int argc, char **argv, struct state_opts *o, struct pmustat_error **err)
{
	static const struct option longopts[] = {
		{ "cpu", required_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'j' },
		{ "raw", no_argument, NULL, 'r' },
		{ "watch", required_argument, NULL, 'w' },
		{ "count", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, STATE_OPTSTRING, longopts, NULL)) != -1) {
		switch (c) {
		case 'C':
			o->cpus = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'r':
			o->raw = true;
			break;
		case 'w':
			if (parse_long(optarg, WATCH_MIN_MS, &o->watch_ms))
				return cli_usage_error(err, STATE_PROG, "--watch %s: give milliseconds, at least %d",
						       optarg, WATCH_MIN_MS);
			break;
		case 'n':
			if (parse_long(optarg, 1, &o->count))
				return cli_usage_error(err, STATE_PROG, "--count %s: give a number of frames, at least 1",
						       optarg);
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			return cli_option_error(err, STATE_PROG, argv, STATE_OPTSTRING);
		}
	}
	if (optind < argc)
		return cli_usage_error(err, STATE_PROG, "unexpected argument %s", argv[optind]);
	if (o->count && !o->watch_ms)
		return cli_usage_error(err, STATE_PROG, "--count goes with --watch");
	return 0;
}

/* CPUID, event table: what does not change between frames. 0 or -1 (error set). */
static int
core_setup(struct hw *hw, struct state_core *c, bool raw)
{
	struct pmustat_error *err = NULL;
	struct target t;
	int rc;

	rc = target_open(&t, hw, NULL, c->core, &c->error);
	if (rc < 0)
		return -1;
	c->cpu = t.cpu;
	snprintf(c->key, sizeof(c->key), "%s", t.key);
	c->nb_sibling = -1;
	if (c->cpu.netburst.present) {
		struct netburst_caps nb;

		/* Without it the core's own journal only: owners of the sibling's run unknown. */
		if (target_nb_core(&t, hw, c->core, &nb, &c->nb_sibling) < 0)
			c->nb_sibling = -1;
	}
	if (!target_can_count(&t)) {
		err_set(&c->error, -ENODEV, "core %d (%s): %s", c->core, c->key, cpu_why(&c->cpu));
		target_close(&t);
		return -1;
	}
	/* No table: architectural events only, as stat mode does. */
	if (!raw && target_load_table(&t, &err) < 0)
		fprintf(stderr, "pmustat state: warning: %s; architectural event names only\n", err_msg(err));
	err_free(err);
	if (t.table) {
		c->table = t.table;
		t.table = NULL;
		snprintf(c->table_name, sizeof(c->table_name), "%s", t.choice.table);
	}
	if (t.nb) {
		c->nb_table = t.nb;
		t.nb = NULL;
		snprintf(c->table_name, sizeof(c->table_name), "%s", t.choice.table);
	}
	target_close(&t);
	return 0;
}

/*
 * A NetBurst core's hints: the counters the journals record, its own and,
 * with Hyper-Threading, its sibling's (the threads share the registers, so
 * a run on the sibling holds counters here too), and that run's pid.
 */
static void
nb_journals(struct state_core *c)
{
	struct journal sj;

	c->pm.nb_journals_read = true;
	if (c->journal_rc == 0 && c->journal.family && c->journal.family == c->cpu.pmu.family)
		c->pm.nb_journaled |= c->journal.own_family;
	if (c->nb_sibling < 0 || journal_read(JOURNAL_DIR, c->nb_sibling, &sj, NULL) != 0 || !sj.family ||
	    sj.family != c->cpu.pmu.family)
		return;
	c->pm.nb_journaled |= sj.own_family;
	if (journal_owner(&sj) == JOURNAL_OWNER_LIVE) {
		if (!c->pm.live_pid)
			c->pm.live_pid = sj.pid;
	} else if (!c->pm.killed_pid) {
		c->pm.killed_pid = sj.pid;
	}
}

/* One frame's reading of a core. 0 or -1 (error set). */
static int
core_read(struct hw *hw, struct state_core *c)
{
	c->prev = c->st;
	if (c->cpu.netburst.present ? state_nb_read(hw, c) < 0
				    : pmu_snapshot_read(hw, c->core, &c->cpu.pmu, &c->st, &c->error) < 0)
		return -1;
	if (hw_read_file(hw, HW_FILE_NMI_WATCHDOG, c->watchdog, sizeof(c->watchdog)) < 0)
		c->watchdog[0] = '\0';
	c->watchdog[strcspn(c->watchdog, "\n")] = '\0';

	memset(&c->pm, 0, sizeof(c->pm));
	c->pm.live_pid = cpulock_holder(c->core);
	err_clear(&c->journal_err);
	c->journal_rc = journal_read(JOURNAL_DIR, c->core, &c->journal, &c->journal_err);
	if (c->journal_rc == 0) {
		c->journal_owner = journal_owner(&c->journal);
		if (c->journal_owner == JOURNAL_OWNER_LIVE && !c->pm.live_pid)
			c->pm.live_pid = c->journal.pid;
		else if (c->journal_owner != JOURNAL_OWNER_LIVE)
			c->pm.killed_pid = c->journal.pid;
	}
	if (c->cpu.netburst.present)
		nb_journals(c);
	if (c->pm.live_pid)
		proc_command(c->pm.live_pid, c->live_command, sizeof(c->live_command));
	c->pm.watchdog_on = pmu_owner_watchdog_on(c->watchdog);
	if (c->cpu.netburst.present) {
		memset(&c->occ, 0, sizeof(c->occ));
		pmu_owner_scan_nb(c->nb.cccr, c->nb.escr, &c->pm, &c->occ);
	} else {
		pmu_snapshot_occupancy(&c->st, &c->pm, &c->occ);
	}
	return 0;
}

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	/* A signal cuts it short: state_stop then ends the loop. */
	while (!state_stop && nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* The first failure, kept for the exit status and the JSON "error". */
static void
keep_first(struct pmustat_error **first, const struct pmustat_error *e)
{
	if (!*first && e)
		err_set_status(first, err_status(e), err_rc(e), "%s", err_msg(e));
}

int
cmd_state(int argc, char **argv, struct pmustat_error **err)
{
	struct state_opts o;
	struct state_core *cores = NULL;
	struct hw *hw = NULL;
	struct pmustat_error *first = NULL;
	int ncpus, n = 0, status = 0, rc;
	bool *set = NULL, tty;
	double t_prev = 0;
	long frame = 0;

	rc = parse_opts(argc, argv, &o, err);
	if (rc)
		return rc > 0 ? 0 : EXIT_PMUSTAT_FAILURE;
	ncpus = get_nprocs_conf();
	if (ncpus < 1)
		ncpus = 1;
	set = calloc((size_t)ncpus, sizeof(*set));
	cores = calloc((size_t)ncpus, sizeof(*cores));
	if (!set || !cores) {
		err_set(&first, -ENOMEM, "out of memory");
		goto fail;
	}
	if (o.cpus) {
		if (cpu_parse_list(o.cpus, ncpus, set, &first) < 0)
			goto fail;
	} else {
		int d = cpu_default_core();

		set[d >= 0 && d < ncpus ? d : 0] = true;
	}
	hw = hw_linux_new();
	if (!hw) {
		err_set(&first, -ENOMEM, "out of memory");
		goto fail;
	}
	for (int i = 0; i < ncpus; i++) {
		if (!set[i])
			continue;
		cores[n].core = i;
		cores[n].setup_ok = core_setup(hw, &cores[n], o.raw) == 0;
		if (!cores[n].setup_ok)
			keep_first(&first, cores[n].error);
		n++;
	}

	state_stop = 0;
	if (o.watch_ms) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_stop;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
	}
	tty = isatty(STDOUT_FILENO);
	for (;;) {
		double t = clock_monotonic_seconds(), dt = t_prev ? t - t_prev : 0;

		for (int i = 0; i < n; i++) {
			if (!cores[i].setup_ok)
				continue;
			cores[i].have_prev = frame > 0 && !cores[i].error;
			err_clear(&cores[i].error);
			if (core_read(hw, &cores[i]) < 0)
				keep_first(&first, cores[i].error);
		}
		t_prev = t;
		if (o.json) {
			state_print_json(cores, n, o.raw, o.watch_ms != 0, dt, first ? err_msg(first) : NULL);
		} else {
			if (o.watch_ms && tty)
				fputs("\033[H\033[2J", stdout);
			else if (o.watch_ms && frame > 0)
				fputc('\n', stdout);
			for (int i = 0; i < n; i++) {
				if (o.raw && cores[i].error) {
					fprintf(stderr, "pmustat state: %s\n", err_msg(cores[i].error));
					fprintf(stdout, "core %d: not readable\n", cores[i].core);
				}
				else if (o.raw)
					state_print_raw(stdout, &cores[i]);
				else
					state_print_human(stdout, &cores[i], dt);
			}
		}
		fflush(stdout);
		frame++;
		if (!o.watch_ms || state_stop || (o.count && frame >= o.count))
			break;
		sleep_ms(o.watch_ms);
		if (state_stop)
			break;
	}
	if (first) {
		/* The human form said each core's reason with the core already. */
		if (o.json)
			err_move(err, &first);
		status = EXIT_PMUSTAT_FAILURE;
	}
	goto out;
fail:
	if (o.json)
		state_print_json(cores, 0, false, false, 0, err_msg(first));
	err_move(err, &first);
	status = EXIT_PMUSTAT_FAILURE;
out:
	for (int i = 0; cores && i < n; i++) {
		event_table_free(cores[i].table);
		nb_table_free(cores[i].nb_table);
		err_free(cores[i].error);
		err_free(cores[i].journal_err);
	}
	err_free(first);
	free(cores);
	free(set);
	hw_free(hw);
	return status;
}
