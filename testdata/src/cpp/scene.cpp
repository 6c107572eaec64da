// scene.cpp - builds a scene and scores it; the scoring loop inlines the
// geo:: templates and the always-inline helpers from shapes.hpp.
#include <algorithm>
#include <numeric>

#include "shapes.hpp"

namespace geo {

namespace {

// A tiny linear congruential generator so every run is identical.
struct Lcg {
	unsigned long long s;
	double next()
	{
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		return static_cast<double>(s >> 11) / static_cast<double>(1ull << 53);
	}
};

Vec3 random_point(Lcg &g, double spread)
{
	return Vec3{{g.next() * spread, g.next() * spread, g.next() * spread}};
}

} // namespace

std::vector<std::unique_ptr<Shape>> make_scene(int n)
{
	Lcg g{42};
	std::vector<std::unique_ptr<Shape>> scene;
	scene.reserve(static_cast<std::size_t>(n));
	for (int i = 0; i < n; i++) {
		if (i % 3 == 0) {
			Vec3 lo = random_point(g, 10);
			Vec3 hi = lo + random_point(g, 2);
			scene.push_back(std::make_unique<Box>(lo, hi));
		} else {
			// Separate statements: argument evaluation order is unspecified.
			Vec3 c = random_point(g, 10);
			double r = 0.5 + g.next();
			scene.push_back(std::make_unique<Sphere>(c, r));
		}
	}
	return scene;
}

double scene_score(const std::vector<std::unique_ptr<Shape>> &scene)
{
	Vec3 origin{{0, 0, 0}};
	std::vector<double> dists;
	dists.reserve(scene.size());
	for (const auto &s : scene)
		dists.push_back(distance(s->center(), origin));

	// Lambdas passed to standard algorithms: inlined at -O2 and above.
	std::sort(dists.begin(), dists.end(), [](double a, double b) { return a > b; });
	double weighted = 0;
	std::size_t rank = 0;
	std::for_each(dists.begin(), dists.end(), [&](double d) { weighted += shade(d) / double(++rank); });
	double area = std::accumulate(scene.begin(), scene.end(), 0.0,
	                              [](double acc, const std::unique_ptr<Shape> &s) { return acc + s->area(); });
	return weighted + area / static_cast<double>(scene.size() + 1);
}

} // namespace geo
