// The rank map, the stage partition and what one TP rank of a layer runs (layout.hpp).
#include "models/parallel/layout.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace trainvp {
namespace {

const char* dim_name(ParallelDim d) { return d == ParallelDim::Tp ? "tp" : d == ParallelDim::Dp ? "dp" : "pp"; }

int& coord_of(ParallelCoord& c, ParallelDim d) {
  return d == ParallelDim::Tp ? c.tp : d == ParallelDim::Dp ? c.dp : c.pp;
}

std::string coord_text(const ParallelCoord& c) {
  return "[" + std::to_string(c.tp) + ", " + std::to_string(c.pp) + ", " + std::to_string(c.dp) + "]";
}

}  // namespace

ParallelLayout::ParallelLayout(const ParallelConfig& cfg, int gpus) : cfg_(cfg) {
  const int t = cfg.tp, p = cfg.pp, d = cfg.dp;
  if (t < 1 || p < 1 || d < 1) throw LayoutError(t < 1 ? "tp" : p < 1 ? "pp" : "dp", "tp, pp and dp must be >= 1");
  const long long product = 1LL * t * p * d;
  if (product != gpus)
    throw LayoutError("tp", "tp x pp x dp = " + std::to_string(t) + " x " + std::to_string(p) + " x " +
                                std::to_string(d) + " = " + std::to_string(product) + ", but it runs on " +
                                std::to_string(gpus) + " GPUs");
  gpus_ = gpus;
  for (int r = 0; r < gpus; ++r) ranks_.push_back(r);
  rank_.assign(static_cast<std::size_t>(gpus), -1);
  coord_.resize(static_cast<std::size_t>(gpus));
  auto slot = [&](const ParallelCoord& c) { return static_cast<std::size_t>(c.tp + t * (c.pp + p * c.dp)); };
  if (!cfg.rank_map.empty()) {
    if (static_cast<int>(cfg.rank_map.size()) != gpus)
      throw LayoutError("rank_map", "one [tp, pp, dp] entry per GPU: expected " + std::to_string(gpus) + ", got " +
                                        std::to_string(cfg.rank_map.size()));
    for (int r = 0; r < gpus; ++r) {
      const ParallelCoord& c = cfg.rank_map[static_cast<std::size_t>(r)];
      const std::string field = "rank_map/" + std::to_string(r);
      if (c.tp < 0 || c.tp >= t || c.pp < 0 || c.pp >= p || c.dp < 0 || c.dp >= d)
        throw LayoutError(field, "coordinate " + coord_text(c) + " is outside the grid [0.." + std::to_string(t - 1) +
                                     ", 0.." + std::to_string(p - 1) + ", 0.." + std::to_string(d - 1) + "]");
      if (rank_[slot(c)] >= 0)
        throw LayoutError(field, "coordinate " + coord_text(c) + " is already held by rank " +
                                     std::to_string(rank_[slot(c)]) + " (each [tp, pp, dp] belongs to one GPU)");
      rank_[slot(c)] = r;
      coord_[static_cast<std::size_t>(r)] = c;
    }
    return;
  }
  // Mixed radix, fastest dimension first: with Megatron's order rank r has tp = r mod t,
  // dp = (r / t) mod d, pp = r / (t d).
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = i + 1; j < 3; ++j)
      if (cfg.order[i] == cfg.order[j])
        throw LayoutError("order",
                          std::string("names ") + dim_name(cfg.order[i]) + " twice; it must order tp, pp and dp");
  for (int r = 0; r < gpus; ++r) {
    ParallelCoord c;
    int rest = r;
    for (ParallelDim dim : cfg.order) {
      const int size = dim == ParallelDim::Tp ? t : dim == ParallelDim::Dp ? d : p;
      coord_of(c, dim) = rest % size;
      rest /= size;
    }
    coord_[static_cast<std::size_t>(r)] = c;
    rank_[slot(c)] = r;
  }
}

int ParallelLayout::rank(ParallelCoord c) const {
  return rank_[static_cast<std::size_t>(c.tp + cfg_.tp * (c.pp + cfg_.pp * c.dp))];
}

std::vector<int> ParallelLayout::tp_group(int pp, int dp) const {
  std::vector<int> out;
  for (int i = 0; i < cfg_.tp; ++i) out.push_back(rank({i, pp, dp}));
  return out;
}

std::vector<int> ParallelLayout::dp_group(int tp, int pp) const {
  std::vector<int> out;
  for (int i = 0; i < cfg_.dp; ++i) out.push_back(rank({tp, pp, i}));
  return out;
}

std::vector<int> ParallelLayout::stage_ranks(int pp) const {
  std::vector<int> out;
  for (int r : ranks_)
    if (coord_[static_cast<std::size_t>(r)].pp == pp) out.push_back(r);
  return out;
}

void ParallelLayout::place_on(const std::vector<int>& ranks) {
  if (static_cast<int>(ranks.size()) != gpus_ || !std::is_sorted(ranks.begin(), ranks.end()))
    throw std::logic_error("place_on: one ascending cluster rank per rank of the layout");
  std::vector<ParallelCoord> coord(static_cast<std::size_t>(ranks.back()) + 1);
  for (int r = 0; r < gpus_; ++r)
    coord[static_cast<std::size_t>(ranks[static_cast<std::size_t>(r)])] = coord_[static_cast<std::size_t>(r)];
  for (int& g : rank_) g = ranks[static_cast<std::size_t>(g)];
  coord_ = std::move(coord);
  ranks_ = ranks;
}

StagePartition balanced_partition(const std::vector<double>& layer_time, int chunks) {
  const int n = static_cast<int>(layer_time.size());
  if (chunks < 1 || n < chunks)
    throw LayoutError("pp", std::to_string(n) + " layers cannot fill " + std::to_string(chunks) +
                                " model chunks (pp x virtual_stages) with at least one layer each");
  std::vector<double> prefix(static_cast<std::size_t>(n) + 1, 0.0);
  for (int i = 0; i < n; ++i)
    prefix[static_cast<std::size_t>(i) + 1] =
        prefix[static_cast<std::size_t>(i)] + layer_time[static_cast<std::size_t>(i)];
  auto span = [&](int a, int b) { return prefix[static_cast<std::size_t>(b)] - prefix[static_cast<std::size_t>(a)]; };
  // best[c][i]: the least possible slowest-chunk time of the first i layers in c chunks; cut[c][i]
  // where its last chunk starts. best[c - 1][j] grows with j and the last chunk's time span(j, i)
  // shrinks, so the best j is where they cross: a binary search, O(chunks n log n) in all (explicit
  // layer lists may be long). Ties keep the earlier cut: later chunks take more layers.
  const double inf = std::numeric_limits<double>::infinity();
  const auto N = static_cast<std::size_t>(n) + 1;
  std::vector<std::vector<double>> best(static_cast<std::size_t>(chunks) + 1, std::vector<double>(N, inf));
  std::vector<std::vector<int>> cut(static_cast<std::size_t>(chunks) + 1, std::vector<int>(N, -1));
  best[0][0] = 0;
  for (int c = 1; c <= chunks; ++c) {
    const std::vector<double>& prev = best[static_cast<std::size_t>(c) - 1];
    for (int i = c; i <= n - (chunks - c); ++i) {
      int lo = c - 1, hi = i - 1;  // the last chunk is layers [j, i), j in [c - 1, i - 1]
      while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (prev[static_cast<std::size_t>(mid)] >= span(mid, i)) hi = mid;
        else lo = mid + 1;
      }
      double& b = best[static_cast<std::size_t>(c)][static_cast<std::size_t>(i)];
      for (int j : {lo - 1, lo}) {
        if (j < c - 1 || j > i - 1) continue;
        const double v = std::max(prev[static_cast<std::size_t>(j)], span(j, i));
        if (v < b) b = v, cut[static_cast<std::size_t>(c)][static_cast<std::size_t>(i)] = j;
      }
    }
  }
  StagePartition part;
  part.first.assign(static_cast<std::size_t>(chunks) + 1, 0);
  int i = n;
  for (int c = chunks; c >= 1; --c) {
    part.first[static_cast<std::size_t>(c)] = i;
    i = cut[static_cast<std::size_t>(c)][static_cast<std::size_t>(i)];
  }
  part.first[0] = 0;
  return part;
}

StagePartition explicit_partition(const std::vector<int>& counts, int chunks, int layers) {
  if (static_cast<int>(counts.size()) != chunks)
    throw LayoutError("stage_layers", "one layer count per model chunk (pp x virtual_stages = " +
                                          std::to_string(chunks) + "), got " + std::to_string(counts.size()));
  StagePartition part;
  part.first.push_back(0);
  long long sum = 0;
  for (std::size_t c = 0; c < counts.size(); ++c) {
    if (counts[c] < 1)
      throw LayoutError("stage_layers/" + std::to_string(c),
                        "every chunk holds at least one layer, got " + std::to_string(counts[c]));
    sum += counts[c];
    if (sum > layers) break;
    part.first.push_back(static_cast<int>(sum));
  }
  if (sum != layers)
    throw LayoutError("stage_layers", "the counts must sum to the workload's " + std::to_string(layers) +
                                          " layers, got " + (sum > layers ? "more" : std::to_string(sum)));
  return part;
}

Layer tp_shard(const Layer& l, int tp, bool sequence_parallel, DType grad_dtype) {
  if (tp <= 1) return l;
  const double t = tp;
  const Layer::Replicated& r = l.tp_replicated;
  // The replicated part stays whole on every rank unless sequence parallelism splits it too.
  auto split = [&](double total, double rep) { return sequence_parallel ? total / t : rep + (total - rep) / t; };
  Layer s = l;
  s.fwd_flops = split(l.fwd_flops, r.fwd_flops);
  s.bwd_input_flops = split(l.bwd_input_flops, r.bwd_input_flops);
  s.bwd_weight_flops = split(l.bwd_weight_flops, r.bwd_weight_flops);
  s.fwd_bytes = split(l.fwd_bytes, r.fwd_bytes);
  s.bwd_input_bytes = split(l.bwd_input_bytes, r.bwd_input_bytes);
  s.bwd_weight_bytes = split(l.bwd_weight_bytes, r.bwd_weight_bytes);
  if (sequence_parallel)
    s.tp_replicated = {r.fwd_flops / t, r.bwd_input_flops / t, r.bwd_weight_flops / t,
                       r.fwd_bytes / t, r.bwd_input_bytes / t, r.bwd_weight_bytes / t};
  // Activations: the share of the forward traffic TP leaves whole stays whole (a norm's input),
  // the rest splits; a layer's ops are not kept apart, so its forward bytes stand for them.
  const double rep_share = l.fwd_bytes > 0 && !sequence_parallel ? std::min(1.0, r.fwd_bytes / l.fwd_bytes) : 0.0;
  const double act = static_cast<double>(l.activation_bytes);
  s.activation_bytes = static_cast<std::uint64_t>(std::llround(act * rep_share + act * (1 - rep_share) / t));
  // Weight matrices split by t (column-, row- or vocabulary-parallel: only the element count
  // matters here, so the columns carry the split, rounded up as a padded shard would be).
  std::uint64_t matrix_params = 0, shard_params = 0;
  for (Layer::Matrix& m : s.matrices) {
    matrix_params += m.rows * m.cols;
    m.cols = (m.cols + static_cast<std::uint64_t>(tp) - 1) / static_cast<std::uint64_t>(tp);
    shard_params += m.rows * m.cols;
  }
  s.params = l.params - std::min(l.params, matrix_params) + shard_params;
  s.grad_bytes = s.params * dtype_bytes(grad_dtype);
  // Each kernel's shape by its own split (column-parallel GEMMs their n, row-parallel their k, ...).
  for (std::vector<Kernel>* list : {&s.kernels.fwd, &s.kernels.bwd_input, &s.kernels.bwd_weight})
    for (Kernel& k : *list) k = tp_shard(k, tp, sequence_parallel);
  // Measured times (explicit layers, which have no replicated part) split with the work.
  for (std::int64_t* ps : {&s.fwd_time_ps, &s.bwd_input_time_ps, &s.bwd_weight_time_ps})
    if (*ps >= 0) *ps = static_cast<std::int64_t>(std::llround(static_cast<double>(*ps) / t));
  return s;
}

Workload stage_workload(const Workload& full, const ParallelConfig& cfg, const StagePartition& part, int stage,
                        std::vector<int>* chunk_of) {
  Workload w = full;
  w.layers.clear();
  w.micro_batches = cfg.micro_batches;
  if (chunk_of) chunk_of->clear();
  for (int k = 0; stage + k * cfg.pp < part.chunks(); ++k) {
    const int c = stage + k * cfg.pp;
    for (int i = part.begin(c); i < part.end(c); ++i) {
      w.layers.push_back(
          tp_shard(full.layers[static_cast<std::size_t>(i)], cfg.tp, cfg.sequence_parallel, full.shape.grad_dtype));
      if (chunk_of) chunk_of->push_back(k);
    }
  }
  return w;
}

}  // namespace trainvp
