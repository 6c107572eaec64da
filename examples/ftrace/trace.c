//go:build cgo

// The hooks gcc's -finstrument-functions calls at the entry and exit of
// every instrumented function. They only append to a fixed buffer: naming
// the addresses is the Go side's job, after the run, so the hooks stay
// cheap and call nothing that could itself be instrumented.

#include "trace.h"

#define NOTRACE __attribute__((no_instrument_function))

static struct ftrace_event events[FTRACE_CAP];
static uint64_t next;    // events claimed, stored or not
static uint64_t dropped; // events past FTRACE_CAP

NOTRACE static void record(uint64_t kind, void *fn, void *site) {
	uint64_t i = __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED);
	if (i >= FTRACE_CAP) {
		__atomic_fetch_add(&dropped, 1, __ATOMIC_RELAXED);
		return;
	}
	events[i].kind = kind;
	events[i].fn = (uint64_t)(uintptr_t)fn;
	events[i].site = (uint64_t)(uintptr_t)site;
}

NOTRACE void __cyg_profile_func_enter(void *fn, void *site) {
	record(FTRACE_ENTER, fn, site);
}

NOTRACE void __cyg_profile_func_exit(void *fn, void *site) {
	record(FTRACE_EXIT, fn, site);
}

NOTRACE uint64_t ftrace_run(void) {
	__atomic_store_n(&next, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&dropped, 0, __ATOMIC_RELAXED);
	ftrace_workload();
	uint64_t n = __atomic_load_n(&next, __ATOMIC_RELAXED);
	return n < FTRACE_CAP ? n : FTRACE_CAP;
}

NOTRACE const struct ftrace_event *ftrace_events(void) { return events; }

NOTRACE uint64_t ftrace_dropped(void) { return __atomic_load_n(&dropped, __ATOMIC_RELAXED); }
