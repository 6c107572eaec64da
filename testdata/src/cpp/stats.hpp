// stats.hpp - compile-time recursion and a generic accumulator.
#pragma once

#include <cstddef>
#include <vector>

namespace stats {

// Power<N>::of(x) unrolls into N nested inline calls.
template <unsigned N>
struct Power {
	static double of(double x) { return x * Power<N - 1>::of(x); }
};

template <>
struct Power<0> {
	static double of(double) { return 1; }
};

template <typename T>
class Running {
public:
	void add(T x)
	{
		n_++;
		T d = x - mean_;
		mean_ += d / static_cast<T>(n_);
		m2_ += d * (x - mean_);
	}
	T mean() const { return mean_; }
	T variance() const { return n_ > 1 ? m2_ / static_cast<T>(n_ - 1) : T(0); }
	std::size_t count() const { return n_; }

private:
	std::size_t n_ = 0;
	T mean_ = 0, m2_ = 0;
};

template <typename T, typename F>
Running<T> summarize(const std::vector<T> &xs, F transform)
{
	Running<T> r;
	for (const T &x : xs)
		r.add(transform(x));
	return r;
}

} // namespace stats
