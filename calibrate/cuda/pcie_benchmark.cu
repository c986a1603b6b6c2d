// PCIe host↔device copy benchmarks: one registered benchmark per direction × host memory.
//
// Two ways a program issues copies, two measurements (TransferMode, docs/transfers.md):
//   single: one synchronous cudaMemcpy between two CUDA events on the default stream, waited
//           for, as a user times one copy (bidirectional: one pair, both released together);
//   stream: `queue` cudaMemcpyAsync back to back in one stream between two events, per copy
//           (bidirectional: `queue` pairs on two streams), for sizes whose copy lasts at most a
//           few milliseconds (PcieSampling::queue_for); above, the stream curve takes the single
//           copies.
// Every size first takes one single copy (its pilot: it sets the size's queue and the round's
// cost, and counts as its first sample). Then rounds visit the sizes (and their stream samples)
// in a fresh random order, so that slow drift does not masquerade as a size effect; a size
// leaves the rounds when its median is known to the stated precision (PcieSampling::enough), and
// the curve stops when every size has, or when its time budget is spent. The issuing thread stays
// on one CPU for the whole run. Each copy's host bytes follow the previous copy's in the (1 GiB)
// host buffer (PcieHostCursor), so no copy finds its host side in the CPU's caches because of
// the copies that ran before it.
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
#include "perfmodel/calibrate/transfer_check.hpp"
#include "perfmodel/kernels/thread_pool.hpp"
#include "perfmodel/model/statistics.hpp"
#include "perfmodel/model/transfer_samples.hpp"
#include "perfmodel/model/units.hpp"

namespace perfmodel {
namespace {

constexpr double kWarmUpSeconds = 0.3;      // busy time before the first sample (clocks, link state)
constexpr double kQuickWarmUpSeconds = 0.1;

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

class PcieBenchmark final : public Benchmark {
 public:
  PcieBenchmark(TransferKey key, std::shared_ptr<SharedHostBuffers> host_buffers) : key_(key), host_buffers_(std::move(host_buffers)) {}

  std::string key() const override {
    return std::string("pcie.") + to_string(key_.direction) + "." + to_string(key_.memory);
  }

  std::string description() const override {
    switch (key_.direction) {
      case Direction::h2d:
        return std::string("host->device copies from ") + to_string(key_.memory) + " memory, 4 B - 1 GiB, single and queued in a stream";
      case Direction::d2h:
        return std::string("device->host copies to ") + to_string(key_.memory) + " memory, 4 B - 1 GiB, single and queued in a stream";
      case Direction::bidir: return "host->device and device->host at once on two streams, pinned, 4 B - 1 GiB each way, single and queued";
    }
    return "";
  }

  std::optional<std::string> unavailable_reason() const override { return gpu_unavailable_reason(); }

  void run(const CalibrationOptions& options, CalibrationData& data) override {
    const auto started = std::chrono::steady_clock::now();
    const cpu::PinCallingThread stay_on_this_cpu(sched_getcpu());
    const std::vector<std::uint64_t> plan = pcie_calibration_sizes(options.quick);
    const std::uint64_t max_bytes = plan.back();
    host_ = &host_buffers_->get(key_.memory, 0, max_bytes);
    device_ = std::make_unique<DeviceBuffer>(max_bytes);
    if (key_.direction == Direction::bidir) {
      host_second_ = &host_buffers_->get(HostMemory::pinned, 1, max_bytes);
      device_second_ = std::make_unique<DeviceBuffer>(max_bytes);
    }
    host_cursor_ = PcieHostCursor(options.pcie_host_buffer, max_bytes);
    cuda_ = std::make_unique<Resources>();
    EventTimer timer;
    warm_up(timer, plan, options.quick ? kQuickWarmUpSeconds : kWarmUpSeconds);
    const PcieSampling sampling = options.quick ? PcieSampling::quick() : PcieSampling{}.scaled(options.pcie_effort);

    // Items: one per size and mode sampled; the pilot single copy of each size is its first sample.
    struct Item {
      std::uint64_t bytes = 0;
      TransferMode mode = TransferMode::single;
      int queue = 1;
      std::vector<double> times;  // per copy
      double sample_s = 0;        // one sample's duration (queue copies)
      bool done = false;
    };
    std::vector<Item> items;
    std::vector<TransferSample> samples;
    auto keep = [&](Item& item, const BatchTiming& t, int round) {
      item.times.push_back(t.event_s);
      samples.push_back({key_, item.bytes, SizeSet::fit, round, item.queue, t.event_s, t.wall_s, item.mode});
    };
    for (std::uint64_t bytes : plan) {
      Item single{bytes, TransferMode::single, 1, {}, 0, false};
      keep(single, time_once(timer, bytes, 1, TransferMode::single), 0);
      single.sample_s = single.times.back();
      const int queue = sampling.queue_for(single.sample_s);
      items.push_back(single);
      if (queue > 0) {
        Item stream{bytes, TransferMode::stream, queue, {}, 0, false};
        keep(stream, time_once(timer, bytes, queue, TransferMode::stream), 0);
        stream.sample_s = stream.times.back() * queue;
        items.push_back(stream);
      }
    }
    const double budget = sampling.budget_s(key_);
    const auto sampling_started = std::chrono::steady_clock::now();
    auto spent = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - sampling_started).count(); };
    std::mt19937 shuffle_rng(20261126u);
    std::vector<std::size_t> order(items.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    int round = 1;
    for (bool more = true; more && spent() < budget; ++round) {
      more = false;
      std::shuffle(order.begin(), order.end(), shuffle_rng);
      for (std::size_t i : order) {
        Item& item = items[i];
        if (item.done) continue;
        const bool long_sample = item.sample_s >= sampling.long_sample_s;
        // The long samples of a curve past its budget's end would overrun it: they stop at their minimum.
        if (long_sample && static_cast<int>(item.times.size()) >= sampling.min_samples_long && spent() >= budget) continue;
        keep(item, time_once(timer, item.bytes, item.queue, item.mode), round);
        item.done = sampling.enough(item.times, key_.memory);
        more = more || !item.done;
      }
    }
    std::size_t short_of_target = 0;
    for (const Item& item : items) short_of_target += item.done ? 0 : 1;
    verify(plan);
    host_ = host_second_ = nullptr;
    device_.reset();
    device_second_.reset();
    cuda_.reset();

    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    data.pcie_wall_s += wall;
    if (options.progress) report(*options.progress, samples, wall, round - 1, short_of_target, items.size(), sampling.target_rel_se(key_.memory));
    data.transfer_samples.insert(data.transfer_samples.end(), samples.begin(), samples.end());
  }

  // The seconds run() is expected to take (progress estimate): warm-up, buffers, pilots and budget.
  double expected_seconds(const CalibrationOptions& options) const override {
    const PcieSampling sampling = options.quick ? PcieSampling::quick() : PcieSampling{}.scaled(options.pcie_effort);
    const double pilots = key_.memory == HostMemory::pageable ? 0.5 : 0.15;
    return (options.quick ? kQuickWarmUpSeconds : kWarmUpSeconds) + pilots + sampling.budget_s(key_) + 0.4;
  }

 private:
  // One sample: a single synchronous copy (batch 1) or `batch` copies queued in one stream.
  BatchTiming time_once(EventTimer& timer, std::uint64_t bytes, int batch, TransferMode mode) {
    unsigned char* dev = device_->get();
    const bool queued = mode == TransferMode::stream;
    const cudaStream_t stream = queued ? cuda_->up.get() : nullptr;
    switch (key_.direction) {
      case Direction::h2d:
        return timer.time(stream, batch, [&] {
          unsigned char* host = host_->get() + host_cursor_.next(bytes);
          if (queued) PERFMODEL_CUDA_CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, stream));
          else PERFMODEL_CUDA_CHECK(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
        });
      case Direction::d2h:
        return timer.time(stream, batch, [&] {
          unsigned char* host = host_->get() + host_cursor_.next(bytes);
          if (queued) PERFMODEL_CUDA_CHECK(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, stream));
          else PERFMODEL_CUDA_CHECK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
        });
      case Direction::bidir: {
        // Both streams wait at the gate (one flag, a spin kernel on each), so the two directions
        // start together; a batch queues its copies back to back on each stream, as the one-way
        // curves do on one, and the streams join once, at its end. (With a fork and a join around
        // every pair, the small pairs' times on GPU d8d1e857 split into two modes, 6.1-6.5 and
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

  // The first copies after idle run slow (clock and PCIe link-state ramp, first-touch in the
  // driver): copy back and forth over all sizes until kWarmUpSeconds have passed, untimed.
  void warm_up(EventTimer& timer, const std::vector<std::uint64_t>& plan, double seconds) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    do {
      for (std::uint64_t bytes : plan)
        if (bytes <= (std::uint64_t{64} << 20)) time_once(timer, bytes, 1, TransferMode::single);
    } while (std::chrono::steady_clock::now() < until);
  }

  // Every curve's copies are checked byte for byte at a small, an odd and a large size.
  void verify(const std::vector<std::uint64_t>& plan) {
    host_cursor_ = PcieHostCursor(PcieHostBuffer::fixed, host_->bytes());  // the checks address the buffers' start
    const std::uint64_t checks[] = {plan.front(), 20171, std::uint64_t{16} << 20};
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
          time_once(timer, bytes, 1, TransferMode::single);
          expect_pattern(host_second_->get(), bytes, seed + 1, what + " (device->host half)");
          PERFMODEL_CUDA_CHECK(cudaMemcpy(check.get(), device_->get(), bytes, cudaMemcpyDeviceToHost));
          expect_pattern(check.get(), bytes, seed, what + " (host->device half)");
          break;
        }
      }
    }
  }

  void report(std::ostream& out, const std::vector<TransferSample>& samples, double wall, int rounds, std::size_t short_of_target,
              std::size_t items, double target) const {
    std::map<std::uint64_t, std::vector<double>> single;
    std::size_t stream_samples = 0;
    for (const TransferSample& s : samples) {
      if (s.mode == TransferMode::single) single[s.bytes].push_back(s.event_s);
      else ++stream_samples;
    }
    const auto& [largest, times] = *single.rbegin();
    const double rate = static_cast<double>(largest) / summarize(times).median;
    out << "     " << key() << ": " << single.size() << " sizes, " << samples.size() - stream_samples << " single copies and "
        << stream_samples << " queued samples in " << rounds << " rounds, " << format_seconds(wall) << "; "
        << format_rate(rate) << " at " << format_bytes(static_cast<double>(largest)) << "\n";
    if (short_of_target > 0)
      out << "     note " << key() << ": " << short_of_target << " of " << items << " sizes/modes stopped short of the "
          << std::lround(1000 * target) / 10.0 << "% precision target (time budget spent); their interval is wider\n";
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
  PcieHostCursor host_cursor_{PcieHostBuffer::rotating, 0};
};

// Single copies as a program issues them among others (pcie_mixed_plan): the four one-way kinds
// and the sizes up to 64 MiB in one random order, host bytes at a random page, timed by the
// independent check's own loop (time_transfer_check). The calibration's curves time each kind
// back to back with its own kind, the thread held on one CPU; on the H100 host of 2026-11-26
// (GPU 92e6119c) the check's small single copies took 3-4 µs more than those curves said
// (pinned h2d 12.5 vs 9.0 µs, d2h 10.5 vs 7.5 µs), whatever kind of copy came before. These
// copies set the single curves' fixed cost and widen their intervals (apply_mixed_copies).
class PcieMixedBenchmark final : public Benchmark {
 public:
  std::string key() const override { return "pcie.mixed"; }
  std::string description() const override {
    return "single copies h2d/d2h x pinned/pageable, 4 B - 64 MiB, in one random interleaved order at random host pages (copies among others)";
  }
  std::optional<std::string> unavailable_reason() const override { return gpu_unavailable_reason(); }
  double expected_seconds(const CalibrationOptions& options) const override { return options.quick ? 0.2 : 0.4; }

  void run(const CalibrationOptions& options, CalibrationData& data) override {
    const auto started = std::chrono::steady_clock::now();
    std::vector<TransferCheckCopy> copies = pcie_mixed_plan(options.quick, 20261126u);
    time_transfer_check(copies, nullptr);
    std::map<TransferKey, std::vector<double>> small;  // below 4 KiB: the fixed cost, for the summary
    for (const TransferCheckCopy& c : copies) {
      data.transfer_samples.push_back({c.key, c.bytes, SizeSet::mixed, c.rep, 1, c.event_s, c.wall_s,
                                       TransferMode::single});
      if (c.bytes < 4096) small[c.key].push_back(c.event_s);
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    data.pcie_wall_s += wall;
    if (options.progress) {
      *options.progress << "     " << key() << ": " << copies.size() << " single copies; median below 4 KiB:";
      for (const auto& [k, t] : small) *options.progress << " " << k.name() << " " << format_seconds(summarize(t).median);
      *options.progress << " (" << format_seconds(wall) << ")\n";
    }
  }
};

}  // namespace

void register_pcie_benchmarks(BenchmarkRegistry& registry) {
  const auto host_buffers = std::make_shared<SharedHostBuffers>();
  for (const TransferKey& key : calibrated_transfer_keys()) registry.add(std::make_unique<PcieBenchmark>(key, host_buffers));
  registry.add(std::make_unique<PcieMixedBenchmark>());
}

}  // namespace perfmodel
