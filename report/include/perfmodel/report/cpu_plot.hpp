#pragma once
// The CPU bandwidth plot of `perfmodel plot cpu` and `perfmodel report`: the bandwidth curves
// (read, write, copy, triad) against working set, one line per thread count, with the detected
// cache plateaus of the all-threads curve drawn on the read panel.
#include <string>

#include "perfmodel/model/profile.hpp"

namespace perfmodel::report {

// Writes DIR/cpu_bandwidth.csv, cpu_plateaus.csv, cpu.gp and draws cpu.{svg,png} (DIR is created;
// callers stage it, see StagedDirectory). `cpu` has at least one bandwidth curve (the caller
// checks, naming the profile); `provenance` titles the plot.
void write_cpu_plot(const std::string& dir, const CpuCalibration& cpu, const Provenance& provenance);

}  // namespace perfmodel::report
