#include <algorithm>

#include "perfmodel/calibrate/benchmark.hpp"
#include "perfmodel/calibrate/cpu.hpp"
#include "perfmodel/model/errors.hpp"

namespace perfmodel {

void BenchmarkRegistry::add(std::unique_ptr<Benchmark> benchmark) {
  for (const auto& b : benchmarks_)
    if (b->key() == benchmark->key()) throw std::logic_error("duplicate benchmark key " + b->key());
  benchmarks_.push_back(std::move(benchmark));
}

std::vector<Benchmark*> BenchmarkRegistry::select(const std::vector<std::string>& patterns) const {
  std::vector<Benchmark*> out;
  for (const auto& b : benchmarks_) {
    const std::string key = b->key();
    const bool wanted = patterns.empty() || std::any_of(patterns.begin(), patterns.end(), [&](const std::string& p) {
                          return key == p || key.rfind(p + ".", 0) == 0;
                        });
    if (wanted) out.push_back(b.get());
  }
  for (const std::string& p : patterns) {
    const bool matched = std::any_of(out.begin(), out.end(), [&](const Benchmark* b) {
      return b->key() == p || b->key().rfind(p + ".", 0) == 0;
    });
    if (!matched) {
      std::string keys;
      for (const auto& b : benchmarks_) keys += (keys.empty() ? "" : ", ") + b->key();
      throw InputError("--only " + p + ": no benchmark has this key or prefix (available: " +
                       (keys.empty() ? std::string("none in this build") : keys) + ")");
    }
  }
  return out;
}

const std::vector<std::string>& gpu_benchmark_keys() {
  static const std::vector<std::string> keys = {
      "gpu.dram",        "gpu.dram.concurrency", "gpu.dram.concurrency.rows", "gpu.cache",   "gpu.l2.writeback",
      "gpu.latency",     "gpu.dram.partition",   "gpu.dram.random",  "gpu.shared",                "gpu.atomics", "gpu.compute", "gpu.tensor",
      "gpu.launch",      "gpu.overlap",          "gpu.streams",               "pcie.h2d.pinned", "pcie.h2d.pageable",
      "pcie.d2h.pinned", "pcie.d2h.pageable",    "pcie.bidir.pinned",         "pcie.mixed"};
  return keys;
}

bool names_gpu_benchmark(const std::string& pattern) {
  const auto& keys = gpu_benchmark_keys();
  return std::any_of(keys.begin(), keys.end(), [&](const std::string& key) { return key == pattern || key.rfind(pattern + ".", 0) == 0; });
}

BenchmarkRegistry make_default_registry() {
  BenchmarkRegistry registry;
  register_gpu_benchmarks(registry);
  register_cpu_benchmarks(registry);
  return registry;
}

}  // namespace perfmodel
