// Each CPU reference kernel against its naive twin on small random inputs, with 1 and 3 threads
// (3 > this machine's cores on CI: the pool then runs unpinned, and the results must not change).
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <random>
#include <sched.h>
#include <vector>

#include "perfmodel/kernels/cpu_kernels.hpp"

using namespace perfmodel;

namespace {

std::vector<float> random_vector(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

// Symmetric positive definite: random symmetric off-diagonal, dominant diagonal.
std::vector<float> spd(int n, unsigned seed) {
  std::vector<float> a = random_vector(static_cast<std::size_t>(n) * n, seed);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < i; ++j) a[i * n + j] = a[j * n + i];
    a[i * n + i] = static_cast<float>(n);
  }
  return a;
}

// max |a − b| / max(1, max |b|): the bound each kernel states below.
double relative_difference(const std::vector<float>& a, const std::vector<float>& b) {
  double diff = 0, scale = 1;
  for (std::size_t i = 0; i < a.size(); ++i) diff = std::max(diff, std::abs(static_cast<double>(a[i]) - b[i])), scale = std::max(scale, std::abs(static_cast<double>(b[i])));
  return diff / scale;
}

class CpuKernels : public ::testing::TestWithParam<int> {
 protected:
  cpu::ThreadPool pool{3};
  int threads() const { return GetParam(); }
};

}  // namespace

TEST_P(CpuKernels, MatrixVector) {
  for (int n : {1, 7, 64, 129}) {
    const auto a = random_vector(static_cast<std::size_t>(n) * n, 1), x = random_vector(static_cast<std::size_t>(n), 2);
    std::vector<float> y(static_cast<std::size_t>(n)), ref(y);
    cpu::mv(pool, threads(), a.data(), x.data(), y.data(), n);
    cpu::naive::mv(a.data(), x.data(), ref.data(), n);
    EXPECT_LT(relative_difference(y, ref), 1e-5) << n;  // float accumulation over ≤ 129 terms
  }
}

TEST_P(CpuKernels, MatrixMatrix) {
  for (int n : {1, 5, 48, 97}) {
    const auto a = random_vector(static_cast<std::size_t>(n) * n, 3), b = random_vector(static_cast<std::size_t>(n) * n, 4);
    std::vector<float> c(static_cast<std::size_t>(n) * n), ref(c);
    cpu::mm(pool, threads(), a.data(), b.data(), c.data(), n);
    cpu::naive::mm(a.data(), b.data(), ref.data(), n);
    EXPECT_LT(relative_difference(c, ref), 1e-5) << n;
  }
}

TEST_P(CpuKernels, Dot) {
  for (std::size_t n : {1u, 3u, 1000u, 100003u}) {
    const auto x = random_vector(n, 5), y = random_vector(n, 6);
    const double ref = cpu::naive::dot(x.data(), y.data(), n);
    EXPECT_NEAR(cpu::dot(pool, threads(), x.data(), y.data(), n), ref, 1e-5 * std::max(1.0, std::sqrt(static_cast<double>(n)))) << n;
  }
}

TEST_P(CpuKernels, ConjugateGradientMatchesAndConverges) {
  const int n = 60;
  const auto a = spd(n, 7), b = random_vector(n, 8);
  std::vector<float> x(n), ref(n);
  const double residual = cpu::cg(pool, threads(), a.data(), b.data(), x.data(), n, 10);
  const double ref_residual = cpu::naive::cg(a.data(), b.data(), ref.data(), n, 10);
  EXPECT_LT(relative_difference(x, ref), 1e-4);
  EXPECT_NEAR(residual, ref_residual, 1e-3 * (1 + ref_residual));
  // Converged: A·x ≈ b.
  std::vector<float> ax(n);
  cpu::naive::mv(a.data(), x.data(), ax.data(), n);
  EXPECT_LT(relative_difference(ax, b), 1e-4);
}

// Past convergence every step is still run (a fixed count, as the GPU's cg): a step moves
// nothing, and 0/0 never turns x into NaN. A = 2·I converges in one step, r·r is then 0.
TEST_P(CpuKernels, ConjugateGradientPastConvergenceStaysPut) {
  const int n = 48;
  std::vector<float> a(static_cast<std::size_t>(n) * n, 0.0f), b(static_cast<std::size_t>(n), 1.0f), x(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) a[static_cast<std::size_t>(i) * n + i] = 2.0f;
  EXPECT_EQ(cpu::cg(pool, threads(), a.data(), b.data(), x.data(), n, 64), 0.0);
  for (float v : x) EXPECT_EQ(v, 0.5f);
}

TEST_P(CpuKernels, CholeskyMatchesAndReconstructs) {
  for (int n : {1, 2, 100, 300}) {  // 300 > one 128-block: exercises the panel and trailing update
    const auto a = spd(n, 9);
    std::vector<float> l = a, ref = a;
    cpu::cholesky(pool, threads(), l.data(), n);
    cpu::naive::cholesky(ref.data(), n);
    double diff = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j <= i; ++j) diff = std::max(diff, std::abs(static_cast<double>(l[i * n + j]) - ref[i * n + j]));
    EXPECT_LT(diff, 1e-4 * std::sqrt(n)) << n;
  }
  std::vector<float> not_spd = {1, 2, 2, 1};
  EXPECT_THROW(cpu::cholesky(pool, threads(), not_spd.data(), 2), std::domain_error);
}

TEST_P(CpuKernels, Convolution2dIsS0sZeroPaddedCorrelation) {
  for (int n : {1, 4, 33, 70, 150}) {  // 70: one 64-column block (and a tail); 150: two and a tail
    for (int fs : {1, 3, 5, 7}) {
      const auto a = random_vector(static_cast<std::size_t>(n) * n, 10), f = random_vector(static_cast<std::size_t>(fs) * fs, 11);
      std::vector<float> c(static_cast<std::size_t>(n) * n), ref(c);
      cpu::conv2d(pool, threads(), a.data(), f.data(), c.data(), n, fs);
      cpu::naive::conv2d(a.data(), f.data(), ref.data(), n, fs);
      EXPECT_LT(relative_difference(c, ref), 1e-5) << n << " " << fs;
    }
  }
  // A one-hot filter shifts the image: C[i][j] = A[i-1][j] (correlation with weight at (0,1) of a 3×3).
  const int n = 4;
  std::vector<float> a(16), c(16), f(9, 0.0f);
  for (int i = 0; i < 16; ++i) a[i] = static_cast<float>(i + 1);
  f[1] = 1;
  cpu::conv2d(pool, threads(), a.data(), f.data(), c.data(), n, 3);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) EXPECT_EQ(c[i * n + j], i == 0 ? 0.0f : a[(i - 1) * n + j]) << i << "," << j;
}

TEST_P(CpuKernels, BlurIsExactlyS3s) {
  std::mt19937 rng(12);
  for (auto [w, h, r] : {std::tuple{1, 1, 5}, {7, 3, 1}, {40, 23, 5}}) {
    std::vector<unsigned char> in(static_cast<std::size_t>(w) * h * 3), out(in.size()), ref(in.size());
    for (auto& v : in) v = static_cast<unsigned char>(rng() & 0xff);
    cpu::blur(pool, threads(), in.data(), out.data(), w, h, r);
    cpu::naive::blur(in.data(), ref.data(), w, h, r);
    EXPECT_EQ(out, ref) << w << "x" << h << " r=" << r;  // integer sums: bit-exact
  }
}

TEST_P(CpuKernels, CosineLoop) {
  auto x = random_vector(1001, 13), ref = x;
  cpu::cosine(pool, threads(), x.data(), x.size(), 100);
  cpu::naive::cosine(ref.data(), ref.size(), 100);
  EXPECT_EQ(x, ref);
  for (float v : x) EXPECT_NEAR(v, 0.7390851f, 1e-5f);  // the fixed point of cos
}

INSTANTIATE_TEST_SUITE_P(Threads, CpuKernels, ::testing::Values(1, 3));

TEST(ThreadPool, RunsEveryIndexOnceAndRethrows) {
  cpu::ThreadPool pool(4);
  std::vector<int> hits(4, 0);
  for (int count : {1, 2, 4, 9}) {
    std::fill(hits.begin(), hits.end(), 0);
    pool.run(count, [&](int i, int c) {
      EXPECT_EQ(c, std::min(count, 4));
      ++hits[static_cast<std::size_t>(i)];
    });
    for (int i = 0; i < 4; ++i) EXPECT_EQ(hits[static_cast<std::size_t>(i)], i < std::min(count, 4) ? 1 : 0);
  }
  EXPECT_THROW(pool.run(4, [](int i, int) {
    if (i == 2) throw std::runtime_error("worker 2");
  }),
               std::runtime_error);
  // Back-to-back runs of changing width: every index runs exactly once per run (a worker that
  // paired one run's generation with the next run's width once ran a job twice and hung CI).
  std::atomic<long> executed{0};
  long expected = 0;
  for (int i = 0; i < 20000; ++i) {
    const int count = 1 + i % 4;
    pool.run(count, [&](int, int) { executed.fetch_add(1, std::memory_order_relaxed); });
    expected += count;
  }
  EXPECT_EQ(executed.load(), expected);
  std::size_t first = 0, last = 0;
  cpu::ThreadPool::split(10, 2, 3, first, last);
  EXPECT_EQ(first, 6u);
  EXPECT_EQ(last, 10u);
}

namespace {
cpu_set_t current_affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  return set;
}
}  // namespace

// The calling thread runs on the one CPU while pinned, and gets its previous affinity back after;
// a pool restores its caller the same way.
TEST(PinCallingThread, PinsAndRestoresTheCallersAffinity) {
  const cpu_set_t before = current_affinity();
  {
    const cpu::PinCallingThread pin(cpu::allowed_cpus().back());
    ASSERT_TRUE(pin.pinned());
    const cpu_set_t during = current_affinity();
    EXPECT_EQ(CPU_COUNT(&during), 1);
    EXPECT_TRUE(CPU_ISSET(cpu::allowed_cpus().back(), &during));
  }
  cpu_set_t after = current_affinity();
  EXPECT_TRUE(CPU_EQUAL(&before, &after));
  {
    const cpu::PinCallingThread none(-1);
    EXPECT_FALSE(none.pinned());
    after = current_affinity();
    EXPECT_TRUE(CPU_EQUAL(&before, &after));
  }
  { cpu::ThreadPool pool(2); }
  after = current_affinity();
  EXPECT_TRUE(CPU_EQUAL(&before, &after));
}
