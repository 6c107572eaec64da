// Programs for the AddressSanitizer end-to-end test: each mode makes one
// report whose stack traces the symbolizer names.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INLINE static inline __attribute__((always_inline))

struct node {
	int value;
	struct node *next;
};

int global_table[8];

__attribute__((noinline)) static struct node *make_list(int n) {
	struct node *head = NULL;
	for (int i = 0; i < n; i++) {
		struct node *nd = malloc(sizeof *nd);
		nd->value = i;
		nd->next = head;
		head = nd;
	}
	return head;
}

INLINE void free_list(struct node *n) {
	while (n != NULL) {
		struct node *next = n->next;
		free(n);
		n = next;
	}
}

INLINE int first_value(const struct node *n) { return n->value; }

INLINE int sum_to(int *buf, int n) {
	int s = 0;
	for (int i = 0; i <= n; i++) // one past the end
		s += buf[i];
	return s;
}

__attribute__((noinline)) static int use_after_free(void) {
	struct node *l = make_list(3);
	free_list(l);
	return first_value(l);
}

__attribute__((noinline)) static int stack_overflow(int n) {
	int buf[4];
	for (int i = 0; i < 4; i++)
		buf[i] = n * i;
	return sum_to(buf, n);
}

__attribute__((noinline)) static int global_overflow(int i) {
	return global_table[i];
}

INLINE size_t measure(const char *s) { return strlen(s); }

__attribute__((noinline)) static size_t libc_crash(const char *s) { return measure(s) + 1; }

static int compare_calls;

// compare_bad dereferences wild pointers, but only once glibc's qsort has
// started (the interceptor first calls it once per element pair).
static int compare_bad(const void *a, const void *b) {
	const int *const *x = a, *const *y = b;
	if (++compare_calls < 64)
		return *x < *y ? -1 : *x > *y;
	return **x - **y;
}

__attribute__((noinline)) static void sort_wild(void) {
	int *ptrs[64];
	for (int i = 0; i < 64; i++)
		ptrs[i] = (int *)(16 + 8 * (long)i);
	qsort(ptrs, 64, sizeof ptrs[0], compare_bad);
}

int main(int argc, char **argv) {
	const char *mode = argc > 1 ? argv[1] : "";
	if (strcmp(mode, "heap-use-after-free") == 0)
		return use_after_free();
	if (strcmp(mode, "stack-buffer-overflow") == 0)
		return stack_overflow(argc + 2);
	if (strcmp(mode, "global-buffer-overflow") == 0)
		return global_overflow(argc + 6);
	if (strcmp(mode, "strlen-wild") == 0)
		return (int)libc_crash((const char *)(long)(argc + 8));
	if (strcmp(mode, "qsort-wild") == 0) {
		sort_wild();
		return 0;
	}
	fprintf(stderr, "unknown mode %s\n", mode);
	return 2;
}
