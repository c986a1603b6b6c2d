#pragma once
// A fixed pool of worker threads, each pinned to its own CPU of the process's affinity mask (in
// mask order), for the CPU bandwidth benchmarks and the CPU reference kernels. run(t, fn) calls
// fn(i, t) on workers 0 … t−1 at once and returns when all have finished. Idle workers spin for
// a short while before they sleep (as OpenMP runtimes do; PERFMODEL_POOL_SPIN_US, default 50),
// so a run() right after another costs about a microsecond, not a futex wake-up.
#include <atomic>
#include <sched.h>

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace perfmodel::cpu {

// Keeps the calling thread on one CPU while it lives and gives the thread its previous affinity
// back when it ends (destroy it on the same thread). A negative cpu, or a pin the OS refuses,
// leaves the thread as it was.
class PinCallingThread {
 public:
  explicit PinCallingThread(int cpu);
  ~PinCallingThread();
  PinCallingThread(const PinCallingThread&) = delete;
  PinCallingThread& operator=(const PinCallingThread&) = delete;
  bool pinned() const { return pinned_; }

 private:
  cpu_set_t previous_{};
  bool pinned_ = false;
};

class ThreadPool {
 public:
  // threads = 0: one per CPU the process may run on. The constructing thread is worker 0 and
  // is pinned to the first CPU until the pool is destroyed (destroy it on the same thread).
  explicit ThreadPool(int threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }  // the caller is worker 0
  // Runs fn(index, count) for index = 0 … count−1, index 0 on the calling thread. count is
  // clamped to [1, size()]. Exceptions from workers are rethrown here.
  void run(int count, const std::function<void(int, int)>& fn);
  bool pinned() const { return pinned_; }

  // Splits [0, n) into `count` near-equal contiguous parts; part `index` is [first, last).
  static void split(std::size_t n, int index, int count, std::size_t& first, std::size_t& last);

 private:
  void worker_loop(int index);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_;
  std::atomic<const std::function<void(int, int)>*> job_{nullptr};
  // (generation << 16) | thread count of that generation, published together: a worker must
  // never pair one job's generation with another job's count.
  std::atomic<std::uint64_t> state_{0};
  std::atomic<int> remaining_{0};
  std::atomic<int> sleeping_{0};  // workers blocked on start_: only then does run() pay for a wake-up
  std::atomic<bool> stop_{false};
  bool pinned_ = false;
  std::exception_ptr error_;
  std::optional<PinCallingThread> caller_pin_;  // destroyed after the workers are joined
};

// CPUs of this process's affinity mask, in order (as it was at the first call).
std::vector<int> allowed_cpus();

}  // namespace perfmodel::cpu
