// shapes.hpp - a small class hierarchy plus a few always-inline helpers that
// force a five-deep inline chain regardless of the optimizer's heuristics.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "vec.hpp"

namespace geo {

#define FORCE_INLINE __attribute__((always_inline)) inline

FORCE_INLINE double square(double x) { return x * x; }
FORCE_INLINE double cube(double x) { return square(x) * x; }
FORCE_INLINE double poly(double x) { return cube(x) - 2 * square(x) + x; }
FORCE_INLINE double smooth(double x) { return poly(x) / (1 + square(x)); }
FORCE_INLINE double shade(double x) { return smooth(x) + smooth(x / 2); }

class Shape {
public:
	explicit Shape(std::string name) : name_(std::move(name)) {}
	virtual ~Shape() = default;
	virtual double area() const = 0;
	virtual Vec3 center() const = 0;
	const std::string &name() const { return name_; }

private:
	std::string name_;
};

class Sphere : public Shape {
public:
	Sphere(Vec3 c, double r) : Shape("sphere"), c_(c), r_(r) {}
	double area() const override { return 4 * 3.141592653589793 * square(r_); }
	Vec3 center() const override { return c_; }

private:
	Vec3 c_;
	double r_;
};

class Box : public Shape {
public:
	Box(Vec3 lo, Vec3 hi) : Shape("box"), lo_(lo), hi_(hi) {}
	double area() const override
	{
		double dx = hi_[0] - lo_[0], dy = hi_[1] - lo_[1], dz = hi_[2] - lo_[2];
		return 2 * (dx * dy + dy * dz + dz * dx);
	}
	Vec3 center() const override { return scale(lo_ + hi_, 0.5); }

private:
	Vec3 lo_, hi_;
};

std::vector<std::unique_ptr<Shape>> make_scene(int n);
double scene_score(const std::vector<std::unique_ptr<Shape>> &scene);

} // namespace geo
