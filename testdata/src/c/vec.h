/* vec.h - a growable array of doubles, header-only. */
#ifndef CALC_VEC_H
#define CALC_VEC_H

#include <stdlib.h>
#include "calc.h"

struct dvec {
	double *data;
	size_t len, cap;
};

static inline int dvec_reserve(struct dvec *v, size_t want)
{
	if (LIKELY(want <= v->cap))
		return 0;
	size_t cap = v->cap ? v->cap * 2 : 8;
	while (cap < want)
		cap *= 2;
	double *p = realloc(v->data, cap * sizeof *p);
	if (UNLIKELY(p == NULL))
		calc_fatal("out of memory", 3);
	v->data = p;
	v->cap = cap;
	return 0;
}

static inline void dvec_push(struct dvec *v, double x)
{
	dvec_reserve(v, v->len + 1);
	v->data[v->len++] = x;
}

static inline void dvec_free(struct dvec *v)
{
	free(v->data);
	v->data = NULL;
	v->len = v->cap = 0;
}

#endif
