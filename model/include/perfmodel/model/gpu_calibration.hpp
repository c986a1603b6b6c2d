#pragma once
// The `gpu` section of a profile: the device as CUDA describes it, beside what the
// microbenchmarks measured about it and the models fitted to those measurements.
//
// Units are in the names: _s seconds, _Bps bytes per second, _bytes bytes. Ceilings are rates
// (bytes/s, flop/s, op/s, calls/s) of the best configuration tried, as the median over its
// repetitions with the 10th and 90th percentiles.
#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "perfmodel/model/gpu_device.hpp"
#include "perfmodel/model/numeric_table.hpp"
#include "perfmodel/model/stream_calibration.hpp"
#include "perfmodel/model/transfer_model.hpp"  // FitQuality

namespace perfmodel {

struct CeilingKind {
  const char* name;  // key in gpu.ceilings
  const char* unit;  // "B/s", "flop/s", "op/s", "call/s"
  const char* what;
};
// Every ceiling perfmodel measures, in display order.
const std::vector<CeilingKind>& ceiling_kinds();
const CeilingKind* find_ceiling_kind(const std::string& name);

struct MeasuredRate {
  double median = 0;  // per second
  double p10 = 0, p90 = 0;
  std::size_t samples = 0;
  std::string config;  // configuration that reached it, "name=value;…"
};

// DRAM bandwidth as a function of the bytes in flight q (Little's law with a soft knee):
//   BW(q) = peak · x / (1 + x^k)^(1/k),   x = q / (peak · latency)
// For small q, BW ≈ q / latency (each byte in flight completes once per latency); for large q,
// BW → peak. k (sharpness) → ∞ gives S0-style min(peak, q/latency).
// The bytes a kernel keeps in flight are
//   q = SMs · warps per SM · min(independent loads per thread, max_requests_per_warp) · bytes per warp request
// because the H100 measurements show that a warp does not keep more than a few requests in
// flight however many independent loads its code has (S0's "12800 threads" rule, Eq 4.14,
// is the T10 instance of q ≥ peak · latency).
struct SaturationCurve {
  double peak_Bps = 0;
  double latency_s = 0;
  double sharpness = 0;
  double max_requests_per_warp = 0;  // 0 = no per-warp limit was fitted
  std::size_t points = 0;
  FitQuality fit;
  std::optional<FitQuality> holdout;

  double bandwidth_Bps(double bytes_in_flight) const;
  // q for a launch: warps per SM, independent loads per thread, bytes per warp-wide request.
  double bytes_in_flight(double sms, double warps_per_sm, double loads_per_thread, double request_bytes) const;
  // Bytes in flight that reach `fraction` (0 < fraction < 1) of the peak.
  double bytes_in_flight_for(double fraction) const;
};

struct LatencyLevels {
  double l1_s = 0, l2_s = 0, dram_s = 0;  // dependent-load latency (pointer chase, one thread)
  double l1_footprint_bytes = 0, l2_footprint_bytes = 0, dram_footprint_bytes = 0;  // where each was read
};

// Latency of one dependent arithmetic operation (one warp, one chain): bounds kernels that run
// too few warps to fill the pipelines (the small sizes of the cosine loop, one-block kernels).
struct OperationLatency {
  double fp32_fma_s = 0;
  double cosf_s = 0;
};

// Time per warp-wide shared-memory access, per SM, against the conflict degree d (lanes whose
// distinct words fall in one bank), in a throughput-bound loop.
struct ConflictCurve {
  std::vector<double> seconds_per_access;  // index d − 1, d = 1 … size()
  double intercept_s = 0, slope_s = 0;     // least-squares line t(d) = intercept + slope · d (relative error)
  FitQuality fit;

  // t(d) / t(1) from the measured curve (linear interpolation; the line beyond the last degree).
  double penalty(double degree) const;
};


struct PartitionCalibration {
  // Worst ratio, over the (granule, stride) cases of the sweep, of the best bandwidth with
  // accesses spread over several slots of a period to the bandwidth with all accesses confined
  // to one slot (the seeds' "partition camping"). ≈ 1 means the address hash defeats camping.
  double penalty = 1;
  double worst_granule_bytes = 0, worst_stride_bytes = 0;
  NumericTable sweep;    // granule_bytes, stride_bytes, slots_used, Bps
  NumericTable strided;  // stride_elements, Bps, efficiency, sectors_per_request
};

// What written data left in the L2 costs the reads after it. The calibration reads N bytes at
// the DRAM ceiling after flushing the L2 twice over, by reads (clean) and by a memset (dirty, as
// the validation runner leaves it), for N from L2/8 to 4·L2, and fits
//   t_dirty(N) = t_clean(N) + seconds_per_byte · min(N, bytes)
// on every other N (the others held out). The H100 shows the surcharge growing with N up to
// about 1.4× the L2 and then flat: the write-back runs behind the reads, partly overlapped.
// A kernel reading below the ceiling pays it in proportion to its share of the DRAM.
struct L2WriteBack {
  double bytes = 0;             // reads over which the write-back shows
  double seconds_per_byte = 0;  // what it adds per byte read, at the DRAM ceiling
  std::size_t points = 0;
  FitQuality fit;                     // relative error of t_dirty on the fit sizes
  std::optional<FitQuality> holdout;  // … and on the held-out sizes
  NumericTable runs;                  // read_bytes, clean_s, dirty_s, holdout

  // Extra seconds of reading `bytes_read` of the first `bytes` at `utilization` of the DRAM ceiling.
  double extra_s(double bytes_read, double utilization) const {
    return seconds_per_byte * std::clamp(bytes_read, 0.0, bytes) * std::clamp(utilization, 0.0, 1.0);
  }
};

// Launches enqueued while the GPU is still busy (launch.queued): the GPU's own cost per launch
// shows until the host, which enqueues at empty_kernel_s per launch, falls behind.
//   t(k kernels) = base + kernel · k,  t(k memset+kernel pairs) = base + (kernel + memset) · k   (k ≤ 8)
//   host_memset: what a memset adds to the host's enqueue time (the longest sequence, host-bound)
struct QueuedLaunch {
  double base_s = 0, kernel_s = 0, memset_s = 0, host_memset_s = 0;
  FitQuality fit;  // of both lines, over their points
};

struct LaunchCalibration {
  // per kernel, back-to-back launches (device timeline: the host's enqueue rate), the median of
  // batches over a few seconds: the host's rate wanders by ±15 % over seconds on the H100's VM
  double empty_kernel_s = 0;
  double launch_sync_s = 0;    // launch + cudaStreamSynchronize of one empty kernel, host clock
  double graph_kernel_s = 0;   // per kernel node of a CUDA graph of empty kernels
  double wave_base_s = 0;      // t(waves) = wave_base + per_wave · waves, empty blocks
  double per_wave_s = 0;
  double blocks_per_wave = 0;  // blocks of the wave sweep that fit the GPU at once
  FitQuality wave_fit;
  std::optional<QueuedLaunch> queued;  // absent from profiles before launch.queued was fitted
};

struct OverlapCalibration {
  double copy_engines = 0;                     // as reported (asyncEngineCount)
  double copy_bytes = 0;                       // pinned copy size of the overlap test
  double h2d_s = 0, d2h_s = 0, kernel_s = 0;   // each alone
  double h2d_d2h_s = 0, h2d_kernel_s = 0, d2h_kernel_s = 0, all_s = 0;  // together, until all finish
  double max_concurrent_kernels = 0;           // most one-block kernels seen running at once
  NumericTable kernel_concurrency;             // streams, seconds, concurrency
};

// Global atomicAdd of one data type (gpu.atomics): every thread of a full grid adds 1 to address
// tid mod K, each address in a 32-byte sector of its own. seconds_per_update is the GPU-wide time
// per update (one thread's atomicAdd) at each K; K = 1 is also measured with one lane of each warp
// updating (one_lane_update_s: seconds per such warp update). The predictor reads two rates off it:
//   same_word_update_s = seconds_per_update(K = 1): the updates of one word follow one another
//     (all the grid's lanes on one address), the read-modify-write's latency in the L2;
//   step_s(W) = seconds_per_update(K = max(8, W/32)): the GPU-wide time per L2 step when the
//     steps spread over W bytes. Every warp instruction of the sweep at K ≥ 8 is 32 steps (K < 32:
//     K sectors of 32/K lanes on one word; K ≥ 32: 32 sectors of one lane), so its time per
//     update is the time per step. The rate grows with W because more L2 slices share the steps
//     (on the H100 one slice for 256 bytes, two for 1 KiB, about 16 for 8 KiB, about 70 at most).
// log-log interpolation between the measured K, the end values beyond them.
struct AtomicCurve {
  std::vector<double> addresses;           // K, ascending, the first 1
  std::vector<double> seconds_per_update;  // at each K
  double threads = 0;                      // threads of the measuring grid (its largest K)
  double one_lane_update_s = 0;            // 0: not measured

  double sector_update_s() const { return 32 * seconds_per_update.front(); }
  double same_word_update_s() const { return seconds_per_update.front(); }
  double step_s(double window_bytes) const { return seconds_per_update_at(std::max(8.0, window_bytes / 32)); }
  double seconds_per_update_at(double distinct_addresses) const;
};
// Data types of gpu.atomics, as named in the profile and in workload files.
const std::vector<std::string>& atomic_type_names();  // int32, fp32, fp64 (the benchmark's type 0, 1, 2)

// Random reads over tables beyond the L2 (gpu.dram_random): grids read 4-byte words at hashed
// addresses, one 32-byte sector each, one read a thread, over a table of F bytes (128 MiB …
// 4 GiB), the L2 flushed before. Each run's DRAM sectors are those the derivation's reuse rule
// (docs/workload-format.md, "DRAM bytes") counts for it: T = reads · 32 bytes touched,
// D = F · (1 − e^(−T/F)) distinct, and the re-touches missing a L2 of C bytes,
//   sectors = (D + (T − D) · max(0, 1 − C/D)) / 32                     (random_read_sectors)
// Each table is read at two or more read counts; the median times t_i fit t = fixed_s +
// sectors / sectors_per_s by least squares, so the launch, the grid's ramp-up and tail and the
// flush's write-back (fixed_s) are not charged per sector, and the derivation, pricing a random
// read's DRAM sector at 1/sectors_per_s(F), predicts what each further sector adds to a kernel.
// Samples of one read count per table (calibrations before 2026-11-27's slope form) give
// sectors / median seconds, fixed costs included, and no fixed_s. Random addresses defeat what
// the DRAM does for a regular stride (open rows, prefetched neighbours), so a random sector costs
// more than the strided-read table's largest stride: the generalisation suite's random gathers
// (halves B and E, H100, 2026-11-26/27) ran at about half the rate that table predicted.
// sectors_per_s_at: linear in log F between the measured tables, the end values beyond them.
// The same shape holds gpu.dram_random_rmw: random read-modify-writes (y[j] += 1 at distinct
// hashed j), each DRAM sector read and later written back whole; sectors_per_s counts each such
// sector once (its read and its write-back together). And gpu.dram_random_write: random writes
// (y[j] = v at distinct hashed j, no read first, a scatter's stores), each sector left partly
// written in L2; sectors_per_s counts each partial sector's write-back once (what the DRAM does
// for it, the fetch of the sector included).
struct RandomReadCalibration {
  double element_bytes = 4;
  std::vector<double> footprint_bytes;  // ascending
  std::vector<double> reads;            // reads of each table's largest run
  std::vector<double> seconds;          // median seconds of that run
  std::vector<double> sectors_per_s;    // DRAM sectors per second of each table (above)
  std::vector<double> fixed_s;          // the fit's intercept per table; empty: one run per table (no slope)

  double sectors_per_s_at(double footprint) const;
};
// The reuse rule's DRAM sectors of `reads` random reads of one sector each over `footprint`
// bytes with a L2 of `l2_bytes` (above).
double random_read_sectors(double reads, double footprint, double l2_bytes, double sector_bytes = 32);

struct GpuCalibration {
  std::string samples_file;  // raw samples, relative to the profile's directory
  double calibration_wall_s = 0;
  GpuDeviceInfo device;
  std::map<std::string, MeasuredRate> ceilings;  // keys from ceiling_kinds()
  std::optional<SaturationCurve> dram_concurrency;
  // The same fit where every warp-wide load is one 128-byte line of its own row (tiled Mv/MM):
  // the per-warp limit of contiguous reads does not carry over to scattered lines.
  std::optional<SaturationCurve> dram_concurrency_rows;
  std::optional<LatencyLevels> latency;
  std::optional<OperationLatency> operation_latency;
  std::map<int, ConflictCurve> bank_conflicts;  // by word size in bytes (4, 8)
  std::optional<PartitionCalibration> partition;
  std::optional<L2WriteBack> l2_write_back;
  std::optional<LaunchCalibration> launch;
  std::optional<OverlapCalibration> overlap;
  std::optional<StreamCalibration> streams;    // absent from profiles before the farm predictor
  std::map<std::string, AtomicCurve> atomics;  // by atomic_type_names(); empty in profiles before gpu.atomics
  std::optional<RandomReadCalibration> dram_random;  // absent from profiles before gpu.dram_random
  std::optional<RandomReadCalibration> dram_random_rmw;  // absent from profiles before gpu.dram_random_rmw
  std::optional<RandomReadCalibration> dram_random_write;  // absent from profiles before gpu.dram_random_write

  // Throws InputError naming the missing ceiling.
  const MeasuredRate& ceiling(const std::string& name) const;
};

}  // namespace perfmodel
