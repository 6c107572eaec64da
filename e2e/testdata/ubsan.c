// Programs for the UndefinedBehaviorSanitizer end-to-end test (built with
// -fsanitize=undefined -fno-sanitize-recover): each mode stops at one
// report, whose stack trace the symbolizer names.
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INLINE static inline __attribute__((always_inline))

INLINE int scale(int x, int by) { return x * by; }

__attribute__((noinline)) static int grow(int x) { return scale(x, 1 << 20); }

INLINE int shift_by(int x, int n) { return x << n; }

__attribute__((noinline)) static int shifted(int n) { return shift_by(1, n); }

static int compare_calls;

// compare_ints overflows on its 20th call, from inside glibc's qsort.
static int compare_ints(const void *a, const void *b) {
	int x = *(const int *)a, y = *(const int *)b;
	if (++compare_calls == 20)
		return scale(x, INT_MAX);
	return x - y;
}

__attribute__((noinline)) static int sort_overflow(int n) {
	int v[64];
	for (int i = 0; i < 64; i++)
		v[i] = (i * 37 + n) % 64;
	qsort(v, 64, sizeof v[0], compare_ints);
	return v[0];
}

int main(int argc, char **argv) {
	const char *mode = argc > 1 ? argv[1] : "";
	if (strcmp(mode, "signed-overflow") == 0)
		return grow(argc << 12);
	if (strcmp(mode, "shift") == 0)
		return shifted(argc + 40);
	if (strcmp(mode, "qsort-overflow") == 0)
		return sort_overflow(argc);
	fprintf(stderr, "unknown mode %s\n", mode);
	return 2;
}
