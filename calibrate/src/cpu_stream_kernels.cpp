// The innermost loops of the CPU bandwidth and arithmetic benchmarks, compiled once per vector
// ISA (target_clones: AVX-512, AVX2, baseline) so that one portable binary reaches each
// machine's ceilings. Kept apart, and built with -fno-tree-loop-distribute-patterns, so that the
// compiler cannot turn the write and copy loops into memset/memcpy (whose streaming stores
// would measure something else).
#include "cpu_stream_kernels.hpp"

namespace perfmodel::cpu_stream {

#if defined(__clang__)  // clang refuses noinline beside target_clones; its clones are not inlined anyway
#define PERFMODEL_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define PERFMODEL_CLONES __attribute__((target_clones("avx512f", "avx2", "default"), noinline))
#endif

typedef double f64x8 __attribute__((vector_size(64)));

// Four independent 64-byte accumulators, so the loads, not the add latency, set the pace.
PERFMODEL_CLONES double read(const double* a, std::size_t n) {
  f64x8 acc[4] = {};
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int k = 0; k < 4; ++k) {
      f64x8 v;
      __builtin_memcpy(&v, a + i + 8 * k, sizeof v);
      acc[k] += v;
    }
  double s = 0;
  for (; i < n; ++i) s += a[i];
  for (int k = 0; k < 4; ++k)
    for (int l = 0; l < 8; ++l) s += acc[k][l];
  return s;
}

PERFMODEL_CLONES void write(double* a, std::size_t n, double v) {
#pragma omp simd
  for (std::size_t i = 0; i < n; ++i) a[i] = v;
}

PERFMODEL_CLONES void copy(const double* a, double* c, std::size_t n) {
#pragma omp simd
  for (std::size_t i = 0; i < n; ++i) c[i] = a[i];
}

PERFMODEL_CLONES void triad(double* a, const double* b, const double* c, std::size_t n, double s) {
#pragma omp simd
  for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

// 8 independent vector accumulators of 64 bytes: enough FMAs in flight for two FMA pipes of
// 4-cycle latency at any vector width the clone is compiled for.
typedef float f32x16 __attribute__((vector_size(64)));

PERFMODEL_CLONES float fma_f32(long iterations, float seed) {
  f32x16 acc[8];
  for (int k = 0; k < 8; ++k)
    for (int l = 0; l < 16; ++l) acc[k][l] = seed + static_cast<float>(k * 16 + l) * 1e-3f;
  const f32x16 b = acc[0] * 0.0f + 0.999f, c = acc[0] * 0.0f + 0.001f;
  for (long i = 0; i < iterations; ++i)
    for (int k = 0; k < 8; ++k) acc[k] = acc[k] * b + c;
  float sum = 0;
  for (int k = 0; k < 8; ++k)
    for (int l = 0; l < 16; ++l) sum += acc[k][l];
  return sum;
}

PERFMODEL_CLONES double fma_f64(long iterations, double seed) {
  f64x8 acc[8];
  for (int k = 0; k < 8; ++k)
    for (int l = 0; l < 8; ++l) acc[k][l] = seed + static_cast<double>(k * 8 + l) * 1e-3;
  const f64x8 b = acc[0] * 0.0 + 0.999, c = acc[0] * 0.0 + 0.001;
  for (long i = 0; i < iterations; ++i)
    for (int k = 0; k < 8; ++k) acc[k] = acc[k] * b + c;
  double sum = 0;
  for (int k = 0; k < 8; ++k)
    for (int l = 0; l < 8; ++l) sum += acc[k][l];
  return sum;
}

}  // namespace perfmodel::cpu_stream
