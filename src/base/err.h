/*
 * err.h - pmustat's one error value: what failed, as a message built once
 * on the heap (never truncated), the exit status it means and the errno
 * behind it.
 *
 * A function that can fail takes `struct pmustat_error **err` as its last
 * argument and returns 0 or a negative errno, so that a caller can still
 * branch on the cause (-ENOENT: no such table, fall back). On failure it
 * sets *err with err_set(), which replaces whatever *err held. A caller
 * that passes the failure up adds what it knows in front (err_wrap(): "core
 * 3: " + the cause) or after it (err_append(): "; pick another core with
 * -C"). A caller that recovers frees it (err_clear()). @err may be NULL:
 * the caller wants only the errno.
 *
 * Nothing below cli/ prints an error: cli/main.c is the one place that
 * writes "pmustat <sub>: <message>" and exits with err_status().
 *
 * Allocation failure never loses an error: the value is then a static
 * "out of memory" one, which err_free() leaves alone.
 */
#ifndef PMUSTAT_ERR_H
#define PMUSTAT_ERR_H

#include <stdarg.h>

struct pmustat_error {
	int status;	/* the exit status it means (EXIT_PMUSTAT_FAILURE unless said otherwise) */
	int errnum;	/* the cause, a positive errno; 0 when none */
	char *msg;	/* the whole message: no "pmustat:" prefix, no newline */
};

/*
 * *@err = a new error with @fmt's message, exit status EXIT_PMUSTAT_FAILURE
 * and errno -@rc (what it held before is freed, after the message is
 * built: err_msg(*err) may be one of the arguments). Returns @rc, so that
 * `return err_set(err, -EINVAL, "...")` reads as what it does. Every
 * message, here and in err_wrap() and err_append(), has its control
 * characters (text from outside: a path, an argument) shown as '?'.
 */
int err_set(struct pmustat_error **err, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int err_setv(struct pmustat_error **err, int rc, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/*
 * err_set() for a message of several lines of pmustat's own: its line
 * breaks stay; every other control character is '?' (the caller has
 * cleaned any outside text with a line break in it, text_clean()).
 */
int err_set_lines(struct pmustat_error **err, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The same with another exit status (EXIT_PMU_UNUSABLE, 126, 127, ...). */
int err_set_status(struct pmustat_error **err, int status, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * Put @fmt's text and ": " in front of *@err's message (an error with just
 * that text when *@err is NULL). Returns *@err's negative errno (-EIO when
 * it has none), for `return err_wrap(err, "core %d", core)`.
 */
int err_wrap(struct pmustat_error **err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Append @fmt's text to *@err's message. Returns as err_wrap(). */
int err_append(struct pmustat_error **err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The message ("" for NULL), exit status (0 for NULL) and negative errno (0 for NULL). */
const char *err_msg(const struct pmustat_error *e);
int err_status(const struct pmustat_error *e);
int err_rc(const struct pmustat_error *e);

/* Free @e (NULL is fine). */
void err_free(struct pmustat_error *e);

/* err_free(*@err), *@err = NULL. */
void err_clear(struct pmustat_error **err);

/* Move *@from into *@to (freeing what *@to held); *@from becomes NULL. */
void err_move(struct pmustat_error **to, struct pmustat_error **from);

#endif
