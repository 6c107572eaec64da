/* util.h - small helpers that are meant to be inlined into their callers,
 * so that a single function's line program jumps into this header and back. */
#ifndef CALC_UTIL_H
#define CALC_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define SWAP(T, a, b) \
	do {          \
		T tmp_ = (a); \
		(a) = (b);    \
		(b) = tmp_;   \
	} while (0)

static inline int is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static inline int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static inline int is_ident_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static inline int is_ident(int c)
{
	return is_ident_start(c) || is_digit(c);
}

/* FNV-1a; the table only needs a cheap, stable spread. */
static inline uint32_t hash_bytes(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

static inline uint32_t hash_str(const char *s)
{
	return hash_bytes(s, strlen(s));
}

static inline void copy_name(char *dst, const char *src, size_t n)
{
	size_t len = MIN(n, (size_t)31);
	memcpy(dst, src, len);
	dst[len] = '\0';
}

static inline double clampd(double x, double lo, double hi)
{
	if (x < lo)
		return lo;
	if (x > hi)
		return hi;
	return x;
}

#endif
