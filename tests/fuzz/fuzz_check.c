/*
 * fuzz_check.c - --check expressions (check_parse, check_eval,
 * check_print_error).
 *
 * Input: the expression text. A parsed check is evaluated with every event
 * bound to a value derived from its name (and one event left uncounted), so
 * division by zero, NaN and infinities are reached; a refused one has its
 * error printed with the caret, as pmustat does.
 *
 * Checked: a refusal has a message and a column inside the text; a parsed
 * check stays within its node, depth and event limits, and its node
 * indices point inside the tree; an evaluation that is "defined" has
 * finite sides.
 */
#include "fuzz_util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/check.h"

static FILE *sink;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	sink = fopen("/dev/null", "we");
	if (!sink)
		fuzz_fail("cannot open /dev/null");
	return 0;
}

static int
lookup(void *ctx, const char *event, enum check_agg agg, double *value)
{
	size_t len = strlen(event);

	(void)ctx;
	/* One event in four "was not counted". */
	if (len % 4 == 3)
		return -ENOENT;
	*value = len % 5 == 0 ? 0.0 : (double)len * 1e6 / (double)(agg + 1);
	return 0;
}

static void
check_tree(const struct check *c)
{
	if (c->nnodes > CHECK_MAX_NODES || c->nevents > CHECK_MAX_EVENTS)
		fuzz_fail("%u nodes, %u events", c->nnodes, c->nevents);
	if (c->lhs < 0 || c->rhs < 0 || (unsigned)c->lhs >= c->nnodes || (unsigned)c->rhs >= c->nnodes)
		fuzz_fail("roots %d %d outside %u nodes", c->lhs, c->rhs, c->nnodes);
	for (unsigned i = 0; i < c->nnodes; i++) {
		const struct check_node *n = &c->nodes[i];

		switch (n->kind) {
		case CHECK_EVENT:
			if (n->event >= c->nevents)
				fuzz_fail("node %u: event %u of %u", i, n->event, c->nevents);
			break;
		case CHECK_ADD:
		case CHECK_SUB:
		case CHECK_MUL:
		case CHECK_DIV:
			if (n->b < 0 || (unsigned)n->b >= c->nnodes)
				fuzz_fail("node %u: operand b %d", i, n->b);
			__attribute__((fallthrough));
		case CHECK_NEG:
			if (n->a < 0 || (unsigned)n->a >= c->nnodes)
				fuzz_fail("node %u: operand a %d", i, n->a);
			break;
		case CHECK_NUM:
			break;
		}
	}
	for (unsigned e = 0; e < c->nevents; e++)
		if (!memchr(c->events[e], '\0', sizeof(c->events[e])) || !c->events[e][0])
			fuzz_fail("event %u: empty or unterminated", e);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct check *c = malloc(sizeof(*c));
	struct check_error err;
	struct check_result res;
	char *text = fuzz_strndup(data, size);
	int ret;

	if (!c)
		fuzz_fail("out of memory");
	memset(&err, 0, sizeof(err));
	ret = check_parse(text, c, &err);
	if (ret == 0) {
		check_tree(c);
		memset(&res, 0, sizeof(res));
		check_eval(c, lookup, NULL, &res);
		if (res.defined && (!isfinite(res.lhs) || !isfinite(res.rhs)))
			fuzz_fail("defined but not finite: %g %g", res.lhs, res.rhs);
		if (!res.defined && !res.why[0])
			fuzz_fail("undefined without a reason");
		(void)check_rhs_has_event(c);
		(void)check_op_text(c->op);
	} else {
		if (ret != -EINVAL)
			fuzz_fail("unexpected return %d", ret);
		if (!err.msg[0] || !memchr(err.msg, '\0', sizeof(err.msg)))
			fuzz_fail("refusal without a message");
		if (err.column > strlen(text))
			fuzz_fail("column %u beyond the text (%zu)", err.column, strlen(text));
		check_print_error(sink, text, &err);
	}
	free(text);
	free(c);
	return 0;
}
