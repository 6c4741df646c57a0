/*
 * core_types.c - see core_types.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cpulist.h"
#include "base/err.h"
#include "engine/core_types.h"
#include "engine/stat.h"
#include "events/cpu_source.h"

static bool
same_cpu(const struct cpu_info *a, const struct cpu_info *b, const char *akey, const char *bkey)
{
	return strcmp(akey, bkey) == 0 && a->core_type == b->core_type && a->pmu.gp_mask == b->pmu.gp_mask &&
	       a->pmu.fixed_mask == b->pmu.fixed_mask;
}

static const char *
type_name(const struct cpu_info *cpu)
{
	const char *n = cpu->hybrid ? cpu_core_type_name(cpu->core_type) : NULL;

	return n ? n : "";
}

int
core_types_open(struct core_types *ct, struct hw *hw, const struct target *first, const int *cores,
		unsigned ncores, struct pmustat_error **err)
{
	memset(ct, 0, sizeof(*ct));
	ct->ncores = ncores;
	ct->cpus = cores;
	ct->core_t = calloc(ncores ? ncores : 1, sizeof(const struct target *));
	ct->core_ev = calloc(ncores ? ncores : 1, sizeof(const struct stat_events *));
	if (!ct->core_t || !ct->core_ev)
		return err_set(err, -ENOMEM, "out of memory");
	ct->core_t[0] = first;
	for (unsigned i = 1; i < ncores; i++) {
		struct cpu_info other;
		char key[64];
		int rc;

		rc = cpu_source_load(hw, NULL, cores[i], &other, NULL, err);
		if (rc)
			return rc;
		cpu_mapfile_key(&other, key, sizeof(key));
		ct->core_t[i] = first;
		if (same_cpu(&first->cpu, &other, first->key, key))
			continue;
		ct->core_t[i] = &ct->other;
		if (ct->mixed && same_cpu(&ct->other.cpu, &other, ct->other.key, key))
			continue;
		/* The other core type of the same hybrid: its own table and PMU. */
		if (!ct->mixed && first->cpu.hybrid && other.hybrid && strcmp(first->key, key) == 0 &&
		    other.core_type != first->cpu.core_type && other.pmu.gp_width == first->cpu.pmu.gp_width &&
		    other.pmu.fixed_width == first->cpu.pmu.fixed_width) {
			rc = target_open(&ct->other, hw, NULL, cores[i], err);
			if (rc)
				return rc;
			ct->mixed = true;
			continue;
		}
		return err_set(err, -EINVAL,
			       "cores %d (%s%s%s) and %d (%s%s%s) are different CPUs: pmustat counts a list of cores of one CPU (or of one hybrid's two core types) only; list the cores of each CPU in a run of its own",
			       cores[0], first->key, first->cpu.hybrid ? ", " : "", type_name(&first->cpu), cores[i], key,
			       other.hybrid ? ", " : "", type_name(&other));
	}
	return 0;
}

/* Whether the two resolutions count the same events in the same rows. */
static bool
aligned(const struct stat_events *a, const struct stat_events *b)
{
	if (a->nhw != b->nhw || a->nsw != b->nsw || a->nrows != b->nrows)
		return false;
	for (unsigned r = 0; r < a->nrows; r++)
		if (a->row_event[r] != b->row_event[r] || strcmp(a->rows[r].requested, b->rows[r].requested) != 0)
			return false;
	for (unsigned u = 0; u < a->nhw; u++)
		if (strcmp(a->hw[u].requested, b->hw[u].requested) != 0)
			return false;
	return true;
}

/* Resolve in @t, the default set kept to the fixed counters of @fixed_mask. */
static int
resolve_in(const struct stat_opts *o, struct target *t, uint32_t fixed_mask, struct stat_events *ev,
	   struct pmustat_error **err)
{
	uint32_t own = t->cpu.pmu.fixed_mask;
	int rc;

	requests_free(ev);
	t->cpu.pmu.fixed_mask = fixed_mask;
	rc = requests_resolve(o, t, ev, NULL, NULL, err);
	t->cpu.pmu.fixed_mask = own;
	return rc;
}

int
core_types_resolve(struct core_types *ct, const struct stat_opts *o, struct target *first,
		   struct stat_events *first_ev, struct pmustat_error **err)
{
	char list[256];
	int rc;

	for (unsigned i = 0; i < ct->ncores; i++)
		ct->core_ev[i] = ct->core_t[i] == first ? first_ev : &ct->ev;
	core_types_describe(ct, list, sizeof(list));
	/* cpu_core/X/ on a list of E-cores only (or the reverse) would count nothing. */
	for (unsigned u = 0; !ct->mixed && u < first_ev->nhw; u++)
		if (first_ev->hw[u].flags & EVENT_F_OTHER_CORE_TYPE)
			return err_set(err, -EINVAL,
				       "'%s' counts on the other core type's cores only, and every listed core is %s (%s); list cores of that type with -C",
				       first_ev->hw[u].requested, type_name(&first->cpu), list);
	if (!ct->mixed)
		return 0;
	if (o->nmetric_specs)
		return err_set(err, -EINVAL, "-M on a list across core types (%s): each type has its own metrics; count each type's cores in a run of its own",
			       list);
	if (o->regions)
		return err_set(err, -EINVAL, "--regions on a list across core types (%s): the types' counters differ; count each type's cores in a run of its own",
			       list);
	if (o->interval_ms)
		return err_set(err, -EINVAL, "-I on a list across core types (%s): count each type's cores in a run of its own",
			       list);
	rc = target_load_table(&ct->other, err);
	if (rc)
		return rc;
	rc = requests_resolve(o, &ct->other, &ct->ev, NULL, NULL, err);
	if (rc) {
		(void)err_wrap(err, "on the %s cores of the list (%s)", type_name(&ct->other.cpu), list);
		return err_append(err, "; an event of one core type is named cpu_core/EVENT/ (P-cores) or cpu_atom/EVENT/ (E-cores)");
	}
	if (aligned(first_ev, &ct->ev))
		return 0;
	/* The default set: only what both types count (SLOTS is a P-core's fixed counter 3). */
	if (o->nspecs == 0) {
		uint32_t both = first->cpu.pmu.fixed_mask & ct->other.cpu.pmu.fixed_mask;

		rc = resolve_in(o, first, both, first_ev, err);
		if (rc == 0)
			rc = resolve_in(o, &ct->other, both, &ct->ev, err);
		if (rc)
			return rc;
		if (aligned(first_ev, &ct->ev))
			return 0;
	}
	return err_set(err, -EINVAL,
		       "the events resolve differently on the core types of the list (%s): an event counted twice on one type; name each event once",
		       list);
}

const char *
core_types_describe(const struct core_types *ct, char *buf, size_t size)
{
	int *mine = calloc(ct->ncores ? ct->ncores : 1, sizeof(*mine));
	size_t at = 0;

	buf[0] = '\0';
	if (!mine || ct->ncores == 0) {
		free(mine);
		return buf;
	}
	for (unsigned pass = 0; pass < 2; pass++) {
		const struct target *t = pass == 0 ? ct->core_t[0] : &ct->other;
		unsigned n = 0;
		char one[200];

		if (pass == 1 && !ct->mixed)
			break;
		for (unsigned i = 0; i < ct->ncores; i++)
			if (ct->core_t[i] == t)
				mine[n++] = ct->cpus[i];
		snprintf(buf + at, size - at, "%s%s: %s", pass ? ", " : "", type_name(&t->cpu),
			 cpulist_format(mine, n, one, sizeof(one)));
		at = strlen(buf);
	}
	free(mine);
	return buf;
}

void
core_types_free(struct core_types *ct)
{
	if (ct->mixed)
		target_close(&ct->other);
	requests_free(&ct->ev);
	free(ct->core_t);
	free(ct->core_ev);
	memset(ct, 0, sizeof(*ct));
}
