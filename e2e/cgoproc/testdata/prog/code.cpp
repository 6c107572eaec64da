// C++ code whose captures cgoproc_test.go checks: each MARK line carries
// a marker comment naming it, which the test finds to know the line, and
// the test knows the function's demangled name. Compiled at -O2 (see
// main.go), NOIPA where a function would otherwise be inlined, and
// one always_inline function whose capture has two frames.

#include "prog.h"

// NOIPA keeps a function out of line and unchanged: not inlined, not
// cloned by gcc's interprocedural passes (which would rename it foo.constprop.0).
#define NOIPA __attribute__((noipa))

namespace shapes {

class Shape {
public:
	explicit Shape(int sides);
	virtual ~Shape();
	virtual int area(int scale) const;
	Shape &operator+=(int n);

protected:
	int sides_;
};

NOIPA Shape::Shape(int sides) : sides_(sides) {
	MARK(ID_CTOR); // @ctor
}

NOIPA Shape::~Shape() {
	MARK(ID_DTOR); // @dtor
}

NOIPA int Shape::area(int scale) const { return sides_ * scale; }

NOIPA Shape &Shape::operator+=(int n) {
	sides_ += n;
	MARK(ID_OPERATOR); // @operator
	return *this;
}

class Square : public Shape {
public:
	Square() : Shape(4) {}
	int area(int scale) const override;
};

NOIPA int Square::area(int scale) const {
	MARK(ID_VIRTUAL); // @virtual
	return sides_ * sides_ * scale;
}

template <typename T>
NOIPA T twice(T x) {
	MARK(ID_TEMPLATE); // @template
	return x + x;
}

inline __attribute__((always_inline)) int leaf(int x) {
	MARK(ID_INLINE_LEAF); // @inline_leaf
	return x * 3;
}

NOIPA int inline_caller(int x) {
	return leaf(x) + 1; // @inline_call
}

} // namespace shapes

namespace {

NOIPA int hidden(int x) {
	MARK(ID_ANON); // @anon
	return x - 1;
}

} // namespace

// area_of makes the call of area virtual: the compiler cannot see the
// object's type.
NOIPA static int area_of(const shapes::Shape *s, int scale) { return s->area(scale); }

extern "C" int cxx_run(int x) {
	shapes::Shape *s = new shapes::Square();
	int r = area_of(s, x);
	*s += 1;
	delete s;
	r += shapes::twice<int>(x);
	r += shapes::inline_caller(x);
	r += hidden(x);
	MARK(ID_EXTERN_C); // @extern_c
	return r;
}
