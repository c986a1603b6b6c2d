#pragma once
// Inner loops of the CPU benchmarks (see cpu_stream_kernels.cpp). Private to calibrate/.
#include <cstddef>

namespace perfmodel::cpu_stream {

double read(const double* a, std::size_t n);                                 // Σ a
void write(double* a, std::size_t n, double v);                              // a = v
void copy(const double* a, double* c, std::size_t n);                        // c = a
void triad(double* a, const double* b, const double* c, std::size_t n, double s);  // a = b + s·c
// `iterations` steps of acc ← acc·0.999 + 0.001 on 128 float (64 double) lanes: 256 (128) flop
// per iteration. Returns the lanes' sum (so the work is kept).
float fma_f32(long iterations, float seed);
double fma_f64(long iterations, double seed);

}  // namespace perfmodel::cpu_stream
