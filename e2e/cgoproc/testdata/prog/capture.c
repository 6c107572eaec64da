#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stddef.h>
#include <sys/auxv.h>

#include "prog.h"

static uint64_t pcs[ID_COUNT];

__attribute__((noinline)) void record_pc(int id) {
	if (id >= 0 && id < ID_COUNT)
		pcs[id] = (uint64_t)(uintptr_t)__builtin_return_address(0);
}

uint64_t captured_pc(int id) { return id >= 0 && id < ID_COUNT ? pcs[id] : 0; }

uint64_t dl_call(const char *path, const char **err) {
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		*err = dlerror();
		return 0;
	}
	uint64_t (*entry)(void) = (uint64_t(*)(void))dlsym(h, "dl_entry");
	if (entry == NULL) {
		*err = dlerror();
		return 0;
	}
	return entry(); // the library stays open: its mapping must stay
}

const void *vdso_base(void) { return (const void *)getauxval(AT_SYSINFO_EHDR); }

uint64_t map_file(const char *path, uint64_t len) {
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	void *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	return p == MAP_FAILED ? 0 : (uint64_t)(uintptr_t)p;
}
