#include "config.h"
#include "metric_expr.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum op {
	OP_NUM, OP_EVENT, OP_CONST, OP_NA,
	OP_NEG, OP_ADD, OP_SUB, OP_MUL, OP_DIV,
	OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE,
	OP_AND, OP_OR, OP_MAX, OP_MIN, OP_IF,
};

struct node {
	uint8_t op;
	union {
		double num;		/* OP_NUM */
		uint32_t index;		/* OP_EVENT slot, OP_CONST constant */
		uint32_t kid[3];	/* operands; OP_IF: then, condition, else */
	} u;
};

struct metric_expr {
	unsigned n;
	uint32_t root;
	struct node nodes[];
};

static const char *const const_names[METRIC_CONST_COUNT] = {
	[METRIC_CONST_SMT_ON] = "HYPERTHREADING_ON",
	[METRIC_CONST_THREADS] = "THREADS_PER_CORE",
	[METRIC_CONST_DURATION_MS] = "DURATIONTIMEINMILLISECONDS",
	[METRIC_CONST_DURATION_S] = "DURATIONTIMEINSECONDS",
	[METRIC_CONST_TSC_FREQ] = "SYSTEM_TSC_FREQ",
	[METRIC_CONST_SOCKETS] = "SOCKET_COUNT",
	[METRIC_CONST_CORES_PER_SOCKET] = "CORES_PER_SOCKET",
	[METRIC_CONST_CHAS_PER_SOCKET] = "CHAS_PER_SOCKET",
	[METRIC_CONST_CPUS] = "system.sockets[0].cpus.count * system.socket_count",
};

const char *
metric_const_name(enum metric_const c)
{
	return (unsigned)c < METRIC_CONST_COUNT ? const_names[c] : "?";
}

int
metric_const_by_name(const char *name)
{
	for (int i = 0; i < METRIC_CONST_COUNT; i++)
		if (strcmp(name, const_names[i]) == 0)
			return i;
	return -1;
}

/* ---- parsing ---- */

struct parser {
	const char *text, *p;
	metric_resolve_fn resolve;
	void *ctx;
	struct node *nodes;
	unsigned n, cap;
	uint16_t *depth;		/* per node: height of its subtree */
	unsigned nesting;
	char *err;
	size_t err_len;
	int failed;			/* 0, -EINVAL or -ENOMEM */
};

static bool
fail(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool
fail(struct parser *ps, const char *fmt, ...)
{
	va_list ap;
	int used;

	if (ps->failed)
		return false;
	ps->failed = -EINVAL;
	used = snprintf(ps->err, ps->err_len, "column %zu: ", (size_t)(ps->p - ps->text) + 1);
	if (used >= 0 && (size_t)used < ps->err_len) {
		va_start(ap, fmt);
		vsnprintf(ps->err + used, ps->err_len - (size_t)used, fmt, ap);
		va_end(ap);
	}
	return false;
}

static void
skip_blanks(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
		ps->p++;
}

static bool
is_word_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool
is_word_char(char c)
{
	return is_word_start(c) || (c >= '0' && c <= '9');
}

static bool
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Is the next token the keyword (or name) @word? Does not consume. */
static bool
at_word(struct parser *ps, const char *word)
{
	size_t len = strlen(word);

	skip_blanks(ps);
	return strncmp(ps->p, word, len) == 0 && !is_word_char(ps->p[len]);
}

static bool
accept(struct parser *ps, char c)
{
	skip_blanks(ps);
	if (*ps->p != c)
		return false;
	ps->p++;
	return true;
}

static bool
expect(struct parser *ps, char c, const char *after)
{
	if (accept(ps, c))
		return true;
	return fail(ps, "expected '%c' %s", c, after);
}

/* A new node with children @a, @b, @c (UINT32_MAX: none); UINT32_MAX on failure. */
static uint32_t
add(struct parser *ps, enum op op, uint32_t a, uint32_t b, uint32_t c)
{
	struct node *nd;
	unsigned height = 0;
	uint32_t kids[3] = { a, b, c };

	if (ps->failed)
		return UINT32_MAX;
	if (ps->n == METRIC_EXPR_MAX_NODES) {
		fail(ps, "formula longer than %u operations", METRIC_EXPR_MAX_NODES);
		return UINT32_MAX;
	}
	if (ps->n == ps->cap) {
		unsigned cap = ps->cap ? ps->cap * 2 : 64;
		struct node *nodes = realloc(ps->nodes, cap * sizeof(*nodes));
		uint16_t *depth = nodes ? realloc(ps->depth, cap * sizeof(*depth)) : NULL;

		if (nodes)
			ps->nodes = nodes;
		if (!nodes || !depth) {
			ps->failed = -ENOMEM;
			snprintf(ps->err, ps->err_len, "out of memory");
			return UINT32_MAX;
		}
		ps->depth = depth;
		ps->cap = cap;
	}
	if (op != OP_NUM && op != OP_EVENT && op != OP_CONST && op != OP_NA)
		for (int i = 0; i < 3; i++)
			if (kids[i] != UINT32_MAX && ps->depth[kids[i]] > height)
				height = ps->depth[kids[i]];
	/* Evaluation recurses once per level: a left-deep "a+b+c+..." is deep too. */
	if (height + 1 > METRIC_EXPR_MAX_DEPTH) {
		fail(ps, "formula nested deeper than %u levels", METRIC_EXPR_MAX_DEPTH);
		return UINT32_MAX;
	}
	nd = &ps->nodes[ps->n];
	memset(nd, 0, sizeof(*nd));
	nd->op = (uint8_t)op;
	if (op != OP_NUM && op != OP_EVENT && op != OP_CONST && op != OP_NA)
		memcpy(nd->u.kid, kids, sizeof(kids));
	ps->depth[ps->n] = (uint16_t)(height + 1);
	return ps->n++;
}

static uint32_t parse_expr(struct parser *ps);

static uint32_t
parse_number(struct parser *ps)
{
	const char *s = ps->p;
	char buf[64];
	size_t len;
	uint32_t id;

	while (is_digit(*ps->p))
		ps->p++;
	if (*ps->p == '.') {
		ps->p++;
		while (is_digit(*ps->p))
			ps->p++;
	}
	if ((*ps->p == 'e' || *ps->p == 'E') &&
	    (is_digit(ps->p[1]) || ((ps->p[1] == '+' || ps->p[1] == '-') && is_digit(ps->p[2])))) {
		ps->p += 2;
		while (is_digit(*ps->p))
			ps->p++;
	}
	len = (size_t)(ps->p - s);
	if (len == 1 && *s == '.') {
		ps->p = s;
		fail(ps, "'.' is not a number");
		return UINT32_MAX;
	}
	if (len >= sizeof(buf)) {
		ps->p = s;
		fail(ps, "number longer than %zu characters", sizeof(buf) - 1);
		return UINT32_MAX;
	}
	if (is_word_char(*ps->p)) {
		fail(ps, "a name runs into the number '%.*s'", (int)len, s);
		return UINT32_MAX;
	}
	memcpy(buf, s, len);
	buf[len] = '\0';
	id = add(ps, OP_NUM, UINT32_MAX, UINT32_MAX, UINT32_MAX);
	if (id != UINT32_MAX) {
		ps->nodes[id].u.num = strtod(buf, NULL);
		if (!isfinite(ps->nodes[id].u.num)) {
			ps->p = s;
			fail(ps, "number '%s' out of range", buf);
			return UINT32_MAX;
		}
	}
	return id;
}

static uint32_t
parse_name(struct parser *ps)
{
	const char *s = ps->p;
	struct metric_ref ref;
	uint32_t id;

	while (is_word_char(*ps->p))
		ps->p++;
	if (ps->resolve(ps->ctx, s, (size_t)(ps->p - s), &ref) != 0) {
		size_t len = (size_t)(ps->p - s);

		ps->p = s;
		fail(ps, "unknown name '%.*s'", len > 64 ? 64 : (int)len, s);
		return UINT32_MAX;
	}
	/* alias[N]: one instance of an uncore event; the event itself here. */
	skip_blanks(ps);
	if (*ps->p == '[') {
		ps->p++;
		skip_blanks(ps);
		if (!is_digit(*ps->p))
			return fail(ps, "expected an instance number after '['"), UINT32_MAX;
		while (is_digit(*ps->p))
			ps->p++;
		if (!expect(ps, ']', "after the instance number"))
			return UINT32_MAX;
	}
	switch (ref.kind) {
	case METRIC_REF_EVENT:
		id = add(ps, OP_EVENT, UINT32_MAX, UINT32_MAX, UINT32_MAX);
		if (id != UINT32_MAX)
			ps->nodes[id].u.index = ref.index;
		return id;
	case METRIC_REF_CONST:
		if (ref.index >= METRIC_CONST_COUNT) {
			ps->p = s;
			return fail(ps, "constant %u out of range", ref.index), UINT32_MAX;
		}
		id = add(ps, OP_CONST, UINT32_MAX, UINT32_MAX, UINT32_MAX);
		if (id != UINT32_MAX)
			ps->nodes[id].u.index = ref.index;
		return id;
	case METRIC_REF_NUMBER:
		if (!isfinite(ref.number)) {
			ps->p = s;
			return fail(ps, "constant value out of range"), UINT32_MAX;
		}
		id = add(ps, OP_NUM, UINT32_MAX, UINT32_MAX, UINT32_MAX);
		if (id != UINT32_MAX)
			ps->nodes[id].u.num = ref.number;
		return id;
	}
	return fail(ps, "bad reference"), UINT32_MAX;
}

static uint32_t
parse_primary(struct parser *ps)
{
	uint32_t id, a, b;

	skip_blanks(ps);
	if (is_digit(*ps->p) || (*ps->p == '.' && is_digit(ps->p[1])))
		return parse_number(ps);
	if (*ps->p == '(') {
		ps->p++;
		id = parse_expr(ps);
		if (!expect(ps, ')', "to close '('"))
			return UINT32_MAX;
		return id;
	}
	if (strncmp(ps->p, "#NA", 3) == 0 && !is_word_char(ps->p[3])) {
		ps->p += 3;
		return add(ps, OP_NA, UINT32_MAX, UINT32_MAX, UINT32_MAX);
	}
	if (at_word(ps, "max") || at_word(ps, "min")) {
		enum op op = ps->p[1] == 'a' ? OP_MAX : OP_MIN;

		ps->p += 3;
		if (!expect(ps, '(', op == OP_MAX ? "after max" : "after min"))
			return UINT32_MAX;
		a = parse_expr(ps);
		if (!expect(ps, ',', "between the two arguments"))
			return UINT32_MAX;
		b = parse_expr(ps);
		if (!expect(ps, ')', "after the second argument (max and min take two)"))
			return UINT32_MAX;
		return add(ps, op, a, b, UINT32_MAX);
	}
	if (at_word(ps, "if") || at_word(ps, "else"))
		return fail(ps, "'%s' where a value was expected", at_word(ps, "if") ? "if" : "else"),
		       UINT32_MAX;
	if (is_word_start(*ps->p))
		return parse_name(ps);
	if (!*ps->p)
		return fail(ps, "the formula ends where a value was expected"), UINT32_MAX;
	return fail(ps, "unexpected '%c'", *ps->p), UINT32_MAX;
}

static uint32_t
parse_unary(struct parser *ps)
{
	uint32_t id;

	skip_blanks(ps);
	if (*ps->p != '-' && *ps->p != '+')
		return parse_primary(ps);
	if (++ps->nesting > METRIC_EXPR_MAX_DEPTH)
		return fail(ps, "formula nested deeper than %u levels", METRIC_EXPR_MAX_DEPTH),
		       UINT32_MAX;
	if (*ps->p++ == '+') {
		id = parse_unary(ps);
	} else {
		id = parse_unary(ps);
		id = add(ps, OP_NEG, id, UINT32_MAX, UINT32_MAX);
	}
	ps->nesting--;
	return id;
}

static uint32_t
parse_product(struct parser *ps)
{
	uint32_t id = parse_unary(ps);

	while (!ps->failed) {
		if (accept(ps, '*'))
			id = add(ps, OP_MUL, id, parse_unary(ps), UINT32_MAX);
		else if (accept(ps, '/'))
			id = add(ps, OP_DIV, id, parse_unary(ps), UINT32_MAX);
		else
			break;
	}
	return id;
}

static uint32_t
parse_sum(struct parser *ps)
{
	uint32_t id = parse_product(ps);

	while (!ps->failed) {
		if (accept(ps, '+'))
			id = add(ps, OP_ADD, id, parse_product(ps), UINT32_MAX);
		else if (accept(ps, '-'))
			id = add(ps, OP_SUB, id, parse_product(ps), UINT32_MAX);
		else
			break;
	}
	return id;
}

/* A comparison operator, or -1; `> =` (Intel's spelling of >=) counts. */
static int
accept_compare(struct parser *ps)
{
	const char *save;
	char c;

	skip_blanks(ps);
	c = *ps->p;
	if (c != '<' && c != '>' && c != '=' && c != '!')
		return -1;
	save = ps->p++;
	skip_blanks(ps);
	if (*ps->p == '=') {
		ps->p++;
		return c == '<' ? OP_LE : c == '>' ? OP_GE : c == '=' ? OP_EQ : OP_NE;
	}
	if (c == '<')
		return OP_LT;
	if (c == '>')
		return OP_GT;
	ps->p = save;
	fail(ps, "'%c' must be followed by '='", c);
	return -2;
}

static uint32_t
parse_compare(struct parser *ps)
{
	uint32_t id = parse_sum(ps);
	int op;

	if (ps->failed)
		return UINT32_MAX;
	op = accept_compare(ps);
	if (op == -2)
		return UINT32_MAX;
	if (op < 0)
		return id;
	id = add(ps, (enum op)op, id, parse_sum(ps), UINT32_MAX);
	if (!ps->failed && accept_compare(ps) >= 0)
		return fail(ps, "chained comparisons are not supported"), UINT32_MAX;
	return id;
}

/* '&' or '&&' / '|' or '||'. */
static bool
accept_logic(struct parser *ps, char c)
{
	if (!accept(ps, c))
		return false;
	if (*ps->p == c)
		ps->p++;
	return true;
}

static uint32_t
parse_and(struct parser *ps)
{
	uint32_t id = parse_compare(ps);

	while (!ps->failed && accept_logic(ps, '&'))
		id = add(ps, OP_AND, id, parse_compare(ps), UINT32_MAX);
	return id;
}

static uint32_t
parse_logic(struct parser *ps)
{
	uint32_t id = parse_and(ps);

	while (!ps->failed && accept_logic(ps, '|'))
		id = add(ps, OP_OR, id, parse_and(ps), UINT32_MAX);
	return id;
}

static uint32_t
parse_expr(struct parser *ps)
{
	uint32_t then, cond, other;

	if (++ps->nesting > METRIC_EXPR_MAX_DEPTH)
		return fail(ps, "formula nested deeper than %u levels", METRIC_EXPR_MAX_DEPTH),
		       UINT32_MAX;
	then = parse_logic(ps);
	if (!ps->failed && at_word(ps, "if")) {
		ps->p += 2;
		cond = parse_logic(ps);
		if (!ps->failed && !at_word(ps, "else")) {
			fail(ps, "expected 'else' after 'x if condition'");
		} else if (!ps->failed) {
			ps->p += 4;
			other = parse_expr(ps);
			then = add(ps, OP_IF, then, cond, other);
		}
	}
	ps->nesting--;
	return ps->failed ? UINT32_MAX : then;
}

int
metric_expr_parse(const char *text, metric_resolve_fn resolve, void *ctx,
		  struct metric_expr **out, char *err, size_t err_len)
{
	struct parser ps = { .text = text, .p = text, .resolve = resolve, .ctx = ctx,
			     .err = err, .err_len = err_len };
	struct metric_expr *e = NULL;
	uint32_t root;

	*out = NULL;
	if (strlen(text) > METRIC_EXPR_MAX_LEN) {
		snprintf(err, err_len, "formula longer than %u characters", METRIC_EXPR_MAX_LEN);
		return -EINVAL;
	}
	root = parse_expr(&ps);
	skip_blanks(&ps);
	if (!ps.failed && *ps.p)
		fail(&ps, "unexpected '%c' after a complete formula", *ps.p);
	if (!ps.failed && root == UINT32_MAX)
		fail(&ps, "empty formula");
	if (!ps.failed) {
		e = malloc(sizeof(*e) + ps.n * sizeof(e->nodes[0]));
		if (!e) {
			ps.failed = -ENOMEM;
			snprintf(err, err_len, "out of memory");
		} else {
			e->n = ps.n;
			e->root = root;
			memcpy(e->nodes, ps.nodes, ps.n * sizeof(e->nodes[0]));
		}
	}
	free(ps.nodes);
	free(ps.depth);
	if (ps.failed)
		return ps.failed;
	*out = e;
	return 0;
}

void
metric_expr_free(struct metric_expr *e)
{
	free(e);
}

unsigned
metric_expr_size(const struct metric_expr *e)
{
	return e ? e->n : 0;
}

/* ---- evaluation ---- */

struct eval {
	const struct metric_expr *e;
	const struct metric_env *env;
	char *why;			/* set once, by the first failure */
	bool failed;
};

static bool
eval_fail(struct eval *ev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool
eval_fail(struct eval *ev, const char *fmt, ...)
{
	va_list ap;

	if (!ev->failed) {
		va_start(ap, fmt);
		vsnprintf(ev->why, METRIC_WHY_MAX, fmt, ap);
		va_end(ap);
		ev->failed = true;
	}
	return false;
}

static bool eval_node(struct eval *ev, uint32_t id, double *out);

static bool
const_known(const struct metric_env *env, unsigned c)
{
	return env->consts && c < METRIC_CONST_COUNT && (env->consts->known & (1u << c));
}

/*
 * The zero leaves under a denominator, on the path evaluation takes:
 * "no A, B counted", else "C is 0", else a plain statement.
 */
struct zeros {
	const char *events[4], *consts[2];
	unsigned n_events, n_consts;
	bool more;
};

static void
add_zero(const char **list, unsigned *n, unsigned max, const char *name, bool *more)
{
	for (unsigned i = 0; i < *n; i++)
		if (strcmp(list[i], name) == 0)
			return;
	if (*n < max)
		list[(*n)++] = name;
	else
		*more = true;
}

static void
find_zeros(struct eval *ev, uint32_t id, struct zeros *z)
{
	const struct node *nd = &ev->e->nodes[id];
	const struct metric_env *env = ev->env;
	double v;

	switch ((enum op)nd->op) {
	case OP_EVENT:
		if (env->events && nd->u.index < env->n_events && env->events[nd->u.index] == 0)
			add_zero(z->events, &z->n_events, 4,
				 env->names ? env->names[nd->u.index] : "an event", &z->more);
		return;
	case OP_CONST:
		if (const_known(env, nd->u.index) && env->consts->value[nd->u.index] == 0)
			add_zero(z->consts, &z->n_consts, 2, metric_const_name(nd->u.index), &z->more);
		return;
	case OP_NUM:
	case OP_NA:
		return;
	case OP_IF:
		if (eval_node(ev, nd->u.kid[1], &v)) {
			find_zeros(ev, v != 0 ? nd->u.kid[0] : nd->u.kid[2], z);
			return;
		}
		break;
	default:
		break;
	}
	for (int i = 0; i < 3; i++)
		if (nd->u.kid[i] != UINT32_MAX)
			find_zeros(ev, nd->u.kid[i], z);
}

static bool
divide_by_zero(struct eval *ev, uint32_t denominator)
{
	struct zeros z = { { NULL }, { NULL }, 0, 0, false };
	char list[METRIC_WHY_MAX] = "";
	size_t used = 0;

	if (ev->failed)
		return false;
	find_zeros(ev, denominator, &z);
	/* find_zeros evaluated conditions, which never fail here: reset anyway. */
	ev->failed = false;
	for (unsigned i = 0; i < z.n_events && used < sizeof(list); i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
					 i ? (i + 1 == z.n_events && !z.more ? " or " : ", ") : "",
					 z.events[i]);
	if (z.n_events)
		return eval_fail(ev, "no %s%s counted (division by zero)", list,
				 z.more ? ", ..." : "");
	if (z.n_consts)
		return eval_fail(ev, "%s is 0 (division by zero)", z.consts[0]);
	return eval_fail(ev, "a denominator is 0 (division by zero)");
}

static bool
eval_node(struct eval *ev, uint32_t id, double *out)
{
	const struct node *nd = &ev->e->nodes[id];
	const struct metric_env *env = ev->env;
	double a, b;

	switch ((enum op)nd->op) {
	case OP_NUM:
		*out = nd->u.num;
		return true;
	case OP_EVENT:
		if (!env->events || nd->u.index >= env->n_events)
			return eval_fail(ev, "%s was not counted",
					 env->names && nd->u.index < env->n_events ?
					 env->names[nd->u.index] : "an event it needs");
		*out = env->events[nd->u.index];
		/* The caller marks what it did not count with NaN. */
		if (!isfinite(*out))
			return eval_fail(ev, "%s was not counted",
					 env->names ? env->names[nd->u.index] : "an event it needs");
		return true;
	case OP_CONST:
		if (!const_known(env, nd->u.index))
			return eval_fail(ev, "%s is not known on this machine",
					 metric_const_name(nd->u.index));
		*out = env->consts->value[nd->u.index];
		return isfinite(*out) ? true :
		       eval_fail(ev, "%s has no finite value", metric_const_name(nd->u.index));
	case OP_NA:
		return eval_fail(ev, "Intel's data marks this value not available (#NA)");
	case OP_NEG:
		if (!eval_node(ev, nd->u.kid[0], &a))
			return false;
		*out = -a;
		return true;
	case OP_IF:
		if (!eval_node(ev, nd->u.kid[1], &a))
			return false;
		return eval_node(ev, a != 0 ? nd->u.kid[0] : nd->u.kid[2], out);
	case OP_AND:
	case OP_OR:
		if (!eval_node(ev, nd->u.kid[0], &a))
			return false;
		if ((nd->op == OP_AND) == (a == 0)) {
			*out = nd->op == OP_OR;
			return true;
		}
		if (!eval_node(ev, nd->u.kid[1], &b))
			return false;
		*out = b != 0;
		return true;
	default:
		break;
	}
	/* Binary operators: both sides, as Python evaluates them. */
	if (!eval_node(ev, nd->u.kid[0], &a) || !eval_node(ev, nd->u.kid[1], &b))
		return false;
	switch ((enum op)nd->op) {
	case OP_ADD: *out = a + b; break;
	case OP_SUB: *out = a - b; break;
	case OP_MUL: *out = a * b; break;
	case OP_DIV:
		if (b == 0)
			return divide_by_zero(ev, nd->u.kid[1]);
		*out = a / b;
		break;
	case OP_LT: *out = a < b; break;
	case OP_LE: *out = a <= b; break;
	case OP_GT: *out = a > b; break;
	case OP_GE: *out = a >= b; break;
	case OP_EQ: *out = a == b; break;
	case OP_NE: *out = a != b; break;
	case OP_MAX: *out = a >= b ? a : b; break;
	case OP_MIN: *out = a <= b ? a : b; break;
	default:
		return eval_fail(ev, "internal error: operation %u", nd->op);
	}
	if (!isfinite(*out))
		return eval_fail(ev, "the value is out of range (overflow)");
	return true;
}

void
metric_expr_eval(const struct metric_expr *e, const struct metric_env *env,
		 struct metric_result *out)
{
	struct eval ev = { .e = e, .env = env, .why = out->why };

	out->why[0] = '\0';
	out->valid = eval_node(&ev, e->root, &out->value);
	if (!out->valid)
		out->value = 0;
}

/* ---- what a formula reads ---- */

static void
uses_node(const struct metric_expr *e, uint32_t id, const struct metric_consts *consts,
	  bool *events, unsigned n_events, unsigned *consts_used)
{
	const struct node *nd = &e->nodes[id];

	switch ((enum op)nd->op) {
	case OP_EVENT:
		if (nd->u.index < n_events)
			events[nd->u.index] = true;
		return;
	case OP_CONST:
		*consts_used |= 1u << nd->u.index;
		return;
	case OP_NUM:
	case OP_NA:
		return;
	case OP_IF:
		if (consts) {
			/* Decidable when it reads known constants only. */
			struct metric_env env = { .consts = consts };
			char why[METRIC_WHY_MAX];
			struct eval ev = { .e = e, .env = &env, .why = why };
			double c;

			if (eval_node(&ev, nd->u.kid[1], &c)) {
				uses_node(e, nd->u.kid[1], consts, events, n_events, consts_used);
				uses_node(e, c != 0 ? nd->u.kid[0] : nd->u.kid[2], consts, events,
					  n_events, consts_used);
				return;
			}
		}
		break;
	default:
		break;
	}
	for (int i = 0; i < 3; i++)
		if (nd->u.kid[i] != UINT32_MAX)
			uses_node(e, nd->u.kid[i], consts, events, n_events, consts_used);
}

void
metric_expr_uses(const struct metric_expr *e, const struct metric_consts *consts,
		 bool *events, unsigned n_events, unsigned *consts_used)
{
	uses_node(e, e->root, consts, events, n_events, consts_used);
}
