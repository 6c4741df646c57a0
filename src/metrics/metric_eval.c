/*
 * metric_eval.c - evaluating a parsed formula (metric_expr.h): null values
 * with their reasons, and which events a formula reads under constants.
 */
#include "config.h"
#include "metrics/metric_expr.h"
#include "metrics/metric_expr_impl.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/*
 * NOLINTBEGIN(misc-no-recursion): every walk below follows the tree, whose
 * height the parser bounds by METRIC_EXPR_MAX_DEPTH.
 */
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
	double a = 0, b = 0;

	*out = 0;
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

/* NOLINTEND(misc-no-recursion) */

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

/* NOLINTBEGIN(misc-no-recursion): bounded by the tree height, as above. */
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
			double c = 0;

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

/* NOLINTEND(misc-no-recursion) */

void
metric_expr_uses(const struct metric_expr *e, const struct metric_consts *consts,
		 bool *events, unsigned n_events, unsigned *consts_used)
{
	uses_node(e, e->root, consts, events, n_events, consts_used);
}
