/*
 * check.h - --check EXPR: a gate on counter values.
 *
 *	check   := expr cmp expr			(cmp: <= < >= > ==)
 *	expr    := term (('+' | '-') term)*
 *	term    := unary (('*' | '/') unary)*
 *	unary   := '-' unary | primary
 *	primary := NUMBER | EVENT | AGG '(' EVENT ')' | '(' expr ')'
 *	AGG     := median | mean | min | max
 *	NUMBER  := digits ['.' digits] [('e'|'E') ['+'|'-'] digits] ['k'|'M'|'G'|'%']
 *	EVENT   := a name of letters, digits, '_', '.', ':' (and '-' before a
 *	           letter: branch-misses), or any text in double quotes
 *
 * e.g. "BR_MISP_RETIRED.ALL_BRANCHES/BR_INST_RETIRED.ALL_BRANCHES<=0.02",
 * "LONGEST_LAT_CACHE.MISS < 1.5M", "max(INST_RETIRED.ANY) <= 2e9". An event
 * stands for its value; with -r, its median unless an AGG says otherwise.
 *
 * The text is untrusted: a hand-written recursive-descent parser with a
 * depth and size limit; every error has a column for a caret. Pure.
 */
#ifndef PMUSTAT_CHECK_H
#define PMUSTAT_CHECK_H

#include <stdbool.h>
#include <stdio.h>

struct pmustat_error;

#define CHECK_TEXT_MAX 512
#define CHECK_MAX_NODES 64
#define CHECK_MAX_DEPTH 16
#define CHECK_MAX_EVENTS 8
#define CHECK_EVENT_MAX 160

enum check_agg {
	CHECK_AGG_DEFAULT,	/* the value; with -r, the median */
	CHECK_AGG_MEDIAN,
	CHECK_AGG_MEAN,
	CHECK_AGG_MIN,
	CHECK_AGG_MAX,
};

enum check_op { CHECK_LE, CHECK_LT, CHECK_GE, CHECK_GT, CHECK_EQ };

enum check_kind { CHECK_NUM, CHECK_EVENT, CHECK_ADD, CHECK_SUB, CHECK_MUL, CHECK_DIV, CHECK_NEG };

struct check_node {
	enum check_kind kind;
	double num;		/* CHECK_NUM */
	unsigned event;		/* CHECK_EVENT: index into check.events */
	enum check_agg agg;	/* CHECK_EVENT */
	int a, b;		/* operands (node indices) */
};

struct check {
	char text[CHECK_TEXT_MAX];
	struct check_node nodes[CHECK_MAX_NODES];
	unsigned nnodes;
	int lhs, rhs;		/* roots */
	enum check_op op;
	/* Distinct event names used, in order of appearance. */
	char events[CHECK_MAX_EVENTS][CHECK_EVENT_MAX];
	unsigned nevents;
};

struct check_error {
	unsigned column;	/* 0-based byte offset in the text */
	char msg[160];
};

/* Parse @text into @c. 0, or -EINVAL with @err filled. */
int
check_parse(const char *text, struct check *c, struct check_error *err);

/*
 * "pmustat: --check: MSG at column N\n  TEXT\n  ^\n" to @out (the caret
 * under the offending byte).
 */
void
check_print_error(FILE *out, const char *text, const struct check_error *err);

/* The same text, without "pmustat: " and the last newline, as an error value. Returns -EINVAL. */
int
check_set_error(struct pmustat_error **err, const char *text, const struct check_error *ce);

/* The value of @event under @agg: 0, or -ENOENT when it was not counted. */
typedef int (*check_lookup_fn)(void *ctx, const char *event, enum check_agg agg, double *value);

struct check_result {
	bool passed;
	bool defined;		/* both sides have a value */
	double lhs, rhs;
	char why[200];		/* when not defined: which event, or division by zero */
};

/* Evaluate @c into @res; a side without a value (not counted, x/0) fails. */
void
check_eval(const struct check *c, check_lookup_fn lookup, void *ctx, struct check_result *res);

/* Does the right-hand side use an event (then it is printed too)? */
bool
check_rhs_has_event(const struct check *c);

const char *
check_op_text(enum check_op op);

/*
 * Does the name @query (from a check or a --tolerance) denote the counted
 * event typed as @requested and resolved to @name? Case-insensitive; the
 * typed text matches exactly, the resolved name only when neither carries a
 * ':' modifier (INST_RETIRED.ANY is not INST_RETIRED.ANY:k).
 */
bool
check_event_matches(const char *query, const char *requested, const char *name);

#endif
