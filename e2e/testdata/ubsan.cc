// C++ programs for the UndefinedBehaviorSanitizer end-to-end test: the
// frames are templates, lambdas and members, demangled.
#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace calc {

struct Base {
	virtual ~Base() = default;
	virtual int value() const { return 1; }
};

struct Derived : Base {
	int extra = 7;
	int value() const override { return extra; }
};

template <typename T>
struct Accumulator {
	T total{};
	template <typename U>
	void add(U v) { total += static_cast<T>(v) * static_cast<T>(v); }
};

} // namespace calc

namespace {

template <typename T, typename F>
__attribute__((noinline)) T fold(const std::vector<T> &v, F f) {
	calc::Accumulator<T> acc;
	for (const T &x : v)
		acc.add(f(x));
	return acc.total;
}

__attribute__((noinline)) int overflow_in_lambda(int n) {
	std::vector<int> v(n, INT_MAX / 1000);
	return fold(v, [n](int x) { return x + n; });
}

template <typename T>
__attribute__((noinline)) int first_value(const std::vector<T *> &v) {
	auto get = [](const T *p) { return p->value(); };
	return get(v.front()); // v.front() is null
}

__attribute__((noinline)) int sort_with_division(int n) {
	std::vector<int> v;
	for (int i = 0; i < n; i++)
		v.push_back((i * 7) % n);
	int zero = n - n;
	std::sort(v.begin(), v.end(), [zero](int a, int b) {
		return a / (zero + (a == b)) < b; // divides by zero on equal keys
	});
	return v[0];
}

} // namespace

int main(int argc, char **argv) {
	std::string mode = argc > 1 ? argv[1] : "";
	if (mode == "signed-overflow")
		return overflow_in_lambda(argc * 4);
	if (mode == "null-member-call")
		return first_value(std::vector<calc::Derived *>(argc));
	if (mode == "divide-by-zero")
		return sort_with_division(argc * 8);
	std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
	return 2;
}
