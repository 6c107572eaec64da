/* frame.c - local variables for llvm-symbolizer FRAME requests.
 *
 * Every function keeps its locals in memory (they are handed to consume(),
 * which the compiler cannot see through), so that even optimized builds
 * give them frame offsets. The types cover each rule of LLVM's local-size
 * computation: base types, typedef/const/volatile/restrict chains,
 * pointers, structs, unions, enums, one- and multi-dimensional arrays
 * whose bounds take 1, 2 and 4 bytes (gcc writes char[256] with a one-byte
 * upper bound of 255, which LLVM 14 reads as -1), variable-length arrays,
 * flexible array members, function pointers; plus static and register
 * locals, nested blocks, and always_inline helpers with locals of their
 * own (their locals are listed under the inlined function's name).
 */
#include <stddef.h>

typedef const volatile int cv_int;
typedef cv_int cv_int2; /* a typedef of a typedef */
typedef int row4[4];

struct point {
	double x, y;
};

union bits {
	unsigned u;
	float f;
	unsigned char b[4];
};

enum color { RED, GREEN, BLUE };

struct flex {
	int n;
	int data[];
};

struct node {
	struct node *next;
	int (*cmp)(const void *, const void *);
	char tag[3];
};

volatile unsigned long sink;

__attribute__((noinline)) void consume(void *p, size_t n)
{
	sink += (unsigned long)p + n;
}

static inline __attribute__((always_inline)) int clamp_sum(const int *v, int n)
{
	int total = 0;
	for (int i = 0; i < n; i++) {
		int x = v[i];
		total += x < 0 ? 0 : x;
	}
	consume(&total, sizeof total);
	return total;
}

static inline __attribute__((always_inline)) double mid(struct point a, struct point b)
{
	struct point m = {(a.x + b.x) / 2, (a.y + b.y) / 2};
	consume(&m, sizeof m);
	return m.x + m.y;
}

__attribute__((noinline)) int arrays(int n)
{
	char big[256] = {0};
	char small[100] = {0};
	int grid[3][4] = {{0}};
	short wide[1000] = {0};
	int huge[70000] = {0};
	row4 rows[2] = {{0}};
	int vla[n > 0 ? n : 1];
	int(*rowp)[4] = grid;
	for (int i = 0; i < (n > 0 ? n : 1); i++)
		vla[i] = i;
	consume(big, sizeof big);
	consume(small, sizeof small);
	consume(grid, sizeof grid);
	consume(wide, sizeof wide);
	consume(huge, sizeof huge);
	consume(rows, sizeof rows);
	consume(vla, sizeof vla);
	consume(&rowp, sizeof rowp);
	return clamp_sum(grid[0], 4) + (int)sizeof vla;
}

__attribute__((noinline)) double records(struct point p, union bits b, enum color c)
{
	struct point q = {p.y, p.x};
	union bits copy = b;
	enum color other = c == RED ? BLUE : RED;
	cv_int2 k = 7;
	struct node nd = {0, 0, {1, 2, 3}};
	struct flex *fx = 0;
	consume(&q, sizeof q);
	consume(&copy, sizeof copy);
	consume(&other, sizeof other);
	consume((void *)&k, sizeof k);
	consume(&nd, sizeof nd);
	consume(&fx, sizeof fx);
	return mid(p, q) + copy.f + other;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

__attribute__((noinline)) int pointers(int *restrict dst, const int *restrict src, int n)
{
	static int calls; /* static: no frame offset */
	register int r = n * 2;
	int (*fn)(const void *, const void *) = cmp_int;
	const char *msg = "frame";
	void *anything = dst;
	calls++;
	consume(&fn, sizeof fn);
	consume(&msg, sizeof msg);
	consume(&anything, sizeof anything);
	for (int i = 0; i < n; i++) {
		int v = src[i];
		consume(&v, sizeof v);
		{
			long twice = 2L * v;
			consume(&twice, sizeof twice);
			dst[i] = (int)twice + r;
		}
	}
	return calls + fn(dst, src);
}

int main(int argc, char **argv)
{
	int in[4] = {argc, 2, 3, 4};
	int out[4];
	struct point p = {1, 2};
	union bits b = {.u = 0x3f800000u};
	(void)argv;
	consume(in, sizeof in);
	return arrays(argc) + (int)records(p, b, GREEN) + pointers(out, in, 4);
}
