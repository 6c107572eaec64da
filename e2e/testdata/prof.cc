// A C++ program for the pprof end-to-end test: it records its stacks inside
// templates, lambdas, std::function, virtual calls, std::sort, a thread and
// a destructor run by exception unwinding, and from libstdc++'s stream
// code (see trace.h).
#include "trace.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace geo {

struct Shape {
	virtual ~Shape() = default;
	virtual double area() const = 0;
};

template <typename T>
struct Square : Shape {
	T side;
	explicit Square(T s) : side(s) {}
	double area() const override {
		RECORD();
		return static_cast<double>(side * side);
	}
};

struct Circle : Shape {
	double r;
	explicit Circle(double r) : r(r) {}
	double area() const override {
		RECORD();
		return 3.14159 * r * r;
	}
};

} // namespace geo

namespace {

template <typename It, typename F>
__attribute__((noinline)) double sum_by(It first, It last, F f) {
	double s = 0;
	for (; first != last; ++first)
		s += f(*first);
	return s;
}

struct Guard {
	int id;
	~Guard() {
		if (id == 2)
			RECORD(); // during unwinding
	}
};

__attribute__((noinline)) void throw_through(int depth) {
	Guard g{depth};
	if (depth == 0)
		throw std::runtime_error("done");
	throw_through(depth - 1);
}

// CountingBuf is a stream buffer without a buffer: libstdc++'s
// std::streambuf::xsputn and the number formatting of std::num_put call its
// overflow for every character.
class CountingBuf : public std::streambuf {
public:
	int count = 0;

protected:
	int_type overflow(int_type c) override {
		if (++count == 3 || count == 7)
			RECORD();
		return c;
	}
};

template <typename K, typename V>
class Registry {
public:
	void on(const K &k, std::function<V(V)> f) { handlers_[k] = std::move(f); }
	V fire(const K &k, V v) const { return handlers_.at(k)(v); }

private:
	std::map<K, std::function<V(V)>> handlers_;
};

} // namespace

int main(int argc, char **argv) {
	if (argc != 2) {
		fprintf(stderr, "usage: %s TRACE-FILE\n", argv[0]);
		return 2;
	}
	trace_init();

	std::vector<std::unique_ptr<geo::Shape>> shapes;
	shapes.push_back(std::make_unique<geo::Square<int>>(3));
	shapes.push_back(std::make_unique<geo::Circle>(1.5));
	shapes.push_back(std::make_unique<geo::Square<double>>(2.5));
	double area = sum_by(shapes.begin(), shapes.end(), [](const std::unique_ptr<geo::Shape> &s) { return s->area(); });

	std::vector<std::string> words = {"delta", "alpha", "charlie", "bravo", "echo"};
	int compares = 0;
	std::sort(words.begin(), words.end(), [&compares](const std::string &a, const std::string &b) {
		if (++compares == 3)
			RECORD();
		return a < b;
	});

	Registry<std::string, int> reg;
	reg.on("twice", [](int v) {
		RECORD();
		return 2 * v;
	});
	int fired = reg.fire("twice", argc);

	std::thread t([] { RECORD(); });
	t.join();

	CountingBuf buf;
	std::ostream os(&buf);
	os << "hello" << 42;

	try {
		throw_through(4);
	} catch (const std::exception &e) {
		RECORD();
	}

	write_trace(argv[1]);
	printf("%g %s %d %d %d\n", area, words.front().c_str(), compares, fired, buf.count);
	return 0;
}
