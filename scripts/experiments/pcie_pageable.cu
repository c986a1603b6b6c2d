// Experiment: what makes pageable host<->device copies noisy, and which small d2h sizes pay
// the "misaligned" cost. Not calibration; output CSVs go to the folder given as argv[1].
//
//  env.txt       the host's transparent-huge-page settings, CPUs, NUMA nodes, and how much of
//                each buffer ended up in huge pages (AnonHugePages of /proc/self/smaps)
//  backing.csv   variant,direction,bytes,round,seconds: one cudaMemcpy each (events), 1 GiB
//                pageable buffers backed three ways (as calibrate allocates them: aligned_alloc
//                4 KiB; 2 MiB-aligned with MADV_HUGEPAGE; with MADV_NOHUGEPAGE), visited round
//                robin so that drift hits every variant alike; then the calibrate-style buffer
//                with the issuing thread pinned to other CPUs (variant cpuN)
//  alignment.csv direction,memory,bytes,round,seconds: per-copy time (batches of 3) of sizes
//                base + r, r = 0..63, for a few bases, pageable and pinned, random order per round
//
// Build: nvcc -O2 -std=c++17 -arch=sm_90 -o pcie_pageable scripts/experiments/pcie_pageable.cu
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sched.h>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

#include "check.cuh"

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  if (!in) return "(unreadable)";
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// AnonHugePages (kB) of the mapping that contains p, from /proc/self/smaps.
long huge_kb_of(const void* p) {
  std::ifstream in("/proc/self/smaps");
  std::string line;
  bool inside = false;
  const auto addr = reinterpret_cast<std::uintptr_t>(p);
  while (std::getline(in, line)) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2) {  // a mapping's header line
      inside = addr >= lo && addr < hi;
      continue;
    }
    if (inside && line.rfind("AnonHugePages:", 0) == 0) return std::atol(line.c_str() + 14);
  }
  return -1;
}

void pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0) std::perror("sched_setaffinity");
}

struct Timer {
  cudaEvent_t a, b;
  Timer() {
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
  }
  double copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, int batch = 1) {
    CHECK(cudaEventRecord(a, 0));
    for (int i = 0; i < batch; ++i) CHECK(cudaMemcpy(dst, src, bytes, kind));
    CHECK(cudaEventRecord(b, 0));
    CHECK(cudaEventSynchronize(b));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    return ms * 1e-3 / batch;
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
    return 2;
  }
  const std::string out = argv[1];
  const std::size_t G = std::size_t{1} << 30, M = std::size_t{1} << 20;
  const int home = sched_getcpu();
  const long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  pin_to(home);
  void* dev = nullptr;
  CHECK(cudaMalloc(&dev, G));
  CHECK(cudaMemset(dev, 0, G));
  CHECK(cudaDeviceSynchronize());

  struct Variant {
    std::string name;
    unsigned char* p;
  };
  std::vector<Variant> variants;
  {
    auto* a = static_cast<unsigned char*>(std::aligned_alloc(4096, G));
    auto* h = static_cast<unsigned char*>(std::aligned_alloc(2 * M, G));
    auto* n = static_cast<unsigned char*>(std::aligned_alloc(2 * M, G));
    if (!a || !h || !n) return 3;
    madvise(h, G, MADV_HUGEPAGE);
    madvise(n, G, MADV_NOHUGEPAGE);
    variants = {{"default", a}, {"hugepage", h}, {"nohugepage", n}};
  }
  std::ofstream env(out + "/env.txt");
  env << "thp enabled: " << slurp("/sys/kernel/mm/transparent_hugepage/enabled")
      << "thp defrag: " << slurp("/sys/kernel/mm/transparent_hugepage/defrag")
      << "online cpus: " << ncpu << ", issuing thread on cpu " << home << "\n"
      << "numa nodes online: " << slurp("/sys/devices/system/node/online");
  for (auto& v : variants) {
    const auto t0 = std::chrono::steady_clock::now();
    std::memset(v.p, 1, G);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    env << v.name << ": touched 1 GiB in " << s << " s, AnonHugePages " << huge_kb_of(v.p) << " kB\n";
  }
  env.flush();

  Timer timer;
  // Warm up (link, clocks).
  for (int i = 0; i < 20; ++i) timer.copy(dev, variants[0].p, 64 * M, cudaMemcpyHostToDevice);

  std::ofstream backing(out + "/backing.csv");
  backing << "variant,direction,bytes,round,seconds\n";
  const std::size_t sizes[] = {4 * M, 24 * M, 64 * M, 256 * M};
  for (int round = 0; round < 15; ++round)
    for (auto& v : variants)
      for (std::size_t b : sizes) {
        backing << v.name << ",h2d," << b << ',' << round << ',' << timer.copy(dev, v.p, b, cudaMemcpyHostToDevice) << '\n';
        backing << v.name << ",d2h," << b << ',' << round << ',' << timer.copy(v.p, dev, b, cudaMemcpyDeviceToHost) << '\n';
      }
  // The issuing CPU: the calibrate-style buffer from a few other CPUs (first touch stays on home).
  std::vector<int> cpus = {home, 0, static_cast<int>(ncpu / 2), static_cast<int>(ncpu - 1)};
  for (int round = 0; round < 8; ++round)
    for (int cpu : cpus) {
      pin_to(cpu);
      for (std::size_t b : {std::size_t{24} * M, std::size_t{256} * M}) {
        const std::string name = "cpu" + std::to_string(cpu) + (cpu == home ? "home" : "");
        backing << name << ",h2d," << b << ',' << round << ',' << timer.copy(dev, variants[0].p, b, cudaMemcpyHostToDevice) << '\n';
        backing << name << ",d2h," << b << ',' << round << ',' << timer.copy(variants[0].p, dev, b, cudaMemcpyDeviceToHost) << '\n';
      }
    }
  pin_to(home);
  backing.close();

  // Small sizes: which remainders cost extra.
  unsigned char* pinned = nullptr;
  CHECK(cudaMallocHost(&pinned, 64 * M));
  std::memset(pinned, 0, 64 * M);
  struct Case {
    const char* direction;
    const char* memory;
    std::size_t bytes;
  };
  std::vector<Case> cases;
  for (std::size_t base : {std::size_t{0}, std::size_t{64}, std::size_t{1024}, std::size_t{20160}, std::size_t{1} << 20})
    for (std::size_t r = 0; r < 64; ++r) {
      if (base + r < 4) continue;
      for (const char* d : {"d2h", "h2d"})
        for (const char* m : {"pageable", "pinned"}) cases.push_back({d, m, base + r});
    }
  std::mt19937 rng(7);
  std::ofstream align(out + "/alignment.csv");
  align << "direction,memory,bytes,round,seconds\n";
  for (int round = 0; round < 25; ++round) {
    std::shuffle(cases.begin(), cases.end(), rng);
    for (const Case& c : cases) {
      unsigned char* host = std::strcmp(c.memory, "pinned") == 0 ? pinned : variants[0].p;
      const bool up = std::strcmp(c.direction, "h2d") == 0;
      const double s = up ? timer.copy(dev, host, c.bytes, cudaMemcpyHostToDevice, 3)
                          : timer.copy(host, dev, c.bytes, cudaMemcpyDeviceToHost, 3);
      align << c.direction << ',' << c.memory << ',' << c.bytes << ',' << round << ',' << s << '\n';
    }
  }
  std::printf("done: %s\n", out.c_str());
  return 0;
}
