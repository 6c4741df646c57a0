/*
 * cmd_reset.c - `pmustat reset [-C LIST] [--zero [--force]] [--json]`:
 * put back what a killed pmustat run left programmed.
 *
 * For each core, under its lock: a journal whose run is gone is applied
 * and removed (journal_recover()); a live run's is never touched. --zero
 * then clears pmustat-style programming (counters without INT/PMI: pmustat
 * never sets them), journal or not, once confirmed on a terminal or with
 * --yes (no journal says whose they are); the NMI watchdog's and perf's
 * counters only with --force. A corrupt journal is reported and left alone, except
 * by --zero: it clears what such a journal can no longer describe, then
 * removes the journal, once confirmed on a terminal or with --yes (or
 * --force, which already clears everything).
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "cli/cli.h"
#include "base/err.h"
#include "base/strbuf.h"
#include "cli/cli.h"
#include "config.h"
#include "events/cpu.h"
#include "events/cpu_source.h"
#include "hw/cpulock.h"
#include "base/exit_codes.h"
#include "hw/hw.h"
#include "pmus/netburst/nb_regs.h"
#include "pmu/journal.h"
#include "pmu/rdpmc_journal.h"
#include "report/json_text.h"
#include "pmu/pmu.h"
#include "pmu/owner.h"

#define RESET_FORMAT_VERSION 1
#define RESET_LOCK_WAIT_MS 2000

struct reset_opts {
	const char *cpus;
	bool zero;
	bool force;
	bool yes;
	bool json;
};

static void
usage(FILE *out)
{
	fprintf(out,
		"usage: pmustat reset [-C LIST] [--zero [--yes] [--force]] [--json]\n"
		"\n"
		"  -C, --cpu LIST   cores: N, ranges and lists (0-3,6), or all (default: all)\n"
		"      --zero       also clear pmustat-style programming left without a journal\n"
		"                   (counters without an interrupt bit, whose owner cannot be\n"
		"                   told) and a corrupt journal, once confirmed on a terminal\n"
		"      --yes        with --zero: clear without asking (needed without a terminal)\n"
		"      --force      with --zero: clear every counter, the NMI watchdog's and perf's\n"
		"                   too (and remove a corrupt journal without asking)\n"
		"      --json       one JSON object\n");
}

#define RESET_PROG "pmustat reset"
#define RESET_OPTSTRING "C:h"

/* 0, 1 for --help (printed), or -EINVAL with the usage error. */
static int
parse_opts(int argc, char **argv, struct reset_opts *o, struct pmustat_error **err)
{
	static const struct option longopts[] = {
		{ "cpu", required_argument, NULL, 'C' },
		{ "zero", no_argument, NULL, 'z' },
		{ "force", no_argument, NULL, 'f' },
		{ "yes", no_argument, NULL, 'y' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, RESET_OPTSTRING, longopts, NULL)) != -1) {
		switch (c) {
		case 'C':
			o->cpus = optarg;
			break;
		case 'z':
			o->zero = true;
			break;
		case 'f':
			o->force = true;
			break;
		case 'y':
			o->yes = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			return cli_option_error(err, RESET_PROG, argv, RESET_OPTSTRING);
		}
	}
	if (optind < argc)
		return cli_usage_error(err, RESET_PROG, "unexpected argument %s", argv[optind]);
	if ((o->force || o->yes) && !o->zero)
		return cli_usage_error(err, RESET_PROG, "--%s goes with --zero", o->force ? "force" : "yes");
	return 0;
}

/* What happened on one core, for the output. */
struct reset_core {
	int core;
	const char *journal;	/* "none", "restored", "corrupt", "cleared", "live", "error" */
	struct strbuf message;	/* what happened, or why it failed */
	char zeroed[256];	/* " pmc0 fixed2" */
	bool failed;
};

/* The message of a core so far, then @fmt's text after "; ". */
static void
say(struct reset_core *r, const char *text)
{
	strbuf_printf(&r->message, "%s%s", r->message.len ? "; " : "", text);
}

/*
 * Clear the counters --zero may clear: pmustat-style programming (owner.h:
 * no interrupt bit), every busy counter with --force. Through the pmu,
 * which writes only allow-listed MSRs; GLOBAL_CTRL is left as it is (with
 * EN and the fields clear nothing counts).
 */
static bool confirm(const struct reset_opts *o, const char *why, const char *question, int core);

static int
zero_core(struct hw *hw, const struct cpu_info *cpu, int core, const struct reset_opts *o, bool corrupt,
	  struct reset_core *r)
{
	bool force = o->force;
	struct pmustat_error *err = NULL;
	const struct pmu_occupancy *occ;
	uint32_t gp = 0, fixed = 0;
	size_t used = strlen(r->zeroed), start = used;
	struct pmu *p;
	int rc;

	rc = pmu_open(&p, hw, core, &cpu->pmu, false, NULL, &err);
	if (rc < 0) {
		say(r, err_msg(err));
		err_free(err);
		return rc;
	}
	occ = pmu_occupancy(p);
	for (unsigned i = 0; i < PMU_MAX_GP; i++) {
		if (!(occ->busy_gp & (1u << i)) || (!force && !pmu_owner_pmustat_style(occ->gp[i])))
			continue;
		gp |= 1u << i;
		used += (size_t)snprintf(r->zeroed + used, sizeof(r->zeroed) - used, " pmc%u", i);
	}
	for (unsigned i = 0; i < PMU_MAX_FIXED; i++) {
		if (!(occ->busy_fixed & (1u << i)) || (!force && !pmu_owner_pmustat_style(occ->fixed[i])))
			continue;
		fixed |= 1u << i;
		used += (size_t)snprintf(r->zeroed + used, sizeof(r->zeroed) - used, " fixed%u", i);
	}
	/* NetBurst: the same owner rule (pmu_owner_scan_nb()). */
	for (unsigned i = 0; cpu->netburst.present && i < NB_COUNTERS; i++) {
		if (!(occ->nb_busy & (1u << i)) || (!force && !pmu_owner_pmustat_style(occ->nb[i])))
			continue;
		gp |= 1u << i;
		used += (size_t)snprintf(r->zeroed + used, sizeof(r->zeroed) - used, " %s", nb_counter_name(i));
	}
	/*
	 * Counters without a journal of a killed run are nobody pmustat can
	 * name (another tool that writes the MSRs, such as likwid-perfctr, or
	 * a pmustat run killed before its journal): cleared only when the user
	 * says so, on a terminal or with --yes (--force says more already). A
	 * corrupt journal's question covers them.
	 */
	if ((gp || fixed) && !corrupt && !o->yes && !force) {
		char why[320];

		snprintf(why, sizeof(why),
			 "core %d:%s in use by an owner pmustat cannot tell (another tool that writes the MSRs, such as likwid-perfctr, or a pmustat run killed without a journal)",
			 core, r->zeroed + start);
		if (!confirm(o, why, "clear them, and lose that owner's counts?", core)) {
			say(r, why);
			say(r, "nothing was cleared: confirm on a terminal, or add --yes");
			r->zeroed[start] = '\0';
			pmu_close(p);
			return -ECANCELED;
		}
	}
	rc = pmu_clear(p, gp, fixed, &err);
	if (rc < 0) {
		say(r, err_msg(err));
		err_free(err);
	}
	pmu_close(p);
	return rc;
}

/*
 * --zero on a core whose journal is corrupt: clearing pmustat-style
 * programming and removing the journal is what is left to do, once the
 * user says so (a terminal's y), or --yes / --force did.
 */
static bool
confirm(const struct reset_opts *o, const char *why, const char *question, int core)
{
	char answer[16];

	if (o->yes || o->force)
		return true;
	if (!isatty(STDIN_FILENO))
		return false;
	fprintf(stderr, "pmustat reset: %s\npmustat reset: core %d: %s [y/N] ", why, core, question);
	fflush(stderr);
	if (!fgets(answer, sizeof(answer), stdin))
		return false;
	answer[strcspn(answer, "\n")] = '\0';
	return strcasecmp(answer, "y") == 0 || strcasecmp(answer, "yes") == 0;
}

static void
reset_one(struct hw *hw, const struct reset_opts *o, int core, struct reset_core *r)
{
	struct pmustat_error *err = NULL;
	struct cpu_info cpu;
	struct journal j;
	bool have_journal, corrupt = false;
	int lock = -1, rc;

	r->core = core;
	r->journal = "none";
	/* Cheap first: most cores of -C all have neither a journal nor --zero to do. */
	rc = journal_read(JOURNAL_DIR, core, &j, NULL);
	have_journal = rc != -ENOENT;
	if (!have_journal && !o->zero)
		return;
	lock = cpulock_acquire(core, RESET_LOCK_WAIT_MS, &err);
	if (lock < 0) {
		say(r, err_msg(err));
		r->journal = have_journal ? "live" : "none";
		r->failed = true;
		goto out;
	}
	rc = cpu_source_load(hw, NULL, core, &cpu, NULL, &err);
	if (rc == 0 && !cpu_can_count(&cpu)) {
		char key[64];

		cpu_mapfile_key(&cpu, key, sizeof(key));
		rc = err_set(&err, -ENOTSUP, "core %d (%s): %s", core, key, cpu_why(&cpu));
	}
	if (rc < 0) {
		say(r, err_msg(err));
		r->journal = have_journal ? "error" : "none";
		r->failed = true;
		goto out;
	}
	if (have_journal) {
		char *note = NULL;

		rc = journal_recover(JOURNAL_DIR, core, hw, &cpu.pmu, &note, &err);
		r->journal = rc == 1 ? "restored" : rc == 0 ? "none" : rc == -EBADMSG ? "corrupt" :
			     rc == -EBUSY ? "live" : "error";
		if (note)
			say(r, note);
		free(note);
		if (rc == -EBADMSG && o->zero) {
			/* Its run is gone (we hold the lock); what it programmed it can no longer say. */
			if (!confirm(o, err_msg(err),
				     "clear pmustat-style programming (counters without an interrupt bit) and remove the journal?",
				     core)) {
				say(r, err_msg(err));
				say(r, "nothing was cleared: confirm on a terminal, or add --yes");
				r->failed = true;
				goto out;
			}
			corrupt = true;
		} else if (rc < 0) {
			say(r, err_msg(err));
			r->failed = true;
			goto out;
		}
		err_clear(&err);
	}
	if (o->zero) {
		rc = zero_core(hw, &cpu, core, o, corrupt, r);
		if (rc < 0) {
			r->failed = true;
			goto out;
		}
		if (corrupt) {
			char path[256];

			journal_path(JOURNAL_DIR, core, path, sizeof(path));
			rc = journal_remove(JOURNAL_DIR, core);
			strbuf_free(&r->message);
			if (rc < 0 && rc != -ENOENT) {
				strbuf_printf(&r->message, "core %d: cleared, but cannot remove the corrupt journal %s: %s",
					      core, path, strerror(-rc));
				r->failed = true;
				goto out;
			}
			r->journal = "cleared";
			strbuf_printf(&r->message, "core %d: removed the corrupt journal %s", core, path);
		}
	}
out:
	err_free(err);
	cpulock_release(lock);
}

/*
 * The rdpmc file a killed --regions run set to 2, from its journal
 * (machine-wide, not per core): "none", "restored", "live", "corrupt" or
 * "error", and what was done in @msg.
 */
static const char *
reset_rdpmc(struct hw *hw, struct strbuf *msg)
{
	struct pmustat_error *e = NULL;
	char *note = NULL;
	const char *state;
	int rc = rdpmc_journal_recover(JOURNAL_DIR, hw, &note, &e);

	if (rc == 0)
		return "none";
	if (rc == 1) {
		strbuf_printf(msg, "%s", note ? note : "the rdpmc journal of a killed run was applied");
		free(note);
		return "restored";
	}
	state = rc == -EBUSY ? "live" : rc == -EBADMSG ? "corrupt" : "error";
	strbuf_printf(msg, "%s", err_msg(e));
	err_clear(&e);
	return state;
}

static bool
nothing_done(const struct reset_core *res, int n)
{
	for (int i = 0; i < n; i++)
		if (res[i].message.len || res[i].zeroed[0] || strcmp(res[i].journal, "none") != 0)
			return false;
	return true;
}

int
cmd_reset(int argc, char **argv, struct pmustat_error **err)
{
	struct reset_opts o;
	struct reset_core *res = NULL;
	struct hw *hw = NULL;
	const char *first_failure = NULL, *rdpmc_state = "none";
	struct strbuf rdpmc_message = STRBUF_INIT;
	bool rdpmc_failed = false;
	int ncpus, n = 0, status = 0, rc;
	bool *set = NULL;

	rc = parse_opts(argc, argv, &o, err);
	if (rc)
		return rc > 0 ? 0 : EXIT_PMUSTAT_FAILURE;
	ncpus = get_nprocs_conf();
	if (ncpus < 1)
		ncpus = 1;
	set = calloc((size_t)ncpus, sizeof(*set));
	res = calloc((size_t)ncpus, sizeof(*res));
	hw = hw_linux_new();
	if (!set || !res || !hw) {
		err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	if (cpu_parse_list(o.cpus ? o.cpus : "all", ncpus, set, err) < 0)
		goto out;
	for (int i = 0; i < ncpus; i++) {
		if (!set[i])
			continue;
		reset_one(hw, &o, i, &res[n]);
		if (res[n].failed && !first_failure)
			first_failure = strbuf_str(&res[n].message);
		n++;
	}
	rdpmc_state = reset_rdpmc(hw, &rdpmc_message);
	if (strcmp(rdpmc_state, "corrupt") == 0 || strcmp(rdpmc_state, "error") == 0)
		rdpmc_failed = true;
out:
	if (*err || first_failure || rdpmc_failed)
		status = EXIT_PMUSTAT_FAILURE;
	if (rdpmc_message.len)
		fprintf(stderr, "pmustat reset: %s\n", strbuf_str(&rdpmc_message));
	if (!first_failure && rdpmc_failed)
		first_failure = strbuf_str(&rdpmc_message);
	/* Each core's outcome, the failures among them; main() says a failure before any core. */
	for (int i = 0; i < n; i++) {
		if (res[i].message.len)
			fprintf(stderr, "pmustat reset: %s\n", strbuf_str(&res[i].message));
		if (res[i].zeroed[0])
			fprintf(stderr, "pmustat reset: core %d: cleared%s\n", res[i].core, res[i].zeroed);
	}
	/* Silence would read as "done": say that there was nothing to do, and what was looked at. */
	if (!o.json && !*err && !first_failure && !rdpmc_message.len && nothing_done(res, n))
		fprintf(stderr, "pmustat reset: nothing to do: no journal of a killed run on %s%s%s, nor of the rdpmc file\n",
			o.cpus ? "cores " : "any core", o.cpus ? o.cpus : "",
			o.zero ? ", and no counter in pmustat's style to clear" : "");
	if (o.json) {
		json_t *root = json_object(), *a = json_array();

		for (int i = 0; i < n; i++) {
			json_t *z = json_array();
			char *save = NULL, *tok, buf[256];

			snprintf(buf, sizeof(buf), "%s", res[i].zeroed);
			for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
				json_array_append_new(z, json_string(tok));
			json_array_append_new(a, json_pack("{s:i, s:s, s:o, s:o, s:b}", "core", res[i].core,
							   "journal", res[i].journal, "zeroed", z,
							   "message", res[i].message.len ? json_text(strbuf_str(&res[i].message)) : json_null(),
							   "ok", !res[i].failed));
		}
		json_object_set_new(root, "format_version", json_integer(RESET_FORMAT_VERSION));
		json_object_set_new(root, "pmustat_version", json_string(PMUSTAT_VERSION));
		json_object_set_new(root, "cores", a);
		json_object_set_new(root, "rdpmc", json_pack("{s:s, s:o}", "journal", rdpmc_state, "message",
							     rdpmc_message.len ? json_text(strbuf_str(&rdpmc_message)) : json_null()));
		json_object_set_new(root, "error", *err ? json_text(err_msg(*err)) :
				    first_failure ? json_text(first_failure) : json_null());
		json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
		json_decref(root);
	}
	for (int i = 0; i < n; i++)
		strbuf_free(&res[i].message);
	strbuf_free(&rdpmc_message);
	free(set);
	free(res);
	hw_free(hw);
	return status;
}
