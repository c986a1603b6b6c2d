// PCIe host↔device copy benchmarks: one registered benchmark per direction × host memory.
//
// Each sample is a batch of back-to-back copies timed by the timing engine: every copy shorter
// than 30 µs takes the one batch that makes the smallest copies' samples last ≥ 30 µs (which
// keeps the event timer's resolution, ~0.5 µs, below the per-copy time), longer copies go one
// at a time (PcieBatchPlan: a copy's time depends on its batch). Sizes are visited in a fresh
// random order each round so that slow drift (clocks, host noise) does not masquerade as a size
// effect. The host's noise comes in bursts that last milliseconds, so many short samples spread
// over the run estimate a median better than a few long ones: cheap sizes get 243 rounds, costly
// ones fewer (PcieRoundPlan). The issuing thread stays on one CPU for the whole run (a migration
// costs a cold cache and a wake-up mid-copy). Unidirectional copies are the blocking cudaMemcpy a
// program issues; bidirectional pairs are two cudaMemcpyAsync on two streams, both held at a
// stream gate and released together. Each copy's host bytes follow the previous copy's in the
// (1 GiB) host buffer (PcieHostCursor), so no copy finds its host side in the CPU's caches
// because of the copies that ran before it. Half way through the rounds, fit sizes are added where the measured curve
// bends between two fit sizes (pcie_refinement_sizes), so the segmented fit sees where a regime
// ends instead of guessing between distant sizes; they join the remaining rounds beside the main
// sizes.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <ostream>
#include <random>
#include <sched.h>
#include <sstream>
#include <utility>

#include "cuda_check.hpp"
#include "cuda_resources.cuh"
#include "event_timer.cuh"
#include "registration.hpp"
#include "perfmodel/calibrate/benchmark.hpp"
#include "perfmodel/calibrate/device.hpp"
#include "perfmodel/calibrate/pcie_sizes.hpp"
#include "perfmodel/kernels/thread_pool.hpp"
#include "perfmodel/model/statistics.hpp"
#include "perfmodel/model/transfer_samples.hpp"
#include "perfmodel/model/units.hpp"

namespace perfmodel {
namespace {

constexpr double kTargetBatchSeconds = 30e-6;
constexpr int kMaxBatch = 256;
constexpr double kWarmUpSeconds = 0.3;      // busy time before the first sample (clocks, link state)

void fill_pattern(unsigned char* p, std::size_t bytes, unsigned seed) {
  for (std::size_t i = 0; i < bytes; ++i) p[i] = static_cast<unsigned char>((i * 131u + seed) ^ (i >> 11));
}

void expect_pattern(const unsigned char* p, std::size_t bytes, unsigned seed, const std::string& what) {
  for (std::size_t i = 0; i < bytes; ++i)
    if (p[i] != static_cast<unsigned char>((i * 131u + seed) ^ (i >> 11)))
      throw RuntimeFailure(what + ": copied data differs from the source at byte " + std::to_string(i) + " of " +
                           std::to_string(bytes));
}

// The host buffers the curves share. Allocating, pinning and touching 1 GiB costs the H100 host
// 0.5–0.9 s (data/experiments/2026-11-23-h100-pcie-setup: cudaMallocHost 0.36–0.66 s, touching
// it 0.1 s, cudaFreeHost 0.1 s; a pageable 1 GiB allocated and touched 0.53–0.76 s), and the five
// curves needed six such buffers: about 4 s of a 25–32 s calibration, whose target is 30 s. The
// first curve that needs a buffer allocates it; the registry's end frees them (no GPU is touched
// before a curve runs). What a buffer holds when a curve starts does not matter: every curve
// warms up and writes its own patterns before it verifies.
class SharedHostBuffers {
 public:
  HostBuffer& get(HostMemory memory, int slot, std::size_t bytes) {
    std::unique_ptr<HostBuffer>& b = buffers_[{memory, slot}];
    if (!b || b->bytes() < bytes) {
      b.reset();
      b = std::make_unique<HostBuffer>(bytes, memory);
    }
    return *b;
  }

 private:
  std::map<std::pair<HostMemory, int>, std::unique_ptr<HostBuffer>> buffers_;
};

struct SizePoint {
  std::uint64_t bytes;
  SizeSet set;
  int batch = 1;
  int rounds = 1;
  int first_round = 0;  // the round it joins the run (refined sizes join after the bends are found)
};

class PcieBenchmark final : public Benchmark {
 public:
  PcieBenchmark(TransferKey key, std::shared_ptr<SharedHostBuffers> host_buffers) : key_(key), host_buffers_(std::move(host_buffers)) {}

  std::string key() const override {
    return std::string("pcie.") + to_string(key_.direction) + "." + to_string(key_.memory);
  }

  std::string description() const override {
    switch (key_.direction) {
      case Direction::h2d: return std::string("host->device cudaMemcpy from ") + to_string(key_.memory) + " memory, 4 B - 1 GiB";
      case Direction::d2h: return std::string("device->host cudaMemcpy to ") + to_string(key_.memory) + " memory, 4 B - 1 GiB";
      case Direction::bidir: return "host->device and device->host at once on two streams, pinned, 4 B - 1 GiB each way";
    }
    return "";
  }

  std::optional<std::string> unavailable_reason() const override { return gpu_unavailable_reason(); }

  void run(const CalibrationOptions& options, CalibrationData& data) override {
    const auto started = std::chrono::steady_clock::now();
    const cpu::PinCallingThread stay_on_this_cpu(sched_getcpu());
    const PcieSizePlan plan = pcie_size_plan();
    const std::uint64_t max_bytes = std::max(plan.fit.back(), *std::max_element(plan.holdout.begin(), plan.holdout.end()));
    std::vector<SizePoint> sizes;
    for (std::uint64_t b : plan.fit) sizes.push_back({b, SizeSet::fit});
    for (std::uint64_t b : plan.holdout) sizes.push_back({b, SizeSet::holdout});

    host_ = &host_buffers_->get(key_.memory, 0, max_bytes);
    device_ = std::make_unique<DeviceBuffer>(max_bytes);
    if (key_.direction == Direction::bidir) {
      host_second_ = &host_buffers_->get(HostMemory::pinned, 1, max_bytes);
      device_second_ = std::make_unique<DeviceBuffer>(max_bytes);
    }

    host_cursor_ = PcieHostCursor(options.pcie_host_buffer, max_bytes);
    cuda_ = std::make_unique<Resources>();
    EventTimer timer;
    warm_up(timer, plan);
    const PcieRoundPlan rounds = options.quick ? PcieRoundPlan::quick() : PcieRoundPlan{}.scaled(options.pcie_effort);
    const bool pinned = key_.memory == HostMemory::pinned;
    // One copy per size (its pilot) sets the curve's batch plan and the size's rounds. Sizes go
    // in ascending order: once a copy takes well over a long sample, the larger ones are long
    // copies of batch 1 (a copy's time only grows with its size), and only the
    // largest is timed; the time of those between is interpolated in bytes. (Pageable staging
    // slows with size: on the H100 hosts 11 GB/s at 8 MB, 8 GB/s at 1 GiB, so a time in
    // proportion to the last pilot's would understate them by a quarter, and the long pageable
    // budget would not hold.)
    std::sort(sizes.begin(), sizes.end(), [](const SizePoint& a, const SizePoint& b) { return a.bytes < b.bytes; });
    std::vector<std::pair<std::uint64_t, double>> pilot;
    std::vector<double> seconds(sizes.size());
    double longest = 0;
    std::uint64_t longest_bytes = 1;
    std::size_t first_unpiloted = sizes.size();
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      if (longest > 2 * rounds.long_sample_s) {
        first_unpiloted = i;
        break;
      }
      seconds[i] = pilot_copy(timer, sizes[i].bytes);
      pilot.push_back({sizes[i].bytes, seconds[i]});
      if (seconds[i] >= longest) longest = seconds[i], longest_bytes = sizes[i].bytes;
    }
    if (first_unpiloted < sizes.size()) {
      const double largest_bytes = static_cast<double>(sizes.back().bytes);
      const double largest = std::max(pilot_copy(timer, sizes.back().bytes), longest);
      const double span = largest_bytes - static_cast<double>(longest_bytes);
      for (std::size_t i = first_unpiloted; i < sizes.size(); ++i) {
        const double f = span > 0 ? (static_cast<double>(sizes[i].bytes) - static_cast<double>(longest_bytes)) / span : 1.0;
        seconds[i] = longest + f * (largest - longest);
      }
    }
    batches_ = pcie_batch_plan(pilot, kTargetBatchSeconds, kMaxBatch);
    std::vector<double> sample_s(sizes.size());
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      sizes[i].batch = batches_.batch_for(sizes[i].bytes);
      sample_s[i] = seconds[i] * sizes[i].batch;
    }
    const std::vector<int> planned = rounds.rounds_for_curve(sample_s, pinned);
    for (std::size_t i = 0; i < sizes.size(); ++i) sizes[i].rounds = planned[i];

    std::mt19937 shuffle_rng(20261122u);
    std::vector<TransferSample> samples;
    run_rounds(timer, rounds, sizes, 0, rounds.refine_after, shuffle_rng, samples);

    // Where the curve bends between fit sizes, add fit sizes there; they join the remaining
    // rounds (a size's rounds spread over the rounds left when it joins).
    std::vector<std::uint64_t> taken = plan.fit;
    taken.insert(taken.end(), plan.holdout.begin(), plan.holdout.end());
    refined_sizes_ = 0;
    for (std::uint64_t b : pcie_refinement_sizes(typical_times_by_size(samples, key_, SizeSet::fit), taken)) {
      SizePoint added{b, SizeSet::fit, batches_.batch_for(b), 1, rounds.refine_after};
      added.rounds = rounds.rounds_for(pilot_copy(timer, b) * added.batch, pinned);
      sizes.push_back(added);
      ++refined_sizes_;
    }
    run_rounds(timer, rounds, sizes, rounds.refine_after, rounds.all, shuffle_rng, samples);
    verify(plan);
    host_ = host_second_ = nullptr;
    device_.reset();
    device_second_.reset();
    cuda_.reset();

    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    data.pcie_wall_s += wall;
    if (options.progress) report(*options.progress, samples, wall, options.pcie_host_buffer);
    data.transfer_samples.insert(data.transfer_samples.end(), samples.begin(), samples.end());
  }

 private:
  BatchTiming time_once(EventTimer& timer, std::uint64_t bytes, int batch) {
    unsigned char* dev = device_->get();
    switch (key_.direction) {
      case Direction::h2d:
        return timer.time(nullptr, batch, [&] {
          unsigned char* host = host_->get() + host_cursor_.next(bytes);
          PERFMODEL_CUDA_CHECK(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
        });
      case Direction::d2h:
        return timer.time(nullptr, batch, [&] {
          unsigned char* host = host_->get() + host_cursor_.next(bytes);
          PERFMODEL_CUDA_CHECK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
        });
      case Direction::bidir: {
        // Both streams wait at the gate (one flag, a spin kernel on each), so the two directions
        // start together; a batch queues its copies back to back on each stream, as the one-way
        // curves do on one, and the streams join once, at its end. (With a fork and a join around
        // every pair, the small pairs' times on lease d8d1e857 split into two modes, 6.1-6.5 and
        // 9.1-9.9 µs, in proportions that varied by size, so the interquartile means of
        // neighbouring sizes differed by up to 10 %; we read the 3.4 µs between the modes as a
        // cross-stream wait that some pairs paid.)
        unsigned char* dev_out = device_second_->get();
        const cudaStream_t up = cuda_->up.get(), down = cuda_->down.get();
        cudaEvent_t join = cuda_->join.get();
        StreamGate& gate = cuda_->gate;
        int queued = 0;
        return timer.time(
            up, batch,
            [&] {
              const std::size_t at = host_cursor_.next(bytes);
              PERFMODEL_CUDA_CHECK(cudaMemcpyAsync(dev, host_->get() + at, bytes, cudaMemcpyHostToDevice, up));
              PERFMODEL_CUDA_CHECK(cudaMemcpyAsync(host_second_->get() + at, dev_out, bytes, cudaMemcpyDeviceToHost, down));
              if (++queued == batch) {
                PERFMODEL_CUDA_CHECK(cudaEventRecord(join, down));
                PERFMODEL_CUDA_CHECK(cudaStreamWaitEvent(up, join, 0));
              }
            },
            [&] {
              gate.close(up);
              gate.close(down);
            },
            [&] { gate.open(); });
      }
    }
    throw std::logic_error("unknown direction");
  }

  // Rounds [from, to) of the plan over `sizes`, each in a fresh random order; a size takes part
  // in its share of the rounds from the one it joined.
  void run_rounds(EventTimer& timer, const PcieRoundPlan& plan, std::vector<SizePoint>& sizes, int from, int to,
                  std::mt19937& rng, std::vector<TransferSample>& samples) {
    for (int round = from; round < to; ++round) {
      std::shuffle(sizes.begin(), sizes.end(), rng);
      for (const SizePoint& s : sizes) {
        if (!plan.takes_part(round, s.rounds, s.first_round)) continue;
        const BatchTiming t = time_once(timer, s.bytes, s.batch);
        samples.push_back({key_, s.bytes, s.set, round, s.batch, t.event_s, t.wall_s});
      }
    }
  }

  // One copy of the size, timed alone (a pilot: it sets the batch plan and the size's rounds).
  double pilot_copy(EventTimer& timer, std::uint64_t bytes) { return std::max(time_once(timer, bytes, 1).event_s, 1e-7); }

  // The first copies after idle run slow (clock and PCIe link-state ramp, first-touch in the
  // driver): copy back and forth over all sizes until kWarmUpSeconds have passed, untimed.
  void warm_up(EventTimer& timer, const PcieSizePlan& plan) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(kWarmUpSeconds);
    do {
      for (std::uint64_t bytes : plan.fit)
        if (bytes <= (std::uint64_t{64} << 20)) time_once(timer, bytes, 1);
    } while (std::chrono::steady_clock::now() < until);
  }

  // Every curve's copies are checked byte for byte at a small, an odd held-out and a large size.
  void verify(const PcieSizePlan& plan) {
    host_cursor_ = PcieHostCursor(PcieHostBuffer::fixed, host_->bytes());  // the checks address the buffers' start
    const std::uint64_t checks[] = {plan.fit.front(), plan.holdout[plan.holdout.size() / 2], std::uint64_t{16} << 20};
    HostBuffer check(checks[2], HostMemory::pinned);
    for (std::uint64_t bytes : checks) {
      const unsigned seed = static_cast<unsigned>(bytes * 7u + 3u);
      const std::string what = key() + " at " + std::to_string(bytes) + " B";
      switch (key_.direction) {
        case Direction::h2d:
          fill_pattern(host_->get(), bytes, seed);
          PERFMODEL_CUDA_CHECK(cudaMemcpy(device_->get(), host_->get(), bytes, cudaMemcpyHostToDevice));
          PERFMODEL_CUDA_CHECK(cudaMemcpy(check.get(), device_->get(), bytes, cudaMemcpyDeviceToHost));
          expect_pattern(check.get(), bytes, seed, what);
          break;
        case Direction::d2h:
          fill_pattern(check.get(), bytes, seed);
          PERFMODEL_CUDA_CHECK(cudaMemcpy(device_->get(), check.get(), bytes, cudaMemcpyHostToDevice));
          std::memset(host_->get(), 0, bytes);
          PERFMODEL_CUDA_CHECK(cudaMemcpy(host_->get(), device_->get(), bytes, cudaMemcpyDeviceToHost));
          expect_pattern(host_->get(), bytes, seed, what);
          break;
        case Direction::bidir: {
          fill_pattern(host_->get(), bytes, seed);
          fill_pattern(check.get(), bytes, seed + 1);
          PERFMODEL_CUDA_CHECK(cudaMemcpy(device_second_->get(), check.get(), bytes, cudaMemcpyHostToDevice));
          std::memset(host_second_->get(), 0, bytes);
          EventTimer timer;
          time_once(timer, bytes, 1);
          expect_pattern(host_second_->get(), bytes, seed + 1, what + " (device->host half)");
          PERFMODEL_CUDA_CHECK(cudaMemcpy(check.get(), device_->get(), bytes, cudaMemcpyDeviceToHost));
          expect_pattern(check.get(), bytes, seed, what + " (host->device half)");
          break;
        }
      }
    }
  }

  void report(std::ostream& out, const std::vector<TransferSample>& samples, double wall, PcieHostBuffer host_buffer) const {
    std::map<std::uint64_t, std::vector<double>> by_size;
    for (const TransferSample& s : samples) by_size[s.bytes].push_back(s.event_s);
    std::ostringstream wide;
    int wide_count = 0;
    double largest_rate = 0;
    for (auto& [bytes, times] : by_size) {
      const SampleSummary summary = summarize(times);
      if (summary.relative_spread() > kWideSpreadThreshold) {
        ++wide_count;
        wide << " " << format_bytes(static_cast<double>(bytes)) << " (" << std::lround(100 * summary.relative_spread())
             << "%)";
      }
      largest_rate = static_cast<double>(bytes) / summary.median;
    }
    out << "     " << key() << ": " << by_size.size() << " sizes (" << refined_sizes_ << " added where the curve bends), "
        << samples.size() << " samples (batches of " << batches_.small << " below "
        << format_bytes(static_cast<double>(batches_.unbatched_from)) << ") in "
        << format_seconds(wall) << "; " << format_rate(largest_rate) << " at "
        << format_bytes(static_cast<double>(by_size.rbegin()->first)) << " (" << to_string(host_buffer) << " host bytes)\n";
    if (wide_count > 0)
      out << "     note " << key() << ": " << wide_count << " sizes with interquartile range > "
          << std::lround(100 * kWideSpreadThreshold) << "% of the median:" << wide.str() << "\n";
  }

  // CUDA objects live only while run() does: constructing the registry must not touch the GPU.
  struct Resources {
    Stream up, down;
    Event join;
    StreamGate gate;
  };

  TransferKey key_;
  std::shared_ptr<SharedHostBuffers> host_buffers_;
  HostBuffer* host_ = nullptr;  // from host_buffers_, while run() runs
  HostBuffer* host_second_ = nullptr;
  std::unique_ptr<DeviceBuffer> device_, device_second_;
  std::unique_ptr<Resources> cuda_;
  std::size_t refined_sizes_ = 0;
  PcieBatchPlan batches_;
  PcieHostCursor host_cursor_{PcieHostBuffer::rotating, 0};
};

}  // namespace

void register_pcie_benchmarks(BenchmarkRegistry& registry) {
  const auto host_buffers = std::make_shared<SharedHostBuffers>();
  for (const TransferKey& key : calibrated_transfer_keys()) registry.add(std::make_unique<PcieBenchmark>(key, host_buffers));
}

}  // namespace perfmodel
