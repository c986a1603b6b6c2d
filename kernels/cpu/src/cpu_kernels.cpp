#include "perfmodel/kernels/cpu_kernels.hpp"

#include <Eigen/Dense>

#include "perfmodel/model/kernel_workload.hpp"
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace perfmodel::cpu {
namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixMap = Eigen::Map<RowMatrix>;
using ConstMatrixMap = Eigen::Map<const RowMatrix>;
using VectorMap = Eigen::Map<Eigen::VectorXf>;
using ConstVectorMap = Eigen::Map<const Eigen::VectorXf>;

template <class Body>
void parallel_rows(ThreadPool& pool, int threads, std::size_t rows, Body&& body) {
  pool.run(threads, [&](int index, int count) {
    std::size_t first = 0, last = 0;
    ThreadPool::split(rows, index, count, first, last);
    if (last > first) body(first, last);
  });
}

double parallel_dot(ThreadPool& pool, int threads, const float* x, const float* y, std::size_t n) {
  std::vector<double> partial(static_cast<std::size_t>(pool.size()), 0.0);
  pool.run(threads, [&](int index, int count) {
    std::size_t first = 0, last = 0;
    ThreadPool::split(n, index, count, first, last);
    double sum = 0;
    constexpr std::size_t kChunk = 4096;  // float dot products on chunks, accumulated in double
    for (std::size_t i = first; i < last; i += kChunk) {
      const auto len = static_cast<Eigen::Index>(std::min(kChunk, last - i));
      sum += static_cast<double>(ConstVectorMap(x + i, len).dot(ConstVectorMap(y + i, len)));
    }
    partial[static_cast<std::size_t>(index)] = sum;
  });
  double sum = 0;
  for (double p : partial) sum += p;
  return sum;
}

}  // namespace

void mv(ThreadPool& pool, int threads, const float* a, const float* x, float* y, int n) {
  const ConstVectorMap xv(x, n);
  parallel_rows(pool, threads, static_cast<std::size_t>(n), [&](std::size_t r0, std::size_t r1) {
    const auto rows = static_cast<Eigen::Index>(r1 - r0);
    VectorMap(y + r0, rows).noalias() = ConstMatrixMap(a + r0 * static_cast<std::size_t>(n), rows, n) * xv;
  });
}

void mm(ThreadPool& pool, int threads, const float* a, const float* b, float* c, int n) {
  const ConstMatrixMap bm(b, n, n);
  parallel_rows(pool, threads, static_cast<std::size_t>(n), [&](std::size_t r0, std::size_t r1) {
    const auto rows = static_cast<Eigen::Index>(r1 - r0);
    MatrixMap(c + r0 * static_cast<std::size_t>(n), rows, n).noalias() =
        ConstMatrixMap(a + r0 * static_cast<std::size_t>(n), rows, n) * bm;
  });
}

double dot(ThreadPool& pool, int threads, const float* x, const float* y, std::size_t n) {
  return parallel_dot(pool, threads, x, y, n);
}

double cg(ThreadPool& pool, int threads, const float* a, const float* b, float* x, int n, int iterations) {
  const auto un = static_cast<std::size_t>(n);
  std::vector<float> r(b, b + un), p(b, b + un), ap(un);
  std::fill(x, x + un, 0.0f);
  double rr = parallel_dot(pool, threads, r.data(), r.data(), un);
  // Every iteration is run, as the GPU's cg runs them and as the model counts them: once r·r or
  // p·Ap is no longer positive (float r·r underflows to 0 within a few tens of iterations on
  // well-conditioned matrices) the step is 0 and x stays as it is. Leaving the loop there
  // instead made a 64-iteration CG on the H100 host (holdout run, 2026-11-26) do a fraction of
  // its iterations on the CPU while the GPU did all 64: the CPU looked 4–9 times faster than
  // the work it was asked for.
  for (int it = 0; it < iterations; ++it) {
    mv(pool, threads, a, p.data(), ap.data(), n);
    const double pap = parallel_dot(pool, threads, p.data(), ap.data(), un);
    const auto alpha = rr > 0 && pap > 0 ? static_cast<float>(rr / pap) : 0.0f;
    parallel_rows(pool, threads, un, [&](std::size_t i0, std::size_t i1) {
      for (std::size_t i = i0; i < i1; ++i) x[i] += alpha * p[i], r[i] -= alpha * ap[i];
    });
    const double rr_next = parallel_dot(pool, threads, r.data(), r.data(), un);
    const auto beta = rr > 0 ? static_cast<float>(rr_next / rr) : 0.0f;
    parallel_rows(pool, threads, un, [&](std::size_t i0, std::size_t i1) {
      for (std::size_t i = i0; i < i1; ++i) p[i] = r[i] + beta * p[i];
    });
    rr = rr_next;
  }
  return std::sqrt(rr);
}

void cholesky(ThreadPool& pool, int threads, float* a, int n) {
  MatrixMap m(a, n, n);
  constexpr int kBlock = kCholeskyBlock;
  for (int k = 0; k < n; k += kBlock) {
    const int b = std::min(kBlock, n - k);
    // Diagonal block: unblocked LLT.
    Eigen::LLT<RowMatrix> llt(m.block(k, k, b, b));
    if (llt.info() != Eigen::Success) throw std::domain_error("cholesky: matrix is not positive definite");
    m.block(k, k, b, b).triangularView<Eigen::Lower>() = llt.matrixL();
    const int rest = n - k - b;
    if (rest == 0) break;
    // Panel: A21 ← A21 · L11⁻ᵀ, rows in parallel.
    const RowMatrix l11 = m.block(k, k, b, b).triangularView<Eigen::Lower>();
    parallel_rows(pool, threads, static_cast<std::size_t>(rest), [&](std::size_t r0, std::size_t r1) {
      auto panel = m.block(k + b + static_cast<int>(r0), k, static_cast<int>(r1 - r0), b);
      l11.triangularView<Eigen::Lower>().transpose().solveInPlace<Eigen::OnTheRight>(panel);
    });
    // Trailing update of the lower triangle: A22 −= A21 · A21ᵀ, each thread its rows up to the diagonal.
    const RowMatrix a21 = m.block(k + b, k, rest, b);
    parallel_rows(pool, threads, static_cast<std::size_t>(rest), [&](std::size_t r0, std::size_t r1) {
      const auto rows = static_cast<Eigen::Index>(r1 - r0), cols = static_cast<Eigen::Index>(r1);
      m.block(k + b + static_cast<Eigen::Index>(r0), k + b, rows, cols).noalias() -=
          a21.middleRows(static_cast<Eigen::Index>(r0), rows) * a21.topRows(cols).transpose();
    });
  }
}

void conv2d(ThreadPool& pool, int threads, const float* a, const float* filter, float* c, int n, int fs) {
  // Each output is accumulated over all fs² taps in a block of kBlock columns (an L1-resident
  // accumulator that the compiler vectorises) and stored once. The earlier form accumulated into
  // the output row (out[j] += in[j+s]·w, a load-add-store on `c` per tap); with both images
  // page-aligned, the loads of `a` then 4K-alias the stores to `c` on the rows whose distance is a
  // multiple of 4 KiB, which on the H100 host made n = 1536 2.5× slower per pixel than n = 1280.
  // With SSE2 code (no -march) on the 2-core VM, 64-column blocks ran 1.7× faster per pixel than
  // the earlier form; 8 or 16 columns ran 2× slower (not vectorised), 128 or 256 1.3× slower.
  constexpr int kBlock = 64;
  const int r = (fs - 1) / 2;
  auto at = [&](int i, int j) {  // one output with zero padding (the border columns)
    float s = 0;
    for (int u = 0; u < fs; ++u)
      for (int v = 0; v < fs; ++v) {
        const int y = i + u - r, x = j + v - r;
        if (y >= 0 && y < n && x >= 0 && x < n) s += a[static_cast<std::size_t>(y) * static_cast<std::size_t>(n) + static_cast<std::size_t>(x)] * filter[u * fs + v];
      }
    return s;
  };
  parallel_rows(pool, threads, static_cast<std::size_t>(n), [&](std::size_t i0, std::size_t i1) {
    for (int i = static_cast<int>(i0); i < static_cast<int>(i1); ++i) {
      float* out = c + static_cast<std::size_t>(i) * static_cast<std::size_t>(n);
      const int u0 = std::max(0, r - i), u1 = std::min(fs, n + r - i);  // filter rows inside the image
      const int j_end = std::max(r, n - r);                              // interior columns: [r, j_end)
      for (int j = 0; j < std::min(r, n); ++j) out[j] = at(i, j);
      // The interior columns [r, j_end) in blocks of kBlock, the last one shorter.
      auto block = [&](int j, int len) {
        float acc[kBlock] = {};
        for (int u = u0; u < u1; ++u) {
          const float* in = a + static_cast<std::size_t>(i + u - r) * static_cast<std::size_t>(n) + static_cast<std::size_t>(j - r);
          for (int v = 0; v < fs; ++v) {
            const float w = filter[u * fs + v];
            for (int k = 0; k < len; ++k) acc[k] += in[v + k] * w;  // vectorises over k
          }
        }
        std::copy(acc, acc + len, out + j);
      };
      int j = r;
      for (; j + kBlock <= j_end; j += kBlock) block(j, kBlock);
      if (j < j_end) block(j, j_end - j), j = j_end;
      for (; j < n; ++j) out[j] = at(i, j);
    }
  });
}

void blur(ThreadPool& pool, int threads, const unsigned char* in, unsigned char* out, int width, int height, int r) {
  parallel_rows(pool, threads, static_cast<std::size_t>(height), [&](std::size_t y0, std::size_t y1) {
    std::vector<int> sums(static_cast<std::size_t>(width) * 3);
    for (int y = static_cast<int>(y0); y < static_cast<int>(y1); ++y) {
      const int ya = std::max(0, y - r), yb = std::min(height - 1, y + r);
      // Column sums over the window's rows, then a sliding sum along x.
      std::fill(sums.begin(), sums.end(), 0);
      for (int yy = ya; yy <= yb; ++yy) {
        const unsigned char* row = in + static_cast<std::size_t>(yy) * static_cast<std::size_t>(width) * 3;
        for (int k = 0; k < width * 3; ++k) sums[static_cast<std::size_t>(k)] += row[k];
      }
      const int rows = yb - ya + 1;
      unsigned char* o = out + static_cast<std::size_t>(y) * static_cast<std::size_t>(width) * 3;
      int acc[3] = {0, 0, 0};
      for (int x = 0; x <= std::min(width - 1, r); ++x)
        for (int ch = 0; ch < 3; ++ch) acc[ch] += sums[static_cast<std::size_t>(x) * 3 + static_cast<std::size_t>(ch)];
      for (int x = 0; x < width; ++x) {
        const int xa = std::max(0, x - r), xb = std::min(width - 1, x + r);
        const int hits = rows * (xb - xa + 1);
        for (int ch = 0; ch < 3; ++ch) o[x * 3 + ch] = static_cast<unsigned char>(acc[ch] / hits);
        if (x + r + 1 < width)
          for (int ch = 0; ch < 3; ++ch) acc[ch] += sums[static_cast<std::size_t>(x + r + 1) * 3 + static_cast<std::size_t>(ch)];
        if (x - r >= 0)
          for (int ch = 0; ch < 3; ++ch) acc[ch] -= sums[static_cast<std::size_t>(x - r) * 3 + static_cast<std::size_t>(ch)];
      }
    }
  });
}

void cosine(ThreadPool& pool, int threads, float* x, std::size_t n, int repeats) {
  parallel_rows(pool, threads, n, [&](std::size_t i0, std::size_t i1) {
    for (int k = 0; k < repeats; ++k)
      for (std::size_t i = i0; i < i1; ++i) x[i] = std::cos(x[i]);
  });
}

// ------------------------------------------------------------------ naive twins
namespace naive {

void mv(const float* a, const float* x, float* y, int n) {
  for (int i = 0; i < n; ++i) {
    double s = 0;
    for (int j = 0; j < n; ++j) s += static_cast<double>(a[i * n + j]) * x[j];
    y[i] = static_cast<float>(s);
  }
}

void mm(const float* a, const float* b, float* c, int n) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int k = 0; k < n; ++k) s += static_cast<double>(a[i * n + k]) * b[k * n + j];
      c[i * n + j] = static_cast<float>(s);
    }
}

double dot(const float* x, const float* y, std::size_t n) {
  double s = 0;
  for (std::size_t i = 0; i < n; ++i) s += static_cast<double>(x[i]) * y[i];
  return s;
}

double cg(const float* a, const float* b, float* x, int n, int iterations) {
  const auto un = static_cast<std::size_t>(n);
  std::vector<double> r(b, b + un), p(b, b + un), ap(un), xd(un, 0.0);
  double rr = 0;
  for (double v : r) rr += v * v;
  for (int it = 0; it < iterations && rr > 0; ++it) {
    for (int i = 0; i < n; ++i) {
      double s = 0;
      for (int j = 0; j < n; ++j) s += a[i * n + j] * p[static_cast<std::size_t>(j)];
      ap[static_cast<std::size_t>(i)] = s;
    }
    double pap = 0;
    for (std::size_t i = 0; i < un; ++i) pap += p[i] * ap[i];
    const double alpha = rr / pap;
    double rr_next = 0;
    for (std::size_t i = 0; i < un; ++i) xd[i] += alpha * p[i], r[i] -= alpha * ap[i], rr_next += r[i] * r[i];
    for (std::size_t i = 0; i < un; ++i) p[i] = r[i] + rr_next / rr * p[i];
    rr = rr_next;
  }
  for (std::size_t i = 0; i < un; ++i) x[i] = static_cast<float>(xd[i]);
  return std::sqrt(rr);
}

void cholesky(float* a, int n) {
  for (int j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (int k = 0; k < j; ++k) d -= static_cast<double>(a[j * n + k]) * a[j * n + k];
    if (!(d > 0)) throw std::domain_error("cholesky: matrix is not positive definite");
    const double l = std::sqrt(d);
    a[j * n + j] = static_cast<float>(l);
    for (int i = j + 1; i < n; ++i) {
      double s = a[i * n + j];
      for (int k = 0; k < j; ++k) s -= static_cast<double>(a[i * n + k]) * a[j * n + k];
      a[i * n + j] = static_cast<float>(s / l);
    }
  }
}

void conv2d(const float* a, const float* filter, float* c, int n, int fs) {
  const int r = (fs - 1) / 2;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int u = 0; u < fs; ++u)
        for (int v = 0; v < fs; ++v) {
          const int y = i + u - r, x = j + v - r;
          if (y >= 0 && y < n && x >= 0 && x < n) s += static_cast<double>(a[y * n + x]) * filter[u * fs + v];
        }
      c[i * n + j] = static_cast<float>(s);
    }
}

void blur(const unsigned char* in, unsigned char* out, int width, int height, int r) {
  for (int p = 0; p < width * height; ++p) {  // S3 Listing 4.3, one "thread" per pixel
    const int x = p % width, y = p / width;
    int sr = 0, sg = 0, sb = 0, hits = 0;
    for (int ox = -r; ox <= r; ++ox)
      for (int oy = -r; oy <= r; ++oy)
        if (x + ox >= 0 && x + ox < width && y + oy >= 0 && y + oy < height) {
          const int q = (p + ox + oy * width) * 3;
          sr += in[q], sg += in[q + 1], sb += in[q + 2], ++hits;
        }
    out[3 * p] = static_cast<unsigned char>(sr / hits);
    out[3 * p + 1] = static_cast<unsigned char>(sg / hits);
    out[3 * p + 2] = static_cast<unsigned char>(sb / hits);
  }
}

void cosine(float* x, std::size_t n, int repeats) {
  for (std::size_t i = 0; i < n; ++i)
    for (int k = 0; k < repeats; ++k) x[i] = std::cos(x[i]);
}

}  // namespace naive
}  // namespace perfmodel::cpu
