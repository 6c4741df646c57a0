#include "config.h"
#include "metrics/metric_expr.h"
#include "metrics/metric_expr_impl.h"
#include "base/err.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	struct pmustat_error **err;
	int failed;			/* 0, -EINVAL or -ENOMEM */
};

static bool
fail(struct parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool
fail(struct parser *ps, const char *fmt, ...)
{
	va_list ap;

	if (ps->failed)
		return false;
	ps->failed = -EINVAL;
	va_start(ap, fmt);
	err_setv(ps->err, -EINVAL, fmt, ap);
	va_end(ap);
	err_wrap(ps->err, "column %zu", (size_t)(ps->p - ps->text) + 1);
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
			err_set(ps->err, -ENOMEM, "out of memory");
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

/* NOLINTBEGIN(misc-no-recursion): recursive descent, bounded by METRIC_EXPR_MAX_DEPTH. */
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

/* Left-associative arithmetic: level 0 is + and -, level 1 is * and /. */
static uint32_t
parse_arith(struct parser *ps, int level)
{
	static const struct {
		char c;
		enum op op;
	} ops[2][2] = { { { '+', OP_ADD }, { '-', OP_SUB } }, { { '*', OP_MUL }, { '/', OP_DIV } } };
	uint32_t id = level ? parse_unary(ps) : parse_arith(ps, 1);

	while (!ps->failed) {
		int k = accept(ps, ops[level][0].c) ? 0 : accept(ps, ops[level][1].c) ? 1 : -1;

		if (k < 0)
			break;
		id = add(ps, ops[level][k].op, id, level ? parse_unary(ps) : parse_arith(ps, 1),
			 UINT32_MAX);
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
	uint32_t id = parse_arith(ps, 0);
	int op;

	if (ps->failed)
		return UINT32_MAX;
	op = accept_compare(ps);
	if (op == -2)
		return UINT32_MAX;
	if (op < 0)
		return id;
	id = add(ps, (enum op)op, id, parse_arith(ps, 0), UINT32_MAX);
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

/* Thresholds' logic, & before |: level 0 is |, level 1 is &. */
static uint32_t
parse_logic(struct parser *ps, int level)
{
	uint32_t id = level ? parse_compare(ps) : parse_logic(ps, 1);

	while (!ps->failed && accept_logic(ps, level ? '&' : '|'))
		id = add(ps, level ? OP_AND : OP_OR, id,
			 level ? parse_compare(ps) : parse_logic(ps, 1), UINT32_MAX);
	return id;
}

static uint32_t
parse_expr(struct parser *ps)
{
	uint32_t then, cond, other;

	if (++ps->nesting > METRIC_EXPR_MAX_DEPTH)
		return fail(ps, "formula nested deeper than %u levels", METRIC_EXPR_MAX_DEPTH),
		       UINT32_MAX;
	then = parse_logic(ps, 0);
	if (!ps->failed && at_word(ps, "if")) {
		ps->p += 2;
		cond = parse_logic(ps, 0);
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

/* NOLINTEND(misc-no-recursion) */

int
metric_expr_parse(const char *text, metric_resolve_fn resolve, void *ctx,
		  struct metric_expr **out, struct pmustat_error **err)
{
	struct parser ps = { .text = text, .p = text, .resolve = resolve, .ctx = ctx,
			     .err = err };
	struct metric_expr *e = NULL;
	uint32_t root;

	*out = NULL;
	if (strlen(text) > METRIC_EXPR_MAX_LEN) {
		return err_set(err, -EINVAL, "formula longer than %u characters", METRIC_EXPR_MAX_LEN);
	}
	root = parse_expr(&ps);
	skip_blanks(&ps);
	if (!ps.failed && *ps.p)
		fail(&ps, "unexpected '%c' after a complete formula", *ps.p);
	if (!ps.failed && root == UINT32_MAX)
		fail(&ps, "empty formula");
	if (!ps.failed) {
		e = malloc(sizeof(*e) + (size_t)ps.n * sizeof(e->nodes[0]));
		if (!e) {
			ps.failed = -ENOMEM;
			err_set(err, -ENOMEM, "out of memory");
		} else {
			e->n = ps.n;
			e->root = root;
			memcpy(e->nodes, ps.nodes, (size_t)ps.n * sizeof(e->nodes[0]));
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

size_t
metric_expr_bytes(const struct metric_expr *e)
{
	return sizeof(*e) + (size_t)e->n * sizeof(e->nodes[0]);
}

/* How many operands @op takes (its other kids are UINT32_MAX). */
static unsigned
operands(enum op op)
{
	switch (op) {
	case OP_NUM: case OP_EVENT: case OP_CONST: case OP_NA:
		return 0;
	case OP_NEG:
		return 1;
	case OP_IF:
		return 3;
	default:
		return 2;
	}
}

const struct metric_expr *
metric_expr_check(const void *data, size_t size, unsigned n_refs)
{
	const struct metric_expr *e = data;
	uint16_t *depth;
	bool ok = true;

	if (size < sizeof(*e) || e->n == 0 || e->n > METRIC_EXPR_MAX_NODES ||
	    metric_expr_bytes(e) != size || e->root >= e->n)
		return NULL;
	depth = malloc(e->n * sizeof(*depth));
	if (!depth)
		return NULL;
	/* As the parser makes them: operands before the node, depth bounded. */
	for (uint32_t j = 0; j < e->n && ok; j++) {
		const struct node *nd = &e->nodes[j];
		unsigned height = 0, k = operands((enum op)nd->op);

		ok = nd->op <= OP_IF;
		if (ok && nd->op == OP_NUM)
			ok = isfinite(nd->u.num);
		else if (ok && nd->op == OP_EVENT)
			ok = nd->u.index < n_refs;
		else if (ok && nd->op == OP_CONST)
			ok = nd->u.index < METRIC_CONST_COUNT;
		for (unsigned i = 0; ok && k && i < 3; i++) {
			uint32_t kid = nd->u.kid[i];

			if (i >= k) {
				ok = kid == UINT32_MAX;
			} else {
				ok = kid < j;
				if (ok && depth[kid] > height)
					height = depth[kid];
			}
		}
		ok = ok && height + 1 <= METRIC_EXPR_MAX_DEPTH;
		depth[j] = (uint16_t)(height + 1);
	}
	free(depth);
	return ok ? e : NULL;
}

unsigned
metric_expr_size(const struct metric_expr *e)
{
	return e ? e->n : 0;
}
