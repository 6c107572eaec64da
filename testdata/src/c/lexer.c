/* lexer.c - turns an expression line into tokens. */
#include <stdlib.h>

#include "calc.h"
#include "util.h"

void lexer_init(struct lexer *lx, const char *src, int line)
{
	lx->src = src;
	lx->pos = src;
	lx->line = line;
}

static const char *skip_space(const char *p)
{
	while (is_space(*p))
		p++;
	return p;
}

static struct token make(struct lexer *lx, enum tok_kind kind, const char *start, int len)
{
	struct token t;
	t.kind = kind;
	t.num = 0;
	t.start = start;
	t.len = len;
	t.col = (int)(start - lx->src) + 1;
	return t;
}

static struct token lex_number(struct lexer *lx, const char *start)
{
	char *end;
	double v = strtod(start, &end);
	struct token t = make(lx, TOK_NUM, start, (int)(end - start));
	t.num = v;
	lx->pos = end;
	return t;
}

static struct token lex_ident(struct lexer *lx, const char *start)
{
	const char *p = start;
	while (is_ident(*p))
		p++;
	lx->pos = p;
	return make(lx, TOK_IDENT, start, (int)(p - start));
}

struct token lexer_next(struct lexer *lx)
{
	const char *p = skip_space(lx->pos);
	if (*p == '\0' || *p == '#') {
		lx->pos = p;
		return make(lx, TOK_EOF, p, 0);
	}
	if (is_digit(*p) || (*p == '.' && is_digit(p[1])))
		return lex_number(lx, p);
	if (is_ident_start(*p))
		return lex_ident(lx, p);

	enum tok_kind kind;
	switch (*p) {
	case '+':
		kind = TOK_PLUS;
		break;
	case '-':
		kind = TOK_MINUS;
		break;
	case '*':
		kind = TOK_STAR;
		break;
	case '/':
		kind = TOK_SLASH;
		break;
	case '%':
		kind = TOK_PERCENT;
		break;
	case '^':
		kind = TOK_CARET;
		break;
	case '(':
		kind = TOK_LPAREN;
		break;
	case ')':
		kind = TOK_RPAREN;
		break;
	case ',':
		kind = TOK_COMMA;
		break;
	case '=':
		kind = TOK_ASSIGN;
		break;
	default:
		kind = TOK_ERROR;
		break;
	}
	lx->pos = p + 1;
	return make(lx, kind, p, 1);
}
