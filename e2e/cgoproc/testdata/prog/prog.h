// What the C and C++ parts of the test program share with its Go part.

#ifndef PROG_H
#define PROG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// The captures of code.cpp; cgoproc_test.go names the same ones.
enum {
	ID_CTOR,
	ID_DTOR,
	ID_VIRTUAL,
	ID_OPERATOR,
	ID_TEMPLATE,
	ID_ANON,
	ID_INLINE_LEAF,
	ID_EXTERN_C,
	ID_COUNT
};

// record_pc stores its return address as capture id: the address just
// after the call, in the function that called it.
void record_pc(int id);
uint64_t captured_pc(int id);

// cxx_run runs code.cpp, which records every capture.
int cxx_run(int x);

// dl_call opens the shared library at path, calls its dl_entry and
// returns what that returns (an address inside the library), or 0 with
// the reason in *err.
uint64_t dl_call(const char *path, const char **err);

// map_file maps the first len bytes of the file at path, read-only, and
// returns their address, or 0.
uint64_t map_file(const char *path, uint64_t len);

// vdso_base is the address of the vDSO's ELF header (AT_SYSINFO_EHDR).
const void *vdso_base(void);

#ifdef __cplusplus
}
#endif

// MARK records capture id at this line. The empty asm after the call
// keeps it from being a tail call (whose return address would be the
// caller's caller's).
#define MARK(id)                                   \
	do {                                       \
		record_pc(id);                     \
		__asm__ volatile("" ::: "memory"); \
	} while (0)

#endif
