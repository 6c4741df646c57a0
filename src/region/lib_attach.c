/*
 * lib_attach.c - how libpmustat-region finds pmustat: at load time it looks
 * for PMUSTAT_REGION_FD, validates and maps the area behind it (see
 * region_abi.h), and copies what the hot path needs into lib_cfg. Without
 * the variable, or with an area it cannot trust, lib_begin_call and
 * lib_end_call stay a return: every call is one jump through a pointer
 * (a load and a branch) and that return.
 *
 * Also here: a thread's first call (its slot, its private state, in perf
 * mode its counter pages), records, thread exit and fork.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib_region.h"

/* The vDSO's getcpu through glibc; -1 (as 0xffffffff, the same at both ends) if it fails. */
LIB_HIDDEN uint32_t
lib_cpu_slow(void)
{
	return (uint32_t)sched_getcpu();
}

LIB_HIDDEN const char lib_no_key[1];
LIB_HIDDEN struct lib_config lib_cfg;
LIB_HIDDEN struct lib_frame lib_detached[2] = { { .key = lib_no_key }, { .key = lib_no_key } };
/*
 * (A TLS variable with an address for initial value: the dynamic linker
 * relocates the TLS image before it copies it for any thread.)
 */
LIB_HIDDEN __thread struct lib_frame *lib_top __attribute__((tls_model("initial-exec"))) =
	&lib_detached[1];
LIB_HIDDEN __thread struct lib_thread *lib_self __attribute__((tls_model("initial-exec")));

static pthread_key_t thread_key;

static int
parse_fd(const char *s)
{
	long v = 0;

	if (!s || !*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > 1000000)
			return -1;
		v = v * 10 + (*s - '0');
	}
	return (int)v;
}

/* Whether [off, off + n * size) lies inside the area, in 64-bit arithmetic. */
static bool
table_fits(uint64_t area, uint32_t off, uint32_t size, uint32_t n)
{
	return off % 64 == 0 && off >= sizeof(struct pmustat_region_header) &&
		(uint64_t)off + (uint64_t)size * n <= area;
}

/* A header copy pmustat could have written: 0 or the refusal. */
static uint32_t
check_header(const struct pmustat_region_header *h, uint64_t file_size)
{
	if (h->magic != PMUSTAT_REGION_MAGIC)
		return PMUSTAT_REGION_ATTACH_BAD_HEADER;
	if (h->version != PMUSTAT_REGION_VERSION)
		return PMUSTAT_REGION_ATTACH_VERSION;
	if (h->header_size != sizeof(*h) || h->area_size != file_size ||
	    (h->mode != PMUSTAT_REGION_MODE_RDPMC && h->mode != PMUSTAT_REGION_MODE_PERF) ||
	    h->nevents == 0 || h->nevents > PMUSTAT_REGION_MAX_EVENTS ||
	    h->thread_size != sizeof(struct pmustat_region_thread) ||
	    h->record_size != sizeof(struct pmustat_region_record) ||
	    h->thread_capacity == 0 || h->thread_capacity > PMUSTAT_REGION_MAX_THREADS ||
	    h->record_capacity == 0 || h->record_capacity > PMUSTAT_REGION_MAX_RECORDS ||
	    !table_fits(h->area_size, h->thread_offset, h->thread_size, h->thread_capacity) ||
	    !table_fits(h->area_size, h->record_offset, h->record_size, h->record_capacity))
		return PMUSTAT_REGION_ATTACH_BAD_HEADER;
	/* The two tables must not overlap. */
	if (h->thread_offset < h->record_offset ?
	    (uint64_t)h->thread_offset + (uint64_t)h->thread_size * h->thread_capacity > h->record_offset :
	    (uint64_t)h->record_offset + (uint64_t)h->record_size * h->record_capacity > h->thread_offset)
		return PMUSTAT_REGION_ATTACH_BAD_HEADER;
	for (uint32_t i = 0; i < h->nevents; i++) {
		const struct pmustat_region_event *e = &h->event[i];

		/* A bad ECX would make rdpmc fault: only fixed (bit 30) or GP indices. */
		if (h->mode == PMUSTAT_REGION_MODE_RDPMC &&
		    ((e->rdpmc_ecx & ~((1u << 30) | 0xffu)) != 0 || e->width == 0 || e->width > 64))
			return PMUSTAT_REGION_ATTACH_BAD_HEADER;
	}
	return PMUSTAT_REGION_ATTACH_OK;
}

static void
perf_attr(struct perf_event_attr *a, const struct pmustat_region_event *e)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = e->perf_type;
	a->config = e->perf_config;
	a->config1 = e->perf_config1;
	a->config2 = e->perf_config2;
	a->exclude_user = !!(e->perf_flags & PMUSTAT_REGION_PERF_EXCLUDE_USER);
	a->exclude_kernel = !!(e->perf_flags & PMUSTAT_REGION_PERF_EXCLUDE_KERNEL);
	a->exclude_hv = !!(e->perf_flags & PMUSTAT_REGION_PERF_EXCLUDE_HV);
	/* Never multiplexed: an event off the PMU reads as "not counted", not scaled. */
	a->pinned = 1;
}

static struct perf_event_mmap_page *
map_page(int fd)
{
	void *p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void
thread_free(void *p)
{
	struct lib_thread *t = p;
	long page = sysconf(_SC_PAGESIZE);

	if (!t)
		return;
	for (uint32_t i = 0; i < PMUSTAT_REGION_MAX_EVENTS; i++) {
		if (t->own_fd[i] >= 0) {
			if (t->page[i])
				munmap(t->page[i], (size_t)page);
			close(t->own_fd[i]);
		}
	}
	if (lib_self == t) {
		lib_self = NULL;
		lib_top = &lib_detached[1];
	}
	free(t);
}

/*
 * The child of a fork has the forking thread's state but must not write
 * the parent's slot and records, nor use its perf pages (not inherited:
 * the kernel maps them VM_DONTCOPY). It starts again with no open region.
 */
static void
after_fork_child(void)
{
	struct lib_thread *t = lib_self;

	lib_cfg.owner_tid = -1;
	if (!t)
		return;
	for (uint32_t i = 0; i < PMUSTAT_REGION_MAX_EVENTS; i++) {
		if (t->own_fd[i] >= 0)
			close(t->own_fd[i]);
	}
	lib_self = NULL;
	lib_top = &lib_detached[1];
	pthread_setspecific(thread_key, NULL);
	free(t);
}

/* perf mode: this thread's pages, the owner's or events of its own. */
static void
thread_perf_pages(struct lib_thread *t, int tid)
{
	int err = 0;

	for (uint32_t i = 0; i < lib_cfg.nevents; i++) {
		long fd;

		if (tid == lib_cfg.owner_tid) {
			t->page[i] = lib_cfg.owner_page[i];
			continue;
		}
		fd = syscall(SYS_perf_event_open, &lib_cfg.attr[i], 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			err = -errno;
			continue;
		}
		t->own_fd[i] = (int)fd;
		t->page[i] = map_page((int)fd);
		if (!t->page[i])
			err = -errno;
	}
	if (t->slot)
		t->slot->perf_error = err;
}

LIB_HIDDEN struct lib_thread *
lib_thread_attach(void)
{
	struct pmustat_region_header *h = lib_cfg.hdr;
	struct lib_thread *t;
	uint32_t n;
	int tid;

	t = calloc(1, sizeof(*t));
	if (!t) {
		lib_count(&h->calls_dropped);
		return NULL;
	}
	t->scratch.state = 0;
	t->scratch.minus_open = LIB_NEVER_OPEN;
	/* No frame matches a name yet; the guards never will. */
	for (uint32_t i = 0; i < LIB_FRAMES; i++)
		t->frames[i].key = lib_no_key;
	t->pid = (int)getpid();
	for (uint32_t i = 0; i < PMUSTAT_REGION_MAX_EVENTS; i++)
		t->own_fd[i] = -1;
	for (uint32_t i = 0; i < LIB_TABLE; i++)
		t->key[i] = lib_no_key;
	tid = (int)syscall(SYS_gettid);

	/* A slot, unless they are all taken: never count past the capacity. */
	n = __atomic_load_n(&h->threads_used, __ATOMIC_RELAXED);
	do {
		if (n >= lib_cfg.thread_capacity)
			break;
	} while (!__atomic_compare_exchange_n(&h->threads_used, &n, n + 1, true,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	if (n < lib_cfg.thread_capacity) {
		t->slot = &lib_cfg.threads[n];
		t->slot_index = n;
		t->slot->pid = t->pid;
		t->slot->tid = tid;
		__atomic_store_n(&t->slot->state, PMUSTAT_REGION_PUBLISHED, __ATOMIC_RELEASE);
	} else {
		lib_count(&h->threads_dropped);
	}
	if (lib_cfg.mode == PMUSTAT_REGION_MODE_PERF)
		thread_perf_pages(t, tid);
	pthread_setspecific(thread_key, t);
	lib_self = t;
	lib_top = &t->frames[1];
	return t;
}

LIB_HIDDEN struct pmustat_region_record *
lib_record_new(struct lib_thread *t, const char *name)
{
	struct pmustat_region_header *h = lib_cfg.hdr;
	struct pmustat_region_record *rec;
	size_t len = strnlen(name, PMUSTAT_REGION_NAME_SIZE);
	uint32_t n;

	n = __atomic_load_n(&h->records_used, __ATOMIC_RELAXED);
	do {
		if (n >= lib_cfg.record_capacity)
			return NULL;
	} while (!__atomic_compare_exchange_n(&h->records_used, &n, n + 1, true,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	rec = &lib_cfg.records[n];
	rec->thread = t->slot_index;
	rec->flags = 0;
	if (len == PMUSTAT_REGION_NAME_SIZE) {
		len = PMUSTAT_REGION_NAME_SIZE - 1;
		rec->flags |= PMUSTAT_REGION_NAME_TRUNCATED;
	}
	memcpy(rec->name, name, len);
	rec->name[len] = '\0';
	__atomic_store_n(&rec->state, PMUSTAT_REGION_PUBLISHED, __ATOMIC_RELEASE);
	return rec;
}

/* Refuse the area, telling pmustat why if the header is ours to write. */
static void
refuse(struct pmustat_region_header *h, uint32_t why)
{
	if (h)
		__atomic_store_n(&h->attach_error, why, __ATOMIC_RELAXED);
}

/* 0 when the area behind @fd is usable; lib_cfg is filled. */
static int
attach(int fd)
{
	struct pmustat_region_header copy, *h;
	struct stat st;
	int seals;
	void *map;
	uint32_t why;

	/*
	 * Only a sealed memfd: if the program could shrink the file, touching
	 * the mapping past its end would raise SIGBUS in our code.
	 */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size < sizeof(copy) || (uint64_t)st.st_size > (1ull << 32))
		return -1;
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || !(seals & F_SEAL_SHRINK))
		return -1;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -1;
	h = map;
	memcpy(&copy, h, sizeof(copy));
	why = check_header(&copy, (uint64_t)st.st_size);
	if (why != PMUSTAT_REGION_ATTACH_OK) {
		refuse(copy.magic == PMUSTAT_REGION_MAGIC ? h : NULL, why);
		munmap(map, (size_t)st.st_size);
		return -1;
	}

	lib_cfg.mode = copy.mode;
	lib_cfg.nevents = copy.nevents;
	lib_cfg.rdpmc_n = copy.mode == PMUSTAT_REGION_MODE_RDPMC ? copy.nevents : 0;
	for (uint32_t i = 0; i < copy.nevents; i++) {
		const struct pmustat_region_event *e = &copy.event[i];

		lib_cfg.ecx[i] = e->rdpmc_ecx;
		lib_cfg.mask[i] = copy.mode == PMUSTAT_REGION_MODE_PERF || e->width == 64 ?
			~0ull : (1ull << e->width) - 1;
		perf_attr(&lib_cfg.attr[i], e);
	}
	lib_cfg.hdr = h;
	lib_cfg.threads = (void *)((char *)map + copy.thread_offset);
	lib_cfg.thread_capacity = copy.thread_capacity;
	lib_cfg.records = (void *)((char *)map + copy.record_offset);
	lib_cfg.record_capacity = copy.record_capacity;
	lib_cfg.owner_tid = -1;
	if (copy.mode == PMUSTAT_REGION_MODE_PERF && copy.owner_tid > 0 &&
	    copy.owner_tid == (int)syscall(SYS_gettid)) {
		lib_cfg.owner_tid = copy.owner_tid;
		for (uint32_t i = 0; i < copy.nevents; i++) {
			lib_cfg.owner_page[i] = copy.event[i].perf_fd >= 0 ?
				map_page(copy.event[i].perf_fd) : NULL;
			if (!lib_cfg.owner_page[i])
				refuse(h, PMUSTAT_REGION_ATTACH_PERF);
		}
	}
	__atomic_fetch_add(&h->attached, 1, __ATOMIC_RELAXED);
	return 0;
}

__attribute__((constructor)) static void
lib_region_init(void)
{
	int fd = parse_fd(secure_getenv(PMUSTAT_REGION_ENV_FD));

	/* --backend sim: no counters, no area; Callgrind counts between the marks. */
	if (fd < 0 && secure_getenv(PMUSTAT_REGION_ENV_SIM))
		(void)lib_valgrind_arm();
	if (fd < 0)
		return;
	if (pthread_key_create(&thread_key, thread_free) != 0)
		return;
	if (attach(fd) < 0)
		return;
	pthread_atfork(NULL, NULL, after_fork_child);
	lib_arm();
}
