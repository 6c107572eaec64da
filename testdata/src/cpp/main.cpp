// main.cpp - drives the scene and statistics code.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "shapes.hpp"
#include "stats.hpp"

namespace {

// Recursion that the compiler cannot flatten, for deep physical stacks.
unsigned long ackermann_limited(unsigned m, unsigned long n, int budget)
{
	if (budget <= 0)
		return n;
	if (m == 0)
		return n + 1;
	if (n == 0)
		return ackermann_limited(m - 1, 1, budget - 1);
	return ackermann_limited(m - 1, ackermann_limited(m, n - 1, budget - 1), budget - 1);
}

template <typename Container, typename Pred>
std::size_t count_if_twice(const Container &c, Pred p)
{
	std::size_t n = 0;
	for (const auto &x : c)
		n += p(x) ? 2 : 0;
	return n;
}

} // namespace

int main(int argc, char **argv)
{
	int n = argc > 1 ? std::atoi(argv[1]) : 24;
	auto scene = geo::make_scene(n);
	double score = geo::scene_score(scene);

	std::vector<double> areas;
	for (const auto &s : scene)
		areas.push_back(s->area());
	auto r = stats::summarize(areas, [](double a) { return stats::Power<4>::of(a) / 1000.0; });
	std::size_t big = count_if_twice(areas, [score](double a) { return a > score / 10; });

	std::printf("shapes=%zu score=%.4f mean=%.4f var=%.4f big=%zu ack=%lu\n", scene.size(), score, r.mean(),
	            r.variance(), big, ackermann_limited(2, 3, 64));
	return 0;
}
