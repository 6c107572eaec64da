// A program for the pprof end-to-end test that spends its time in glibc: it
// records stacks inside glibc's own code, from callbacks glibc makes
// (qsort, tsearch, nftw, fopencookie, printf extensions, pthread_once,
// threads, exit handlers, dl_iterate_phdr, a signal handler) and from
// malloc, which it interposes, so the calls glibc makes to it (strndup,
// regcomp, fopen, getline, pthread_create, ...) are recorded too.
#define _GNU_SOURCE
#include "trace.h"

#include <link.h>
#include <ftw.h>
#include <printf.h>
#include <pthread.h>
#include <regex.h>
#include <search.h>
#include <signal.h>

static int recording; // whether malloc records

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

void *malloc(size_t n) {
	if (recording)
		RECORD();
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t size) {
	if (recording)
		RECORD();
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n) {
	if (recording)
		RECORD();
	return __libc_realloc(p, n);
}

void free(void *p) { __libc_free(p); }

static int compare_calls;

static int compare_ints(const void *a, const void *b) {
	if (++compare_calls % 1009 == 0)
		RECORD();
	return *(const int *)a - *(const int *)b;
}

static int key_compares;

static int compare_keys(const void *a, const void *b) {
	if (++key_compares == 30)
		RECORD();
	return *(const int *)a - *(const int *)b;
}

static void walk_node(const void *node, VISIT v, int depth) {
	(void)node;
	if (v == leaf && depth == 3)
		RECORD();
}

static int ftw_entries;

static int visit_file(const char *path, const struct stat *st, int type, struct FTW *ftw) {
	(void)path, (void)st, (void)type;
	if (ftw->level == 1 && ++ftw_entries <= 2)
		RECORD();
	return 0;
}

static ssize_t cookie_read(void *cookie, char *buf, size_t size) {
	int *left = cookie;
	if (*left == 0)
		return 0;
	RECORD();
	size_t n = size < 64 ? size : 64;
	memset(buf, 'x', n);
	buf[n - 1] = '\n';
	(*left)--;
	return n;
}

static int print_point(FILE *f, const struct printf_info *info, const void *const *args) {
	(void)info;
	const int *p = *(const int *const *)args[0];
	RECORD();
	return fprintf(f, "(%d,%d)", p[0], p[1]);
}

static int point_arginfo(const struct printf_info *info, size_t n, int *types, int *sizes) {
	(void)info, (void)sizes;
	if (n > 0)
		types[0] = PA_POINTER;
	return 1;
}

static void once_init(void) { RECORD(); }

static void *thread_main(void *arg) {
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, once_init);
	RECORD();
	return arg;
}

static int phdr_seen;

static int each_object(struct dl_phdr_info *info, size_t size, void *data) {
	(void)info, (void)size, (void)data;
	if (phdr_seen++ == 0)
		RECORD();
	return 0;
}

static void on_signal(int sig) {
	(void)sig;
	RECORD();
}

static const char *trace_path;

static void write_at_exit(void) {
	recording = 0;
	write_trace(trace_path);
}

static void record_at_exit(void) { RECORD(); }

int main(int argc, char **argv) {
	if (argc != 3) {
		fprintf(stderr, "usage: %s TRACE-FILE DIRECTORY\n", argv[0]);
		return 2;
	}
	trace_path = argv[1];
	trace_init();
	atexit(write_at_exit); // runs last
	atexit(record_at_exit);
	register_printf_specifier('P', print_point, point_arginfo);
	signal(SIGUSR1, on_signal);

	recording = 1;
	char *dup = strndup("a string to copy", 8);
	regex_t re;
	int rc = regcomp(&re, "^([a-z]+)[0-9]{2,}$", REG_EXTENDED);
	recording = 0;

	int v[1000];
	for (int i = 0; i < 1000; i++)
		v[i] = (i * 7919) % 1000;
	qsort(v, 1000, sizeof v[0], compare_ints);

	void *root = NULL;
	static int keys[15] = {8, 4, 12, 2, 6, 10, 14, 1, 3, 5, 7, 9, 11, 13, 15};
	for (int i = 0; i < 15; i++)
		tsearch(&keys[i], &root, compare_keys);
	twalk(root, walk_node);

	nftw(argv[2], visit_file, 4, FTW_PHYS);

	int chunks = 3;
	FILE *cf = fopencookie(&chunks, "r", (cookie_io_functions_t){.read = cookie_read});
	char *line = NULL;
	size_t cap = 0;
	recording = 1;
	while (getline(&line, &cap, cf) > 0)
		;
	recording = 0;
	fclose(cf);

	int point[2] = {3, 4};
	char out[64];
	const char *point_format = "%P"; // not a literal: the compiler does not know %P
	snprintf(out, sizeof out, point_format, point);

	recording = 1;
	pthread_t th;
	pthread_create(&th, NULL, thread_main, NULL);
	recording = 0;
	pthread_join(th, NULL);

	dl_iterate_phdr(each_object, NULL);
	raise(SIGUSR1);

	printf("%s %d %d %s %d\n", dup, rc, v[0], out, ftw_entries);
	fflush(stdout);
	recording = 1;
	exit(0);
}
