#pragma once
// What perfmodel accepts from a file or a flag, in one place. Profiles, workload files, sample
// CSVs and options travel between people, so every size, count and constant is checked against
// what the physics and the hardware allow before any arithmetic uses it: a value outside these
// ranges is an InputError naming the file:line:key or the flag, never a prediction.
//
// Each limit is generous (orders of magnitude beyond any machine of 2026) so that no real
// measurement or question is refused; what it rules out are values that only a typo, a corrupted
// file or a hostile one can hold, and that would overflow an integer or a double on the way.
#include <cstdint>

namespace perfmodel::limits {

// ---- files
// Largest input file read (profile, workload, samples, validation CSVs). The largest bundled file
// (an H100 PCIe samples CSV) is 5 MiB; 64 MiB also stops `--profile /dev/zero` from growing forever.
inline constexpr std::uint64_t kMaxInputFileBytes = 64ull << 20;

// ---- sizes (bytes)
// One host<->device copy, one working set, one kernel's buffers: 2^50 B (1 PiB), over 5000 times
// the memory of the largest GPU (192 GB) and 1000 times that of a large host.
inline constexpr double kMaxBytes = 1125899906842624.0;  // 2^50
// A device's memory, caches or shared memory as the profile records them: at most kMaxBytes.

// ---- work
// Flops, warp instructions, accesses or bytes of one described kernel phase, per launch: 1e21 is
// a day of the fastest 2026 GPU at its FP8 peak many times over.
inline constexpr double kMaxWorkAmount = 1e21;
// Identical launches of one phase.
inline constexpr double kMaxLaunches = 1e12;

// ---- launch geometry (CUDA's own limits: Programming Guide, "Compute capabilities")
inline constexpr double kMaxGridX = 2147483647.0;  // 2^31 - 1
inline constexpr double kMaxGridY = 65535.0;
inline constexpr double kMaxThreadsPerBlock = 1024.0;

// ---- problem sizes of the reference kernels (--n)
// n must be an int for the kernels' index arithmetic; larger sizes are refused before that, by
// the device memory they need (see predict kernel) or kMaxBytes for the copies (predict transfer).
inline constexpr double kMaxProblemSize = 2147483647.0;  // 2^31 - 1

// ---- the machine, as a profile describes it
inline constexpr double kMaxThreads = 65536.0;           // CPU threads / logical CPUs of one host
inline constexpr double kMaxMultiprocessors = 4096.0;    // SMs of one GPU (H100: 132)
inline constexpr double kMaxWarpSize = 64.0;             // lanes of a warp (NVIDIA: 32)
inline constexpr double kMaxRegisters = 1048576.0;       // registers per SM or block (H100: 65536)
inline constexpr double kMaxClockHz = 1e11;              // an SM or memory clock (H100: 2e9)
inline constexpr double kMaxBusWidthBits = 65536.0;      // memory bus (H100: 5120)
inline constexpr double kMaxLanes = 65536.0;             // FP/INT lanes per SM, banks, copy engines, …
// A measured rate (bytes/s, flop/s): between 1 kB/s and 1e18/s (an exaflop on one device).
inline constexpr double kMinRate = 1e3;
inline constexpr double kMaxRate = 1e18;
// One measured constant time (a launch, a copy's setup, a latency, a dispatch): at most 10 s. A
// machine on which one such step takes longer is not measuring what the model means.
inline constexpr double kMaxConstantSeconds = 10.0;
// One measured sample time (microbenchmark repetition, validation run): at most a day.
inline constexpr double kMaxSampleSeconds = 86400.0;
// Any other number a profile holds (fit errors, wall times, sweep parameters): finite, below 1e21.
inline constexpr double kMaxProfileNumber = 1e21;

}  // namespace perfmodel::limits
