// vec.hpp - a fixed-size vector template whose operations are small enough
// to be inlined into one another, producing inline chains several levels deep.
#pragma once

#include <cmath>
#include <cstddef>

namespace geo {

template <typename T, std::size_t N>
struct Vec {
	T v[N];

	T &operator[](std::size_t i) { return v[i]; }
	const T &operator[](std::size_t i) const { return v[i]; }
};

// Level 4 of the chain: a single multiply-add.
template <typename T>
inline T mul_add(T acc, T a, T b)
{
	return acc + a * b;
}

// Level 3: a fold over two vectors with an arbitrary step.
template <typename T, std::size_t N, typename Step>
inline T fold2(const Vec<T, N> &a, const Vec<T, N> &b, T init, Step step)
{
	T acc = init;
	for (std::size_t i = 0; i < N; i++)
		acc = step(acc, a[i], b[i]);
	return acc;
}

// Level 2: the dot product, built from fold2 and a lambda calling mul_add.
template <typename T, std::size_t N>
inline T dot(const Vec<T, N> &a, const Vec<T, N> &b)
{
	return fold2(a, b, T(0), [](T acc, T x, T y) { return mul_add(acc, x, y); });
}

// Level 1: the Euclidean norm.
template <typename T, std::size_t N>
inline T norm(const Vec<T, N> &a)
{
	return std::sqrt(dot(a, a));
}

template <typename T, std::size_t N>
inline Vec<T, N> operator+(const Vec<T, N> &a, const Vec<T, N> &b)
{
	Vec<T, N> r{};
	for (std::size_t i = 0; i < N; i++)
		r[i] = a[i] + b[i];
	return r;
}

template <typename T, std::size_t N>
inline Vec<T, N> scale(const Vec<T, N> &a, T k)
{
	Vec<T, N> r{};
	for (std::size_t i = 0; i < N; i++)
		r[i] = a[i] * k;
	return r;
}

template <typename T, std::size_t N>
inline T distance(const Vec<T, N> &a, const Vec<T, N> &b)
{
	return norm(a + scale(b, T(-1)));
}

using Vec3 = Vec<double, 3>;

} // namespace geo
