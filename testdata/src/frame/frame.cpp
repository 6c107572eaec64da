// frame.cpp - C++ locals for llvm-symbolizer FRAME requests: references
// and rvalue references (sized as pointers), pointers to data members
// (one address) and to member functions (two), 'this', lambdas and their
// captures, a class template's methods, std::size_t-sized arrays through
// a using-alias, and locals of inlined member functions.
#include <cstddef>
#include <utility>

volatile unsigned long sink;

__attribute__((noinline)) void consume(void *p, std::size_t n)
{
	sink += reinterpret_cast<unsigned long>(p) + n;
}

struct Shape {
	int sides;
	double scale;
	__attribute__((noinline)) double area(double unit) const
	{
		double a = sides * scale * unit;
		consume(&a, sizeof a);
		return a;
	}
	inline __attribute__((always_inline)) double twice() const
	{
		double t = 2 * scale;
		consume(&t, sizeof t);
		return t;
	}
};

template <typename T, std::size_t N> struct Ring {
	T items[N];
	std::size_t head;
	__attribute__((noinline)) T push(const T &v)
	{
		std::size_t slot = head++ % N;
		T old = items[slot];
		items[slot] = v;
		consume(&slot, sizeof slot);
		consume(&old, sizeof old);
		return old;
	}
};

using Buffer = char[64];

__attribute__((noinline)) double members(Shape &s, Shape &&tmp, const Shape *ps)
{
	int Shape::*pm = &Shape::sides;
	double (Shape::*pf)(double) const = &Shape::area;
	Buffer buf = {};
	Shape &alias = s;
	consume(&pm, sizeof pm);
	consume(&pf, sizeof pf);
	consume(buf, sizeof buf);
	consume(&alias, sizeof &alias);
	return (s.*pf)(tmp.*pm) + ps->twice() + alias.twice();
}

__attribute__((noinline)) int lambdas(int base)
{
	int counter = 0;
	auto add = [&counter, base](int v) {
		int sum = base + v;
		consume(&sum, sizeof sum);
		counter += sum;
		return sum;
	};
	consume(&add, sizeof add);
	for (int i = 0; i < 3; i++)
		add(i);
	return counter;
}

int main(int argc, char **)
{
	Shape s{argc + 2, 1.5};
	Ring<long, 5> ring{};
	long got = ring.push(argc);
	consume(&got, sizeof got);
	return static_cast<int>(members(s, Shape{4, 2.0}, &s)) + lambdas(argc) + static_cast<int>(got);
}
