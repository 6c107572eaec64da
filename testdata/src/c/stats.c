/* stats.c - merge sort and summary statistics over the variable values. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calc.h"
#include "util.h"
#include "vec.h"

void calc_fatal(const char *what, int code)
{
	fprintf(stderr, "calc: fatal: %s\n", what);
	exit(code);
}

static void merge(double *xs, double *tmp, size_t lo, size_t mid, size_t hi)
{
	size_t i = lo, j = mid, k = lo;
	while (i < mid && j < hi)
		tmp[k++] = xs[i] <= xs[j] ? xs[i++] : xs[j++];
	while (i < mid)
		tmp[k++] = xs[i++];
	while (j < hi)
		tmp[k++] = xs[j++];
	memcpy(xs + lo, tmp + lo, (hi - lo) * sizeof *xs);
}

static void insertion_sort(double *xs, size_t lo, size_t hi)
{
	for (size_t i = lo + 1; i < hi; i++)
		for (size_t j = i; j > lo && xs[j - 1] > xs[j]; j--)
			SWAP(double, xs[j - 1], xs[j]);
}

/* Recursive top-down merge sort; small runs fall back to insertion sort. */
static void msort(double *xs, double *tmp, size_t lo, size_t hi, size_t cutoff)
{
	if (hi - lo <= cutoff) {
		insertion_sort(xs, lo, hi);
		return;
	}
	size_t mid = lo + (hi - lo) / 2;
	msort(xs, tmp, lo, mid, cutoff);
	msort(xs, tmp, mid, hi, cutoff);
	merge(xs, tmp, lo, mid, hi);
}

static void sort_values(double *xs, size_t n)
{
	struct dvec tmp = {0};
	dvec_reserve(&tmp, n);
	/* Always called with the same cutoff: a .constprop clone of msort. */
	msort(xs, tmp.data, 0, n, 8);
	dvec_free(&tmp);
}

static __attribute__((noinline)) double sum_sq_dev(const double *xs, size_t n, double mean)
{
	double acc = 0;
	for (size_t i = 0; i < n; i++) {
		double d = xs[i] - mean;
		acc += d * d;
	}
	return acc;
}

int compute_stats(const double *xs, size_t n, struct stats *out)
{
	memset(out, 0, sizeof *out);
	if (UNLIKELY(n == 0)) {
		fprintf(stderr, "calc: no values to summarise\n");
		return -1;
	}
	struct dvec v = {0};
	double sum = 0;
	for (size_t i = 0; i < n; i++) {
		if (isnan(xs[i]))
			continue;
		dvec_push(&v, xs[i]);
		sum += xs[i];
	}
	if (v.len == 0) {
		dvec_free(&v);
		return -1;
	}
	sort_values(v.data, v.len);
	out->n = v.len;
	out->min = v.data[0];
	out->max = v.data[v.len - 1];
	out->mean = sum / (double)v.len;
	out->median = v.len % 2 ? v.data[v.len / 2] : (v.data[v.len / 2 - 1] + v.data[v.len / 2]) / 2;
	out->stddev = sqrt(sum_sq_dev(v.data, v.len, out->mean) / (double)v.len);
	dvec_free(&v);
	return 0;
}

/* range_of stays out of line so that print_stats has a real, non-inlined
 * callee in every build. */
static __attribute__((noinline)) double range_of(const struct stats *s)
{
	if (s->n < 2)
		return 0;
	return s->max - s->min;
}

void print_stats(const struct stats *s)
{
	printf("n=%zu min=%g max=%g mean=%g median=%g stddev=%g range=%g\n", s->n, s->min, s->max, s->mean,
	       s->median, s->stddev, range_of(s));
}
