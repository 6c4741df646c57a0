/*
 * region_host.c - pmustat's side of the region contract: the area for one
 * run, and reading what libpmustat-region wrote into it back as untrusted
 * input. See region_host.h and region_abi.h.
 */
#include "region/region_host.h"
#include "base/err.h"
#include "base/text.h"
#include "hw/perf_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct region_area {
	int fd;
	size_t size;
	struct region_host_params params;
};

static int fail(struct pmustat_error **err, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
fail(struct pmustat_error **err, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_setv(err, ret, fmt, ap);
	va_end(ap);
	return ret;
}

const char *
region_attach_error_str(uint32_t code)
{
	switch (code) {
	case PMUSTAT_REGION_ATTACH_OK:
		return "none";
	case PMUSTAT_REGION_ATTACH_BAD_HEADER:
		return "the library found the area's header malformed";
	case PMUSTAT_REGION_ATTACH_VERSION:
		return "the program's libpmustat-region speaks another contract version: rebuild it against this pmustat's library";
	case PMUSTAT_REGION_ATTACH_PERF:
		return "the library could not map the perf self-monitoring pages of the events";
	default:
		return "unknown refusal code";
	}
}

static unsigned
or_default(unsigned v, unsigned def)
{
	return v ? v : def;
}

int
region_header_init(const struct region_host_params *p, struct pmustat_region_header *h,
		   struct pmustat_error **err)
{
	unsigned threads = or_default(p->thread_capacity, REGION_HOST_DEFAULT_THREADS);
	unsigned records = or_default(p->record_capacity, REGION_HOST_DEFAULT_RECORDS);

	memset(h, 0, sizeof(*h));
	if (p->mode != PMUSTAT_REGION_MODE_RDPMC && p->mode != PMUSTAT_REGION_MODE_PERF)
		return fail(err, -EINVAL, "region area: unknown mode %d", (int)p->mode);
	if (p->nevents == 0 || p->nevents > PMUSTAT_REGION_MAX_EVENTS)
		return fail(err, -EINVAL, "region area: %u events (1 to %u can be read in a region)",
			    p->nevents, PMUSTAT_REGION_MAX_EVENTS);
	if (threads > PMUSTAT_REGION_MAX_THREADS || records > PMUSTAT_REGION_MAX_RECORDS)
		return fail(err, -EINVAL, "region area: capacity above %u threads or %u records",
			    PMUSTAT_REGION_MAX_THREADS, PMUSTAT_REGION_MAX_RECORDS);
	for (unsigned i = 0; i < p->nevents; i++) {
		const struct region_host_event *e = &p->events[i];

		if (p->mode == PMUSTAT_REGION_MODE_RDPMC &&
		    ((e->rdpmc_ecx & ~((1u << 30) | 0xffu)) != 0 || e->width == 0 || e->width > 64))
			return fail(err, -EINVAL, "region area: event %u: rdpmc ECX 0x%x width %u",
				    i, e->rdpmc_ecx, e->width);
	}
	h->magic = PMUSTAT_REGION_MAGIC;
	h->version = PMUSTAT_REGION_VERSION;
	h->header_size = sizeof(*h);
	h->mode = p->mode;
	h->nevents = p->nevents;
	h->run = p->run;
	h->owner_tid = p->mode == PMUSTAT_REGION_MODE_PERF ? p->owner_tid : 0;
	h->thread_offset = sizeof(*h);
	h->thread_size = sizeof(struct pmustat_region_thread);
	h->thread_capacity = threads;
	h->record_offset = h->thread_offset + threads * h->thread_size;
	h->record_size = sizeof(struct pmustat_region_record);
	h->record_capacity = records;
	h->area_size = (uint64_t)h->record_offset + (uint64_t)records * h->record_size;
	for (unsigned i = 0; i < p->nevents; i++) {
		const struct region_host_event *e = &p->events[i];
		struct pmustat_region_event *o = &h->event[i];

		o->rdpmc_ecx = e->rdpmc_ecx;
		o->width = e->width;
		o->perf_fd = p->mode == PMUSTAT_REGION_MODE_PERF ? e->perf_fd : -1;
		o->perf_type = e->perf_type;
		o->perf_config = e->perf_config;
		o->perf_config1 = e->perf_config1;
		o->perf_config2 = e->perf_config2;
		o->perf_flags = e->perf_flags;
	}
	for (unsigned i = p->nevents; i < PMUSTAT_REGION_MAX_EVENTS; i++)
		h->event[i].perf_fd = -1;
	return 0;
}

int
region_area_create(const struct region_host_params *p, struct region_area **out, struct pmustat_error **err)
{
	struct pmustat_region_header h;
	struct region_area *a;
	int ret;

	*out = NULL;
	ret = region_header_init(p, &h, err);
	if (ret < 0)
		return ret;
	a = calloc(1, sizeof(*a));
	if (!a)
		return fail(err, -ENOMEM, "region area: out of memory");
	a->params = *p;
	a->size = (size_t)h.area_size;
	a->fd = memfd_create("pmustat-regions", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (a->fd < 0) {
		ret = fail(err, -errno, "region area: memfd_create: %s", strerror(errno));
		free(a);
		return ret;
	}
	/* Sealed at its size: a program that could shrink it would make readers fault. */
	if (ftruncate(a->fd, (off_t)a->size) < 0 ||
	    pwrite(a->fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) ||
	    fcntl(a->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
		ret = fail(err, errno ? -errno : -EIO, "region area of %zu bytes: %s", a->size,
			   strerror(errno ? errno : EIO));
		region_area_free(a);
		return ret;
	}
	*out = a;
	return 0;
}

void
region_area_free(struct region_area *a)
{
	if (!a)
		return;
	if (a->fd >= 0)
		close(a->fd);
	free(a);
}

int
region_area_fd(const struct region_area *a)
{
	return a->fd;
}

size_t
region_area_size(const struct region_area *a)
{
	return a->size;
}

int
region_area_env(const struct region_area *a, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s=%d", PMUSTAT_REGION_ENV_FD, a->fd);

	return n < 0 || (size_t)n >= size ? -ENOSPC : 0;
}

int
region_area_inherit(const struct region_area *a)
{
	int flags = fcntl(a->fd, F_GETFD);

	if (flags < 0 || fcntl(a->fd, F_SETFD, flags & ~FD_CLOEXEC) < 0)
		return -errno;
	return 0;
}

int
region_area_set_perf(const struct region_area *a, pid_t owner_tid, const int *fds, unsigned nfds)
{
	int32_t tid = (int32_t)owner_tid;

	if (a->params.mode != PMUSTAT_REGION_MODE_PERF || nfds > a->params.nevents)
		return -EINVAL;
	if (pwrite(a->fd, &tid, sizeof(tid), offsetof(struct pmustat_region_header, owner_tid)) !=
	    (ssize_t)sizeof(tid))
		return -EIO;
	for (unsigned i = 0; i < nfds; i++) {
		int32_t fd = fds[i];
		off_t at = (off_t)(offsetof(struct pmustat_region_header, event) +
				   i * sizeof(struct pmustat_region_event) +
				   offsetof(struct pmustat_region_event, perf_fd));

		if (pwrite(a->fd, &fd, sizeof(fd), at) != (ssize_t)sizeof(fd))
			return -EIO;
	}
	return 0;
}

int
region_area_open_perf(const struct region_area *a, const struct perf_seam *p, unsigned *failed)
{
	int fds[PMUSTAT_REGION_MAX_EVENTS];
	unsigned n = 0;
	int rc = 0;

	if (a->params.mode != PMUSTAT_REGION_MODE_PERF || a->params.nevents > PMUSTAT_REGION_MAX_EVENTS)
		return -EINVAL;
	for (; n < a->params.nevents; n++) {
		const struct region_host_event *e = &a->params.events[n];
		struct perf_event_attr attr;

		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = e->perf_type;
		attr.config = e->perf_config;
		attr.config1 = e->perf_config1;
		attr.config2 = e->perf_config2;
		attr.exclude_user = !!(e->perf_flags & PMUSTAT_REGION_PERF_EXCLUDE_USER);
		attr.exclude_kernel = !!(e->perf_flags & PMUSTAT_REGION_PERF_EXCLUDE_KERNEL);
		attr.exclude_hv = !!(e->perf_flags & PMUSTAT_REGION_PERF_EXCLUDE_HV);
		attr.pinned = 1;
		attr.disabled = 1;
		attr.enable_on_exec = 1;
		fds[n] = p->ops->open(p->ctx, &attr, 0, -1, -1, 0);
		if (fds[n] < 0) {
			rc = fds[n];
			if (failed)
				*failed = n;
			break;
		}
	}
	if (rc == 0)
		rc = region_area_set_perf(a, getpid(), fds, n);
	if (rc)
		while (n > 0)
			p->ops->close(p->ctx, fds[--n]);
	return rc;
}

int
region_area_read(const struct region_area *a, struct region_result *r, struct pmustat_error **err)
{
	size_t done = 0;
	char *buf;
	int ret;

	memset(r, 0, sizeof(*r));
	buf = malloc(a->size);
	if (!buf)
		return fail(err, -ENOMEM, "region area: out of memory");
	/* A private copy: the program (or a child it left behind) may still write. */
	while (done < a->size) {
		ssize_t n = pread(a->fd, buf + done, a->size - done, (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = fail(err, n < 0 ? -errno : -EIO, "reading the region area: %s",
				   n < 0 ? strerror(errno) : "short read");
			free(buf);
			return ret;
		}
		done += (size_t)n;
	}
	ret = region_result_parse(buf, a->size, &a->params, r, err);
	free(buf);
	return ret;
}

/* ---- validation ---- */

static bool
all_zero(const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		if (c[i])
			return false;
	return true;
}

/* Length of the UTF-8 sequence at @s (at most @n bytes), 0 if invalid. */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates, beyond U+10FFFF. */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

void
region_name_clean(char *dst, const char *src, size_t len)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t i = 0;

	while (i < len) {
		size_t n = utf8_len(s + i, len - i);

		if (n == 0 || (n == 1 && text_is_control(s[i]))) {
			dst[i++] = '?';
			continue;
		}
		memcpy(dst + i, s + i, n);
		i += n;
	}
	dst[len] = '\0';
}

static uint64_t
sat_add(uint64_t a, uint64_t b, bool *saturated)
{
	if (a > UINT64_MAX - b) {
		*saturated = true;
		return UINT64_MAX;
	}
	return a + b;
}

static int
by_thread_then_name(const void *a, const void *b)
{
	const struct region_thread_count *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int
by_name(const void *a, const void *b)
{
	const struct region_thread_count *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->thread < y->thread ? -1 : x->thread > y->thread;
}

static void
add_counts(uint64_t *dst_begins, uint64_t *dst_calls, uint64_t *dst_uncounted, uint64_t *dst_sum,
	   const struct region_thread_count *c, unsigned nevents, bool *saturated)
{
	*dst_begins = sat_add(*dst_begins, c->begins, saturated);
	*dst_calls = sat_add(*dst_calls, c->calls, saturated);
	*dst_uncounted = sat_add(*dst_uncounted, c->uncounted, saturated);
	for (unsigned i = 0; i < nevents; i++)
		dst_sum[i] = sat_add(dst_sum[i], c->sum[i], saturated);
}

/* Records of one thread and name are one region (the library makes one, save cut names). */
static unsigned
merge_counts(struct region_thread_count *c, unsigned n, unsigned nevents)
{
	unsigned out = 0;
	bool ignored = false;

	qsort(c, n, sizeof(*c), by_thread_then_name);
	for (unsigned i = 0; i < n; i++) {
		if (out && c[out - 1].thread == c[i].thread && strcmp(c[out - 1].name, c[i].name) == 0) {
			add_counts(&c[out - 1].begins, &c[out - 1].calls, &c[out - 1].uncounted,
				   c[out - 1].sum, &c[i], nevents, &ignored);
			c[out - 1].truncated |= c[i].truncated;
			continue;
		}
		c[out++] = c[i];
	}
	return out;
}

static int
make_totals(struct region_result *r)
{
	struct region_thread_count *sorted;
	unsigned n = 0;

	if (r->ncounts == 0)
		return 0;
	sorted = malloc(r->ncounts * sizeof(*sorted));
	r->totals = calloc(r->ncounts, sizeof(*r->totals));
	if (!sorted || !r->totals) {
		free(sorted);
		return -ENOMEM;
	}
	memcpy(sorted, r->counts, r->ncounts * sizeof(*sorted));
	qsort(sorted, r->ncounts, sizeof(*sorted), by_name);
	for (unsigned i = 0; i < r->ncounts; i++) {
		struct region_total *t;

		if (n == 0 || strcmp(r->totals[n - 1].name, sorted[i].name) != 0) {
			t = &r->totals[n++];
			memcpy(t->name, sorted[i].name, sizeof(t->name));
		}
		t = &r->totals[n - 1];
		t->truncated |= sorted[i].truncated;
		t->threads++;
		add_counts(&t->begins, &t->calls, &t->uncounted, t->sum, &sorted[i], r->nevents,
			   &t->saturated);
	}
	r->ntotals = n;
	free(sorted);
	return 0;
}

static int
parse_threads(const unsigned char *buf, const struct pmustat_region_header *want, uint32_t used,
	      struct region_result *r, int *map, struct pmustat_error **err)
{
	for (uint32_t i = 0; i < used; i++) {
		struct pmustat_region_thread s;

		memcpy(&s, buf + want->thread_offset + (size_t)i * want->thread_size, sizeof(s));
		map[i] = -1;
		if (s.state == 0) {
			r->skipped++;	/* taken, not published: the process died in between */
			continue;
		}
		if (s.state != PMUSTAT_REGION_PUBLISHED || s.pid <= 0 || s.tid <= 0 ||
		    s.perf_error > 0 || s.perf_error < -4095 || !all_zero(s.reserved, sizeof(s.reserved)))
			return fail(err, -EPROTO, "region area: thread slot %u is corrupt", i);
		map[i] = (int)r->nthreads;
		r->threads[r->nthreads++] = (struct region_thread){
			.pid = s.pid, .tid = s.tid, .perf_error = s.perf_error,
			.unmatched_ends = s.unmatched_ends, .depth_dropped = s.depth_dropped,
			.regions_dropped = s.regions_dropped,
		};
	}
	return 0;
}

static int
parse_records(const unsigned char *buf, const struct pmustat_region_header *want, uint32_t used,
	      uint32_t threads_used, const int *map, struct region_result *r, struct pmustat_error **err)
{
	for (uint32_t i = 0; i < used; i++) {
		struct pmustat_region_record rec;
		struct region_thread_count *c;
		const char *nul;
		uint64_t begins;

		memcpy(&rec, buf + want->record_offset + (size_t)i * want->record_size, sizeof(rec));
		if (rec.state == 0) {
			r->skipped++;	/* likewise */
			continue;
		}
		nul = memchr(rec.name, '\0', sizeof(rec.name));
		if (rec.state != PMUSTAT_REGION_PUBLISHED || rec.thread >= threads_used ||
		    map[rec.thread] < 0 || (rec.flags & ~PMUSTAT_REGION_NAME_TRUNCATED) || !nul ||
		    rec.reserved2 || !all_zero(rec.reserved1, sizeof(rec.reserved1)))
			return fail(err, -EPROTO, "region area: record %u is corrupt", i);
		/* begin() calls: the completed pairs and those still open. */
		begins = rec.calls + (uint32_t)(0u - rec.minus_open);
		if (begins < rec.calls || rec.uncounted > rec.calls)
			return fail(err, -EPROTO,
				    "region area: record %u has impossible counts (%llu calls of %llu begins, %llu uncounted)",
				    i, (unsigned long long)rec.calls, (unsigned long long)begins,
				    (unsigned long long)rec.uncounted);
		if (!all_zero(rec.sum + want->nevents,
			      (PMUSTAT_REGION_MAX_EVENTS - want->nevents) * sizeof(rec.sum[0])))
			return fail(err, -EPROTO, "region area: record %u counts events that were not programmed", i);
		c = &r->counts[r->ncounts++];
		region_name_clean(c->name, rec.name, (size_t)(nul - rec.name));
		c->truncated = rec.flags & PMUSTAT_REGION_NAME_TRUNCATED;
		c->thread = (unsigned)map[rec.thread];
		c->begins = begins;
		c->calls = rec.calls;
		c->uncounted = rec.uncounted;
		memcpy(c->sum, rec.sum, want->nevents * sizeof(rec.sum[0]));
	}
	return 0;
}

int
region_result_parse(const void *buf, size_t size, const struct region_host_params *p,
		    struct region_result *r, struct pmustat_error **err)
{
	struct pmustat_region_header want, h;
	int *map = NULL;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = region_header_init(p, &want, err);
	if (ret < 0)
		return ret;
	if (size != want.area_size)
		return fail(err, -EPROTO, "region area: %zu bytes, expected %llu", size,
			    (unsigned long long)want.area_size);
	memcpy(&h, buf, sizeof(h));
	/* Set by region_area_set_perf() in the child, and without effect on the reading. */
	if (want.mode == PMUSTAT_REGION_MODE_PERF) {
		want.owner_tid = h.owner_tid;
		for (unsigned i = 0; i < PMUSTAT_REGION_MAX_EVENTS; i++)
			want.event[i].perf_fd = h.event[i].perf_fd;
	}
	/* Everything before the library's counters is pmustat's and must be as written. */
	if (memcmp(&h, &want, offsetof(struct pmustat_region_header, attached)) != 0 ||
	    !all_zero(h.reserved1, sizeof(h.reserved1)))
		return fail(err, -EPROTO, "region area: the program overwrote its header");
	if (h.threads_used > want.thread_capacity || h.records_used > want.record_capacity)
		return fail(err, -EPROTO, "region area: %u threads and %u records used of %u and %u",
			    h.threads_used, h.records_used, want.thread_capacity, want.record_capacity);
	r->mode = want.mode;
	r->nevents = want.nevents;
	r->run = want.run;
	r->attached = h.attached;
	r->attach_error = h.attach_error;
	r->threads_dropped = h.threads_dropped;
	r->calls_dropped = h.calls_dropped;
	r->threads = calloc(h.threads_used ? h.threads_used : 1, sizeof(*r->threads));
	r->counts = calloc(h.records_used ? h.records_used : 1, sizeof(*r->counts));
	map = calloc(h.threads_used ? h.threads_used : 1, sizeof(*map));
	if (!r->threads || !r->counts || !map) {
		ret = fail(err, -ENOMEM, "region area: out of memory");
		goto out;
	}
	ret = parse_threads(buf, &want, h.threads_used, r, map, err);
	if (ret == 0)
		ret = parse_records(buf, &want, h.records_used, h.threads_used, map, r, err);
	if (ret == 0 && region_result_totals(r) < 0)
		ret = fail(err, -ENOMEM, "region area: out of memory");
out:
	free(map);
	if (ret < 0)
		region_result_free(r);
	return ret;
}

int
region_result_totals(struct region_result *r)
{
	if (r->ncounts == 0)
		return 0;
	r->ncounts = merge_counts(r->counts, r->ncounts, r->nevents);
	return make_totals(r);
}

void
region_result_free(struct region_result *r)
{
	free(r->threads);
	free(r->counts);
	free(r->totals);
	memset(r, 0, sizeof(*r));
}
