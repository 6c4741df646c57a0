/*
 * exporter.h - `pmustat serve`'s HTTP side: GET /metrics answered with the
 * counts so far, through libmicrohttpd (one internal thread; connection
 * count, idle time and request size bounded, so a hostile or slow client
 * costs a bounded share and never reaches the counters).
 *
 * The counting thread owns the counters: a scrape asks it (exporter_fd()
 * becomes readable), it reads them without stopping or resetting them,
 * renders the exposition the scrape negotiated (exporter_wanted()) and
 * hands the text back (exporter_publish()). A scrape that gets no answer
 * in time is answered 503.
 */
#ifndef PMUSTAT_EXPORTER_H
#define PMUSTAT_EXPORTER_H

#include <stdbool.h>

#include "report/output.h"

struct exporter;
struct pmustat_error;

/* The default --listen: loopback only. */
#define EXPORTER_DEFAULT_LISTEN "127.0.0.1:9477"

/* Whether @listen is an address exporter_start() takes (checked before anything is counted). */
bool
exporter_listen_ok(const char *listen);

/*
 * Listen on @listen ("ADDR:PORT", "[ADDR]:PORT" for IPv6, numeric; port 0:
 * any free one) and answer scrapes. 0 and *@out, or -errno with the cause
 * in @err (a bad address, the port in use).
 */
int
exporter_start(const char *listen, struct exporter **out, struct pmustat_error **err);

/* The address it listens on, with the port it got ("127.0.0.1:41234"). */
const char *
exporter_address(const struct exporter *ex);

/* Readable while a scrape waits for the counts (the counting thread polls it). */
int
exporter_fd(const struct exporter *ex);

/* Take the waiting scrape's request: the format it negotiated. Clears exporter_fd(). */
enum exposition
exporter_wanted(struct exporter *ex);

/* Answer the waiting scrape with @text (taken; NULL: answered 500). */
void
exporter_publish(struct exporter *ex, char *text);

/* Stop listening, answer any waiting scrape 503, free @ex. NULL is ignored. */
void
exporter_stop(struct exporter *ex);

#endif
