/*
 * check.c - parse and evaluate --check expressions (grammar in check.h).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/err.h"
#include "base/text.h"
#include "report/check.h"

struct parser {
	const char *s;
	size_t pos;
	unsigned depth;
	struct check *c;
	struct check_error *err;
	bool failed;
};

static int
perr(struct parser *p, size_t column, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int
perr(struct parser *p, size_t column, const char *fmt, ...)
{
	va_list ap;

	if (p->failed)
		return -1;
	p->failed = true;
	p->err->column = (unsigned)column;
	va_start(ap, fmt);
	vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

static void
skip_space(struct parser *p)
{
	while (p->s[p->pos] == ' ' || p->s[p->pos] == '\t')
		p->pos++;
}

static int
new_node(struct parser *p, enum check_kind kind, int a, int b)
{
	struct check_node *n;

	if (p->c->nnodes >= CHECK_MAX_NODES)
		return perr(p, p->pos, "expression too long (at most %d terms)", CHECK_MAX_NODES);
	n = &p->c->nodes[p->c->nnodes];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->a = a;
	n->b = b;
	return (int)p->c->nnodes++;
}

static bool
name_char(const char *s, size_t i)
{
	unsigned char ch = (unsigned char)s[i];

	if (isalnum(ch) || ch == '_' || ch == '.' || ch == ':')
		return true;
	/* branch-misses, ref-cycles: a '-' glued to a following letter. */
	return ch == '-' && isalpha((unsigned char)s[i + 1]);
}

static int
add_event(struct parser *p, const char *name, size_t len, size_t column)
{
	struct check *c = p->c;

	if (len == 0)
		return perr(p, column, "empty event name");
	if (len >= CHECK_EVENT_MAX)
		return perr(p, column, "event name longer than %d characters", CHECK_EVENT_MAX - 1);
	for (unsigned i = 0; i < c->nevents; i++)
		if (strlen(c->events[i]) == len && memcmp(c->events[i], name, len) == 0)
			return (int)i;
	if (c->nevents >= CHECK_MAX_EVENTS)
		return perr(p, column, "more than %d events in one check", CHECK_MAX_EVENTS);
	memcpy(c->events[c->nevents], name, len);
	c->events[c->nevents][len] = '\0';
	return (int)c->nevents++;
}

/* An event name at the cursor (bare or quoted): its index in c->events. */
static int
parse_event_name(struct parser *p)
{
	size_t start = p->pos;

	if (p->s[p->pos] == '"') {
		const char *end = strchr(p->s + start + 1, '"');

		if (!end)
			return perr(p, start, "unterminated quoted event name");
		p->pos = (size_t)(end - p->s) + 1;
		return add_event(p, p->s + start + 1, (size_t)(end - p->s) - start - 1, start);
	}
	if (!isalpha((unsigned char)p->s[p->pos]) && p->s[p->pos] != '_')
		return perr(p, start, "expected an event name");
	while (name_char(p->s, p->pos))
		p->pos++;
	return add_event(p, p->s + start, p->pos - start, start);
}

static int
parse_number(struct parser *p)
{
	size_t start = p->pos, i = p->pos;
	char buf[64], *end;
	double v;
	int n;

	while (isdigit((unsigned char)p->s[i]))
		i++;
	if (p->s[i] == '.') {
		i++;
		if (!isdigit((unsigned char)p->s[i]))
			return perr(p, i, "expected a digit after the decimal point");
		while (isdigit((unsigned char)p->s[i]))
			i++;
	}
	if (p->s[i] == 'e' || p->s[i] == 'E') {
		i++;
		if (p->s[i] == '+' || p->s[i] == '-')
			i++;
		if (!isdigit((unsigned char)p->s[i]))
			return perr(p, i, "expected the exponent's digits");
		while (isdigit((unsigned char)p->s[i]))
			i++;
	}
	if (i - start >= sizeof(buf))
		return perr(p, start, "number too long");
	memcpy(buf, p->s + start, i - start);
	buf[i - start] = '\0';
	errno = 0;
	v = strtod(buf, &end);
	if (*end || errno == ERANGE || !isfinite(v))
		return perr(p, start, "number out of range");
	switch (p->s[i]) {
	case 'k':
		v *= 1e3;
		i++;
		break;
	case 'M':
		v *= 1e6;
		i++;
		break;
	case 'G':
		v *= 1e9;
		i++;
		break;
	case '%':
		v /= 100.0;
		i++;
		break;
	default:
		break;
	}
	/* "5x", "2kB": a number glued to letters is a typo, not a number and a name. */
	if (isalnum((unsigned char)p->s[i]) || p->s[i] == '_' || p->s[i] == '.')
		return perr(p, i, "unexpected '%c' after a number (suffixes: k, M, G, %%)", p->s[i]);
	p->pos = i;
	n = new_node(p, CHECK_NUM, -1, -1);
	if (n >= 0)
		p->c->nodes[n].num = v;
	return n;
}

/* NOLINTBEGIN(misc-no-recursion): recursive descent, bounded by CHECK_MAX_DEPTH. */
static int parse_expr(struct parser *p);

static const struct {
	const char *name;
	enum check_agg agg;
} aggs[] = {
	{ "median", CHECK_AGG_MEDIAN },
	{ "mean", CHECK_AGG_MEAN },
	{ "min", CHECK_AGG_MIN },
	{ "max", CHECK_AGG_MAX },
};

static int
parse_primary(struct parser *p)
{
	const char *s = p->s;
	int n, ev;

	skip_space(p);
	if (isdigit((unsigned char)s[p->pos]) || (s[p->pos] == '.' && isdigit((unsigned char)s[p->pos + 1])))
		return parse_number(p);
	if (s[p->pos] == '(') {
		size_t open = p->pos++;

		n = parse_expr(p);
		if (n < 0)
			return -1;
		skip_space(p);
		if (s[p->pos] != ')')
			return perr(p, p->pos, "expected ')' to close the '(' at column %zu", open + 1);
		p->pos++;
		return n;
	}
	for (size_t i = 0; i < sizeof(aggs) / sizeof(aggs[0]); i++) {
		size_t len = strlen(aggs[i].name), at = p->pos + len;

		if (strncmp(s + p->pos, aggs[i].name, len) != 0)
			continue;
		while (s[at] == ' ' || s[at] == '\t')
			at++;
		if (s[at] != '(')
			continue;	/* an event that happens to start with "max" */
		p->pos = at + 1;
		skip_space(p);
		ev = parse_event_name(p);
		if (ev < 0)
			return -1;
		skip_space(p);
		if (s[p->pos] != ')')
			return perr(p, p->pos, "expected ')' after the event of %s(", aggs[i].name);
		p->pos++;
		n = new_node(p, CHECK_EVENT, -1, -1);
		if (n < 0)
			return -1;
		p->c->nodes[n].event = (unsigned)ev;
		p->c->nodes[n].agg = aggs[i].agg;
		return n;
	}
	if (isalpha((unsigned char)s[p->pos]) || s[p->pos] == '_' || s[p->pos] == '"') {
		ev = parse_event_name(p);
		if (ev < 0)
			return -1;
		n = new_node(p, CHECK_EVENT, -1, -1);
		if (n < 0)
			return -1;
		p->c->nodes[n].event = (unsigned)ev;
		p->c->nodes[n].agg = CHECK_AGG_DEFAULT;
		return n;
	}
	if (s[p->pos] == '\0')
		return perr(p, p->pos, "expected an event or a number, found the end");
	return perr(p, p->pos, "expected an event or a number, found '%c'", s[p->pos]);
}

static int
parse_unary(struct parser *p)
{
	int n;

	skip_space(p);
	if (p->s[p->pos] != '-')
		return parse_primary(p);
	if (++p->depth > CHECK_MAX_DEPTH)
		return perr(p, p->pos, "nested too deeply (at most %d levels)", CHECK_MAX_DEPTH);
	p->pos++;
	n = parse_unary(p);
	p->depth--;
	if (n < 0)
		return -1;
	return new_node(p, CHECK_NEG, n, -1);
}

static int
parse_term(struct parser *p)
{
	int a, b;

	a = parse_unary(p);
	while (a >= 0) {
		char op;

		skip_space(p);
		op = p->s[p->pos];
		if (op != '*' && op != '/')
			break;
		p->pos++;
		b = parse_unary(p);
		if (b < 0)
			return -1;
		a = new_node(p, op == '*' ? CHECK_MUL : CHECK_DIV, a, b);
	}
	return a;
}

static int
parse_expr(struct parser *p)
{
	int a, b;

	if (++p->depth > CHECK_MAX_DEPTH)
		return perr(p, p->pos, "nested too deeply (at most %d levels)", CHECK_MAX_DEPTH);
	a = parse_term(p);
	while (a >= 0) {
		char op;

		skip_space(p);
		op = p->s[p->pos];
		if (op != '+' && op != '-')
			break;
		p->pos++;
		b = parse_term(p);
		if (b < 0)
			return -1;
		a = new_node(p, op == '+' ? CHECK_ADD : CHECK_SUB, a, b);
	}
	p->depth--;
	return a;
}
/* NOLINTEND(misc-no-recursion) */

static bool
parse_cmp(struct parser *p, enum check_op *op)
{
	const char *s = p->s + p->pos;

	if (s[0] == '<' && s[1] == '=')
		*op = CHECK_LE;
	else if (s[0] == '>' && s[1] == '=')
		*op = CHECK_GE;
	else if (s[0] == '=' && s[1] == '=')
		*op = CHECK_EQ;
	else if (s[0] == '<')
		*op = CHECK_LT;
	else if (s[0] == '>')
		*op = CHECK_GT;
	else
		return false;
	p->pos += (*op == CHECK_LT || *op == CHECK_GT) ? 1 : 2;
	return true;
}

int
check_parse(const char *text, struct check *c, struct check_error *err)
{
	struct parser p = { .s = text, .c = c, .err = err };
	size_t len = strlen(text);

	memset(c, 0, sizeof(*c));
	memset(err, 0, sizeof(*err));
	if (len >= CHECK_TEXT_MAX) {
		perr(&p, CHECK_TEXT_MAX - 1, "longer than %d characters", CHECK_TEXT_MAX - 1);
		return -EINVAL;
	}
	for (size_t i = 0; i < len; i++)
		if (!isprint((unsigned char)text[i]) && text[i] != '\t') {
			perr(&p, i, "unexpected byte 0x%02x", (unsigned char)text[i]);
			return -EINVAL;
		}
	memcpy(c->text, text, len + 1);
	c->lhs = parse_expr(&p);
	if (c->lhs < 0)
		return -EINVAL;
	skip_space(&p);
	if (!parse_cmp(&p, &c->op)) {
		if (text[p.pos] == '=')
			perr(&p, p.pos, "'=' is not a comparison: use '=='");
		else if (text[p.pos] == '!')
			perr(&p, p.pos, "'!=' is not supported: use two checks (< and >)");
		else if (text[p.pos])
			perr(&p, p.pos, "expected an operator (+ - * /) or a comparison (<= < >= > ==), found '%c'",
			     text[p.pos]);
		else
			perr(&p, p.pos, "expected a comparison (<= < >= > ==), found the end");
		return -EINVAL;
	}
	c->rhs = parse_expr(&p);
	if (c->rhs < 0)
		return -EINVAL;
	skip_space(&p);
	if (text[p.pos]) {
		size_t at = p.pos;

		if (parse_cmp(&p, &(enum check_op){ CHECK_LE }))
			perr(&p, at, "one comparison per check: use several --check");
		else
			perr(&p, p.pos, "unexpected '%c' after the expression", text[p.pos]);
		return -EINVAL;
	}
	return 0;
}

void
check_print_error(FILE *out, const char *text, const struct check_error *err)
{
	struct pmustat_error *e = NULL;

	check_set_error(&e, text, err);
	fprintf(out, "pmustat: %s\n", err_msg(e));
	err_free(e);
}

int
check_set_error(struct pmustat_error **err, const char *text, const struct check_error *ce)
{
	/* The expression and what is wrong with it as the user wrote them, each control character '?' (one for one: the caret stays under its column). */
	char *shown = strdup(text), *why = strdup(ce->msg);
	int rc;

	rc = err_set_lines(err, -EINVAL, "--check: %s at column %u\n  %s\n  %*s^",
			   why ? text_clean(why, false) : "?", ce->column + 1,
			   shown ? text_clean(shown, false) : "?", (int)ce->column, "");
	free(shown);
	free(why);
	return rc;
}

/* NOLINTBEGIN(misc-no-recursion): the tree has at most CHECK_MAX_NODES nodes. */
static int
eval_node(const struct check *c, int i, check_lookup_fn lookup, void *ctx, double *v,
	  struct check_result *res)
{
	const struct check_node *n = &c->nodes[i];
	double a = 0, b = 0;

	switch (n->kind) {
	case CHECK_NUM:
		*v = n->num;
		return 0;
	case CHECK_EVENT:
		if (lookup(ctx, c->events[n->event], n->agg, v) != 0) {
			snprintf(res->why, sizeof(res->why), "%s was not counted", c->events[n->event]);
			return -1;
		}
		return 0;
	case CHECK_NEG:
		if (eval_node(c, n->a, lookup, ctx, &a, res))
			return -1;
		*v = -a;
		return 0;
	default:
		break;
	}
	if (eval_node(c, n->a, lookup, ctx, &a, res) || eval_node(c, n->b, lookup, ctx, &b, res))
		return -1;
	switch (n->kind) {
	case CHECK_ADD:
		*v = a + b;
		break;
	case CHECK_SUB:
		*v = a - b;
		break;
	case CHECK_MUL:
		*v = a * b;
		break;
	default:
		if (b == 0) {
			snprintf(res->why, sizeof(res->why), "division by zero");
			return -1;
		}
		*v = a / b;
		break;
	}
	/* A gate compared against infinity would pass or fail on nothing that was measured. */
	if (!isfinite(*v)) {
		snprintf(res->why, sizeof(res->why), "the value is out of range (overflow)");
		return -1;
	}
	return 0;
}
/* NOLINTEND(misc-no-recursion) */

void
check_eval(const struct check *c, check_lookup_fn lookup, void *ctx, struct check_result *res)
{
	memset(res, 0, sizeof(*res));
	if (eval_node(c, c->lhs, lookup, ctx, &res->lhs, res) ||
	    eval_node(c, c->rhs, lookup, ctx, &res->rhs, res))
		return;
	res->defined = true;
	switch (c->op) {
	case CHECK_LE:
		res->passed = res->lhs <= res->rhs;
		break;
	case CHECK_LT:
		res->passed = res->lhs < res->rhs;
		break;
	case CHECK_GE:
		res->passed = res->lhs >= res->rhs;
		break;
	case CHECK_GT:
		res->passed = res->lhs > res->rhs;
		break;
	case CHECK_EQ:
		res->passed = res->lhs == res->rhs;
		break;
	}
}

/* NOLINTBEGIN(misc-no-recursion): the tree has at most CHECK_MAX_NODES nodes. */
static bool
has_event(const struct check *c, int i)
{
	const struct check_node *n = &c->nodes[i];

	if (n->kind == CHECK_EVENT)
		return true;
	if (n->kind == CHECK_NUM)
		return false;
	return has_event(c, n->a) || (n->kind != CHECK_NEG && has_event(c, n->b));
}
/* NOLINTEND(misc-no-recursion) */

bool
check_rhs_has_event(const struct check *c)
{
	return has_event(c, c->rhs);
}

const char *
check_op_text(enum check_op op)
{
	static const char *const text[] = { "<=", "<", ">=", ">", "==" };

	return text[op];
}

bool
check_event_matches(const char *query, const char *requested, const char *name)
{
	if (requested && requested[0] && strcasecmp(query, requested) == 0)
		return true;
	if (!name || !name[0] || strcasecmp(query, name) != 0)
		return false;
	return !strchr(query, ':') && !(requested && strchr(requested, ':'));
}
