// CPU benchmarks: bandwidth versus working set and threads (likwid-bench's read / write / copy /
// triad, threads pinned), FP32/FP64 FMA ceilings, and the reference kernels timed over a fit set
// and a held-out set of sizes. Every kernel's result is spot-checked before its time is kept.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <limits>
#include <memory>
#include <ostream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "cpu_stream_kernels.hpp"
#include "perfmodel/calibrate/benchmark.hpp"
#include "perfmodel/calibrate/cpu.hpp"
#include "perfmodel/calibrate/pcie_sizes.hpp"
#include "perfmodel/kernels/cpu_kernels.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/kernel_workload.hpp"
#include "perfmodel/model/statistics.hpp"
#include "perfmodel/model/units.hpp"

namespace perfmodel {

// ------------------------------------------------------------------ CPU description
namespace {

double read_number_file(const std::string& path) {
  std::ifstream f(path);
  std::string text;
  if (!(f >> text)) return 0;
  double v = 0;
  try {
    v = std::stod(text);
  } catch (const std::logic_error&) {
    return 0;
  }
  if (!text.empty() && (text.back() == 'K' || text.back() == 'k')) v *= 1024;
  if (!text.empty() && text.back() == 'M') v *= 1024 * 1024;
  return v;
}

// "0-3,8" → 5
double count_cpu_list(const std::string& path) {
  std::ifstream f(path);
  std::string text;
  if (!(f >> text)) return 0;
  double count = 0;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    const auto dash = part.find('-');
    count += dash == std::string::npos ? 1 : std::stod(part.substr(dash + 1)) - std::stod(part.substr(0, dash)) + 1;
  }
  return count;
}

}  // namespace

CpuInfo query_cpu_info() {
  CpuInfo c;
  c.logical_cpus = static_cast<double>(cpu::allowed_cpus().size());
  const std::string base = "/sys/devices/system/cpu/cpu" + std::to_string(cpu::allowed_cpus().front()) + "/cache/index";
  for (int i = 0; i < 8; ++i) {
    std::ifstream type_file(base + std::to_string(i) + "/type");
    std::string type;
    if (!(type_file >> type)) continue;
    if (type == "Instruction") continue;
    const double level = read_number_file(base + std::to_string(i) + "/level");
    const double size = read_number_file(base + std::to_string(i) + "/size");
    const double shared = count_cpu_list(base + std::to_string(i) + "/shared_cpu_list");
    if (level == 1) c.l1d_bytes = size, c.l1d_shared_by = shared;
    if (level == 2) c.l2_bytes = size, c.l2_shared_by = shared;
    if (level == 3) c.l3_bytes = size, c.l3_shared_by = shared;
  }
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kib = 0;
  while (meminfo >> key >> kib) {
    if (key == "MemTotal:") c.memory_bytes = kib * 1024;
    meminfo.ignore(256, '\n');
  }
  return c;
}

namespace {

using Clock = std::chrono::steady_clock;
using Params = std::map<std::string, double>;

class CpuBenchmark : public Benchmark {
 public:
  std::optional<std::string> unavailable_reason() const override { return std::nullopt; }

  void run(const CalibrationOptions& options, CalibrationData& data) final {
    if (data.cpu_info.logical_cpus == 0) data.cpu_info = query_cpu_info();
    data_ = &data;
    options_ = &options;
    const auto t0 = Clock::now();
    measure();
    pool_.reset();  // unpins the calling thread
    const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    data.cpu_wall_s += wall;
    if (options.progress) *options.progress << "     " << key() << ": " << summary_ << " (" << format_seconds(wall) << ")\n";
  }

 protected:
  virtual void measure() = 0;
  bool quick() const { return options_->quick; }
  const CpuInfo& info() const { return data_->cpu_info; }
  cpu::ThreadPool& pool() {
    if (!pool_) pool_ = std::make_unique<cpu::ThreadPool>();
    return *pool_;
  }
  // 1, 2, 4, … and the full count.
  std::vector<int> thread_counts() {
    const int all = pool().size();
    std::vector<int> out;
    if (quick()) return all > 1 ? std::vector<int>{1, all} : std::vector<int>{1};
    for (int t = 1; t < all; t *= 2) out.push_back(t);
    out.push_back(all);
    return out;
  }
  void record(const std::string& series, const Params& params, const std::vector<double>& seconds, double amount) {
    record(series, params, seconds, std::vector<double>(seconds.size(), amount));
  }
  // Samples of different amounts of work (sample i did amounts[i]).
  void record(const std::string& series, const Params& params, const std::vector<double>& seconds, const std::vector<double>& amounts) {
    for (std::size_t i = 0; i < seconds.size(); ++i)
      data_->cpu_samples.push_back({series, params, static_cast<int>(i), seconds[i], amounts.at(i)});
  }
  void set_summary(std::string s) { summary_ = std::move(s); }
  // The all-thread read rate of the largest working set cpu.bandwidth timed in this run (B/s);
  // 0 where it did not run.
  double memory_read_rate() const {
    double threads = 0, ws = 0;
    std::vector<double> rates;
    for (const BenchmarkSample& s : data_->cpu_samples) {
      if (s.series != "bandwidth.read" || !(s.seconds > 0)) continue;
      const double t = s.params.at("threads"), w = s.params.at("working_set_bytes");
      if (t < threads || (t == threads && w < ws)) continue;
      if (t > threads || w > ws) rates.clear(), threads = t, ws = w;
      rates.push_back(s.amount / s.seconds);
    }
    return rates.empty() ? 0.0 : summarize(rates).median;
  }
  // What all threads together can keep cached (at least 8 MiB where the sizes are unknown).
  double last_level_cache_bytes() { return std::max({info().l3_bytes, info().aggregate_cache_bytes(2, pool().size()), 8.0 * 1024 * 1024}); }

  // Wall time of fn() per repetition: `reps` timed runs, after one untimed warm-up unless told
  // the caller has just run it.
  template <class Fn>
  static std::vector<double> time_runs(int reps, Fn&& fn, bool warm = false) {
    if (!warm) fn();
    std::vector<double> out;
    for (int r = 0; r < reps; ++r) {
      const auto t0 = Clock::now();
      fn();
      out.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    return out;
  }

  // Wall time of fn() per repetition until `stop` has enough of them, after one untimed warm-up.
  template <class Fn>
  static std::vector<double> time_until(const SampleStop& stop, Fn&& fn) {
    fn();
    std::vector<double> out;
    while (!stop.enough(out)) {
      const auto t0 = Clock::now();
      fn();
      out.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    }
    return out;
  }

  // Back-to-back runs of fn() that last about `target`: batches of 1, 4, 16, … runs are timed
  // (after one untimed warm-up run) until one lasts a quarter of the target; the batch is scaled
  // from it. Short runs are then timed in the steady state the samples see, not cold.
  struct Batch {
    int runs = 1;
    double seconds = 0;  // the batch's expected duration
  };
  template <class Fn>
  static Batch batch_for(Fn&& fn, double target) {
    int runs = 1;
    for (bool warm = false;; warm = true, runs *= 4) {
      const double t = std::max(time_runs(1, [&] {
        for (int k = 0; k < runs; ++k) fn();
      }, warm)[0], 1e-9);
      if (t >= target / 4 || runs >= (1 << 20)) {
        Batch b;
        b.runs = std::max(1, static_cast<int>(std::ceil(runs * target / t)));
        b.seconds = b.runs * t / runs;
        return b;
      }
    }
  }

 private:
  CalibrationData* data_ = nullptr;
  const CalibrationOptions* options_ = nullptr;
  std::unique_ptr<cpu::ThreadPool> pool_;
  std::string summary_ = "done";
};

// ------------------------------------------------------------------ bandwidth
// How precisely each bandwidth case is sampled (SampleStop): its median to 2 % relative standard
// error (a 95 % half-width of about 4 %), 3 to 5 samples (quick: 2 to 3). 1 % until 2026-11-27:
// on the H100 host's 16 vCPUs most cases never reached it and took all 5 samples, while the same
// curves measured again a minute later differed by 8-11 % (the median over their points; GPU
// a8fb659b, 2026-11-26): that precision bought nothing the next run kept (docs/models.md,
// "Calibration time").
constexpr SampleStop kBandwidthStop{0.02, 3, 5};
constexpr SampleStop kBandwidthStopQuick{0.02, 2, 3};
// And within a time budget, shared equally by the thread counts (budget_share): once a thread
// count's share is spent, its imprecise cases stop at the minimum or at the sample in progress
// (counted in the summary). The precision target alone ended the sweep in 12.6-13.4 s on a quiet
// H100 host and in 16-22 s on busier ones of the kind (seven hosts, 2026-11-26/27): the half of a
// full calibration's spread beyond its 60 s goal; quick: 2.6-5.4 s. The budget cuts a quiet host's
// sweep a little too, for a full calibration within its goal wherever the host runs.
constexpr double kBandwidthBudgetSeconds = 12.0, kBandwidthBudgetSecondsQuick = 2.0;
// Beyond twice what the threads hold in L2 the working sets are bisected per kind
// (bracket_refine): a size between two measured ones whose rates agree within 5 % is interpolated
// from them, not measured. Those were the single passes of hundreds of MB at few threads, the
// memory plateau that the H100 host's threads reach from 32-128 MiB on: 10 of cpu.bandwidth's
// 24 s (2026-11-26), for points within 1-4 % of the log-log line through their neighbours.
constexpr double kBandwidthFlat = 0.05;

class CpuBandwidthBenchmark final : public CpuBenchmark {
 public:
  // The H100 host (16 threads, 300 MiB L3; about 15 s since 2026-11-27) and the 2-core VM.
  double expected_seconds(const CalibrationOptions& o) const override { return o.quick ? 2.5 : 13.0; }
  std::string key() const override { return "cpu.bandwidth"; }
  std::string description() const override {
    return "CPU read / write / copy / triad bandwidth vs working set (4 KiB per thread ... 3x last-level cache) and threads (pinned)";
  }

 protected:
  void measure() override {
    const int all = pool().size();
    const double llc = last_level_cache_bytes();
    // The largest working set: the power of two at or above 3× the last-level cache (1 GiB for the
    // H100 host's 300 MiB). Between 2× the cache and it only that one size is timed: the memory
    // plateau is flat there, and those single passes of hundreds of MB were 40 % of the samples'
    // time (20 of 53 s on the H100 host, 2026-11-23) for points the plateau fit did not need.
    double max_ws = std::max(3 * llc, 64.0 * 1024 * 1024);
    if (info().memory_bytes > 0) max_ws = std::min(max_ws, info().memory_bytes / 16);
    std::size_t top = 4096;
    while (static_cast<double>(top) < max_ws) top *= 2;
    if (info().memory_bytes > 0 && static_cast<double>(top) > info().memory_bytes / 8) top /= 2;
    // Per-thread buffers sized for the largest share each thread ever gets (thread i gets at most
    // top / (i+1)), first touched by their own thread.
    const std::size_t slots = static_cast<std::size_t>(all);
    std::vector<std::vector<double>> buffers(slots);
    pool().run(all, [&](int i, int) {
      buffers[static_cast<std::size_t>(i)].assign(top / 8 / static_cast<std::size_t>(i + 1) + 64, 1.0);
    });
    // A sample lasts `target`; a case takes samples until `stop` says it has enough. 3 ms (5 ms
    // until 2026-11-26) is still 10^5 times the clock's resolution; a shorter sample is noisier,
    // and the stopping rule then takes the samples it needs (at most its maximum).
    const double target = quick() ? 2e-3 : 3e-3;
    const SampleStop stop = quick() ? kBandwidthStopQuick : kBandwidthStop;
    const std::vector<std::string> kinds = {"read", "write", "copy", "triad"};
    std::mt19937 rng(2027);
    std::ostringstream summary;
    std::size_t candidates = 0, interpolated = 0, short_of_target = 0;
    const auto started = Clock::now();
    const double budget = quick() ? kBandwidthBudgetSecondsQuick : kBandwidthBudgetSeconds;
    const std::vector<int> counts = thread_counts();
    for (std::size_t k = 0; k < counts.size(); ++k) {
      const int threads = counts[k];
      const auto part_started = Clock::now();
      const double share = budget_share(budget, std::chrono::duration<double>(part_started - started).count(),
                                        static_cast<int>(counts.size() - k));
      auto budget_spent = [&] { return std::chrono::duration<double>(Clock::now() - part_started).count() >= share; };
      double best_read = 0, dram_read = 0;
      // Working sets: ×√2 apart within a factor 2 of a cache's capacity (what these threads hold of
      // L1, L2, L3), where the rate changes; ×2 apart elsewhere, where it is flat and the model
      // interpolates log-log between neighbours anyway (quick: ×4 everywhere); ending on the top
      // size; multiples of 4 KiB per thread. The ×2 spacing on the plateaus took a third of the
      // cases out (2026-11-26).
      std::vector<double> capacities;
      for (int level = 1; level <= 3; ++level) capacities.push_back(info().aggregate_cache_bytes(level, threads));
      const std::vector<std::size_t> sets = bandwidth_working_sets(4096.0 * threads, static_cast<double>(top), 2 * llc, capacities, quick());
      const std::vector<double> sizes(sets.begin(), sets.end());
      // One case per (working set, kind): its pass count is probed first; then the samples are
      // taken in rounds, each visiting the cases in a fresh random order, each sample after one
      // untimed pass that brings its working set back into the caches. A burst of host noise
      // (a vCPU descheduled for a few ms holds the whole team at its barrier) then costs one
      // sample of many cases instead of every sample of one: taken back to back, one burst once
      // put a 16-thread read at 393 KiB 14× under its neighbours.
      struct Case {
        std::size_t index = 0, ws = 0, arrays = 1, n = 0;
        std::string kind;
        long passes = 1;
        std::vector<double> seconds;
        double bytes() const { return static_cast<double>(n * arrays * 8) * static_cast<double>(passes); }
      };
      std::vector<Case> cases;
      auto add_case = [&](std::size_t index, const std::string& kind) {
        Case c;
        c.index = index, c.ws = sets[index], c.kind = kind;
        c.arrays = c.kind == "read" || c.kind == "write" ? 1 : c.kind == "copy" ? 2 : 3;
        c.n = c.ws / 8 / static_cast<std::size_t>(threads) / c.arrays;  // doubles per array per thread
        cases.push_back(c);
      };
      std::vector<double> sink(slots, 0.0);
      auto run_passes = [&](const Case& c, long passes) {
        pool().run(threads, [&](int i, int) {
          double* a = buffers[static_cast<std::size_t>(i)].data();
          double* b = a + c.n;
          double* d = b + c.n;
          double sum = 0;
          for (long p = 0; p < passes; ++p) {
            if (c.kind == "read") sum += cpu_stream::read(a, c.n);
            else if (c.kind == "write") cpu_stream::write(a, c.n, 1.0);
            else if (c.kind == "copy") cpu_stream::copy(a, b, c.n);
            else cpu_stream::triad(a, b, d, c.n, 0.0);  // a = b + 0·d keeps every value 1.0
          }
          sink[static_cast<std::size_t>(i)] = sum;
        });
      };
      // Samples the cases [first, last): probes, then rounds until `stop` has enough of each.
      auto sample = [&](std::size_t first, std::size_t last) {
        for (std::size_t i = first; i < last; ++i) {  // passes that make one measurement last about `target`
          Case& c = cases[i];
          for (;;) {
            const auto t0 = Clock::now();
            run_passes(c, c.passes);
            const double t = std::chrono::duration<double>(Clock::now() - t0).count();
            if (t >= target / 4 || c.passes > (1L << 30)) {
              const long probed = c.passes;
              c.passes = std::max(1L, static_cast<long>(static_cast<double>(c.passes) * target / t));
              // Beyond twice the caches a sample is one cold pass, as this probe was: it is the
              // case's first sample (one pass of up to 1 GiB not timed twice).
              if (probed == 1 && c.passes == 1 && static_cast<double>(c.ws) >= 2 * llc) c.seconds.push_back(t);
              break;
            }
            c.passes *= 8;
          }
        }
        std::vector<std::size_t> order;
        for (std::size_t i = first; i < last; ++i) order.push_back(i);
        for (bool any = true; any;) {
          any = false;
          std::shuffle(order.begin(), order.end(), rng);
          for (std::size_t i : order) {
            Case& c = cases[i];
            if (stop.enough(c.seconds, budget_spent())) continue;
            any = true;
            if (static_cast<double>(c.ws) < 2 * llc) run_passes(c, 1);  // untimed: the working set back in the caches
            const auto t0 = Clock::now();
            run_passes(c, c.passes);
            c.seconds.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
            if (c.kind == "read")  // every element is 1.0: each thread's last sum is n × passes
              for (int t = 0; t < threads; ++t)
                if (sink[static_cast<std::size_t>(t)] != static_cast<double>(c.n) * static_cast<double>(c.passes))
                  throw RuntimeFailure("cpu read bandwidth: wrong sum");
          }
        }
      };
      // The first wave: every size up to where the bisection starts, and the top one. Below twice
      // the L2 the curve may rise with the working set (a pass over a few KiB is mostly loop
      // overhead), so nothing there is left out; without known caches nothing is.
      const double l1 = info().aggregate_cache_bytes(1, threads), l2 = info().aggregate_cache_bytes(2, threads);
      const double bisect_from = 2 * (l2 > 0 ? l2 : l1);
      const std::size_t last = sizes.size() - 1;
      std::size_t from = last;
      for (std::size_t i = 0; i < sizes.size() && bisect_from > 0; ++i)
        if (sizes[i] >= bisect_from) {
          from = i;
          break;
        }
      for (std::size_t i = 0; i < sizes.size(); ++i)
        if (i <= from || i == last)
          for (const std::string& kind : kinds) add_case(i, kind);
      std::map<std::string, std::vector<std::pair<std::size_t, std::size_t>>> intervals;
      if (last > from + 1)
        for (const std::string& kind : kinds) intervals[kind] = {{from, last}};
      // Then waves of the sizes the bisection asks for, until every interval is flat or has no
      // size inside.
      for (std::size_t first = 0; first < cases.size();) {
        const std::size_t wave_end = cases.size();
        sample(first, wave_end);
        first = wave_end;
        for (const std::string& kind : kinds) {
          std::map<std::size_t, double> rates;
          for (const Case& c : cases)
            if (c.kind == kind) rates[c.index] = c.bytes() * threads / summarize(c.seconds).median;
          const BracketStep step = bracket_refine(sizes, rates, intervals[kind], kBandwidthFlat);
          for (std::size_t index : step.measure) add_case(index, kind);
          intervals[kind] = step.intervals;
        }
      }
      candidates += sizes.size() * kinds.size();
      interpolated += sizes.size() * kinds.size() - cases.size();
      for (const Case& c : cases) short_of_target += stop.enough(c.seconds) ? 0 : 1;
      std::sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) { return a.ws < b.ws; });
      for (const Case& c : cases) {
        const double bytes = c.bytes() * threads;
        record("bandwidth." + c.kind, {{"threads", threads}, {"working_set_bytes", static_cast<double>(c.ws)}}, c.seconds, bytes);
        if (c.kind == "read") {
          const double rate = bytes / summarize(c.seconds).median;
          best_read = std::max(best_read, rate);
          if (c.ws == top) dram_read = rate;
        }
      }
      summary << threads << " thread" << (threads > 1 ? "s" : "") << ": read " << format_rate(best_read) << " (cache) / "
              << format_rate(dram_read) << " (" << format_bytes(static_cast<double>(top)) << "); ";
    }
    summary << interpolated << " of " << candidates << " size/kind cases interpolated between measured neighbours within "
            << 100 * kBandwidthFlat << " %";
    if (short_of_target > 0)
      summary << "; " << short_of_target << " measured ones stopped short of the " << 100 * stop.target_rel_se
              << " % precision target (time budget spent; at least " << stop.min_samples << " samples each)";
    set_summary(summary.str());
  }
};

// ------------------------------------------------------------------ arithmetic ceilings
// The fork-join cost and the FMA rates to 1 % relative standard error of their median: 3 to 7
// batches of fork-joins, 3 to 5 FMA samples of 20 ms (quick: 3 of each). Fixed counts (7 and 5)
// until 2026-11-27; on the H100 host three samples were mostly within 1-2 % of each other.
constexpr SampleStop kDispatchStop{0.01, 3, 7}, kFmaStop{0.01, 3, 5}, kComputeStopQuick{0.01, 3, 3};

class CpuComputeBenchmark final : public CpuBenchmark {
 public:
  double expected_seconds(const CalibrationOptions& o) const override { return o.quick ? 0.4 : 1.2; }
  std::string key() const override { return "cpu.compute"; }
  std::string description() const override {
    return "CPU FP32 and FP64 FMA throughput vs threads (widest vector ISA available), thread-pool fork-join cost";
  }

 protected:
  void measure() override {
    std::ostringstream summary;
    for (int threads : thread_counts()) {
      // One fork-join of the pool, in batches, as the kernels use it: each worker writes its
      // result into a shared array (neighbouring slots, one cache line for eight workers, as the
      // dot product's partial sums and the rows' outputs share lines) and the caller reads them
      // all. An empty job (before 2026-11-26) left out the result lines' trips between cores.
      constexpr int kBatch = 2000;
      std::vector<double> results(static_cast<std::size_t>(pool().size()), 0.0);
      double total = 0;
      const auto dispatch = time_until(quick() ? kComputeStopQuick : kDispatchStop, [&] {
        for (int i = 0; i < kBatch; ++i) {
          pool().run(threads, [&](int index, int) { results[static_cast<std::size_t>(index)] += 1; });
          for (int t = 0; t < threads; ++t) total += results[static_cast<std::size_t>(t)];
        }
      });
      if (!(total > 0)) throw RuntimeFailure("cpu dispatch: the workers' results did not arrive");
      record("sync.dispatch", {{"threads", threads}}, dispatch, kBatch);
      if (threads == pool().size()) summary << "dispatch " << format_seconds(summarize(dispatch).median / kBatch) << "; ";
      for (const bool fp64 : {false, true}) {
        long iterations = 1 << 12;
        std::vector<double> sink(static_cast<std::size_t>(pool().size()));
        auto run_all = [&] {
          pool().run(threads, [&](int i, int) {
            sink[static_cast<std::size_t>(i)] =
                fp64 ? cpu_stream::fma_f64(iterations, 0.5 + i) : static_cast<double>(cpu_stream::fma_f32(iterations, 0.5f + static_cast<float>(i)));
          });
        };
        for (;;) {
          const auto t0 = Clock::now();
          run_all();
          const double t = std::chrono::duration<double>(Clock::now() - t0).count();
          if (t > 2e-3) {
            iterations = std::max(1L, static_cast<long>(static_cast<double>(iterations) * (quick() ? 5e-3 : 20e-3) / t));
            break;
          }
          iterations *= 4;
        }
        const auto seconds = time_until(quick() ? kComputeStopQuick : kFmaStop, run_all);
        // The chains converge to 1 in every lane: 128 float (64 double) lanes per thread.
        for (int i = 0; i < threads; ++i)
          if (std::abs(sink[static_cast<std::size_t>(i)] - (fp64 ? 64.0 : 128.0)) > (fp64 ? 64.0 : 128.0) * 0.05 && iterations > 20000)
            throw RuntimeFailure("cpu fma: result check failed");
        const double flops = static_cast<double>(threads) * static_cast<double>(iterations) * (fp64 ? 128.0 : 256.0);
        record(fp64 ? "compute.fp64" : "compute.fp32", {{"threads", threads}}, seconds, flops);
        if (threads == pool().size())
          summary << (fp64 ? "fp64 " : "fp32 ") << flops / summarize(seconds).median / 1e9 << " Gflop/s  ";
      }
    }
    set_summary(summary.str() + "(all threads)");
  }
};

// ------------------------------------------------------------------ reference kernels
struct Sizes {
  std::vector<double> fit, holdout;
};

// Fit sizes, held-out sizes (none of them in the fit set) per kernel; quick drops the largest.
// Matrix and image sides avoid powers of two: a row stride of 2^k floats aliases in the caches
// (on the H100 host, mv at n = 4096 ran 6× slower per byte than at n = 6144), which is real but
// is not what the model describes. Fit sides are 3·2^k and (full run) 4.5·2^k, held-out sides
// 5·2^k: the efficiency is interpolated over a factor 1.33 around a held-out size instead of 2,
// which matters where it changes fast (a working set leaving the aggregate L2, for one).
Sizes sizes_for(const std::string& kernel, bool quick) {
  auto geometric = [](double from, double to, double factor) {
    std::vector<double> v;
    for (double x = from; x <= to * 1.0001; x *= factor) v.push_back(std::round(x));
    return v;
  };
  auto fit = [&](double from, double to, double factor) {  // the geometric points, and 1.5× each but the last
    std::vector<double> v = geometric(from, to, factor);
    if (!quick && factor == 2)
      for (std::size_t i = 0, count = v.size(); i + 1 < count; ++i) v.push_back(std::round(1.5 * v[i]));
    std::sort(v.begin(), v.end());
    return v;
  };
  Sizes s;
  if (kernel == "mv") s = {fit(192, quick ? 1536 : 6144, 2), geometric(320, quick ? 1280 : 5120, 2)};
  if (kernel == "cg") s = {fit(192, quick ? 1536 : 3072, 2), geometric(320, quick ? 1280 : 2560, 2)};
  if (kernel == "mm") s = {fit(96, quick ? 768 : 1536, 2), geometric(160, quick ? 640 : 1280, 2)};
  // Cholesky's crossover lies near n = 1500 at all threads: its sizes go on to twice that (its
  // trailing update leaves the aggregate L2 at n ≈ 2900); the kernel's time budget, not these
  // sizes, sets how long it runs.
  if (kernel == "cholesky") s = {fit(96, quick ? 768 : 3072, 2), geometric(160, quick ? 640 : 2560, 2)};
  if (kernel == "dot") s = {fit(12288, quick ? 3145728 : 50331648, quick ? 4 : 2), geometric(20480, quick ? 1310720 : 41943040, quick ? 4 : 2)};
  if (kernel == "conv2d") s = {fit(192, quick ? 1536 : 3072, 2), geometric(320, quick ? 1280 : 2560, 2)};
  // blur and cosine cross over to the GPU at tens of pixels or elements (a GPU operation's ~30 µs
  // floor): their sizes start there, where a 16-thread run is a few microseconds and the threads
  // write neighbouring bytes (on the H100 host a 52-element cosine ran 5× over the fit from 3072).
  if (kernel == "blur") s = {fit(48, quick ? 1536 : 3072, 2), geometric(80, quick ? 1280 : 2560, 2)};
  if (kernel == "cosine") s = {fit(48, quick ? 196608 : 786432, 4), geometric(80, quick ? 81920 : 327680, 4)};
  return s;
}

// splitmix64's finaliser: a well-mixed 64-bit value of a counter.
std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Uniform in [-1, 1): 24 bits of the hash of (seed, index).
float uniform_from_hash(std::uint64_t seed, std::size_t index) {
  const std::uint64_t h = mix64(seed * 0x100000001b3ULL + index);
  return static_cast<float>(h >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

// A vector whose resize leaves new elements uninitialised: Case fills them on the pool's threads
// (zeroing gigabytes on one thread first was most of the rest of the setup).
template <class T>
struct DefaultInit : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = DefaultInit<U>;
  };
  DefaultInit() = default;
  template <class U>
  DefaultInit(const DefaultInit<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible<U>::value) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
using Floats = std::vector<float, DefaultInit<float>>;
using Bytes = std::vector<unsigned char, DefaultInit<unsigned char>>;

void check_kernel(const std::string& kernel, std::size_t n, const Floats& a, const Floats& x, const Floats& y, const Floats& b,
                  const Floats& filter, const Bytes& in, const Bytes& out, const Floats& work);

// The granularity of a kernel's sizes.
double size_step(const std::string& kernel) {
  if (kernel == "dot") return 1024;
  if (kernel == "cosine") return 256;
  return 16;
}

// How long a kernel sample lasts at least: timer and scheduler noise stay small against it.
constexpr double kSampleSeconds = 2e-3;

// One kernel at one size: its inputs and outputs, and its timing so far.
struct Case {
  std::string kernel;
  double nd = 0;
  int set = 0;  // 0 fit, 1 held out
  std::size_t n = 0;
  Floats a, x, y, b_matrix, filter, work;
  Bytes image_in, image_out;
  double copy_s = 0, sample_s = 0;
  int batch = 1;
  double working_set = 0;       // bytes
  std::vector<double> seconds;  // per sample
  std::vector<double> runs;     // per sample: the runs it timed (the batch or more)
  std::vector<double> single;   // per round: one run timed on its own, right after the sample

  // Inputs uniform in [-1, 1) (image bytes uniform), from a counter-based hash filled by the
  // pool's threads: setting up a kernel's sizes once cost more than timing them (about 1e9
  // values drawn one by one from mt19937, zeroed first, and cg's transposed writes: roughly 7 of
  // cpu.kernels' 32 s on the H100 host, 2026-11-26). The values differ from those draws; their
  // distribution, and so the kernels' work, does not.
  Case(std::string k, double size, int which, std::mt19937& rng, cpu::ThreadPool& pool) : kernel(std::move(k)), nd(size), set(which) {
    n = static_cast<std::size_t>(nd);
    working_set = cpu_workload(kernel, nd).working_set_bytes;
    const bool matrix = kernel == "mv" || kernel == "mm" || kernel == "cg" || kernel == "cholesky" || kernel == "conv2d";
    const int threads = pool.size();
    a.resize(matrix ? n * n : (kernel == "blur" ? 0 : n));
    x.resize(n);
    y.resize(kernel == "mm" || kernel == "conv2d" ? n * n : n);
    b_matrix.resize(kernel == "mm" ? n * n : 0);
    filter.resize(kConvFilter * kConvFilter);
    image_in.resize(kernel == "blur" ? 3 * n * n : 0);
    image_out.resize(image_in.size());
    const std::uint64_t seed = (static_cast<std::uint64_t>(rng()) << 32) | rng();
    const bool spd = kernel == "cg" || kernel == "cholesky";
    // Rows (or chunks) split over the threads; each value a function of its seed and index only.
    auto fill = [&](float* p, std::size_t count, std::uint64_t stream) {
      pool.run(threads, [&](int i, int t) {
        const std::size_t from = count * static_cast<std::size_t>(i) / static_cast<std::size_t>(t);
        const std::size_t to = count * static_cast<std::size_t>(i + 1) / static_cast<std::size_t>(t);
        for (std::size_t e = from; e < to; ++e) p[e] = uniform_from_hash(seed + stream, e);
      });
    };
    if (spd)  // symmetric, strongly diagonally dominant: SPD (element (i,j) from the upper triangle's index)
      pool.run(threads, [&](int w, int t) {
        for (std::size_t i = static_cast<std::size_t>(w); i < n; i += static_cast<std::size_t>(t))
          for (std::size_t j = 0; j < n; ++j)
            a[i * n + j] = i == j ? 2.0f : 0.5f * uniform_from_hash(seed, std::min(i, j) * n + std::max(i, j)) / static_cast<float>(n);
      });
    else fill(a.data(), a.size(), 0);
    fill(x.data(), x.size(), 1);
    fill(b_matrix.data(), b_matrix.size(), 2);
    fill(filter.data(), filter.size(), 3);
    fill(y.data(), y.size(), 4);  // outputs: touched by the threads before the first run
    pool.run(threads, [&](int i, int t) {
      const std::size_t count = image_in.size();
      const std::size_t from = count * static_cast<std::size_t>(i) / static_cast<std::size_t>(t);
      const std::size_t to = count * static_cast<std::size_t>(i + 1) / static_cast<std::size_t>(t);
      for (std::size_t e = from; e < to; ++e) {
        image_in[e] = static_cast<unsigned char>(mix64(seed + 5 + e) & 0xff);
        image_out[e] = 0;
      }
    });
  }

  void run(cpu::ThreadPool& pool, int threads) {
    const int ni = static_cast<int>(n);
    if (kernel == "mv") cpu::mv(pool, threads, a.data(), x.data(), y.data(), ni);
    else if (kernel == "mm") cpu::mm(pool, threads, a.data(), b_matrix.data(), y.data(), ni);
    else if (kernel == "dot") y[0] = static_cast<float>(cpu::dot(pool, threads, a.data(), x.data(), n));
    else if (kernel == "cg") cpu::cg(pool, threads, a.data(), x.data(), y.data(), ni, kCgIterations);
    else if (kernel == "cholesky") work = a, cpu::cholesky(pool, threads, work.data(), ni);
    else if (kernel == "conv2d") cpu::conv2d(pool, threads, a.data(), filter.data(), y.data(), ni, kConvFilter);
    else if (kernel == "blur") cpu::blur(pool, threads, image_in.data(), image_out.data(), ni, ni, kBlurRadius);
    else work = x, cpu::cosine(pool, threads, work.data(), n, kCosineRepeats);
  }

  // Cholesky and cosine copy their input first (they work in place): that copy, to take off.
  double copy_seconds() {
    if (kernel != "cholesky" && kernel != "cosine") return 0;
    std::vector<double> t;
    for (int r = 0; r < 3; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      work = kernel == "cholesky" ? a : x;
      t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return summarize(t).median;
  }

  void check() const;
};

// Kernel samples (SampleStop): at least 4 of every size (quick: 3); then, while the kernel's time
// budget lasts, rounds over the sizes whose median per-run time is not yet known to 1.5 %
// (relative standard error of the median); at most 31 samples a size (quick: 5). A size that is
// precise stops; its share of the budget goes to the noisy ones (until 2026-11-26 every size took
// every round while any one was imprecise, with a 1.5 s budget a kernel). 5 rounds and 1 s a
// kernel until 2026-11-27: on the H100 host the same kernel's efficiencies measured a minute
// apart differed by 18 % (median over the fitted sizes), and its recorded samples cut to this
// rule moved them by 1-2 % (docs/models.md, "Calibration time").
constexpr SampleStop kKernelStop{0.015, 4, 31}, kKernelStopQuick{0.015, 3, 5};
constexpr double kKernelPrecision = kKernelStop.target_rel_se;
constexpr double kKernelBudgetSeconds = 0.6;

class CpuKernelBenchmark final : public CpuBenchmark {
 public:
  double expected_seconds(const CalibrationOptions& o) const override { return o.quick ? 4.0 : 8 * (kKernelBudgetSeconds + 0.6); }
  std::string key() const override { return "cpu.kernels"; }
  std::string description() const override {
    return "CPU reference kernels (mv, mm, dot, cg, cholesky, conv2d, blur, cosine) on all threads over fit and held-out sizes";
  }

 protected:
  void measure() override {
    std::mt19937 rng(2026);
    const int threads = pool().size();
    const double llc = last_level_cache_bytes();
    std::ostringstream summary;
    for (const std::string& kernel : cpu_kernel_names()) {
      const Sizes sizes = sizes_for(kernel, quick());
      // Every size of the kernel (fit and held out) is set up first; then the samples are taken
      // in rounds, each round visiting the sizes in a fresh random order. On a host whose speed
      // drifts over seconds (both VMs here do), drift then hits every size alike instead of
      // making some sizes slow and others fast.
      std::vector<std::unique_ptr<Case>> cases;
      auto add_case = [&](double nd, int set) {
        auto c = std::make_unique<Case>(kernel, nd, set, rng, pool());
        c->copy_s = c->copy_seconds();
        // A sample is a batch of back-to-back runs lasting ≥ 2 ms (timer and scheduler noise stay
        // small against it), sized from back-to-back runs timed the way the samples are. One
        // probe run was not enough: the first sizes set up met a pool whose threads were still
        // waking, and on the H100 host (2026-11-23, 300c76ef) dot's fit sizes got batches of
        // 19–31 runs (0.1–0.5 ms samples) where the held-out sizes, probed later, got 2 ms ones;
        // their per-run times differed by 10–25 % for that reason alone. Nor was the fastest of
        // three (1410ec15: three sizes still sampled at 0.15–0.7 ms).
        const Batch batch = batch_for([&] { c->run(pool(), threads); }, kSampleSeconds);
        c->batch = batch.runs;
        c->sample_s = batch.seconds;
        cases.push_back(std::move(c));
      };
      for (int set = 0; set < 2; ++set)
        for (double nd : set == 0 ? sizes.fit : sizes.holdout) add_case(nd, set);
      // Refinement: a pilot sample per fit size (the held-out sizes play no part) finds the
      // intervals where time per unit of work jumps; a fit size is added inside each. (Two pilot
      // samples until 2026-11-26: a stall in one adds a size, it does not lose one.)
      std::vector<double> pilot_s, work, working_set;  // time per flop is flat where the efficiency is
      for (std::size_t i = 0; i < sizes.fit.size(); ++i) {
        Case& c = *cases[i];
        const auto t = time_runs(1, [&] {
          for (int k = 0; k < c.batch; ++k) c.run(pool(), threads);
        }, true);
        pilot_s.push_back(std::max(*std::min_element(t.begin(), t.end()) / c.batch - c.copy_s, 1e-9));
        work.push_back(cpu_workload(kernel, c.nd).flops);
        working_set.push_back(c.working_set);
      }
      std::vector<double> capacities;  // what the pool's threads hold of each cache level
      for (int level = 1; level <= 3; ++level) capacities.push_back(info().aggregate_cache_bytes(level, threads));
      const std::vector<double> added = refinement_sizes(sizes.fit, pilot_s, work, sizes.holdout, 0.10, quick() ? 3 : 8,
                                                         size_step(kernel), working_set, capacities);
      for (double nd : added) add_case(nd, 0);
      // Rounds: the stopping rule's minimum of every size; then, while the kernel's budget lasts
      // (the minimum rounds' time or more), rounds over the sizes it has not had enough of. A
      // many-core host scatters a size's samples by 10–40 % (interquartile range, the H100 host's
      // 16 threads): there the budget, not the precision, ends them.
      const SampleStop& stop = quick() ? kKernelStopQuick : kKernelStop;
      const int min_rounds = stop.min_samples, max_rounds = stop.max_samples;
      const double budget = quick() ? 0.4 : kKernelBudgetSeconds;
      auto precise = [&](const Case& c) {
        std::vector<double> per_run;
        for (std::size_t i = 0; i < c.seconds.size(); ++i) per_run.push_back(c.seconds[i] / c.runs[i]);
        return stop.enough(per_run);
      };
      // The warm-up run before a sample (below) is skipped where loading the whole working set
      // from memory at this run's all-thread read rate would add at most kKernelPrecision to the
      // sample: a compute-bound run of tens of ms (mm, blur, cosine at their large sizes) paid one
      // untimed run per sample, about 6 of cpu.kernels' 32 s on the H100 host (2026-11-26).
      const double read_rate = memory_read_rate();
      int rounds_run = 0;
      std::vector<std::size_t> order(cases.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      const auto sampling_started = Clock::now();
      auto spent = [&] { return std::chrono::duration<double>(Clock::now() - sampling_started).count(); };
      for (int round = 0; round < max_rounds; ++round) {
        if (round >= min_rounds && spent() >= budget) break;
        bool any = false;
        std::shuffle(order.begin(), order.end(), rng);
        for (std::size_t i : order) {
          Case& c = *cases[i];
          if (round >= min_rounds && precise(c)) continue;
          any = true;
          // Untimed, as in the bandwidth rounds: one run brings the working set back into the
          // caches. Without it a one-run sample near the cache capacity starts from whatever
          // the size before it left there, and its time depends on the shuffle.
          const bool cold_is_negligible = read_rate > 0 && c.working_set / read_rate <= kKernelPrecision * c.sample_s;
          if (c.working_set < 2 * llc && !cold_is_negligible) c.run(pool(), threads);
          // At least the probed batch, then on in chunks of a quarter batch until the sample
          // lasts the 2 ms target: a stall during the probe batch (it shrinks the batch) then
          // makes this sample do more runs, not last shorter (GPU 1c3cca94: 5 and 11 sizes
          // were sampled in under 1 ms with the batch alone).
          const int chunk = std::max(1, c.batch / 4);
          int runs = 0;
          double t = 0;
          const auto t0 = Clock::now();
          auto run_until = [&](int want) {
            while (runs < want) c.run(pool(), threads), ++runs;
            t = std::chrono::duration<double>(Clock::now() - t0).count();
          };
          run_until(c.batch);
          while (t < kSampleSeconds) run_until(runs + chunk);
          c.seconds.push_back(std::max(t - runs * c.copy_s, 1e-9));
          c.runs.push_back(runs);
          // One run timed on its own, as a program (and validate --only offload) times one
          // operation: what a call costs beyond its share of a back-to-back batch shows here.
          // Where one run lasts the sample (batch 1) the sample is that already; elsewhere this
          // adds at most half a sample.
          if (c.batch > 1) {
            const auto s0 = Clock::now();
            c.run(pool(), threads);
            c.single.push_back(std::max(std::chrono::duration<double>(Clock::now() - s0).count() - c.copy_s, 1e-9));
          }
        }
        if (!any) break;
        ++rounds_run;
      }
      // One thread, at two fit sizes (the smallest, and the largest whose one-thread run is
      // expected within 4 ms): the efficiency fitted at all threads does not carry to one (on
      // the H100 host's 16 vCPUs a scalar cosine ran 14 times faster on 16 threads than on one,
      // the FMA ceiling 8.5 times; a memory-bound cg 10 times where its bandwidths said 6).
      // About 25 ms per kernel.
      {
        std::vector<Case*> fit_cases;
        for (const auto& c : cases)
          if (c->set == 0) fit_cases.push_back(c.get());
        std::sort(fit_cases.begin(), fit_cases.end(), [](const Case* a, const Case* b) { return a->nd < b->nd; });
        std::vector<Case*> one;
        if (!fit_cases.empty()) one.push_back(fit_cases.front());
        for (auto it = fit_cases.rbegin(); it != fit_cases.rend() && one.size() < 2; ++it) {
          std::vector<double> per_run;
          for (std::size_t i = 0; i < (*it)->seconds.size(); ++i) per_run.push_back((*it)->seconds[i] / (*it)->runs[i]);
          if (*it != fit_cases.front() && !per_run.empty() && summarize(per_run).median * threads <= 4e-3) one.push_back(*it);
        }
        for (Case* c : one) {
          if (threads <= 1) break;
          const Batch batch = batch_for([&] { c->run(pool(), 1); }, kSampleSeconds);
          std::vector<double> seconds = time_runs(3, [&] {
            for (int k = 0; k < batch.runs; ++k) c->run(pool(), 1);
          }, true);
          for (double& t : seconds) t = std::max(t - batch.runs * c->copy_s, 1e-9);
          c->check();
          record("kernel." + kernel, {{"n", c->nd}, {"threads", 1}, {"holdout", 0}}, seconds, static_cast<double>(batch.runs));
        }
      }
      double largest_s = 0;
      for (const auto& c : cases) {
        c->check();
        record("kernel." + kernel, {{"n", c->nd}, {"threads", threads}, {"holdout", c->set}}, c->seconds, c->runs);
        record("kernel." + kernel, {{"n", c->nd}, {"threads", threads}, {"holdout", c->set}, {"single", 1}}, c->single, 1.0);
        if (c->set == 0 && c->nd == sizes.fit.back()) {
          std::vector<double> per_run;
          for (std::size_t i = 0; i < c->seconds.size(); ++i) per_run.push_back(c->seconds[i] / c->runs[i]);
          largest_s = summarize(per_run).median;
        }
      }
      summary << kernel << " " << format_seconds(largest_s) << " at n=" << std::llround(sizes.fit.back()) << " (" << rounds_run << " rounds";
      for (std::size_t i = 0; i < added.size(); ++i) summary << (i == 0 ? ", fit sizes added: " : " ") << std::llround(added[i]);
      summary << "); ";
    }
    set_summary(summary.str());
  }
};

// Spot checks against the definitions (a few outputs recomputed directly).
void check_kernel(const std::string& kernel, std::size_t n, const Floats& a, const Floats& x, const Floats& y, const Floats& b,
                  const Floats& filter, const Bytes& in, const Bytes& out, const Floats& work) {
  auto fail = [&](const std::string& what) {
    throw RuntimeFailure("cpu kernel " + kernel + " (n = " + std::to_string(n) + "): " + what);
  };
  const std::size_t picks[] = {0, n / 3, n - 1};
  if (kernel == "mv")
    for (std::size_t i : picks) {
      double s = 0, mag = 0;
      for (std::size_t j = 0; j < n; ++j) s += static_cast<double>(a[i * n + j]) * x[j], mag += std::abs(a[i * n + j] * x[j]);
      if (std::abs(s - y[i]) > 1e-5 * mag + 1e-6) fail("row " + std::to_string(i) + " is wrong");
    }
  if (kernel == "mm")
    for (std::size_t i : picks) {
      double s = 0, mag = 0;
      for (std::size_t k = 0; k < n; ++k) s += static_cast<double>(a[i * n + k]) * b[k * n + i], mag += std::abs(a[i * n + k] * b[k * n + i]);
      if (std::abs(s - y[i * n + i]) > 1e-5 * mag + 1e-6) fail("entry is wrong");
    }
  if (kernel == "dot") {
    double s = 0, mag = 0;
    for (std::size_t i = 0; i < n; ++i) s += static_cast<double>(a[i]) * x[i], mag += std::abs(a[i] * x[i]);
    if (std::abs(s - y[0]) > 1e-5 * mag + 1e-6) fail("sum is wrong");
  }
  if (kernel == "cg") {  // the residual must have dropped well below ‖b‖
    double r2 = 0, b2 = 0;
    for (std::size_t i : picks) {
      double s = 0;
      for (std::size_t j = 0; j < n; ++j) s += static_cast<double>(a[i * n + j]) * y[j];
      r2 += (x[i] - s) * (x[i] - s), b2 += static_cast<double>(x[i]) * x[i];
    }
    if (!(r2 < 1e-4 * b2 + 1e-12)) fail("did not converge");
  }
  if (kernel == "cholesky")
    for (std::size_t i : picks)
      for (std::size_t j : picks) {
        if (j > i) continue;
        double s = 0;
        for (std::size_t k = 0; k <= j; ++k) s += static_cast<double>(work[i * n + k]) * work[j * n + k];
        if (std::abs(s - a[i * n + j]) > 1e-4) fail("L·Lᵀ differs from A");
      }
  if (kernel == "conv2d")
    for (std::size_t i : picks) {
      const int r = (kConvFilter - 1) / 2;
      double s = 0;
      for (int u = 0; u < kConvFilter; ++u)
        for (int v = 0; v < kConvFilter; ++v) {
          const long yy = static_cast<long>(i) + u - r, xx = static_cast<long>(i) + v - r;
          if (yy >= 0 && yy < static_cast<long>(n) && xx >= 0 && xx < static_cast<long>(n))
            s += static_cast<double>(a[static_cast<std::size_t>(yy) * n + static_cast<std::size_t>(xx)]) * filter[static_cast<std::size_t>(u * kConvFilter + v)];
        }
      if (std::abs(s - y[i * n + i]) > 1e-4) fail("pixel is wrong");
    }
  if (kernel == "blur")
    for (std::size_t i : picks) {
      const long r = kBlurRadius;
      long sum = 0, hits = 0;
      for (long oy = -r; oy <= r; ++oy)
        for (long ox = -r; ox <= r; ++ox) {
          const long yy = static_cast<long>(i) + oy, xx = static_cast<long>(i) + ox;
          if (yy >= 0 && yy < static_cast<long>(n) && xx >= 0 && xx < static_cast<long>(n))
            sum += in[(static_cast<std::size_t>(yy) * n + static_cast<std::size_t>(xx)) * 3], ++hits;
        }
      if (out[(i * n + i) * 3] != sum / hits) fail("pixel is wrong");
    }
  if (kernel == "cosine")
    for (std::size_t i : picks) {
      float v = x[i];
      for (int k = 0; k < kCosineRepeats; ++k) v = std::cos(v);
      if (std::abs(v - work[i]) > 1e-6f) fail("element is wrong");
    }
}

void Case::check() const { check_kernel(kernel, n, a, x, y, b_matrix, filter, image_in, image_out, work); }

}  // namespace

std::vector<double> refinement_sizes(const std::vector<double>& fit, const std::vector<double>& pilot_s,
                                     const std::vector<double>& work, const std::vector<double>& holdout, double threshold,
                                     std::size_t max_new, double step, const std::vector<double>& working_set,
                                     const std::vector<double>& capacities) {
  if (fit.size() != pilot_s.size() || fit.size() != work.size())
    throw std::invalid_argument("refinement_sizes: one pilot time and one amount of work per fit size");
  if (!working_set.empty() && working_set.size() != fit.size())
    throw std::invalid_argument("refinement_sizes: one working set per fit size");
  std::vector<std::pair<double, std::size_t>> jumps;  // |log change of time per work|, interval
  for (std::size_t i = 0; i + 1 < fit.size(); ++i) {
    const double u0 = pilot_s[i] / work[i], u1 = pilot_s[i + 1] / work[i + 1];
    if (!(u0 > 0 && u1 > 0)) continue;
    const double change = std::abs(std::log(u1 / u0));
    // An interval across a cache's capacity ranks above every pilot jump.
    const bool across = !working_set.empty() && std::any_of(capacities.begin(), capacities.end(), [&](double c) {
      return c > 0 && working_set[i] < c && c <= working_set[i + 1];
    });
    if (across) jumps.push_back({std::numeric_limits<double>::infinity(), i});
    else if (change > std::log1p(threshold)) jumps.push_back({change, i});
  }
  std::stable_sort(jumps.begin(), jumps.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  auto taken = [&](double m) {
    const double log2m = std::log2(m);
    if (std::abs(log2m - std::round(log2m)) < 1e-12) return true;  // a power of two
    return std::find(holdout.begin(), holdout.end(), m) != holdout.end() || std::find(fit.begin(), fit.end(), m) != fit.end();
  };
  std::vector<double> added;
  for (const auto& [change, i] : jumps) {
    if (added.size() >= max_new) break;
    const double lo = fit[i], hi = fit[i + 1], mid = std::round(std::sqrt(lo * hi) / step) * step;
    for (int k = 0; k < 8; ++k) {  // mid, mid+step, mid-step, mid+2·step, …
      const double m = mid + step * ((k + 1) / 2) * (k % 2 == 1 ? 1 : -1);
      if (m > lo && m < hi && !taken(m)) {
        added.push_back(m);
        break;
      }
    }
  }
  std::sort(added.begin(), added.end());
  return added;
}

std::vector<std::size_t> bandwidth_working_sets(double unit, double top, double plateau_from,
                                                const std::vector<double>& capacities, bool quick) {
  if (!(unit >= 1) || !(top >= unit)) throw std::invalid_argument("bandwidth_working_sets: need 1 <= unit <= top");
  auto near_a_cache = [&](double ws) {
    return std::any_of(capacities.begin(), capacities.end(), [&](double c) { return c > 0 && ws >= c / 2 && ws <= 2 * c; });
  };
  const double u = std::floor(unit);
  const auto top_rounded = static_cast<std::size_t>(top);  // the top itself, a multiple of unit or not
  std::vector<std::size_t> sets;
  // The √2 grid from `unit`; a point off the ×2 grid (odd index) is kept only near a cache.
  int index = 0;
  for (double ws = u; ws <= top * 1.0001; ws *= quick ? 4 : std::sqrt(2.0), ++index) {
    if (!quick && index % 2 == 1 && !near_a_cache(ws)) continue;
    const std::size_t rounded = static_cast<std::size_t>(std::max(1.0, std::round(ws / u)) * u);
    if (static_cast<double>(rounded) > plateau_from && rounded < top_rounded) continue;  // the flat memory plateau: its top only
    if (rounded > top_rounded) break;
    if (sets.empty() || rounded > sets.back()) sets.push_back(rounded);
  }
  if (sets.empty() || sets.back() != top_rounded) sets.push_back(top_rounded);
  return sets;
}

double budget_share(double budget_s, double spent_s, int parts_left) {
  if (!(parts_left >= 1) || !(budget_s >= 0) || !(spent_s >= 0)) throw std::invalid_argument("budget_share: a negative budget or time, or no part left");
  return std::max(0.0, budget_s - spent_s) / parts_left;
}

bool SampleStop::enough(const std::vector<double>& samples) const {
  const int n = static_cast<int>(samples.size());
  if (n >= max_samples) return true;
  return n >= min_samples && median_rel_se(samples) <= target_rel_se;
}

BracketStep bracket_refine(const std::vector<double>& sizes, const std::map<std::size_t, double>& rates,
                           const std::vector<std::pair<std::size_t, std::size_t>>& intervals, double tolerance) {
  BracketStep step;
  for (const auto& [lo, hi] : intervals) {
    if (!(lo < hi && hi < sizes.size())) throw std::invalid_argument("bracket_refine: an interval out of range or not ascending");
    const auto a = rates.find(lo), b = rates.find(hi);
    if (a == rates.end() || b == rates.end()) throw std::invalid_argument("bracket_refine: an interval end without a rate");
    if (hi - lo < 2) continue;  // nothing inside
    const double low = std::min(a->second, b->second), high = std::max(a->second, b->second);
    if (low > 0 && high / low - 1 <= tolerance) continue;  // flat: the inner sizes lie between its ends
    const double middle = 0.5 * (std::log(sizes[lo]) + std::log(sizes[hi]));
    std::size_t mid = lo + 1;
    for (std::size_t i = lo + 2; i < hi; ++i)
      if (std::abs(std::log(sizes[i]) - middle) < std::abs(std::log(sizes[mid]) - middle)) mid = i;
    step.measure.push_back(mid);
    step.intervals.push_back({lo, mid});
    step.intervals.push_back({mid, hi});
  }
  std::sort(step.measure.begin(), step.measure.end());
  step.measure.erase(std::unique(step.measure.begin(), step.measure.end()), step.measure.end());
  return step;
}

void register_cpu_benchmarks(BenchmarkRegistry& registry) {
  registry.add(std::make_unique<CpuBandwidthBenchmark>());
  registry.add(std::make_unique<CpuComputeBenchmark>());
  registry.add(std::make_unique<CpuKernelBenchmark>());
}

}  // namespace perfmodel
