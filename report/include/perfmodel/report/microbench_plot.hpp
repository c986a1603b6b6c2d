#pragma once
// The GPU microbenchmark plot of `perfmodel plot microbench` and `perfmodel report`: six panels,
// DRAM bandwidth vs bytes in flight (with the fitted saturation curve), bank-conflict penalty,
// strided access vs the sector model, partition camping sweep, read bandwidth vs working set, and
// dependent-load latency vs footprint.
#include <string>

#include "perfmodel/model/benchmark_samples.hpp"
#include "perfmodel/model/profile.hpp"

namespace perfmodel::report {

// Writes DIR/microbench_*.csv, microbench.gp and draws microbench.{svg,png} (DIR is created;
// callers stage it). `gpu` holds the concurrency, bank-conflict, partition and latency results
// (the caller checks, naming the profile); `samples` are its raw samples (InputError where a
// point lacks a parameter the panels need).
void write_microbench_plot(const std::string& dir, const GpuCalibration& gpu, const GpuSampleFile& samples, const Provenance& provenance);

}  // namespace perfmodel::report
