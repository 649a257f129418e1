#include "platform/sweep/expand.hpp"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>

#include "platform/core/errors.hpp"
#include "platform/core/hash.hpp"

namespace trainvp::sweep {

namespace {

// SplitMix64 (platform/core/hash.hpp), with an index below n.
struct SweepRng : SplitMix64 {
  std::size_t below(std::size_t n) {
    return std::min(n - 1, static_cast<std::size_t>(uniform() * static_cast<double>(n)));
  }
};

json draw(const ParamSpec& p, SweepRng& rng) {
  if (!p.has_range) return p.values[rng.below(p.values.size())];
  double u = rng.uniform();
  if (p.integer) {
    double lo = std::ceil(p.lo.value), hi = std::floor(p.hi.value);
    double x = p.scale == Scale::Log ? std::floor(std::exp(std::log(lo) + u * (std::log(hi + 1) - std::log(lo))))
                                     : lo + std::floor(u * (hi - lo + 1));
    return range_value(p, std::min(x, hi));
  }
  double x = p.scale == Scale::Log ? std::exp(std::log(p.lo.value) + u * (std::log(p.hi.value) - std::log(p.lo.value)))
                                   : p.lo.value + u * (p.hi.value - p.lo.value);
  return range_value(p, x);
}

}  // namespace

std::vector<Point> expand(const SweepSpec& spec) {
  std::vector<Assignment> assignments;
  const auto& ps = spec.params;
  if (spec.design == Design::Grid) {
    std::size_t total = 1;
    for (auto& p : ps) total *= p.values.size();
    assignments.reserve(total);
    for (std::size_t i = 0; i < total; ++i) {
      Assignment a(ps.size());
      std::size_t rest = i;
      for (std::size_t k = ps.size(); k-- > 0;) {  // last parameter varies fastest
        a[k] = {ps[k].path, ps[k].values[rest % ps[k].values.size()]};
        rest /= ps[k].values.size();
      }
      assignments.push_back(std::move(a));
    }
  } else if (spec.design == Design::Zip) {
    for (std::size_t i = 0; i < ps[0].values.size(); ++i) {
      Assignment a;
      for (auto& p : ps) a.emplace_back(p.path, p.values[i]);
      assignments.push_back(std::move(a));
    }
  } else {
    SweepRng rng{{spec.seed}};
    std::set<std::string> seen;
    const std::size_t max_draws = static_cast<std::size_t>(spec.samples) * 100 + 1000;
    std::size_t draws = 0;
    while (assignments.size() < static_cast<std::size_t>(spec.samples)) {
      if (draws++ >= max_draws)
        throw ScenarioError("/samples", "found only " + std::to_string(assignments.size()) + " distinct points in " +
                                            std::to_string(max_draws) + " draws; the parameters allow fewer than " +
                                            std::to_string(spec.samples) + " points");
      Assignment a;
      for (auto& p : ps) a.emplace_back(p.path, draw(p, rng));
      if (seen.insert(canonical_assignment(a)).second) assignments.push_back(std::move(a));
    }
  }

  std::vector<Point> points;
  points.reserve(assignments.size());
  std::map<std::string, std::size_t> by_id;
  for (std::size_t i = 0; i < assignments.size(); ++i) {
    Point pt{i, point_id(assignments[i]), std::move(assignments[i])};
    auto [it, fresh] = by_id.emplace(pt.id, i);
    if (!fresh)
      throw ScenarioError("/parameters", "points #" + std::to_string(it->second) + " (" +
                                             describe_assignment(points[it->second].params) + ") and #" +
                                             std::to_string(i) + " (" + describe_assignment(pt.params) +
                                             ") have the same id " + pt.id);
    points.push_back(std::move(pt));
  }
  return points;
}

Shard parse_shard(const std::string& text) {
  auto slash = text.find('/');
  auto number = [](const std::string& s, long long& out) {
    if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos) return false;
    out = std::atoll(s.c_str());
    return true;
  };
  long long i = 0, n = 0;
  if (slash == std::string::npos || !number(text.substr(0, slash), i) || !number(text.substr(slash + 1), n))
    throw std::invalid_argument("--shard expects I/N with whole numbers (e.g. 2/8), found \"" + text + "\"");
  if (n < 1 || n > 1000000) throw std::invalid_argument("--shard " + text + ": N must be in [1, 1000000]");
  if (i < 1 || i > n)
    throw std::invalid_argument("--shard " + text + ": I must be in [1, " + std::to_string(n) +
                                "] (shards are numbered from 1)");
  return {static_cast<int>(i), static_cast<int>(n)};
}

std::vector<Point> shard_slice(const std::vector<Point>& points, const Shard& shard) {
  std::vector<Point> out;
  for (auto& p : points)
    if (p.index % static_cast<std::size_t>(shard.count) == static_cast<std::size_t>(shard.index - 1)) out.push_back(p);
  return out;
}

}  // namespace trainvp::sweep
