/* calc.h - shared types for the little calculator used as a symbolization fixture.
 *
 * The program reads "name = expression" lines, keeps variables in a hash
 * table, and prints summary statistics.  It is deliberately spread over
 * several files and headers so that line programs switch files often. */
#ifndef CALC_H
#define CALC_H

#include <stddef.h>
#include <stdint.h>

/* Overridden with -D to make a second, different build of the same source. */
#ifndef CALC_VARIANT_STR
#define CALC_VARIANT_STR "1"
#endif

#define CALC_MAX_NAME 32
#define CALC_MAX_DEPTH 64
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

enum tok_kind {
	TOK_EOF,
	TOK_NUM,
	TOK_IDENT,
	TOK_PLUS,
	TOK_MINUS,
	TOK_STAR,
	TOK_SLASH,
	TOK_PERCENT,
	TOK_CARET,
	TOK_LPAREN,
	TOK_RPAREN,
	TOK_COMMA,
	TOK_ASSIGN,
	TOK_ERROR
};

struct token {
	enum tok_kind kind;
	double num;
	const char *start;
	int len;
	int col;
};

struct lexer {
	const char *src;
	const char *pos;
	int line;
};

enum node_kind { N_NUM, N_VAR, N_NEG, N_BIN, N_CALL };

struct node {
	enum node_kind kind;
	char op;
	double num;
	char name[CALC_MAX_NAME];
	struct node *lhs, *rhs;
};

struct entry {
	char name[CALC_MAX_NAME];
	double value;
	unsigned hits;
	struct entry *next;
};

struct table {
	struct entry **buckets;
	size_t nbuckets;
	size_t count;
};

struct stats {
	size_t n;
	double min, max, mean, median, stddev;
};

/* lexer.c */
void lexer_init(struct lexer *lx, const char *src, int line);
struct token lexer_next(struct lexer *lx);

/* parser.c */
struct node *parse_expr(struct lexer *lx, struct token *cur, int depth);
double eval(const struct node *n, struct table *vars, int depth);
void free_node(struct node *n);
int run_line(struct table *vars, const char *line, int lineno);

/* table.c */
void table_init(struct table *t, size_t nbuckets);
void table_free(struct table *t);
struct entry *table_get(struct table *t, const char *name, int create);
void table_set(struct table *t, const char *name, double v);
size_t table_values(const struct table *t, double *out, size_t cap);
void table_dump(const struct table *t);

/* stats.c */
int compute_stats(const double *xs, size_t n, struct stats *out);
void print_stats(const struct stats *s);
__attribute__((noreturn, cold)) void calc_fatal(const char *what, int code);

#endif
