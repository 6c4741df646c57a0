/*
 * fuzz_metric_expr.c - Intel's metric formulas (metric_expr_parse, _eval,
 * _uses; src/metrics/metric_expr.h).
 *
 * Input: the formula text. Names resolve as in Intel's tables: a..z and
 * a_a..z_z are event slots, smt_on, threads, durationtimeinmilliseconds,
 * DURATIONTIMEINSECONDS and the other constants' aliases are constants,
 * dependentloadsweight is the literal 20. A parsed formula is evaluated on
 * counts with and without zeros, with SMT on and off and with no constant
 * known, and walked for the events it reads.
 *
 * Checked: a refusal has a message and leaves no tree; a tree stays within
 * the node limit; a value is finite, a null has a reason; the events a
 * formula reads are slots that exist, and deciding conditions by constants
 * never adds one the undecided walk does not read.
 */
#include "fuzz_util.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/metric_expr.h"
#include "base/err.h"

#define SLOTS 702		/* a..z, then a_a..z_z */

static const struct {
	const char *name;
	int c;
} const_aliases[] = {
	{ "smt_on", METRIC_CONST_SMT_ON },
	{ "threads", METRIC_CONST_THREADS },
	{ "durationtimeinmilliseconds", METRIC_CONST_DURATION_MS },
	{ "DURATIONTIMEINSECONDS", METRIC_CONST_DURATION_S },
	{ "tsc_freq", METRIC_CONST_TSC_FREQ },
	{ "socket_count", METRIC_CONST_SOCKETS },
	{ "cores", METRIC_CONST_CORES_PER_SOCKET },
	{ "chas", METRIC_CONST_CHAS_PER_SOCKET },
	{ "cpus", METRIC_CONST_CPUS },
};

static int
resolve(void *ctx, const char *name, size_t len, struct metric_ref *out)
{
	(void)ctx;
	if (len == 1 && name[0] >= 'a' && name[0] <= 'z') {
		out->kind = METRIC_REF_EVENT;
		out->index = (unsigned)(name[0] - 'a');
		return 0;
	}
	if (len == 3 && name[0] >= 'a' && name[0] <= 'z' && name[1] == '_' &&
	    name[2] >= 'a' && name[2] <= 'z') {
		out->kind = METRIC_REF_EVENT;
		out->index = 26 + (unsigned)(name[0] - 'a') * 26 + (unsigned)(name[2] - 'a');
		return 0;
	}
	for (size_t i = 0; i < sizeof(const_aliases) / sizeof(const_aliases[0]); i++) {
		if (strlen(const_aliases[i].name) == len && memcmp(const_aliases[i].name, name, len) == 0) {
			out->kind = METRIC_REF_CONST;
			out->index = (unsigned)const_aliases[i].c;
			return 0;
		}
	}
	if (len == 20 && memcmp(name, "dependentloadsweight", 20) == 0) {
		out->kind = METRIC_REF_NUMBER;
		out->number = 20;
		return 0;
	}
	return -1;
}

static void
check_result(const struct metric_result *r)
{
	if (r->valid ? !isfinite(r->value) : (!r->why[0] || r->value != 0))
		fuzz_fail("value %g, valid %d, why '%s'", r->value, r->valid, r->why);
	if (strnlen(r->why, METRIC_WHY_MAX) == METRIC_WHY_MAX)
		fuzz_fail("reason not terminated");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static double values[SLOTS];
	static const char *names[SLOTS];
	char *text = fuzz_strndup(data, size);
	struct metric_expr *e = NULL;
	struct metric_consts c;
	struct metric_result r;
	struct pmustat_error *err = NULL;
	int ret;

	ret = metric_expr_parse(text, resolve, NULL, &e, &err);
	free(text);
	if (ret != 0) {
		if (e || (ret != -EINVAL && ret != -ENOMEM) || !err_msg(err)[0])
			fuzz_fail("refusal %d with tree %p, message '%s'", ret, (void *)e, err_msg(err));
		err_clear(&err);
		return 0;
	}
	if (!e || metric_expr_size(e) == 0 || metric_expr_size(e) > METRIC_EXPR_MAX_NODES)
		fuzz_fail("tree of %u nodes", metric_expr_size(e));

	memset(&c, 0, sizeof(c));
	for (int i = 0; i < METRIC_CONST_COUNT; i++)
		c.value[i] = i == METRIC_CONST_SMT_ON ? 1 : 1000.0 * (i + 1);
	c.known = (1u << METRIC_CONST_COUNT) - 1;
	for (int round = 0; round < 4; round++) {
		struct metric_env env = { values, SLOTS, names, &c };

		for (unsigned i = 0; i < SLOTS; i++) {
			names[i] = "EVENT.NAME";
			/* Rounds 1 and 3 have zeros; round 2 huge counts. */
			values[i] = (round & 1) && i % 3 == 0 ? 0 :
				    round == 2 ? 1.8e19 - i : (double)(i * 7919 % 1000003 + 1);
		}
		if (round == 3) {
			c.value[METRIC_CONST_SMT_ON] = 0;
			env.names = NULL;
		}
		metric_expr_eval(e, &env, &r);
		check_result(&r);
	}
	/* Nothing known, nothing counted. */
	{
		struct metric_consts none = { { 0 }, 0 };
		struct metric_env env = { NULL, 0, NULL, &none };

		metric_expr_eval(e, &env, &r);
		check_result(&r);
	}
	/* What it reads: deciding by constants reads a subset of everything. */
	{
		static bool decided[SLOTS + 1], all[SLOTS + 1];
		unsigned cu_decided = 0, cu_all = 0;

		memset(decided, 0, sizeof(decided));
		memset(all, 0, sizeof(all));
		decided[SLOTS] = all[SLOTS] = false;
		metric_expr_uses(e, &c, decided, SLOTS, &cu_decided);
		metric_expr_uses(e, NULL, all, SLOTS, &cu_all);
		if (decided[SLOTS] || all[SLOTS])
			fuzz_fail("uses() wrote past the slots");
		for (unsigned i = 0; i < SLOTS; i++)
			if (decided[i] && !all[i])
				fuzz_fail("slot %u read only when conditions are decided", i);
		if ((cu_decided & ~cu_all) || (cu_all >> METRIC_CONST_COUNT))
			fuzz_fail("constants 0x%x decided, 0x%x in all", cu_decided, cu_all);
	}
	metric_expr_free(e);
	err_clear(&err);
	return 0;
}
