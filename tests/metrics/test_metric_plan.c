/*
 * What a list of metrics needs counted (src/metrics/metric_plan.h), on the
 * shipped Skylake, Ice Lake, Sapphire Rapids and Lunar Lake tables: pruning
 * by the constants (SMT off: no _ANY event), deduplication, Intel's event
 * modifiers resolved as -e would, the refusals and their words, evaluation
 * through the plan, and whether a metric fits one run.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "events/cpu.h"
#include "events/event_spec.h"
#include "events/event_table.h"
#include "metrics/metric_batch.h"
#include "metrics/metric_plan.h"
#include "metrics/metric_table.h"
#include "base/err.h"

static const char *events_dir;

static const struct pmu_caps skl_caps = {
	.version = 4, .gp_counters = 4, .gp_mask = 0xf, .gp_width = 48, .fixed_counters = 3,
	.fixed_mask = 0x7, .fixed_width = 48, .arch_events_len = 7,
};
static const struct pmu_caps icl_caps = {
	.version = 5, .gp_counters = 8, .gp_mask = 0xff, .gp_width = 48, .fixed_counters = 4,
	.fixed_mask = 0xf, .fixed_width = 48, .arch_events_len = 8, .anythread_deprecated = true,
};

struct fixture {
	struct metric_table *mt;
	struct event_table *et;
	struct metric_list list;
	struct metric_plan *plan;
};

static struct metric_consts
smt(bool on)
{
	struct metric_consts c;

	memset(&c, 0, sizeof(c));
	c.value[METRIC_CONST_SMT_ON] = on;
	c.value[METRIC_CONST_THREADS] = on ? 2 : 1;
	c.value[METRIC_CONST_DURATION_MS] = 1000;
	c.value[METRIC_CONST_TSC_FREQ] = 2e9;
	c.known = 1u << METRIC_CONST_SMT_ON | 1u << METRIC_CONST_THREADS |
		  1u << METRIC_CONST_DURATION_MS | 1u << METRIC_CONST_TSC_FREQ;
	return c;
}

static void
plan(struct fixture *f, const char *table, const char *spec, const struct metric_consts *c,
     const struct pmu_caps *caps, bool usr, bool os)
{
	struct pmustat_error *err = NULL;

	memset(f, 0, sizeof(*f));
	if (metric_table_load(events_dir, table, &f->mt, &err) ||
	    event_table_load(events_dir, table, &f->et, &err) ||
	    metric_table_select(f->mt, spec, &f->list, &err) ||
	    metric_plan_build(f->mt, &f->list, c, f->et, caps, usr, os, &f->plan, &err))
		fail_msg("%s -M %s: %s", table, spec, err_msg(err));
	err_clear(&err);
}

static void
done(struct fixture *f)
{
	metric_plan_free(f->plan);
	metric_list_free(&f->list);
	event_table_free(f->et);
	metric_table_free(f->mt);
}

static const char *
event_list(const struct metric_plan *p)
{
	static char buf[4096];
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < p->n_events && used < sizeof(buf); i++)
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s", i ? "," : "",
					 p->events[i].name);
	return buf;
}

static const struct metric_plan_metric *
find(const struct fixture *f, const char *name)
{
	for (unsigned k = 0; k < f->plan->n_metrics; k++)
		if (strcmp(metric_table_get(f->mt, f->plan->metrics[k].metric)->name, name) == 0)
			return &f->plan->metrics[k];
	fail_msg("%s not in the plan", name);
	return NULL;
}

static void
test_prune_and_dedup(void **state)
{
	struct metric_consts on = smt(true), off = smt(false);
	struct fixture f;

	(void)state;
	/* Level 1 on Skylake: five distinct events with SMT off... */
	plan(&f, "skylake", "TopdownL1", &off, &skl_caps, true, false);
	assert_string_equal(event_list(f.plan),
			    "IDQ_UOPS_NOT_DELIVERED.CORE,CPU_CLK_UNHALTED.THREAD,UOPS_ISSUED.ANY,"
			    "UOPS_RETIRED.RETIRE_SLOTS,INT_MISC.RECOVERY_CYCLES");
	for (unsigned i = 0; i < f.plan->n_events; i++) {
		assert_true(f.plan->events[i].ev.usr);
		assert_false(f.plan->events[i].ev.os);
	}
	assert_int_equal(f.plan->events[1].ev.fixed, 1);
	done(&f);
	/* ... and the AnyThread ones with SMT on. */
	plan(&f, "skylake", "TopdownL1", &on, &skl_caps, true, false);
	assert_string_equal(event_list(f.plan),
			    "IDQ_UOPS_NOT_DELIVERED.CORE,CPU_CLK_UNHALTED.THREAD_ANY,UOPS_ISSUED.ANY,"
			    "UOPS_RETIRED.RETIRE_SLOTS,INT_MISC.RECOVERY_CYCLES_ANY");
	assert_true(f.plan->events[1].ev.any_thread);
	done(&f);

	/* The whole Skylake table with SMT off: not one _ANY event is counted. */
	plan(&f, "skylake", "TmaL1,TmaL2,TopdownL3,TopdownL4,TopdownL5,TopdownL6,Summary,Mem,"
	     "Bottleneck_Mispredictions,Info_Core_CoreIPC", &off, &skl_caps, true, true);
	assert_true(f.plan->n_events > 30);
	for (unsigned i = 0; i < f.plan->n_events; i++) {
		if (f.plan->events[i].ev.any_thread)
			fail_msg("%s counted with SMT off", f.plan->events[i].name);
	}
	/* Each event once, and every slot a formula reads points at one. */
	for (unsigned i = 0; i < f.plan->n_events; i++)
		for (unsigned j = 0; j < i; j++)
			assert_false(event_spec_same(&f.plan->events[i].ev, &f.plan->events[j].ev));
	for (unsigned k = 0; k < f.plan->n_metrics; k++) {
		const struct metric_plan_metric *m = &f.plan->metrics[k];

		for (unsigned s = 0; s < m->n_slots; s++)
			assert_true(m->event_of_slot[s] < (int)f.plan->n_events);
	}
	done(&f);
}

static void
test_modifiers(void **state)
{
	struct metric_consts off = smt(false);
	const struct metric_plan_event *e;
	struct fixture f;

	(void)state;
	/* Intel's :c1:e1 is -e's :cmask=1:edge. */
	plan(&f, "skylake", "ICache_Misses", &off, &skl_caps, true, false);
	assert_string_equal(event_list(f.plan),
			    "ICACHE_16B.IFDATA_STALL,ICACHE_16B.IFDATA_STALL:c1:e1,CPU_CLK_UNHALTED.THREAD");
	e = &f.plan->events[1];
	assert_int_equal(e->ev.cmask, 1);
	assert_true(e->ev.edge);
	assert_int_equal(e->ev.code, f.plan->events[0].ev.code);
	done(&f);
	/* :SUP is kernel-only, :USER user-only, whatever the default mode. */
	plan(&f, "skylake", "Info_System_Kernel_CPI,Info_System_IpFarBranch", &off, &skl_caps,
	     true, false);
	assert_string_equal(event_list(f.plan),
			    "CPU_CLK_UNHALTED.THREAD_P:SUP,INST_RETIRED.ANY_P:SUP,INST_RETIRED.ANY,"
			    "BR_INST_RETIRED.FAR_BRANCH:USER");
	assert_true(f.plan->events[0].ev.os && !f.plan->events[0].ev.usr);
	assert_true(f.plan->events[2].ev.usr && !f.plan->events[2].ev.os);
	done(&f);
	plan(&f, "skylake", "Info_System_IpFarBranch", &off, &skl_caps, true, true);
	assert_true(f.plan->events[0].ev.usr && f.plan->events[0].ev.os);
	assert_true(f.plan->events[1].ev.usr && !f.plan->events[1].ev.os);
	done(&f);
	/* A umask override (Ice Lake's EXE_ACTIVITY.3_PORTS_UTIL:u0x80). */
	plan(&f, "icelake", "Ports_Utilized_0", &off, &icl_caps, true, false);
	e = &f.plan->events[0];
	assert_string_equal(e->name, "EXE_ACTIVITY.3_PORTS_UTIL:u0x80");
	assert_int_equal(e->ev.umask, 0x80);
	assert_int_equal(e->ev.code, 0xa6);
	done(&f);
	/* An offcore response value override. */
	plan(&f, "sapphirerapids", "False_Sharing", &off, &icl_caps, true, false);
	assert_false(find(&f, "False_Sharing")->refused);
	for (unsigned i = 0; i < f.plan->n_events; i++)
		if (strstr(f.plan->events[i].name, "ocr_msr_val"))
			assert_true(f.plan->events[i].ev.extra_value == 0x103b800002ull);
	done(&f);
}

static void
test_kinds(void **state)
{
	struct metric_consts off = smt(false);
	const struct metric_plan_metric *m;
	struct fixture f;

	(void)state;
	/* Ice Lake's level 1 reads IA32_PERF_METRICS with TOPDOWN.SLOTS. */
	plan(&f, "icelake", "Frontend_Bound", &off, &icl_caps, true, false);
	m = find(&f, "Frontend_Bound");
	assert_true(m->needs_perf_metrics);
	assert_false(m->refused);
	for (unsigned i = 0; i < f.plan->n_events; i++) {
		const struct metric_plan_event *e = &f.plan->events[i];

		if (strcmp(e->name, "PERF_METRICS.FRONTEND_BOUND") == 0) {
			assert_int_equal(e->kind, METRIC_EVENT_PERF_METRICS);
			assert_int_equal(e->field, PERF_METRICS_FRONTEND_BOUND);
			assert_int_equal(e->ev.fixed, 3);
		}
	}
	done(&f);
	/* TSC. */
	plan(&f, "sapphirerapids", "cpu_utilization", &off, &icl_caps, true, false);
	assert_true(find(&f, "cpu_utilization")->needs_tsc);
	assert_int_equal(f.plan->events[1].kind, METRIC_EVENT_TSC);
	done(&f);
}

static void
assert_refused(const char *table, const char *metric, const struct metric_consts *c,
	       const struct pmu_caps *caps, const char *why)
{
	const struct metric_plan_metric *m;
	struct fixture f;
	struct pmustat_error *err = NULL;

	plan(&f, table, metric, c, caps, true, false);
	m = &f.plan->metrics[0];
	if (!m->refused || strcmp(m->refusal, why) != 0)
		fail_msg("%s: \"%s\", want \"%s\"", metric, m->refusal, why);
	for (unsigned i = 0; i < m->n_slots; i++)
		assert_int_equal(m->event_of_slot[i], -1);
	assert_int_equal(metric_plan_refusal(f.plan, &err), -EINVAL);
	assert_string_equal(err_msg(err), why);
	done(&f);
	err_clear(&err);
}

static void
test_refusals(void **state)
{
	struct metric_consts on = smt(true), off = smt(false);

	(void)state;
	assert_refused("skylake", "Info_System_DRAM_BW_Use", &off, &skl_caps,
		       "Info_System_DRAM_BW_Use needs uncore events (UNC_ARB_TRK_REQUESTS.ALL, UNC_ARB_COH_TRK_REQUESTS.ALL), which pmustat does not program");
	assert_refused("lunarlake_lioncove", "Lock_Latency", &off, &icl_caps,
		       "Lock_Latency needs retire latency (MEM_INST_RETIRED.LOCK_LOADS:retire_latency), which pmustat does not measure (it is sampled with PEBS)");
	assert_refused("skylake", "Info_Frontend_L2MPKI_Code", &off, &skl_caps,
		       "Info_Frontend_L2MPKI_Code needs event FRONTEND_RETIRED.L2_MISS: event 'FRONTEND_RETIRED.L2_MISS' needs MSR 0x3f7 (MSR_PEBS_FRONTEND), which pmustat does not program");
	/* (LSD is a group too; perf's name is the metric alone.) */
	assert_refused("lunarlake_lioncove", "tma_lsd", &off, &icl_caps,
		       "LSD needs LSD.UOPS:c8:i1:eq1 with the EQ bit (count when equal to cmask), which pmustat does not program");
	/* Summed over both threads: only read with SMT on. */
	assert_refused("icelake", "Info_Thread_Slots_Utilization", &on, &icl_caps,
		       "Info_Thread_Slots_Utilization needs TOPDOWN.SLOTS:percore summed over both SMT threads of the core, which pmustat does not count (it counts one thread)");
	{
		struct fixture f;

		plan(&f, "icelake", "Info_Thread_Slots_Utilization", &off, &icl_caps, true, false);
		assert_false(f.plan->metrics[0].refused);
		assert_int_equal(f.plan->n_events, 0);
		done(&f);
	}
	/* SMT on where AnyThread is deprecated: the -e refusal, named. */
	assert_refused("skylake", "Frontend_Bound", &on,
		       &(struct pmu_caps){ .version = 5, .gp_counters = 4, .gp_mask = 0xf,
					   .fixed_counters = 3, .fixed_mask = 0x7,
					   .arch_events_len = 7, .anythread_deprecated = true },
		       "Frontend_Bound needs event CPU_CLK_UNHALTED.THREAD_ANY: event 'CPU_CLK_UNHALTED.THREAD_ANY' needs AnyThread, which this PMU deprecates (CPUID.0AH:EDX[15])");
}

static void
test_eval(void **state)
{
	struct metric_consts off = smt(false);
	struct metric_result r;
	struct fixture f;
	double values[16];

	(void)state;
	plan(&f, "skylake", "TopdownL1,Info_Thread_IPC", &off, &skl_caps, true, false);
	/* IDQ_UOPS_NOT_DELIVERED.CORE, CLK, UOPS_ISSUED.ANY, RETIRE_SLOTS, RECOVERY_CYCLES, INST */
	assert_int_equal(f.plan->n_events, 6);
	values[0] = 1000;
	values[1] = 1000;
	values[2] = 2000;
	values[3] = 1800;
	values[4] = 10;
	values[5] = 2500;
	metric_plan_eval(f.plan, f.mt, 0, values, &off, &r);	/* Frontend_Bound */
	assert_true(r.valid);
	assert_true(fabs(r.value - 100.0 * 1000 / (4 * 1000)) < 1e-9);
	metric_plan_eval(f.plan, f.mt, 1, values, &off, &r);	/* Bad_Speculation */
	assert_true(fabs(r.value - 100.0 * (2000 - 1800 + 4 * 10) / 4000) < 1e-9);
	metric_plan_eval(f.plan, f.mt, 3, values, &off, &r);	/* Retiring */
	assert_true(fabs(r.value - 100.0 * 1800 / 4000) < 1e-9);
	metric_plan_eval(f.plan, f.mt, 4, values, &off, &r);	/* Info_Thread_IPC */
	assert_true(fabs(r.value - 2.5) < 1e-12);
	/* No cycles counted: null, and why. */
	values[1] = 0;
	metric_plan_eval(f.plan, f.mt, 4, values, &off, &r);
	assert_false(r.valid);
	assert_string_equal(r.why, "no CPU_CLK_UNHALTED.THREAD counted (division by zero)");
	done(&f);
	/* A refused metric evaluates to its refusal. */
	plan(&f, "skylake", "Info_System_Socket_CLKS", &off, &skl_caps, true, false);
	metric_plan_eval(f.plan, f.mt, 0, values, &off, &r);
	assert_false(r.valid);
	assert_non_null(strstr(r.why, "needs uncore events (UNC_CLOCK.SOCKET)"));
	done(&f);
}

static void
test_fit(void **state)
{
	struct metric_consts off = smt(false);
	struct metric_fit fit;
	struct fixture f;
	struct pmustat_error *err = NULL;

	(void)state;
	plan(&f, "skylake", "Bad_Speculation,Bottleneck_Mispredictions", &off, &skl_caps, true,
	     false);
	/* UOPS_ISSUED, RETIRE_SLOTS, RECOVERY_CYCLES on PMCs, cycles on fixed counter 1. */
	err_clear(&err);
	assert_int_equal(metric_plan_fit(f.plan, f.mt, 0, &skl_caps, 0xf, 0x7, &fit, &err), 0);
	if (!fit.fits)
		fail_msg("%s (%u events)", err_msg(err), fit.events);
	assert_int_equal(fit.events, 4);
	assert_int_equal(fit.gp_needed, 3);
	assert_int_equal(fit.fixed_needed, 1);
	assert_string_equal(err_msg(err), "");
	/* Someone holds two counters: it no longer fits, and says by how much. */
	assert_int_equal(metric_plan_fit(f.plan, f.mt, 0, &skl_caps, 0x3, 0x7, &fit, &err), 0);
	assert_false(fit.fits);
	assert_int_equal(fit.gp_available, 2);
	assert_string_equal(err_msg(err), "Bad_Speculation needs 3 programmable counters in one run; this core has 2 free");
	/*
	 * Fixed counter 1 busy (the NMI watchdog): CPU_CLK_UNHALTED.THREAD
	 * counts on a GP counter with its architectural twin, 3C/00.
	 */
	err_clear(&err);
	assert_int_equal(metric_plan_fit(f.plan, f.mt, 0, &skl_caps, 0xf, 0x5, &fit, &err), 0);
	assert_true(fit.fits);
	assert_int_equal(fit.gp_needed, 4);
	assert_int_equal(fit.fixed_needed, 0);
	assert_int_equal(metric_plan_fit(f.plan, f.mt, 0, &skl_caps, 0x7, 0x5, &fit, &err), 0);
	assert_false(fit.fits);
	assert_string_equal(err_msg(err), "Bad_Speculation needs 4 programmable counters in one run; this core has 3 free");
	/* A big metric never fits 4 counters. */
	assert_int_equal(metric_plan_fit(f.plan, f.mt, 1, &skl_caps, 0xf, 0x7, &fit, &err), 0);
	assert_false(fit.fits);
	assert_true(fit.gp_needed > 4);
	assert_non_null(strstr(err_msg(err), "Bottleneck_Mispredictions needs "));
	/* No programmable counter at all. */
	assert_int_equal(metric_plan_fit(f.plan, f.mt, 0, &skl_caps, 0, 0x7, &fit, &err), 0);
	assert_false(fit.fits);
	assert_non_null(strstr(err_msg(err), "Bad_Speculation can never be counted on this core: event"));
	done(&f);
	err_clear(&err);
}

/* Batches: each metric in one run, first fit, events repeated across runs, refusals kept. */
static void
test_batch(void **state)
{
	struct metric_consts on = smt(true);
	struct pmustat_error *err = NULL;
	struct metric_batches b;
	unsigned idx[64];
	struct fixture f;

	(void)state;
	plan(&f, "skylake", "Frontend_Bound,Bad_Speculation,Retiring,Memory_Bound,Info_Thread_IPC", &on,
	     &skl_caps, true, false);
	/*
	 * All counters free: level 1 shares one run (4 GP, THREAD_ANY on fixed
	 * 1); IPC's CPU_CLK_UNHALTED.THREAD would need a fifth GP counter there.
	 */
	assert_int_equal(metric_batch(f.plan, f.mt, &skl_caps, 0xf, 0x7, &b, &err), 0);
	assert_int_equal(b.nruns, 2);
	assert_int_equal(b.run_of[0], 0);
	assert_int_equal(b.run_of[1], 0);
	assert_int_equal(b.run_of[2], 0);
	assert_int_equal(b.run_of[3], METRIC_NO_RUN);
	assert_string_equal(b.why[3], "Memory_Bound needs 9 programmable counters in one run; this core has 4 free");
	assert_int_equal(b.run_of[4], 1);
	assert_string_equal(b.why[0], "");
	metric_batches_free(&b);
	/* Fixed counter 1 busy: the cycles take a GP counter; Bad_Speculation needs a run of its own. */
	assert_int_equal(metric_batch(f.plan, f.mt, &skl_caps, 0xf, 0x5, &b, &err), 0);
	assert_int_equal(b.nruns, 2);
	assert_int_equal(b.run_of[0], 0);
	assert_int_equal(b.run_of[1], 1);
	assert_int_equal(b.run_of[2], 0);
	assert_int_equal(b.run_of[4], 0);
	/* Frontend_Bound and Bad_Speculation both read CPU_CLK_UNHALTED.THREAD_ANY: counted in both runs. */
	assert_int_equal(metric_batch_events(f.plan, 0, idx), 2);
	assert_int_equal(metric_batch_events(f.plan, 1, idx), 4);
	metric_batches_free(&b);
	done(&f);
	err_clear(&err);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prune_and_dedup),
		cmocka_unit_test(test_modifiers),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_eval),
		cmocka_unit_test(test_fit),
		cmocka_unit_test(test_batch),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: %s EVENTS_DIR\n", argv[0]);
		return 2;
	}
	events_dir = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
