/*
 * perf_counters.c - counting through perf_event_open(2): attributes, the
 * open/read sequence for one run, statuses that never hide multiplexing,
 * and messages that name the cause (perf_event_paranoid, no vPMU, unknown
 * raw config) and the fix. The syscalls are hw/perf_sys.h's.
 */
#include "engine/perf_counters.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events/cpu.h"
#include "events/event.h"
#include "pmu/evtsel.h"
#include "hw/hw.h"
#include "pmu/msr.h"
#include "events/sw_events.h"
#include "base/err.h"
#include "base/strbuf.h"

/* The EVTSEL bits the kernel owns: it sets them from the attr itself. */
#define KERNEL_OWNED_BITS (EVTSEL_USR | EVTSEL_OS | EVTSEL_EN | EVTSEL_INT | EVTSEL_PC)

/*
 * Linux's pseudo-encodings of the fixed counters that have no GP event of
 * the same meaning: REF_TSC (fixed 2) and TOPDOWN.SLOTS (fixed 3).
 */
#define PERF_PSEUDO_REF_CYCLES	0x0300ull
#define PERF_PSEUDO_SLOTS	0x0400ull

void
perf_env_probe(const struct perf_seam *p, struct hw *hw, struct perf_env *env)
{
	static const char *const core_pmus[] = { "cpu", "cpu_core", "cpu_atom" };
	char buf[32], *end;
	long v;

	env->paranoid = PERF_PARANOID_UNKNOWN;
	if (hw && hw_read_file(hw, HW_FILE_PERF_EVENT_PARANOID, buf, sizeof(buf)) == 0) {
		v = strtol(buf, &end, 10);
		if (end != buf && (*end == '\n' || *end == '\0'))
			env->paranoid = (int)v;
	}
	env->privileged = geteuid() == 0;
	env->cpu_pmu = 0;
	for (size_t i = 0; i < sizeof(core_pmus) / sizeof(core_pmus[0]); i++)
		if (p->ops->pmu_exists(p->ctx, core_pmus[i]) == 1)
			env->cpu_pmu = 1;
}

int
perf_attr(const struct event *ev, const struct pmu_caps *caps, struct perf_event_attr *attr,
	  struct pmustat_error **err)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->disabled = 1;
	attr->enable_on_exec = 1;
	attr->inherit = 1;
	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr->exclude_user = !ev->usr;
	attr->exclude_kernel = !ev->os;
	if (event_is_software(ev)) {
		const struct sw_event *sw = sw_event_of(ev);

		if (!sw) {
			return err_set(err, -EINVAL, "'%s' is not a software event pmustat knows", ev->name);
		}
		attr->type = PERF_TYPE_SOFTWARE;
		attr->config = sw->config;
		return 0;
	}
	attr->exclude_hv = !ev->os;
	/* The kernel's generic event: it picks the vendor's encoding, or refuses. */
	if (ev->flags & EVENT_F_KERNEL_GENERIC) {
		attr->type = ev->perf_type;
		attr->config = ev->perf_config;
		return 0;
	}
	attr->type = PERF_TYPE_RAW;
	if (evtsel_fixed_ok(ev, caps) && ev->fixed == 2) {
		attr->config = PERF_PSEUDO_REF_CYCLES;
	} else if (evtsel_fixed_ok(ev, caps) && ev->fixed == 3) {
		attr->config = PERF_PSEUDO_SLOTS;
	} else {
		uint64_t v;
		int rc = evtsel_encode(ev, caps, false, &v, err);

		if (rc)
			return rc;
		attr->config = v & ~KERNEL_OWNED_BITS;
	}
	if (ev->extra_msr)
		attr->config1 = ev->extra_value;
	return 0;
}

static const char *
label(const struct event *ev)
{
	return ev->requested[0] ? ev->requested : ev->name;
}

/* A hardware event the kernel cannot count here: the run goes on without it. */
static bool
unsupported(int err, const struct event *ev, const struct perf_event_attr *attr,
	    const struct perf_env *env)
{
	if (event_is_software(ev))
		return false;
	switch (-err) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
	case EINVAL:
		return true;
	case EACCES:
	case EPERM:
		/* Not the sysctl's doing: the hypervisor or a security module. */
		return env->privileged || (env->paranoid != PERF_PARANOID_UNKNOWN &&
					   env->paranoid <= (attr->exclude_kernel ? 2 : 1));
	default:
		return false;
	}
}

int
perf_open_error(int rc, const struct event *ev, const struct perf_event_attr *attr,
		const struct perf_env *env, struct pmustat_error **err)
{
	struct strbuf b = STRBUF_INIT;
	bool hw = !event_is_software(ev), generic = ev->flags & EVENT_F_KERNEL_GENERIC;
	char what[96], paranoid[32];

	if (generic)
		snprintf(what, sizeof(what), "the kernel's generic %s event 0x%llx",
			 attr->type == PERF_TYPE_HW_CACHE ? "cache" : "hardware", (unsigned long long)attr->config);
	else if (hw)
		snprintf(what, sizeof(what), "raw config 0x%llx%s", (unsigned long long)attr->config,
			 attr->config1 ? ", config1 set" : "");
	else
		snprintf(what, sizeof(what), "software event");
	if (env->paranoid == PERF_PARANOID_UNKNOWN)
		snprintf(paranoid, sizeof(paranoid), "unreadable");
	else
		snprintf(paranoid, sizeof(paranoid), "%d", env->paranoid);
	strbuf_printf(&b, "perf_event_open for '%s' (%s) failed: %s: ", label(ev), what, strerror(-rc));
	switch (-rc) {
	case EACCES:
	case EPERM:
		if (!env->privileged && env->paranoid >= 3)
			strbuf_printf(&b, "kernel.perf_event_paranoid is %d, which forbids perf_event_open to users without CAP_PERFMON; as root, 'sysctl kernel.perf_event_paranoid=2' lets users count their own commands in user mode (1 adds kernel mode), or run pmustat as root",
				 env->paranoid);
		else if (!env->privileged && env->paranoid == 2 && !attr->exclude_kernel)
			strbuf_printf(&b, "kernel.perf_event_paranoid is 2, which lets users count user mode only; count with :u, or as root 'sysctl kernel.perf_event_paranoid=1', or run pmustat as root");
		else if (!env->privileged && env->paranoid == PERF_PARANOID_UNKNOWN)
			strbuf_printf(&b, "/proc/sys/kernel/perf_event_paranoid is unreadable, so the kernel's rule is unknown; run pmustat as root, or count with :u");
		else if (hw)
			strbuf_printf(&b, "the kernel refuses hardware counting although perf_event_paranoid (%s) allows it: a VM whose hypervisor exposes no PMU (vPMU), or a security module's perf_event rules; enable the vPMU, or count software events (task-clock, page-faults, ...)",
				 paranoid);
		else
			strbuf_printf(&b, "perf_event_paranoid is %s; a security module (SELinux, AppArmor) or a seccomp filter refuses perf_event_open",
				 paranoid);
		break;
	case ENOENT:
		if (!hw)
			strbuf_printf(&b, "this kernel does not know that software event");
		else if (env->cpu_pmu == 0 && generic)
			strbuf_printf(&b, "the kernel has no CPU PMU driver (no /sys/bus/event_source/devices/cpu): a VM without a vPMU; only software events (task-clock, page-faults, ...) count here, and --backend sim simulates instructions, caches and branches (Valgrind) for CI gates");
		else if (generic)
			strbuf_printf(&b, "this CPU's PMU driver has no equivalent of that generic event");
		else if (env->cpu_pmu == 0)
			strbuf_printf(&b, "the kernel has no CPU PMU driver (no /sys/bus/event_source/devices/cpu): a VM without a vPMU, or a CPU the kernel's perf does not support; only software events (task-clock, page-faults, ...) can be counted here");
		else
			strbuf_printf(&b, "the kernel's PMU does not know this raw config; check the event's encoding ('pmustat list'), or count it with --backend msr");
		break;
	case EOPNOTSUPP:
		strbuf_printf(&b, "the PMU cannot count it: a VM without a vPMU, or a vPMU without this feature (e.g. the user/kernel filter); enable the vPMU in the hypervisor, or count software events");
		break;
	case ENODEV:
		strbuf_printf(&b, "no PMU for this event on this CPU");
		break;
	case EINVAL:
		strbuf_printf(&b, hw ? "the kernel rejects this encoding (a bit or an offcore response value this PMU does not accept)"
				       : "the kernel rejects these attributes");
		break;
	case EMFILE:
	case ENFILE:
		strbuf_printf(&b, "too many open files; raise the limit ('ulimit -n')");
		break;
	case EBUSY:
	case ENOSPC:
		strbuf_printf(&b, "another perf user holds the counters exclusively; stop it, or try again");
		break;
	case ESRCH:
		strbuf_printf(&b, "the command's process is gone");
		break;
	case ENOSYS:
		strbuf_printf(&b, "this kernel has no perf_event_open (CONFIG_PERF_EVENTS off, or a seccomp filter); count with --backend msr");
		break;
	default:
		strbuf_printf(&b, "see perf_event_open(2)");
		break;
	}
	err_set(err, rc, "%s", strbuf_str(&b));
	strbuf_free(&b);
	return rc;
}

int
perf_open_counters(const struct perf_seam *p, const struct perf_env *env,
		   const struct pmu_caps *caps, struct perf_counter *c, unsigned n, pid_t pid,
		   struct pmustat_error **err)
{
	return perf_open_counters_on_cpu(p, env, caps, c, n, pid, -1, err);
}

static int
open_all(const struct perf_seam *p, const struct perf_env *env, const struct pmu_caps *caps,
	 struct perf_counter *c, unsigned n, pid_t pid, int cpu, bool running, unsigned long flags,
	 struct pmustat_error **err)
{
	int leader = -1;

	flags |= PERF_FLAG_FD_CLOEXEC;

	for (unsigned i = 0; i < n; i++) {
		c[i].fd = -1;
		c[i].open_err = 0;
		c[i].user_only = false;
		c[i].read_ok = false;
		memset(&c[i].v, 0, sizeof(c[i].v));
	}
	for (unsigned i = 0; i < n; i++) {
		struct perf_event_attr attr;
		bool sw = event_is_software(c[i].ev), alone;
		int fd, rc;

		rc = perf_attr(c[i].ev, caps, &attr, err);
		if (rc) {
			perf_close_counters(p, c, n);
			return rc;
		}
		/* Already running (-p, a CPU): no exec to wait for; a CPU has no task to follow. */
		if (running) {
			attr.enable_on_exec = 0;
			attr.inherit = cpu < 0;
		}
		/* The kernel's generic events stand alone, as perf stat opens them: it multiplexes them as it must. */
		alone = sw || (c[i].ev->flags & EVENT_F_KERNEL_GENERIC);
		fd = p->ops->open(p->ctx, &attr, pid, cpu, alone ? -1 : leader, flags);
		/*
		 * perf_event_paranoid 2 lets users count user mode only; the
		 * kernel's own events are still worth that (page faults of the
		 * command's memory accesses, its CPU time). The status says so.
		 */
		if ((fd == -EACCES || fd == -EPERM) && sw && !attr.exclude_kernel && !attr.exclude_user &&
		    !env->privileged) {
			attr.exclude_kernel = 1;
			fd = p->ops->open(p->ctx, &attr, pid, cpu, -1, flags);
			if (fd >= 0)
				c[i].user_only = true;
			else
				attr.exclude_kernel = 0;
		}
		if (fd < 0 && unsupported(fd, c[i].ev, &attr, env)) {
			c[i].open_err = fd;
			continue;
		}
		if (fd < 0) {
			perf_open_error(fd, c[i].ev, &attr, env, err);
			perf_close_counters(p, c, n);
			return fd;
		}
		c[i].fd = fd;
		if (!alone && leader < 0)
			leader = fd;
	}
	return 0;
}

int
perf_open_counters_on_cpu(const struct perf_seam *p, const struct perf_env *env,
			  const struct pmu_caps *caps, struct perf_counter *c, unsigned n, pid_t pid,
			  int cpu, struct pmustat_error **err)
{
	int rc = open_all(p, env, caps, c, n, pid, cpu, false, 0, err);

	if (rc == 0 || cpu < 0)
		return rc;
	(void)err_wrap(err, "-A: counting the command on CPU %d", cpu);
	/*
	 * The kernel's per-CPU rule is for counting everything on a CPU; a
	 * task's counter on one CPU needs what the task's counter needs.
	 */
	if (rc == -EACCES || rc == -EPERM)
		(void)err_append(err, "; per-CPU counts of the command need no more than its summed counts (without -A): only counting everything that runs on a CPU, as 'perf stat -a -A' does, needs kernel.perf_event_paranoid <= 0 or CAP_PERFMON");
	return rc;
}

int
perf_open_counters_on(const struct perf_seam *p, const struct perf_env *env,
		      const struct pmu_caps *caps, struct perf_counter *c, unsigned n, pid_t pid, int cpu,
		      bool running, struct pmustat_error **err)
{
	return open_all(p, env, caps, c, n, pid, cpu, running, 0, err);
}

int
perf_open_counters_cgroup(const struct perf_seam *p, const struct perf_env *env, const struct pmu_caps *caps,
			  struct perf_counter *c, unsigned n, int cgroup_fd, int cpu, struct pmustat_error **err)
{
	return open_all(p, env, caps, c, n, cgroup_fd, cpu, true, PERF_FLAG_PID_CGROUP, err);
}

int
perf_read_counters(const struct perf_seam *p, struct perf_counter *c, unsigned n,
		   struct pmustat_error **err)
{
	for (unsigned i = 0; i < n; i++) {
		int rc;

		if (c[i].fd < 0)
			continue;
		rc = p->ops->read(p->ctx, c[i].fd, &c[i].v);
		if (rc) {
			return err_set(err, rc, "reading the perf_event counter of '%s': %s", label(c[i].ev),
				 strerror(-rc));
		}
		c[i].read_ok = true;
	}
	return 0;
}

void
perf_close_counters(const struct perf_seam *p, struct perf_counter *c, unsigned n)
{
	/* Members before their leader: closing a leader first orphans them. */
	for (unsigned i = n; i-- > 0; ) {
		if (c[i].fd >= 0)
			p->ops->close(p->ctx, c[i].fd);
		c[i].fd = -1;
	}
}

bool
perf_counter_status(const struct perf_counter *c, const struct perf_env *env, char *buf,
		    size_t size)
{
	char note[96] = "";
	bool meaningful = false;

	if (c->user_only)
		snprintf(note, sizeof(note), " (user mode only: kernel.perf_event_paranoid=%d)",
			 env->paranoid);
	if (c->open_err) {
		snprintf(buf, size, "not supported");
	} else if (!c->read_ok) {
		snprintf(buf, size, "not counted");
	} else if (c->v.enabled > 0 && c->v.running == 0) {
		snprintf(buf, size, "not counted: the kernel never scheduled it (counters taken by another perf user or the NMI watchdog)");
	} else if (c->v.running < c->v.enabled) {
		snprintf(buf, size, "multiplexed: running %.1f%% of the time%s",
			 100.0 * (double)c->v.running / (double)c->v.enabled, note);
		meaningful = true;
	} else {
		snprintf(buf, size, "counted%s", note);
		meaningful = true;
	}
	return meaningful;
}
