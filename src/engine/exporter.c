/*
 * exporter.c - see exporter.h. libmicrohttpd parses HTTP; pmustat only
 * answers GET /metrics (404 for any other path, 405 for another method).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "engine/exporter.h"

/* What one client may cost: connections at once, idle seconds, bytes of request. */
#define EXPORTER_MAX_CONNECTIONS	128
#define EXPORTER_IDLE_SECONDS		10
#define EXPORTER_REQUEST_BYTES		(16 * 1024)
/* How long a scrape waits for the counting thread before 503. */
#define EXPORTER_ANSWER_SECONDS		5

struct exporter {
	struct MHD_Daemon *d;
	int efd;			/* eventfd: a scrape waits */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned long asked, answered;	/* scrapes asked for and answered */
	enum exposition want;
	char *text;			/* the last answer, for the scrape that asked */
	bool stopping;
	char address[80];
};

static const char *const content_types[] = {
	[EXPOSITION_PROMETHEUS] = "text/plain; version=0.0.4; charset=utf-8",
	[EXPOSITION_OPENMETRICS] = "application/openmetrics-text; version=1.0.0; charset=utf-8",
};

static enum MHD_Result
answer_text(struct MHD_Connection *conn, unsigned status, const char *text, const char *type)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)(uintptr_t)text,
								 MHD_RESPMEM_MUST_COPY);
	enum MHD_Result rc;

	if (!r)
		return MHD_NO;
	(void)MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	rc = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return rc;
}

/* Ask the counting thread for the counts in @fmt; the text (the caller frees it), or NULL after the wait. */
static char *
ask(struct exporter *ex, enum exposition fmt)
{
	uint64_t one = 1;
	unsigned long mine;
	struct timespec until;
	char *text = NULL;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += EXPORTER_ANSWER_SECONDS;
	pthread_mutex_lock(&ex->mu);
	if (!ex->stopping) {
		ex->want = fmt;
		mine = ++ex->asked;
		(void)!write(ex->efd, &one, sizeof(one));
		while (ex->answered < mine && !ex->stopping)
			if (pthread_cond_timedwait(&ex->cv, &ex->mu, &until) == ETIMEDOUT)
				break;
		if (ex->answered >= mine) {
			text = ex->text;
			ex->text = NULL;
		}
	}
	pthread_mutex_unlock(&ex->mu);
	return text;
}

/* Whether the client accepts OpenMetrics (Prometheus asks for it first). */
static bool
wants_openmetrics(struct MHD_Connection *conn)
{
	const char *accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);

	return accept && strstr(accept, "application/openmetrics-text");
}

static enum MHD_Result
on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method, const char *version,
	   const char *upload_data, size_t *upload_data_size, void **con_cls)
{
	static int first_call;
	struct exporter *ex = cls;
	enum exposition fmt;
	struct MHD_Response *r;
	enum MHD_Result rc;
	char *text;

	(void)version;
	(void)upload_data;
	if (!*con_cls) {
		*con_cls = &first_call;	/* headers only so far */
		return MHD_YES;
	}
	if (*upload_data_size) {
		*upload_data_size = 0;	/* a body is read and ignored (bounded by the memory limit) */
		return MHD_YES;
	}
	if (strcmp(url, "/metrics") != 0)
		return answer_text(conn, MHD_HTTP_NOT_FOUND, "pmustat serve: only /metrics is here\n", "text/plain");
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return answer_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "pmustat serve: GET /metrics\n", "text/plain");
	fmt = wants_openmetrics(conn) ? EXPOSITION_OPENMETRICS : EXPOSITION_PROMETHEUS;
	text = ask(ex, fmt);
	if (!text)
		return answer_text(conn, MHD_HTTP_SERVICE_UNAVAILABLE, "pmustat serve: the counts could not be read now\n",
				   "text/plain");
	r = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(text);
		return MHD_NO;
	}
	(void)MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, content_types[fmt]);
	rc = MHD_queue_response(conn, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return rc;
}

/* "ADDR:PORT" or "[ADDR]:PORT" (numeric) into @ss. 0, or -EINVAL. */
static int
parse_listen(const char *listen, struct sockaddr_storage *ss, socklen_t *len)
{
	char host[64];
	const char *colon = strrchr(listen, ':');
	const char *h = listen;
	size_t hn;
	char *end;
	unsigned long port;
	struct addrinfo hints, *ai = NULL;

	if (!colon || !colon[1])
		return -EINVAL;
	hn = (size_t)(colon - listen);
	if (hn >= 2 && h[0] == '[' && h[hn - 1] == ']') {
		h++;
		hn -= 2;
	}
	if (hn == 0 || hn >= sizeof(host))
		return -EINVAL;
	memcpy(host, h, hn);
	host[hn] = '\0';
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (errno || *end || port > 65535 || colon[1] < '0' || colon[1] > '9')
		return -EINVAL;
	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = AI_NUMERICHOST;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, NULL, &hints, &ai) != 0 || !ai)
		return -EINVAL;
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
	return 0;
}

bool
exporter_listen_ok(const char *listen)
{
	struct sockaddr_storage ss;
	socklen_t len;

	return parse_listen(listen, &ss, &len) == 0;
}

int
exporter_start(const char *listen, struct exporter **out, struct pmustat_error **err)
{
	struct sockaddr_storage ss;
	socklen_t len;
	struct exporter *ex;
	const union MHD_DaemonInfo *info;
	sigset_t all, old;
	char host[64];
	unsigned flags = MHD_USE_POLL_INTERNAL_THREAD;

	*out = NULL;
	if (parse_listen(listen, &ss, &len))
		return err_set(err, -EINVAL,
			       "--listen %s: want a numeric ADDR:PORT such as 127.0.0.1:9477, 0.0.0.0:9477 or [::1]:9477",
			       listen);
	ex = calloc(1, sizeof(*ex));
	if (!ex)
		return err_set(err, -ENOMEM, "out of memory");
	ex->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ex->efd < 0) {
		int e = errno;

		free(ex);
		return err_set(err, -e, "serve: eventfd: %s", strerror(e));
	}
	pthread_mutex_init(&ex->mu, NULL);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&ex->cv, &ca);
		pthread_condattr_destroy(&ca);
	}
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	/* The server's thread takes no signal: they stay the counting thread's (signals.h). */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ex->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, ex,
				 MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				 MHD_OPTION_CONNECTION_LIMIT, (unsigned)EXPORTER_MAX_CONNECTIONS,
				 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)EXPORTER_IDLE_SECONDS,
				 MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)EXPORTER_REQUEST_BYTES,
				 MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!ex->d) {
		exporter_stop(ex);
		return err_set(err, -EADDRINUSE,
			       "--listen %s: cannot listen there (the port in use by another program, or an address not of this machine); choose another with --listen ADDR:PORT",
			       listen);
	}
	info = MHD_get_daemon_info(ex->d, MHD_DAEMON_INFO_BIND_PORT);
	if (ss.ss_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host, sizeof(host));
	else
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, host, sizeof(host));
	snprintf(ex->address, sizeof(ex->address), ss.ss_family == AF_INET6 ? "[%s]:%u" : "%s:%u", host,
		 info ? (unsigned)info->port : 0u);
	*out = ex;
	return 0;
}

const char *
exporter_address(const struct exporter *ex)
{
	return ex->address;
}

int
exporter_fd(const struct exporter *ex)
{
	return ex->efd;
}

enum exposition
exporter_wanted(struct exporter *ex)
{
	uint64_t n;
	enum exposition fmt;

	(void)!read(ex->efd, &n, sizeof(n));
	pthread_mutex_lock(&ex->mu);
	fmt = ex->want ? ex->want : EXPOSITION_PROMETHEUS;
	pthread_mutex_unlock(&ex->mu);
	return fmt;
}

void
exporter_publish(struct exporter *ex, char *text)
{
	pthread_mutex_lock(&ex->mu);
	free(ex->text);
	ex->text = text;
	ex->answered = ex->asked;
	pthread_cond_broadcast(&ex->cv);
	pthread_mutex_unlock(&ex->mu);
}

void
exporter_stop(struct exporter *ex)
{
	if (!ex)
		return;
	pthread_mutex_lock(&ex->mu);
	ex->stopping = true;
	pthread_cond_broadcast(&ex->cv);
	pthread_mutex_unlock(&ex->mu);
	if (ex->d)
		MHD_stop_daemon(ex->d);
	close(ex->efd);
	free(ex->text);
	pthread_cond_destroy(&ex->cv);
	pthread_mutex_destroy(&ex->mu);
	free(ex);
}
