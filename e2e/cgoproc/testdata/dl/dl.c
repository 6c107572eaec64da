// A shared library the test program opens with dlopen after its Process
// exists: dl_entry returns an address inside it, at the marked line.
#include <stdint.h>

__attribute__((noipa)) static uint64_t here(void) { return (uint64_t)(uintptr_t)__builtin_return_address(0); }

uint64_t dl_entry(void) {
	uint64_t pc = here(); // @dl
	__asm__ volatile("" ::: "memory");
	return pc;
}
