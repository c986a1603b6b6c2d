#include "perfmodel/kernels/thread_pool.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>

namespace perfmodel::cpu {
namespace {

bool pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

}  // namespace

PinCallingThread::PinCallingThread(int cpu) {
  if (cpu < 0 || pthread_getaffinity_np(pthread_self(), sizeof previous_, &previous_) != 0) return;
  pinned_ = pin_to(cpu);
}

PinCallingThread::~PinCallingThread() {
  if (pinned_) pthread_setaffinity_np(pthread_self(), sizeof previous_, &previous_);
}

std::vector<int> allowed_cpus() {
  // Read once, before any pool pins a thread (the mask is per thread).
  static const std::vector<int> cpus = [] {
    cpu_set_t set;
    CPU_ZERO(&set);
    std::vector<int> out;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
      for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &set)) out.push_back(c);
    if (out.empty()) out.push_back(0);
    return out;
  }();
  return cpus;
}

ThreadPool::ThreadPool(int threads) {
  const std::vector<int> cpus = allowed_cpus();
  const int n = std::min(threads > 0 ? threads : static_cast<int>(cpus.size()), 0xffff);  // the count shares a word with the generation
  // The caller becomes worker 0, pinned to the first CPU for the pool's lifetime.
  pinned_ = n <= static_cast<int>(cpus.size());
  if (pinned_) caller_pin_.emplace(cpus.front());
  for (int i = 1; i < n; ++i)
    workers_.emplace_back([this, i, cpu = cpus[static_cast<std::size_t>(i) % cpus.size()]] {
      if (pinned_) pin_to(cpu);
      worker_loop(i);
    });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    state_.fetch_add(std::uint64_t{1} << 16);
  }
  start_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::split(std::size_t n, int index, int count, std::size_t& first, std::size_t& last) {
  const std::size_t c = static_cast<std::size_t>(count), i = static_cast<std::size_t>(index);
  first = n * i / c;
  last = n * (i + 1) / c;
}

namespace {

// How long an idle worker spins before it sleeps: PERFMODEL_POOL_SPIN_US, default 50 µs. Long
// spins cost CPU time, which a CPU quota (cgroup cpu.max) turns into throttling stalls of
// milliseconds; short ones keep back-to-back fork-joins cheap.
std::chrono::microseconds spin_time() {
  static const std::chrono::microseconds spin = [] {
    const char* text = std::getenv("PERFMODEL_POOL_SPIN_US");
    long us = 50;
    if (text) {
      char* end = nullptr;
      const long v = std::strtol(text, &end, 10);
      if (end != text && *end == '\0' && v >= 0) us = v;
    }
    return std::chrono::microseconds(us);
  }();
  return spin;
}

}  // namespace

void ThreadPool::worker_loop(int index) {
  std::uint64_t seen = 0;
  for (;;) {
    // Spin briefly for the next job, then sleep until one is posted.
    const auto spin_until = std::chrono::steady_clock::now() + spin_time();
    while (state_.load(std::memory_order_acquire) == seen && std::chrono::steady_clock::now() < spin_until) {
    }
    if (state_.load(std::memory_order_acquire) == seen) {
      std::unique_lock<std::mutex> lock(mutex_);
      ++sleeping_;
      start_.wait(lock, [&] { return state_.load() != seen; });
      --sleeping_;
    }
    if (stop_) return;
    // One load gives the generation and its count; job_ was stored before it was published.
    // A participant's job_ cannot change under it: run() waits for every participant.
    seen = state_.load(std::memory_order_acquire);
    const int count = static_cast<int>(seen & 0xffff);
    const std::function<void(int, int)>* job = job_.load(std::memory_order_relaxed);
    if (index < count) {
      try {
        (*job)(index, count);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!error_) error_ = std::current_exception();
      }
      remaining_.fetch_sub(1, std::memory_order_acq_rel);
    }
  }
}

void ThreadPool::run(int count, const std::function<void(int, int)>& fn) {
  count = std::clamp(count, 1, size());
  if (count == 1) {  // nothing to fork: no synchronisation at all
    fn(0, 1);
    return;
  }
  job_.store(&fn, std::memory_order_relaxed);
  error_ = nullptr;
  remaining_.store(count - 1, std::memory_order_relaxed);
  {
    // Under the mutex, so that a worker about to sleep either sees the new state or is counted
    // in sleeping_ and woken.
    std::lock_guard<std::mutex> lock(mutex_);
    const std::uint64_t generation = (state_.load() >> 16) + 1;
    state_.store((generation << 16) | static_cast<std::uint64_t>(count), std::memory_order_release);
  }
  if (sleeping_.load() > 0) start_.notify_all();
  std::exception_ptr mine;
  try {
    fn(0, count);
  } catch (...) {
    mine = std::current_exception();
  }
  while (remaining_.load(std::memory_order_acquire) != 0) {
  }
  if (mine) std::rethrow_exception(mine);
  if (error_) std::rethrow_exception(error_);
}

}  // namespace perfmodel::cpu
