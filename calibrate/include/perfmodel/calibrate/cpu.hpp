#pragma once
// The host CPU as calibrate/ sees it.
#include <cstddef>
#include <map>
#include <utility>
#include <vector>

#include "perfmodel/model/cpu_info.hpp"

namespace perfmodel {

// From sched_getaffinity, /sys/devices/system/cpu/cpu*/cache and /proc/meminfo (0 where absent).
CpuInfo query_cpu_info();

// Where a kernel's efficiency is interpolated across a cliff (a working set leaving a cache),
// one more fit size helps more than anywhere else. Given the fit sizes (ascending), a pilot time
// and the kernel's amount of work (its flops, say) at each, returns up to `max_new` sizes to add,
// one inside each interval whose time per unit of work changes by more than `threshold`
// (relative), largest change first: the geometric midpoint, rounded to a multiple of `step`,
// moved off the held-out sizes and off powers of two (a power-of-two row stride aliases in the
// caches). Sorted ascending. Throws std::invalid_argument unless the three lists match.
// With the fit sizes' working sets and the caches' capacities (bytes; aggregate over the threads),
// every interval whose working sets straddle a capacity is refined first, whatever its pilot shows:
// that is where a cliff lies, and a pilot (two runs) can miss it (on the H100 host, 2026-11-23,
// GPU 5f2c6c42: CG's 2304 → 3072 interval across the 32 MiB of L2 went unrefined in one of two
// runs, and its held-out n = 2560 missed by 28 %).
std::vector<double> refinement_sizes(const std::vector<double>& fit, const std::vector<double>& pilot_s,
                                     const std::vector<double>& work, const std::vector<double>& holdout, double threshold,
                                     std::size_t max_new, double step, const std::vector<double>& working_set = {},
                                     const std::vector<double>& capacities = {});

// The working sets (bytes) the bandwidth benchmark times for one thread count: from `unit` (4 KiB
// per thread) to `top`, multiples of `unit` (but `top`), ascending, ending on `top`. ×√2 apart within a
// factor 2 of any of `capacities` (what the threads hold of each cache level), where the rate
// changes; ×2 apart elsewhere (flat: the model interpolates log-log between neighbours); none
// between `plateau_from` (twice the last-level cache: the memory plateau) and `top`. Quick: ×4
// apart everywhere.
std::vector<std::size_t> bandwidth_working_sets(double unit, double top, double plateau_from,
                                                const std::vector<double>& capacities, bool quick);

// When a CPU benchmark case has been sampled enough: at least `min_samples`, then as soon as the
// relative standard error of the samples' median (median_rel_se, pcie_sizes.hpp: 1.2533 ·
// (interquartile range / 1.349) / median / √n) is at most `target_rel_se` — a 95 % confidence
// half-width of about twice that — and at `max_samples` in any case. The CPU benchmarks state
// their targets beside their constants (cpu_benchmarks.cpp); a case whose spread is already
// small stops at the minimum, and the samples go to the noisy ones.
struct SampleStop {
  double target_rel_se = 0.02;
  int min_samples = 3, max_samples = 5;
  bool enough(const std::vector<double>& samples) const;
  // Once a benchmark's time budget is spent, the minimum is enough.
  bool enough(const std::vector<double>& samples, bool budget_spent) const {
    return enough(samples) || (budget_spent && static_cast<int>(samples.size()) >= min_samples);
  }
};

// The seconds the next of `parts_left` parts of a benchmark may take: an equal share of what is
// left of `budget_s` after `spent_s` (0 once it is spent). A part that ends early leaves its
// rest to the parts after it; one that overruns (its minimum samples) takes it from them.
double budget_share(double budget_s, double spent_s, int parts_left);

// One step of the bandwidth benchmark's working-set bisection, for one kind at one thread count.
// `sizes` are the candidate working sets (ascending), `rates` the rates measured so far by index,
// `intervals` pairs of measured indices [lo, hi]. Beyond the caches a bandwidth curve only falls
// as the working set grows (a larger set is served from the same or a slower level), so where the
// rates at an interval's two ends differ by at most `tolerance` (max/min − 1) every size inside
// lies between them too: the interval is done, its inner sizes interpolated, not measured. Else
// the inner size nearest the interval's geometric midpoint is to be measured and both halves are
// examined next. Returns the indices to measure (ascending, each once) and the intervals to
// examine once they are measured. Throws std::invalid_argument for an interval out of range, not
// ascending, or with an end not in `rates`.
struct BracketStep {
  std::vector<std::size_t> measure;
  std::vector<std::pair<std::size_t, std::size_t>> intervals;
};
BracketStep bracket_refine(const std::vector<double>& sizes, const std::map<std::size_t, double>& rates,
                           const std::vector<std::pair<std::size_t, std::size_t>>& intervals, double tolerance);

// Adds the CPU benchmarks (bandwidth curves, arithmetic ceilings, reference-kernel timings).
class BenchmarkRegistry;
void register_cpu_benchmarks(BenchmarkRegistry& registry);

}  // namespace perfmodel
