// The tracer's buffer, shared by trace.c (which fills it) and trace.go
// (which reads it).

#ifndef FTRACE_TRACE_H
#define FTRACE_TRACE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { FTRACE_ENTER = 1, FTRACE_EXIT = 2 };

// One call or return of an instrumented function, as gcc's
// -finstrument-functions hooks see it: fn is the function's address, site
// the return address in its caller.
struct ftrace_event {
	uint64_t kind; // FTRACE_ENTER or FTRACE_EXIT
	uint64_t fn;
	uint64_t site;
};

// FTRACE_CAP is the buffer's capacity in events; events past it are
// counted in ftrace_dropped and not stored.
#define FTRACE_CAP 4096

// ftrace_run clears the buffer, runs the instrumented workload and
// returns the number of events recorded.
uint64_t ftrace_run(void);
const struct ftrace_event *ftrace_events(void);
uint64_t ftrace_dropped(void);

// ftrace_workload is the instrumented C++ code (workload.cpp).
void ftrace_workload(void);

#ifdef __cplusplus
}
#endif

#endif
