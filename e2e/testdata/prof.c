// A C program for the pprof end-to-end test: it records its stacks at
// points inside inlined helpers, recursion and calls through pointers, then
// writes them with its mappings (see trace.h).
#include "trace.h"

#define INLINE static inline __attribute__((always_inline))

struct matrix {
	int n;
	double cells[16][16];
};

INLINE double cell(const struct matrix *m, int i, int j) {
	if (i == m->n - 1 && j == m->n - 1)
		RECORD();
	return m->cells[i][j];
}

INLINE double row_sum(const struct matrix *m, int i) {
	double s = 0;
	for (int j = 0; j < m->n; j++)
		s += cell(m, i, j);
	return s;
}

__attribute__((noinline)) static double total(const struct matrix *m) {
	double s = 0;
	for (int i = 0; i < m->n; i++)
		s += row_sum(m, i);
	return s;
}

__attribute__((noinline)) static long fib(int n) {
	if (n < 2) {
		if (n == 1)
			RECORD();
		return n;
	}
	return fib(n - 1) + fib(n - 2);
}

static int visit_even(int x);

INLINE int step(int x) { return x % 2 == 0 ? x / 2 : 3 * x + 1; }

__attribute__((noinline)) static int visit_odd(int x) {
	if (x == 1) {
		RECORD();
		return 0;
	}
	return 1 + visit_even(step(x));
}

__attribute__((noinline)) static int visit_even(int x) {
	if (x % 2 != 0)
		return visit_odd(x);
	return 1 + visit_even(step(x));
}

typedef int (*op_fn)(int, int);

static int op_add(int a, int b) {
	RECORD();
	return a + b;
}

static int op_mul(int a, int b) {
	RECORD();
	return a * b;
}

__attribute__((noinline)) static int apply_all(const op_fn *ops, int n, int x) {
	for (int i = 0; i < n; i++)
		x = ops[i](x, i + 2);
	return x;
}

int main(int argc, char **argv) {
	if (argc != 2) {
		fprintf(stderr, "usage: %s TRACE-FILE\n", argv[0]);
		return 2;
	}
	trace_init();
	static struct matrix m = {.n = 16};
	for (int i = 0; i < 16; i++)
		for (int j = 0; j < 16; j++)
			m.cells[i][j] = i * j;
	double t = total(&m);
	long f = fib(7);
	int steps = visit_even(argc + 25);
	static const op_fn ops[] = {op_add, op_mul, op_add};
	int x = apply_all(ops, 3, argc);
	write_trace(argv[1]);
	printf("%g %ld %d %d\n", t, f, steps, x);
	return 0;
}
