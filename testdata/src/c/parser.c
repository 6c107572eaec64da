/* parser.c - recursive-descent parser and tree-walking evaluator.
 *
 *   expr   := term (('+' | '-') term)*
 *   term   := unary (('*' | '/' | '%') unary)*
 *   unary  := '-' unary | power
 *   power  := atom ('^' unary)?
 *   atom   := NUM | IDENT | IDENT '(' expr (',' expr)* ')' | '(' expr ')'
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calc.h"
#include "util.h"

static struct node *parse_term(struct lexer *lx, struct token *cur, int depth);
static struct node *parse_unary(struct lexer *lx, struct token *cur, int depth);

static struct node *new_node(enum node_kind kind)
{
	struct node *n = calloc(1, sizeof *n);
	if (UNLIKELY(n == NULL))
		calc_fatal("out of memory", 3);
	n->kind = kind;
	return n;
}

static struct node *binary(char op, struct node *lhs, struct node *rhs)
{
	struct node *n = new_node(N_BIN);
	n->op = op;
	n->lhs = lhs;
	n->rhs = rhs;
	return n;
}

static void advance(struct lexer *lx, struct token *cur)
{
	*cur = lexer_next(lx);
}

/* syntax_error is the slow path of every parse function; keeping it out of
 * line (and cold) lets the compiler split the callers' hot paths. */
static __attribute__((cold, noinline)) struct node *syntax_error(const struct token *t, const char *want)
{
	fprintf(stderr, "col %d: expected %s, got '%.*s'\n", t->col, want, t->len, t->start);
	return NULL;
}

static struct node *parse_atom(struct lexer *lx, struct token *cur, int depth)
{
	struct node *n;
	if (UNLIKELY(depth > CALC_MAX_DEPTH))
		return syntax_error(cur, "shallower nesting");
	switch (cur->kind) {
	case TOK_NUM:
		n = new_node(N_NUM);
		n->num = cur->num;
		advance(lx, cur);
		return n;
	case TOK_IDENT:
		n = new_node(N_VAR);
		copy_name(n->name, cur->start, (size_t)cur->len);
		advance(lx, cur);
		if (cur->kind == TOK_LPAREN) {
			n->kind = N_CALL;
			advance(lx, cur);
			n->lhs = parse_expr(lx, cur, depth + 1);
			if (cur->kind == TOK_COMMA) {
				advance(lx, cur);
				n->rhs = parse_expr(lx, cur, depth + 1);
			}
			if (cur->kind != TOK_RPAREN) {
				free_node(n);
				return syntax_error(cur, "')'");
			}
			advance(lx, cur);
		}
		return n;
	case TOK_LPAREN:
		advance(lx, cur);
		n = parse_expr(lx, cur, depth + 1);
		if (cur->kind != TOK_RPAREN) {
			free_node(n);
			return syntax_error(cur, "')'");
		}
		advance(lx, cur);
		return n;
	default:
		return syntax_error(cur, "a value");
	}
}

static struct node *parse_power(struct lexer *lx, struct token *cur, int depth)
{
	struct node *base = parse_atom(lx, cur, depth);
	if (base != NULL && cur->kind == TOK_CARET) {
		advance(lx, cur);
		base = binary('^', base, parse_unary(lx, cur, depth + 1));
	}
	return base;
}

static struct node *parse_unary(struct lexer *lx, struct token *cur, int depth)
{
	if (cur->kind == TOK_MINUS) {
		advance(lx, cur);
		struct node *n = new_node(N_NEG);
		n->lhs = parse_unary(lx, cur, depth + 1);
		return n;
	}
	return parse_power(lx, cur, depth);
}

static struct node *parse_term(struct lexer *lx, struct token *cur, int depth)
{
	struct node *n = parse_unary(lx, cur, depth);
	while (n != NULL && (cur->kind == TOK_STAR || cur->kind == TOK_SLASH || cur->kind == TOK_PERCENT)) {
		char op = *cur->start;
		advance(lx, cur);
		n = binary(op, n, parse_unary(lx, cur, depth + 1));
	}
	return n;
}

struct node *parse_expr(struct lexer *lx, struct token *cur, int depth)
{
	struct node *n = parse_term(lx, cur, depth);
	while (n != NULL && (cur->kind == TOK_PLUS || cur->kind == TOK_MINUS)) {
		char op = *cur->start;
		advance(lx, cur);
		n = binary(op, n, parse_term(lx, cur, depth + 1));
	}
	return n;
}

void free_node(struct node *n)
{
	if (n == NULL)
		return;
	free_node(n->lhs);
	free_node(n->rhs);
	free(n);
}

/* call_builtin stays out of line so that eval's N_CALL case is a real call
 * even at -O3. */
static __attribute__((noinline)) double call_builtin(const struct node *n, double a, double b)
{
	if (strcmp(n->name, "sqrt") == 0)
		return sqrt(a);
	if (strcmp(n->name, "min") == 0)
		return MIN(a, b);
	if (strcmp(n->name, "max") == 0)
		return MAX(a, b);
	if (strcmp(n->name, "clamp01") == 0)
		return clampd(a, 0.0, 1.0);
	if (strcmp(n->name, "abs") == 0)
		return fabs(a);
	return NAN;
}

static double apply(char op, double a, double b)
{
	switch (op) {
	case '+':
		return a + b;
	case '-':
		return a - b;
	case '*':
		return a * b;
	case '/':
		return b == 0 ? NAN : a / b;
	case '%':
		return b == 0 ? NAN : fmod(a, b);
	case '^':
		return pow(a, b);
	default:
		return NAN;
	}
}

double eval(const struct node *n, struct table *vars, int depth)
{
	if (n == NULL || depth > CALC_MAX_DEPTH)
		return NAN;
	switch (n->kind) {
	case N_NUM:
		return n->num;
	case N_VAR: {
		struct entry *e = table_get(vars, n->name, 0);
		return e ? e->value : NAN;
	}
	case N_NEG:
		return -eval(n->lhs, vars, depth + 1);
	case N_BIN:
		return apply(n->op, eval(n->lhs, vars, depth + 1), eval(n->rhs, vars, depth + 1));
	case N_CALL:
		return call_builtin(n, eval(n->lhs, vars, depth + 1), eval(n->rhs, vars, depth + 1));
	}
	return NAN;
}

/* walk_limits travels by value through a recursion; gcc's IPA-SRA splits it
 * and emits tree_size.isra.0 taking only the fields that are used. */
struct walk_limits {
	int max_depth;
	int max_nodes;
	const char *what;
};

static int tree_size(const struct node *n, struct walk_limits lim, int depth)
{
	if (depth > lim.max_depth || n == NULL)
		return 0;
	return 1 + tree_size(n->lhs, lim, depth + 1) + tree_size(n->rhs, lim, depth + 1);
}

int run_line(struct table *vars, const char *line, int lineno)
{
	struct lexer lx;
	struct token name, cur;
	lexer_init(&lx, line, lineno);
	name = lexer_next(&lx);
	if (name.kind == TOK_EOF)
		return 0;
	cur = lexer_next(&lx);
	if (name.kind != TOK_IDENT || cur.kind != TOK_ASSIGN) {
		syntax_error(&cur, "name '='");
		return -1;
	}
	cur = lexer_next(&lx);
	struct node *tree = parse_expr(&lx, &cur, 0);
	if (tree == NULL)
		return -1;
	struct walk_limits lim = {CALC_MAX_DEPTH, 4096, "expression"};
	if (tree_size(tree, lim, 0) > lim.max_nodes) {
		free_node(tree);
		fprintf(stderr, "line %d: %s too large\n", lineno, lim.what);
		return -1;
	}
	if (cur.kind != TOK_EOF) {
		free_node(tree);
		syntax_error(&cur, "end of line");
		return -1;
	}
	char buf[CALC_MAX_NAME];
	copy_name(buf, name.start, (size_t)name.len);
	table_set(vars, buf, eval(tree, vars, 0));
	free_node(tree);
	return 1;
}
