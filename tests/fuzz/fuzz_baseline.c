/*
 * fuzz_baseline.c - --baseline files (baseline_load) and --tolerance
 * arguments (baseline_parse_tolerance), then baseline_compare with both.
 *
 * Input: the baseline JSON, written to a private file. Its first line, if
 * it starts with "#tol ", is instead split at spaces into --tolerance
 * arguments (and removed from the JSON), so the seeds stay readable.
 *
 * Checked: a loaded baseline stays within BASELINE_MAX_EVENTS with
 * terminated names; every refusal has a message; comparing the baseline
 * with itself passes every counted event.
 */
#include "fuzz_util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/baseline.h"
#include "base/err.h"

static void
tolerances(char *line, struct baseline_tolerances *t)
{
	struct pmustat_error *err = NULL;
	char *save = NULL;

	for (char *arg = strtok_r(line, " ", &save); arg; arg = strtok_r(NULL, " ", &save)) {
		err_clear(&err);
		if (baseline_parse_tolerance(arg, t, &err) != 0 && !err_msg(err)[0])
			fuzz_fail("tolerance '%s' refused without a message", arg);
	}
	if (t->n > BASELINE_MAX_TOLERANCES)
		fuzz_fail("%u tolerances", t->n);
	err_clear(&err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct baseline *b = malloc(sizeof(*b));
	struct baseline_cmp *cmp = malloc(BASELINE_MAX_EVENTS * sizeof(*cmp));
	struct baseline_tolerances t;
	struct pmustat_error *err = NULL;
	const uint8_t *json = data;
	size_t json_size = size;
	const char *path;
	int ret;

	if (!b || !cmp)
		fuzz_fail("out of memory");
	memset(&t, 0, sizeof(t));
	if (size > 5 && memcmp(data, "#tol ", 5) == 0) {
		const uint8_t *nl = memchr(data, '\n', size);
		size_t len = nl ? (size_t)(nl - data) : size;
		char *line = fuzz_strndup(data + 5, len - 5);

		tolerances(line, &t);
		free(line);
		json = data + len + (nl != NULL);
		json_size = size - len - (nl != NULL);
	}
	path = fuzz_write("baseline.json", json, json_size);
	ret = baseline_load(path, b, &err);
	if (ret == 0) {
		unsigned failed;

		if (b->nevents > BASELINE_MAX_EVENTS)
			fuzz_fail("%u events", b->nevents);
		for (unsigned i = 0; i < b->nevents; i++) {
			if (!memchr(b->events[i].name, '\0', sizeof(b->events[i].name)) ||
			    !memchr(b->events[i].requested, '\0', sizeof(b->events[i].requested)))
				fuzz_fail("event %u: name not terminated", i);
		}
		if (!memchr(b->cpu_model, '\0', sizeof(b->cpu_model)) ||
		    !memchr(b->cpu, '\0', sizeof(b->cpu)) ||
		    !memchr(b->event_table, '\0', sizeof(b->event_table)))
			fuzz_fail("identity not terminated");
		failed = baseline_compare(b, b->events, b->nevents, &t, cmp);
		for (unsigned i = 0; i < b->nevents; i++) {
			/*
			 * Against itself, a counted finite value can only pass
			 * (an event listed twice pairs its k-th occurrences).
			 */
			if (b->events[i].counted && isfinite(b->events[i].value) &&
			    cmp[i].in_baseline && !cmp[i].passed)
				fuzz_fail("'%s' fails against itself (%g)", b->events[i].requested,
					  b->events[i].value);
		}
		(void)failed;
		baseline_free(b);
	} else if (!err_msg(err)[0]) {
		fuzz_fail("error %d without a message", ret);
	}
	free(cmp);
	free(b);
	err_clear(&err);
	return 0;
}
