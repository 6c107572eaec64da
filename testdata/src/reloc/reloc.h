/* reloc.h - helpers inlined into their callers, so that each function's
 * line program switches between reloc.c and this header. No system
 * headers: the object fixtures are built for targets without a sysroot. */
#ifndef RELOC_H
#define RELOC_H

typedef unsigned long word;

struct span {
	const unsigned char *p;
	word n;
};

static inline int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static inline unsigned mix(unsigned h, unsigned c)
{
	h ^= c;
	return h * 16777619u;
}

static inline unsigned hash_span(struct span s)
{
	unsigned h = 2166136261u;
	for (word i = 0; i < s.n; i++)
		h = mix(h, s.p[i]);
	return h;
}

static inline int clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

#endif
