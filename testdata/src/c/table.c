/* table.c - a chained hash table of named values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calc.h"
#include "util.h"

void table_init(struct table *t, size_t nbuckets)
{
	t->buckets = calloc(nbuckets, sizeof *t->buckets);
	if (UNLIKELY(t->buckets == NULL))
		calc_fatal("out of memory", 3);
	t->nbuckets = nbuckets;
	t->count = 0;
}

void table_free(struct table *t)
{
	for (size_t i = 0; i < t->nbuckets; i++) {
		struct entry *e = t->buckets[i];
		while (e != NULL) {
			struct entry *next = e->next;
			free(e);
			e = next;
		}
	}
	free(t->buckets);
	t->buckets = NULL;
	t->nbuckets = t->count = 0;
}

static size_t bucket_of(const struct table *t, const char *name)
{
	return hash_str(name) & (t->nbuckets - 1);
}

static void rehash(struct table *t)
{
	size_t old_n = t->nbuckets;
	struct entry **old = t->buckets;
	table_init(t, old_n * 2);
	for (size_t i = 0; i < old_n; i++) {
		struct entry *e = old[i];
		while (e != NULL) {
			struct entry *next = e->next;
			size_t b = bucket_of(t, e->name);
			e->next = t->buckets[b];
			t->buckets[b] = e;
			t->count++;
			e = next;
		}
	}
	free(old);
}

/* lookup has a tiny fast path (first entry in the bucket matches) and a
 * longer chain walk, which gcc likes to outline as lookup.part.0. */
static struct entry *lookup(struct table *t, const char *name, size_t b)
{
	struct entry *e = t->buckets[b];
	if (e == NULL)
		return NULL;
	if (LIKELY(strcmp(e->name, name) == 0)) {
		e->hits++;
		return e;
	}
	for (e = e->next; e != NULL; e = e->next) {
		if (strcmp(e->name, name) == 0) {
			e->hits++;
			if (e->hits > 1000)
				fprintf(stderr, "hot variable %s in chain of bucket %zu\n", name, b);
			return e;
		}
	}
	return NULL;
}

struct entry *table_get(struct table *t, const char *name, int create)
{
	size_t b = bucket_of(t, name);
	struct entry *e = lookup(t, name, b);
	if (e != NULL || !create)
		return e;
	if (t->count * 4 >= t->nbuckets * 3) {
		rehash(t);
		b = bucket_of(t, name);
	}
	e = calloc(1, sizeof *e);
	if (UNLIKELY(e == NULL))
		calc_fatal("out of memory", 3);
	copy_name(e->name, name, strlen(name));
	e->next = t->buckets[b];
	t->buckets[b] = e;
	t->count++;
	return e;
}

void table_set(struct table *t, const char *name, double v)
{
	struct entry *e = table_get(t, name, 1);
	e->value = v;
}

size_t table_values(const struct table *t, double *out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < t->nbuckets && n < cap; i++)
		for (const struct entry *e = t->buckets[i]; e != NULL && n < cap; e = e->next)
			out[n++] = e->value;
	return n;
}

/* table_dump is never called.  Linked with -ffunction-sections
 * -Wl,--gc-sections its code is discarded while its DWARF stays behind with
 * a tombstoned (zero) address: symbolizers must not map PC 0 to it. */
void table_dump(const struct table *t)
{
	for (size_t i = 0; i < t->nbuckets; i++)
		for (const struct entry *e = t->buckets[i]; e != NULL; e = e->next)
			printf("[%zu] %s = %g (%u hits)\n", i, e->name, e->value, e->hits);
}
