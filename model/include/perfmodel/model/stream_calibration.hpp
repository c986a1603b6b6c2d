#pragma once
// The profile's optional `gpu.streams` section: what limits a task farm on CUDA streams on this
// machine (Cecconi's farm, MODELS.md §1.13, §2.6), measured by the `gpu.streams` microbenchmark.
//
//   issue_s             the host's cost of issuing one task: three asynchronous calls
//                       (cudaMemcpyAsync H2D of 4 B, an empty kernel launch, cudaMemcpyAsync D2H of
//                       4 B) on round-robin blocking streams, host clock around the loop / tasks;
//   serial_task_s       one task of Cecconi's zero-stream reference with the same tiny parts
//                       (cudaMemcpy, launch, cudaMemcpy on the default stream), device events / tasks:
//                       the two synchronous round trips per task and the tiny parts themselves;
//   concurrency         farm pattern (4-byte H2D → one-block spin kernel of spin_s → 4-byte D2H)
//                       over S streams, L = 4·S tasks: concurrency = L · spin_s / measured time —
//                       how many tasks' kernels really ran at once. With S above the number of
//                       hardware work queues (CUDA_DEVICE_MAX_CONNECTIONS), streams share a queue
//                       and a task's copy-out blocks the next stream's task behind it (false
//                       serialisation): the curve flattens at `queues`;
//   copies              copies of 4 KiB and 1 MiB round-robin over S streams, H2D only and H2D+D2H
//                       pairs: seconds per copy (per pair) against S and the size — how copies of
//                       different streams share the copy engines and the link.
// The section records the CUDA_DEVICE_MAX_CONNECTIONS it was measured under and its own
// provenance (it may be merged into a profile measured another day: perfmodel fit --streams-samples).
#include <string>

#include "perfmodel/model/benchmark_samples.hpp"
#include "perfmodel/model/numeric_table.hpp"

namespace perfmodel {

struct StreamCalibration {
  std::string measured_on;  // "device, UUID, date" of the run that measured it
  std::string command;      // that run's command line
  std::string samples_file;
  double connections = 0;   // CUDA_DEVICE_MAX_CONNECTIONS during the run; 0: unset (the runtime's default)
  double issue_s = 0;
  double serial_task_s = 0;
  double spin_s = 0;
  double queues = 0;        // the most tasks' kernels seen running at once in the farm pattern: a
                            // plateau that may be the host's issue (L·spin_s / (L·issue_s + spin_s)),
                            // not the queues; the farm predictor takes the limit from the table
                            // (observed_queue_limit in predictors/farm.hpp)
  NumericTable concurrency;  // streams, tasks, seconds, concurrency[, host_s]
  NumericTable copies;       // streams, bytes, h2d_s_per_copy, bidir_s_per_pair

  // At the measured size nearest `bytes` (in log): per-copy time of H2D copies at S streams over
  // that at one stream, and a bidirectional pair's time at S streams over two one-stream H2D copies.
  // {1, 0} when the section has no copies table.
  struct CopySharing {
    double h2d_ratio = 1, pair_factor = 0;
  };
  CopySharing copy_sharing(double bytes, double streams) const;

  // Measured concurrency at S streams (linear between measured S, the last value beyond them).
  double concurrency_at(double streams) const;
  // The host's issue cost per task while the GPU is busy: the median over the concurrency rows of
  // 8 or more streams of host_s / tasks (the farm pattern, spin kernels pending), what a farm's host
  // pays; 0 where the table has no host_s.
  double busy_issue_s() const;
};

// Series (gpu samples, see benchmark_samples.hpp):
//   streams.issue          host seconds of the issue loop; amount = tasks; params streams, connections
//   streams.serial         device seconds of the serial loop; amount = tasks
//   streams.concurrency    device seconds; amount = tasks; params streams, spin_ns, connections
//   streams.concurrency_host  the host's seconds to issue those tasks, same params (optional:
//                          the concurrency table's host_s column)
//   streams.copies         device seconds; amount = copies; params streams, bytes, bidir (0|1)
// Throws InputError naming the series when they cannot be fitted.
StreamCalibration fit_streams(const GpuSampleFile& file, const std::string& samples_file);
// Whether a samples file holds streams.* series.
bool has_stream_samples(const GpuSampleFile& file);

}  // namespace perfmodel
