/*
 * metric_expr_impl.h - the tree of a parsed formula, shared by the parser
 * (metric_expr.c) and the evaluator (metric_eval.c) only.
 */
#ifndef PMUSTAT_METRIC_EXPR_IMPL_H
#define PMUSTAT_METRIC_EXPR_IMPL_H

#include <stdint.h>

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

#endif
