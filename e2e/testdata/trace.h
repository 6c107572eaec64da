// trace.h: a minimal in-process stack recorder for the pprof end-to-end
// test. RECORD() stores the return addresses backtrace(3) finds;
// write_trace() writes them, one stack a line, followed by /proc/self/maps,
// which the test turns into an unsymbolized profile (mappings and addresses
// only).
#ifndef E2E_TRACE_H
#define E2E_TRACE_H

#include <execinfo.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TRACE_DEPTH 64
#define TRACE_STACKS 512

static void *trace_pcs[TRACE_STACKS][TRACE_DEPTH];
static int trace_len[TRACE_STACKS];
static int trace_count;
static int trace_lock;
static __thread int trace_busy; // set while this thread records: backtrace may call malloc

// record_stack records the calling thread's stack, from its caller out.
__attribute__((noinline)) static void record_stack(void) {
	if (trace_busy)
		return;
	trace_busy = 1;
	void *pcs[TRACE_DEPTH];
	int n = backtrace(pcs, TRACE_DEPTH);
	while (__atomic_exchange_n(&trace_lock, 1, __ATOMIC_ACQUIRE))
		;
	if (trace_count < TRACE_STACKS && n > 1) {
		memcpy(trace_pcs[trace_count], pcs + 1, (n - 1) * sizeof pcs[0]); // drop record_stack itself
		trace_len[trace_count++] = n - 1;
	}
	__atomic_store_n(&trace_lock, 0, __ATOMIC_RELEASE);
	trace_busy = 0;
}

// RECORD records the stack as record_stack does, but never as a tail call:
// the caller's frame stays on the stack.
#define RECORD() \
	do { \
		record_stack(); \
		__asm__ volatile("" ::: "memory"); \
	} while (0)

// trace_init loads what backtrace needs (libgcc_s) before anything records.
static void trace_init(void) {
	void *pcs[2];
	trace_busy = 1;
	backtrace(pcs, 2);
	trace_busy = 0;
}

// write_trace writes the stacks and this process's mappings to path.
static void write_trace(const char *path) {
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		perror(path);
		exit(3);
	}
	for (int i = 0; i < trace_count; i++) {
		fputs("stack", f);
		for (int j = 0; j < trace_len[i]; j++)
			fprintf(f, " %p", trace_pcs[i][j]);
		fputc('\n', f);
	}
	fputs("maps\n", f);
	int fd = open("/proc/self/maps", O_RDONLY);
	char buf[4096];
	ssize_t n;
	while (fd >= 0 && (n = read(fd, buf, sizeof buf)) > 0)
		fwrite(buf, 1, n, f);
	if (fd >= 0)
		close(fd);
	if (fclose(f) != 0) {
		perror(path);
		exit(3);
	}
}

#endif
