// C++ programs for the AddressSanitizer end-to-end test: the frames are
// templates, lambdas, members and library code, demangled.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace shapes {

struct Shape {
	virtual ~Shape() = default;
	virtual int area() const = 0;
};

template <typename T>
struct Rect : Shape {
	T w, h;
	Rect(T w, T h) : w(w), h(h) {}
	int area() const override { return static_cast<int>(w * h); }
};

template <typename T, std::size_t N>
struct Window {
	std::array<T, N> items{};
	T sum(std::size_t n) const { // reads items[n], one past the end when n == N
		T s{};
		for (std::size_t i = 0; i <= n; i++)
			s += items[i];
		return s;
	}
};

} // namespace shapes

namespace {

template <typename F>
__attribute__((noinline)) int apply_twice(F f, int x) {
	return f(f(x));
}

__attribute__((noinline)) int use_after_delete() {
	std::vector<std::unique_ptr<shapes::Shape>> v;
	v.push_back(std::make_unique<shapes::Rect<int>>(2, 3));
	v.push_back(std::make_unique<shapes::Rect<double>>(1.5, 4.0));
	shapes::Shape *keep = v[1].get();
	v.clear();
	auto area = [keep](int x) { return x + keep->area(); };
	return apply_twice(area, 1);
}

__attribute__((noinline)) long window_overflow(int n) {
	shapes::Window<long, 4> w;
	auto fill = [&w](long v) {
		for (auto &x : w.items)
			x = v++;
	};
	fill(n);
	return w.sum(w.items.size());
}

struct Entry {
	std::string name;
	const char *text;
};

__attribute__((noinline)) size_t sort_entries(int n) {
	std::vector<Entry> entries;
	for (int i = 0; i < n; i++)
		entries.push_back({"entry" + std::to_string(i), i == n / 2 ? reinterpret_cast<const char *>(16) : "ok"});
	std::function<bool(const Entry &, const Entry &)> less = [](const Entry &a, const Entry &b) {
		return std::strlen(a.text) + a.name.size() < std::strlen(b.text) + b.name.size();
	};
	std::sort(entries.begin(), entries.end(), less);
	return entries.size();
}

} // namespace

int main(int argc, char **argv) {
	std::string mode = argc > 1 ? argv[1] : "";
	if (mode == "heap-use-after-free")
		return use_after_delete();
	if (mode == "stack-buffer-overflow")
		return static_cast<int>(window_overflow(argc));
	if (mode == "strlen-wild")
		return static_cast<int>(sort_entries(argc * 10));
	std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
	return 2;
}
