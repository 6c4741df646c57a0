/*
 * metric_expr.h - Intel's metric formulas (and thresholds), parsed once
 * into a tree and evaluated against counted values and machine constants.
 *
 * The grammar is the subset of Python's expression syntax that Intel's
 * 4,714 formulas use, plus the threshold operators:
 *
 *   expr    := logic [ 'if' logic 'else' expr ]
 *   logic   := compare ( ('&' | '&&' | '|' | '||') compare )*   (& before |)
 *   compare := sum [ ('<' | '<=' | '>' | '>=' | '==' | '!=') sum ]
 *   sum     := product ( ('+' | '-') product )*
 *   product := unary ( ('*' | '/') unary )*
 *   unary   := ('-' | '+') unary | primary
 *   primary := NUMBER | NAME [ '[' DIGITS ']' ] | '#NA'
 *            | ('max' | 'min') '(' expr ',' expr ')' | '(' expr ')'
 *
 * NUMBER is decimal with optional fraction and exponent (1e9, 0.0001).
 * Intel writes `>=` as `> =` (237 times): blanks between a comparison and
 * its `=` are allowed. `&` and `|` are the thresholds' logical and/or and
 * bind more loosely than comparisons (unlike Python's bitwise operators);
 * no formula uses them. NAME[N] is instance N of an uncore event: pmustat
 * reads it as the event itself (only uncore metrics, which pmustat refuses,
 * use it). `#NA` is Intel's "not available" and evaluates to null.
 *
 * Values are doubles. A division by zero, a constant the machine did not
 * give, `#NA`, or a result that is not finite makes the whole value null,
 * with the reason in words (for a division, the events of the denominator
 * that counted nothing): never inf, never nan, never a crash. `x if c else
 * y` evaluates only the branch taken, as Python does, so a branch that
 * would divide by zero does not matter when it is not taken.
 *
 * Pure: no I/O, no allocation after parsing.
 */
#ifndef PMUSTAT_METRIC_EXPR_H
#define PMUSTAT_METRIC_EXPR_H

#include <stdbool.h>
#include <stddef.h>

struct pmustat_error;

/* The machine constants formulas use (Intel's names in comments). */
enum metric_const {
	METRIC_CONST_SMT_ON,		/* HYPERTHREADING_ON: 1 or 0 */
	METRIC_CONST_THREADS,		/* THREADS_PER_CORE: active threads per core */
	METRIC_CONST_DURATION_MS,	/* DURATIONTIMEINMILLISECONDS of the run */
	METRIC_CONST_DURATION_S,	/* DURATIONTIMEINSECONDS (bare in formulas) */
	METRIC_CONST_TSC_FREQ,		/* SYSTEM_TSC_FREQ, Hz */
	METRIC_CONST_SOCKETS,		/* SOCKET_COUNT */
	METRIC_CONST_CORES_PER_SOCKET,	/* CORES_PER_SOCKET */
	METRIC_CONST_CHAS_PER_SOCKET,	/* CHAS_PER_SOCKET (uncore) */
	METRIC_CONST_CPUS,		/* system.sockets[0].cpus.count * system.socket_count */
	METRIC_CONST_COUNT
};

/* Values of the constants; a constant whose bit is clear in known is unknown. */
struct metric_consts {
	double value[METRIC_CONST_COUNT];
	unsigned known;			/* bit (1u << enum metric_const) */
};

/* Intel's name of @c ("HYPERTHREADING_ON"), or "?" when out of range. */
const char *metric_const_name(enum metric_const c);
/* The constant Intel calls @name, or -1. Numeric names ("20") are not constants. */
int metric_const_by_name(const char *name);

/* What a NAME in a formula stands for, as the caller's resolver says. */
enum metric_ref_kind {
	METRIC_REF_EVENT,		/* event slot @index */
	METRIC_REF_CONST,		/* enum metric_const @index */
	METRIC_REF_NUMBER,		/* the literal @number (Intel's constant "20") */
};

struct metric_ref {
	enum metric_ref_kind kind;
	unsigned index;
	double number;
};

/*
 * Resolve the @len bytes at @name (not NUL-terminated). Return 0 and fill
 * *@out, or -1 when the name is unknown.
 */
typedef int (*metric_resolve_fn)(void *ctx, const char *name, size_t len, struct metric_ref *out);

/* Limits that keep hostile input cheap; Intel's largest formula uses a tenth. */
#define METRIC_EXPR_MAX_LEN	131072u
#define METRIC_EXPR_MAX_NODES	32768u
#define METRIC_EXPR_MAX_DEPTH	400

struct metric_expr;

/*
 * Parse @text. Returns 0 and *@out (free with metric_expr_free), or
 * -EINVAL with "column N: what" in @err, or -ENOMEM.
 */
int metric_expr_parse(const char *text, metric_resolve_fn resolve, void *ctx,
		      struct metric_expr **out, struct pmustat_error **err);
void metric_expr_free(struct metric_expr *e);

/*
 * A parsed tree is position-independent: the compiled metric tables
 * (metric_table_file.h) hold its metric_expr_bytes() bytes as they are.
 * metric_expr_check() takes the @size bytes at @data (8-byte aligned) for a
 * tree only when it is one the parser could have made: known operations,
 * operands before the node that uses them, depth and size within the
 * limits below, event slots under @n_refs, known constants, finite
 * numbers. The tree, or NULL. Never freed: it stays the caller's bytes.
 */
size_t metric_expr_bytes(const struct metric_expr *e);
const struct metric_expr *metric_expr_check(const void *data, size_t size, unsigned n_refs);

/* Nodes in the tree (for tests and figures). */
unsigned metric_expr_size(const struct metric_expr *e);

/* What a formula is evaluated against. */
struct metric_env {
	const double *events;		/* value of each event slot; NULL: none counted */
	unsigned n_events;
	const char *const *names;	/* slot names for reasons, or NULL */
	const struct metric_consts *consts;
};

#define METRIC_WHY_MAX 200

struct metric_result {
	bool valid;			/* false: the value is null */
	double value;			/* finite when valid, 0 otherwise */
	char why[METRIC_WHY_MAX];	/* when null: "no CPU_CLK_UNHALTED.THREAD counted" */
};

void metric_expr_eval(const struct metric_expr *e, const struct metric_env *env,
		      struct metric_result *out);

/*
 * Which event slots (@events[slot] set true; slots >= @n_events ignored)
 * and constants (bits ORed into *@consts_used) the formula reads when every
 * condition made of known constants only (`x if smt_on else y`) is decided
 * by @consts: the branch not taken is not walked. @consts NULL decides
 * nothing (every branch is walked).
 */
void metric_expr_uses(const struct metric_expr *e, const struct metric_consts *consts,
		      bool *events, unsigned n_events, unsigned *consts_used);

#endif
