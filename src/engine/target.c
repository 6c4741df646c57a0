/*
 * target.c - see target.h.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysinfo.h>

#include "base/err.h"
#include "engine/target.h"
#include "events/cpu_source.h"
#include "events/data_dir.h"
#include "events/event_table.h"
#include "hw/hw.h"
#include "pmus/netburst/nb_table.h"

int
target_open(struct target *t, struct hw *hw, const char *dump, int core, struct pmustat_error **err)
{
	int rc;

	memset(t, 0, sizeof(*t));
	t->live = dump == NULL;
	t->dump = dump;
	t->events_dir = pmustat_events_dir();
	t->table_rc = 1;
	rc = cpu_source_load(hw, dump, core, &t->cpu, &t->core, err);
	if (rc < 0)
		return rc;
	cpu_mapfile_key(&t->cpu, t->key, sizeof(t->key));
	snprintf(t->label, sizeof(t->label), "%s", t->cpu.brand[0] ? t->cpu.brand : t->key);
	if (!cpu_can_count(&t->cpu))
		return 0;
	t->table_rc = mapfile_choose(t->events_dir, &t->cpu, &t->choice, &t->table_why);
	return 0;
}

int
target_load_table(struct target *t, struct pmustat_error **err)
{
	int rc;

	if (t->table || t->nb || t->table_rc != 0)
		return 0;
	rc = event_table_load(t->events_dir, t->choice.table, &t->table, err);
	if (rc == -EMEDIUMTYPE) {
		err_clear(err);
		rc = nb_table_load(t->events_dir, t->choice.table, &t->nb, err);
	}
	return rc;
}

bool
target_can_count(const struct target *t)
{
	return cpu_can_count(&t->cpu);
}

/*
 * How many CPU numbers to look through: the highest the kernel says is
 * online (through @hw: "0-3,8-11"), or the CPUs configured, whichever is
 * more.
 */
static int
cpu_count(struct hw *hw)
{
	char text[1024];
	int n = get_nprocs_conf(), cur = -1;

	if (hw_read_file(hw, HW_FILE_CPUS_ONLINE, text, sizeof(text)) != 0)
		return n;
	for (const char *p = text; *p; p++) {
		if (*p >= '0' && *p <= '9') {
			cur = (cur < 0 ? 0 : cur * 10) + (*p - '0');
			if (cur >= CPU_SETSIZE)
				return n;
		} else {
			if (cur + 1 > n)
				n = cur + 1;
			cur = -1;
		}
	}
	return cur + 1 > n ? cur + 1 : n;
}

int
target_nb_core(const struct target *t, struct hw *hw, int core, struct netburst_caps *nb, int *sibling)
{
	int ncpus = cpu_count(hw);
	struct cpu_info self;
	int rc;

	*sibling = -1;
	if (!t->live || !t->cpu.netburst.present)
		return -EINVAL;
	if (core == t->core) {
		self = t->cpu;
	} else {
		rc = cpu_source_load(hw, NULL, core, &self, NULL, NULL);
		if (rc < 0)
			return rc;
		if (!self.netburst.present)
			return -EINVAL;
	}
	*nb = self.netburst;
	if (!self.netburst.ht)
		return 0;
	for (int c = 0; c < ncpus; c++) {
		struct cpu_info other;

		if (c == core || cpu_source_load(hw, NULL, c, &other, NULL, NULL) < 0)
			continue;
		if (other.netburst.present && other.netburst.apic_id == (self.netburst.apic_id ^ 1u)) {
			*sibling = c;
			break;
		}
	}
	return 0;
}

void
target_close(struct target *t)
{
	event_table_free(t->table);
	nb_table_free(t->nb);
	err_free(t->table_why);
	t->table = NULL;
	t->nb = NULL;
	t->table_why = NULL;
}
