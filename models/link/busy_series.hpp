#pragma once
// A link direction's busy time over the run (link_series.json, docs/outputs.md): kBuckets buckets
// of one width, which doubles (neighbouring buckets merged) whenever a busy interval ends past the
// last one. The run's length is not known while it runs; so the series stays a fixed size whatever
// the run's length, and a busy interval costs an add to the one or two buckets it falls in (a
// chunk's time on the wire is far shorter than a bucket). No memory until the first busy interval.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace trainvp {

class BusySeries {
 public:
  static constexpr std::size_t kBuckets = 128;
  static constexpr std::int64_t kFirstWidthPs = 1000;  // 1 ns: any run's series coarsens from here

  // `share` x the time of [from_ps, to_ps) was busy (share 1: busy throughout). Inline: packet
  // fidelity calls it once per chunk and hop, and a chunk's wire time nearly always falls inside
  // one bucket, so the loop runs only for the rare interval that crosses an edge.
  void add(std::int64_t from_ps, std::int64_t to_ps, double share = 1.0) {
    if (to_ps <= from_ps || share <= 0) return;
    if (to_ps > span_ps_) grow(to_ps);
    if (to_ps > last_end_ps_) last_end_ps_ = to_ps;
    std::int64_t k = from_ps / width_ps_, lo = k * width_ps_;
    double* b = buckets_.data();
    // Share 1 adds whole picoseconds: packet fidelity's sums stay exact (to 2^53 ps, 2.5 hours).
    for (; to_ps - lo > width_ps_; from_ps = lo += width_ps_)
      b[k++] += share * static_cast<double>(lo + width_ps_ - from_ps);
    b[k] += share * static_cast<double>(to_ps - from_ps);
  }
  // add(from, to, share) for each interval of `steps`, in order: the same additions, prepared once
  // for all the series in the same state (width and span) and replayed with no division or
  // product (a kept ring group's links take the same steps: FlowNetwork::flush_group).
  class Steps {
   public:
    // `pairs`: from, to, from, to... in time order (n intervals), which must outlive it.
    Steps(const std::int64_t* pairs, std::size_t n, double share) : pairs_(pairs), n_(n), share_(share) {}

   private:
    friend class BusySeries;
    void prepare(std::int64_t width, std::int64_t span);
    const std::int64_t* pairs_;
    std::size_t n_;
    double share_;
    std::int64_t width_ = -1, span_ = -1;  // the state the additions below were made for
    std::vector<std::int64_t> bucket_;     // each addition's bucket; -1 - i: grow to interval i's end
    std::vector<double> amount_;
    std::int64_t last_end_ = 0;
  };
  void add(Steps& steps);
  // `busy_ps` spread evenly over [from_ps, to_ps): iterations fast-forward skipped, taken to be
  // busy alike throughout the time they stand for.
  void spread(std::int64_t from_ps, std::int64_t to_ps, double busy_ps);
  // The bucket that holds time `t_ps` at the present width, [lo, hi), when it lies within the span
  // (false before the first add, or past the span). Adds inside it cannot grow the series, so a
  // caller may sum several intervals that fall in it and add the sum once (add_in_bucket): the
  // flow network does, to touch a link's series once per bucket instead of once per rate change.
  bool bucket_at(std::int64_t t_ps, std::int64_t* lo_ps, std::int64_t* hi_ps) const {
    if (t_ps < 0 || t_ps >= span_ps_) return false;
    *lo_ps = t_ps / width_ps_ * width_ps_;
    *hi_ps = *lo_ps + width_ps_;
    return true;
  }
  // `busy_ps` added to the bucket bucket_at gave [lo_ps, ...) for, the last of it ending at `end_ps`;
  // nothing may have been added to the series since.
  void add_in_bucket(std::int64_t lo_ps, double busy_ps, std::int64_t end_ps) {
    buckets_[static_cast<std::size_t>(lo_ps / width_ps_)] += busy_ps;
    if (end_ps > last_end_ps_) last_end_ps_ = end_ps;
  }
  bool empty() const { return buckets_.empty(); }
  std::int64_t width_ps() const { return width_ps_; }
  std::int64_t last_end_ps() const { return last_end_ps_; }
  double total_ps() const;
  // The series at `width_ps` (this series' width x a power of two) in `n` buckets: bucket k holds
  // the busy time in [k x width, (k + 1) x width). Empty series: n zeros.
  std::vector<double> at_width(std::int64_t width_ps, std::size_t n) const;
  // The width every series of a run can be shown at: the smallest kFirstWidthPs x 2^k that covers
  // `end_ps` in kBuckets and is no narrower than `widest_ps` (the widest series' own width).
  static std::int64_t common_width(std::int64_t end_ps, std::int64_t widest_ps);

 private:
  void coarsen();
  void grow(std::int64_t to_ps);  // allocates, and coarsens until [0, to_ps) is covered
  std::vector<double> buckets_;
  std::int64_t width_ps_ = kFirstWidthPs;
  std::int64_t span_ps_ = 0;  // width x kBuckets once allocated
  std::int64_t last_end_ps_ = 0;
};

}  // namespace trainvp
