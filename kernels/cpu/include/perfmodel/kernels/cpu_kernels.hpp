#pragma once
// CPU reference implementations of the reference kernels: the CPU baselines for speedup and the
// correctness references for the GPU kernels. Single precision, row-major n×n matrices, as in
// S0. Linear algebra goes through Eigen (one Eigen call per thread on its own block, so the
// parallelism is ours and needs no OpenMP); convolution, blur and the cosine loop are plain C++.
// Each has a naive single-threaded twin in namespace naive, used by the tests.
// The work each does is stated in perfmodel/model/kernel_workload.hpp.
#include <cstddef>

#include "perfmodel/kernels/thread_pool.hpp"

namespace perfmodel::cpu {

// y = A·x
void mv(ThreadPool& pool, int threads, const float* a, const float* x, float* y, int n);
// C = A·B
void mm(ThreadPool& pool, int threads, const float* a, const float* b, float* c, int n);
// Σ x_i·y_i (accumulated in double per thread)
double dot(ThreadPool& pool, int threads, const float* x, const float* y, std::size_t n);
// `iterations` steps of conjugate gradient on A·x = b from x = 0 (A symmetric positive
// definite); returns the final residual norm ‖b − A·x‖ as tracked by the iteration. Every step
// is run: once converged (r·r or p·Ap no longer positive) a step moves nothing but costs the same
// (a fixed count, as the GPU's cg runs it).
double cg(ThreadPool& pool, int threads, const float* a, const float* b, float* x, int n, int iterations);
// In-place Cholesky A = L·Lᵀ; on return the lower triangle (with the diagonal) holds L, the
// strict upper triangle is unspecified. Throws std::domain_error if A is not positive definite.
void cholesky(ThreadPool& pool, int threads, float* a, int n);
// S0's 2-D convolution: C[i][j] = Σ_{u,v} A[i+u−R][j+v−R]·F[u][v], zero padding, R = (fs−1)/2.
void conv2d(ThreadPool& pool, int threads, const float* a, const float* filter, float* c, int n, int fs);
// S3's box blur of an RGB image (3 interleaved bytes per pixel): mean over the (2r+1)² window
// clipped to the image, truncated to a byte.
void blur(ThreadPool& pool, int threads, const unsigned char* in, unsigned char* out, int width, int height, int r);
// S3's cosine loop: x_i ← cos(x_i), `repeats` times.
void cosine(ThreadPool& pool, int threads, float* x, std::size_t n, int repeats);

namespace naive {
void mv(const float* a, const float* x, float* y, int n);
void mm(const float* a, const float* b, float* c, int n);
double dot(const float* x, const float* y, std::size_t n);
double cg(const float* a, const float* b, float* x, int n, int iterations);
void cholesky(float* a, int n);
void conv2d(const float* a, const float* filter, float* c, int n, int fs);
void blur(const unsigned char* in, unsigned char* out, int width, int height, int r);
void cosine(float* x, std::size_t n, int repeats);
}  // namespace naive

}  // namespace perfmodel::cpu
