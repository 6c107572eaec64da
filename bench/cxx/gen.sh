#!/usr/bin/env bash
# Builds the template-heavy C++ benchmark input: a program of a few very large
# translation units written from templates over Debian's header-only libraries
# (Eigen, nlohmann-json, fmt, the STL), compiled -O2 -g, so that each unit's
# DWARF holds tens of thousands of functions and deep inline trees.
#
#   bench/cxx/gen.sh OUTDIR [clang|gcc]     (default clang)
#
# Environment: UNITS (translation units, default 5), K (template instances per
# unit, default 20). Prints the path of the program. Needs clang++-14 (or g++)
# and apt-get install libeigen3-dev nlohmann-json3-dev libfmt-dev.
set -euo pipefail
out=${1:?usage: gen.sh OUTDIR [clang|gcc]}
cc=${2:-clang}
UNITS=${UNITS:-5}
K=${K:-20}
case $cc in
clang) CXX=clang++-14 ;;
gcc) CXX=g++ ;;
*) echo "gen.sh: compiler clang or gcc" >&2; exit 2 ;;
esac
for h in /usr/include/eigen3/Eigen/Dense /usr/include/nlohmann/json.hpp /usr/include/fmt/format.h; do
	[[ -e $h ]] || { echo "gen.sh: $h missing (apt-get install libeigen3-dev nlohmann-json3-dev libfmt-dev)" >&2; exit 1; }
done
src=$out/src-$cc
mkdir -p "$src"

# One unit: K instances of a family of templates, each over types of its own
# (Rec<U, I>), so that every container, algorithm, formatter and serializer is
# instantiated K times in the unit.
unit() {
	local u=$1
	cat <<CPP
#include <Eigen/Dense>
#include <nlohmann/json.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

namespace bench$u {
template <int I> struct Rec {
	int id;
	double w;
	std::string name;
	std::vector<int> tags;
	bool operator<(const Rec& o) const { return id < o.id || (id == o.id && name < o.name); }
	bool operator==(const Rec& o) const { return id == o.id && name == o.name; }
};
template <int I> void to_json(nlohmann::json& j, const Rec<I>& r) {
	j = nlohmann::json{{"id", r.id}, {"w", r.w}, {"name", r.name}, {"tags", r.tags}};
}
template <int I> void from_json(const nlohmann::json& j, Rec<I>& r) {
	j.at("id").get_to(r.id);
	j.at("w").get_to(r.w);
	j.at("name").get_to(r.name);
	j.at("tags").get_to(r.tags);
}
template <int I> struct Hash {
	size_t operator()(const Rec<I>& r) const { return std::hash<int>()(r.id) ^ std::hash<std::string>()(r.name); }
};
template <int I> using Vec = Eigen::Matrix<double, 2 + I % 5, 1>;
template <int I> using Mat = Eigen::Matrix<double, 2 + I % 5, 2 + I % 5>;

template <int I> double work(int n) {
	std::vector<Rec<I>> v;
	for (int i = 0; i < n; i++) v.push_back({i * 7 % 13, i * 0.5, fmt::format("r{}-{}", I, i), {i, i + 1}});
	std::sort(v.begin(), v.end());
	std::stable_sort(v.begin(), v.end(), [](const Rec<I>& a, const Rec<I>& b) { return a.w > b.w; });
	std::map<Rec<I>, std::vector<Rec<I>>> m;
	std::unordered_map<Rec<I>, int, Hash<I>> h;
	std::set<std::string> names;
	for (auto& r : v) {
		m[r].push_back(r);
		h[r] += r.id;
		names.insert(r.name);
	}
	nlohmann::json j = v;
	auto back = j.template get<std::vector<Rec<I>>>();
	std::string s = j.dump(I % 3);
	auto parsed = nlohmann::json::parse(s);
	std::variant<int, double, std::string, Rec<I>> var = back.empty() ? Rec<I>{} : back.front();
	double acc = std::visit([](auto&& x) -> double {
		using T = std::decay_t<decltype(x)>;
		if constexpr (std::is_same_v<T, Rec<I>>) return x.w;
		else if constexpr (std::is_same_v<T, std::string>) return double(x.size());
		else return double(x);
	}, var);
	Mat<I> a = Mat<I>::Random();
	Vec<I> b = Vec<I>::Random();
	Vec<I> x = a.colPivHouseholderQr().solve(b);
	Mat<I> inv = (a * a.transpose() + Mat<I>::Identity()).inverse();
	Eigen::SelfAdjointEigenSolver<Mat<I>> es(inv);
	acc += x.norm() + es.eigenvalues().sum() + (a.array() * inv.array()).sum();
	std::vector<double> ws;
	std::transform(v.begin(), v.end(), std::back_inserter(ws), [](const Rec<I>& r) { return r.w; });
	acc += std::accumulate(ws.begin(), ws.end(), 0.0);
	auto up = std::make_unique<std::map<int, std::string>>();
	for (auto& [k, vs] : m) (*up)[k.id] = fmt::format("{}:{}:{}", k.name, vs.size(), fmt::join(k.tags, ","));
	std::optional<std::string> first;
	if (!up->empty()) first = up->begin()->second;
	return acc + double(h.size() + names.size() + s.size() + parsed.size() + (first ? first->size() : 0));
}
CPP
	echo "double run(int n) {"
	echo "	double t = 0;"
	for ((i = 0; i < K; i++)); do
		echo "	t += work<$i>(n + $i);"
	done
	echo "	return t;"
	echo "}"
	echo "} // namespace bench$u"
}

for ((u = 0; u < UNITS; u++)); do
	f=$src/unit$u.cc
	unit "$u" >"$f.tmp"
	cmp -s "$f.tmp" "$f" 2>/dev/null && rm "$f.tmp" || mv "$f.tmp" "$f"
done
{
	for ((u = 0; u < UNITS; u++)); do echo "namespace bench$u { double run(int); }"; done
	echo "#include <cstdio>"
	echo "int main(int argc, char**) {"
	echo "	double t = 0;"
	for ((u = 0; u < UNITS; u++)); do echo "	t += bench$u::run(argc);"; done
	echo "	std::printf(\"%g\\n\", t);"
	echo "}"
} >"$src/main.cc"

bin=$out/cxx-$cc
flags=(-O2 -g -std=c++17 -DFMT_HEADER_ONLY -I/usr/include/eigen3)
objs=()
for f in "$src"/unit*.cc "$src/main.cc"; do
	o=${f%.cc}.o
	objs+=("$o")
	[[ $o -nt $f ]] || echo "$o"
done | xargs -r -P "${JOBS:-2}" -I{} sh -c 'f="${1%.o}.cc"; exec nice '"$CXX ${flags[*]}"' -c "$f" -o "$1"' _ {}
[[ $bin -nt $src/main.o ]] || $CXX -o "$bin" "$src"/unit*.o "$src/main.o"
echo "$bin"
