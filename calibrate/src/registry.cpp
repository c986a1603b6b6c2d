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

BenchmarkRegistry make_default_registry() {
  BenchmarkRegistry registry;
  register_gpu_benchmarks(registry);
  register_cpu_benchmarks(registry);
  return registry;
}

}  // namespace perfmodel
