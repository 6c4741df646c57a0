/*
 * err.c - see err.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "base/err.h"
#include "base/exit_codes.h"
#include "base/strbuf.h"
#include "base/text.h"

/* What an error becomes when there is no memory for it: never freed. */
static struct pmustat_error out_of_memory = {
	EXIT_PMUSTAT_FAILURE, ENOMEM, (char *)"out of memory",
};

void
err_free(struct pmustat_error *e)
{
	if (!e || e == &out_of_memory)
		return;
	free(e->msg);
	free(e);
}

void
err_clear(struct pmustat_error **err)
{
	if (!err)
		return;
	err_free(*err);
	*err = NULL;
}

void
err_move(struct pmustat_error **to, struct pmustat_error **from)
{
	if (to == from)
		return;
	if (to) {
		err_free(*to);
		*to = *from;
	} else {
		err_free(*from);
	}
	*from = NULL;
}

/* Replace *@err by an error with @msg (taken; NULL: out of memory). */
static void
put(struct pmustat_error **err, int status, int errnum, char *msg)
{
	struct pmustat_error *e = msg ? malloc(sizeof(*e)) : NULL;

	if (!e) {
		free(msg);
		e = &out_of_memory;
	} else {
		e->status = status;
		e->errnum = errnum;
		e->msg = msg;
	}
	err_free(*err);
	*err = e;
}

/* The message of @fmt, every control character '?' (text.h) unless @keep_lines keeps line breaks. */
static char *message(bool keep_lines, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static char *
message(bool keep_lines, const char *fmt, va_list ap)
{
	struct strbuf b = STRBUF_INIT;

	strbuf_vprintf(&b, fmt, ap);
	return text_clean(strbuf_take(&b), keep_lines);
}

int
err_setv(struct pmustat_error **err, int rc, const char *fmt, va_list ap)
{
	if (!err)
		return rc;
	put(err, EXIT_PMUSTAT_FAILURE, rc < 0 ? -rc : 0, message(false, fmt, ap));
	return rc;
}

int
err_set_lines(struct pmustat_error **err, int rc, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return rc;
	va_start(ap, fmt);
	put(err, EXIT_PMUSTAT_FAILURE, rc < 0 ? -rc : 0, message(true, fmt, ap));
	va_end(ap);
	return rc;
}

int
err_set(struct pmustat_error **err, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_setv(err, rc, fmt, ap);
	va_end(ap);
	return rc;
}

int
err_set_status(struct pmustat_error **err, int status, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_setv(err, rc, fmt, ap);
	va_end(ap);
	if (err && *err != &out_of_memory)
		(*err)->status = status;
	return rc;
}

int
err_rc(const struct pmustat_error *e)
{
	if (!e)
		return 0;
	return e->errnum ? -e->errnum : -EIO;
}

/* *@err's message with @fmt's text before (@front) or after it. */
static int extend(struct pmustat_error **err, bool front, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

static int
extend(struct pmustat_error **err, bool front, const char *fmt, va_list ap)
{
	struct strbuf b = STRBUF_INIT;
	struct pmustat_error *e;
	char *more;

	if (!err)
		return -EIO;
	e = *err;
	if (!e) {
		put(err, EXIT_PMUSTAT_FAILURE, EIO, message(false, fmt, ap));
		return -EIO;
	}
	if (e == &out_of_memory)
		return -ENOMEM;
	more = message(false, fmt, ap);
	if (!front)
		strbuf_printf(&b, "%s", e->msg);
	strbuf_printf(&b, "%s", more ? more : "");
	if (front)
		strbuf_printf(&b, ": %s", e->msg);
	free(more);
	if (strbuf_failed(&b)) {
		strbuf_free(&b);
		return err_rc(e);
	}
	free(e->msg);
	e->msg = strbuf_take(&b);
	if (!e->msg)
		e->msg = strdup("out of memory");
	return err_rc(e);
}

int
err_wrap(struct pmustat_error **err, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = extend(err, true, fmt, ap);
	va_end(ap);
	return rc;
}

int
err_append(struct pmustat_error **err, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = extend(err, false, fmt, ap);
	va_end(ap);
	return rc;
}

const char *
err_msg(const struct pmustat_error *e)
{
	return e && e->msg ? e->msg : "";
}

int
err_status(const struct pmustat_error *e)
{
	return e ? e->status : 0;
}
