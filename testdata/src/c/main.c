/* main.c - runs a built-in script (or the lines given as arguments) and
 * prints the variables' statistics. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calc.h"
#include "util.h"

static const char *const builtin_script[] = {
	"# a small script exercising every operator",
	"a = 1 + 2 * 3",
	"b = (a - 4) ^ 2 / 3",
	"c = -b % 5 + sqrt(a * 9)",
	"d = min(a, b) + max(c, 2) * clamp01(0.25)",
	"e = abs(-7.5) + a * b - c / 2",
	"f = ((((a + b) * (c + d)) - e) ^ 0.5)",
	("g = f * " CALC_VARIANT_STR),
};

/* Fibonacci by naive recursion: a deliberately deep, self-recursive call
 * stack for unwinding and symbolization tests. */
static long fib(int n)
{
	if (n < 2)
		return n;
	return fib(n - 1) + fib(n - 2);
}

/* report is called from several places with one constant flag, which gives
 * gcc a reason to clone it (report.constprop.0). */
static __attribute__((noinline)) void report(struct table *vars, int verbose)
{
	double vals[256];
	size_t n = table_values(vars, vals, ARRAY_LEN(vals));
	struct stats s;
	if (compute_stats(vals, n, &s) != 0)
		return;
	if (verbose) {
		for (size_t i = 0; i < vars->nbuckets; i++)
			for (const struct entry *e = vars->buckets[i]; e != NULL; e = e->next)
				printf("%-8s = %g\n", e->name, e->value);
	}
	print_stats(&s);
}

static int run_script(struct table *vars, const char *const *lines, size_t n)
{
	int errors = 0;
	for (size_t i = 0; i < n; i++) {
		int rc = run_line(vars, lines[i], (int)i + 1);
		if (UNLIKELY(rc < 0)) {
			fprintf(stderr, "line %zu: %s\n", i + 1, lines[i]);
			errors++;
		}
	}
	return errors;
}

int main(int argc, char **argv)
{
	struct table vars;
	table_init(&vars, 16);
	int errors;
	if (argc > 1)
		errors = run_script(&vars, (const char *const *)argv + 1, (size_t)argc - 1);
	else
		errors = run_script(&vars, builtin_script, ARRAY_LEN(builtin_script));
	table_set(&vars, "fib", (double)fib(20 + (int)(vars.count % 3)));
	report(&vars, 0);
	if (getenv("CALC_VERBOSE") != NULL)
		report(&vars, 1);
	table_free(&vars);
	return errors ? 1 : 0;
}
