/* reloc.c - one translation unit for the relocatable-object fixtures
 * (testdata/obj/): inlined header helpers, a switch, recursion, a static
 * helper, file-scope data referenced from code and from DWARF, and
 * functions in sections of their own (.init.text as a kernel module's
 * __init, a cold function), whose addresses all start at 0 in an object. */
#include "reloc.h"

int reloc_counter;
static const char greeting[] = "relocations";
const char *reloc_names[] = {"zero", "one", "two", "three"};

static __attribute__((noinline)) int scale(int v, int by)
{
	return clamp(v * by, -1000, 1000);
}

int digits(struct span s)
{
	int n = 0;
	for (word i = 0; i < s.n; i++)
		if (is_digit(s.p[i]))
			n++;
	return n;
}

unsigned checksum(const unsigned char *p, word n)
{
	struct span s = {p, n};
	unsigned h = hash_span(s);
	reloc_counter += digits(s);
	return h ^ (unsigned)scale((int)n, 3);
}

int classify(int c)
{
	switch (c) {
	case 'a':
		return 1;
	case 'e':
		return 5;
	case 'i':
		return 9;
	case 'o':
		return 15;
	case 'u':
		return 21;
	case 'y':
		return 25;
	default:
		return is_digit(c) ? c - '0' : -1;
	}
}

long fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((cold, noinline)) void reloc_fail(int code)
{
	reloc_counter = -code;
	for (;;)
		__asm__ volatile("");
}

__attribute__((section(".init.text"))) int reloc_init(void)
{
	struct span s = {(const unsigned char *)greeting, sizeof greeting - 1};
	unsigned h = hash_span(s);
	if (h == 0)
		reloc_fail(3);
	reloc_counter = clamp((int)(h & 0xff), 1, 200) + classify(reloc_names[2][0]);
	return (int)fib(reloc_counter & 7);
}
