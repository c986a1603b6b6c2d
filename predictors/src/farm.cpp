#include "perfmodel/predictors/farm.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <sstream>
#include <vector>

#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/execution_metrics.hpp"
#include "perfmodel/model/units.hpp"
#include "perfmodel/predictors/communication.hpp"
#include "perfmodel/predictors/gpu_compute.hpp"

namespace perfmodel {
namespace {

// CUDA's limit on grids resident at once for compute capability 3.5 and later (the CUDA C++
// Programming Guide's table of technical specifications): a fact of the platform.
constexpr double kMaxResidentGrids = 128;
// The CUDA runtime's documented default of CUDA_DEVICE_MAX_CONNECTIONS.
constexpr int kDefaultConnections = 8;

std::string sci(double v) { return format_number(v); }

}  // namespace

double FarmPipeline::round_wait_s(double streams) const {
  const double s = connections > 0 ? std::min(streams, connections) : streams;
  return std::max(0.0, s - 1) * handoff_s;
}

FarmSchedule schedule_farm(const FarmPipeline& p, long long tasks, long long streams) {
  if (tasks < 1) throw InputError("a farm needs at least one task (--tasks)");
  if (streams < 1) throw InputError("the schedule needs at least one stream (0 streams is the serial loop)");
  const long long S = std::min(streams, tasks);
  // Q ≤ 0: no work-queue limit (none was observed); streams never share a queue.
  const bool queue_limited = p.queues > 0 && static_cast<double>(S) > p.queues;
  const long long Q = queue_limited ? std::max(1LL, std::llround(p.queues)) : S;
  const long long slots = std::max(1LL, std::min(S, static_cast<long long>(std::floor(p.kernel_slots))));
  // Kernels resident together share the GPU (processor sharing): a task's kernel takes
  // d_k = max(t_ker, n_k·t_full), n_k the kernels resident with it — its group of `slots`
  // consecutive tasks (the last group may be short), no more than the host issues during one
  // kernel (1 + t_ker/h). With the 128-resident-grid limit this gives the waves of grids.
  // Streams sharing Q queues have at most Q kernels in flight.
  const double arrivals = std::min(p.issue_s > 0 ? 1 + std::floor(p.kernel_s / p.issue_s) : static_cast<double>(slots),
                                   static_cast<double>(Q));
  std::vector<double> stream_end(static_cast<std::size_t>(S), 0.0), queue_kernel_end(static_cast<std::size_t>(Q), 0.0);
  std::priority_queue<double, std::vector<double>, std::greater<double>> free_slots;
  for (long long i = 0; i < slots; ++i) free_slots.push(0.0);
  double host = 0, h2d_free = 0, d2h_free = 0, full_gpu = 0, completion = 0, first = 0;
  // A copy takes t; its engine takes the next copy no sooner than κ·(t_in + t_out) after it started:
  // back-to-back copies in both directions share the link, sparse ones do not notice it.
  FarmPipeline::Sharing share;
  share.link_factor = p.link_factor;
  for (const FarmPipeline::Sharing& x : p.sharing)
    if (x.streams <= static_cast<double>(S)) share = x;
  const double link_gap = share.link_factor * (p.h2d_s + p.d2h_s);
  // Each engine's floor while the other direction runs: the shared link's κ·(t_in + t_out), and its
  // own copy at the bidirectional rate where gpu.streams.copies measured one (ρ·r·t).
  const double in_gap = std::max(link_gap, share.bidir_slowdown * share.h2d_ratio * p.h2d_s),
               out_gap = std::max(link_gap, share.bidir_slowdown * share.d2h_ratio * p.d2h_s);
  // Each round a stream's task waits for the other streams' launches at the front end.
  const double round_wait = p.round_wait_s(static_cast<double>(S));
  const auto copy = [&](double ready, double& engine_free, double t, double ratio, double gap) {
    const double start = std::max(ready, engine_free);
    engine_free = start + std::max(t * ratio, gap);
    return start + t;
  };
  for (long long k = 0; k < tasks; ++k) {
    const std::size_t s = static_cast<std::size_t>(k % S), q = static_cast<std::size_t>(k % S % Q);
    host += p.issue_s;
    double ready = std::max(host, stream_end[s]);
    if (queue_limited) ready = std::max(ready, queue_kernel_end[q]);
    const double in_end = copy(ready, h2d_free, p.h2d_s, share.h2d_ratio, in_gap);
    const double slot = free_slots.top();
    free_slots.pop();
    const double kernel_start = std::max(in_end, slot);
    full_gpu = std::max(kernel_start, full_gpu) + p.full_gpu_s;
    const double group = std::min({static_cast<double>(slots), static_cast<double>(tasks - slots * (k / slots)), arrivals});
    const double kernel_end = std::max(kernel_start + std::max(p.kernel_s, group * p.full_gpu_s), full_gpu);
    free_slots.push(kernel_end);
    queue_kernel_end[q] = kernel_end;
    const double out_end = copy(kernel_end, d2h_free, p.d2h_s, share.d2h_ratio, out_gap);
    stream_end[s] = out_end + p.chain_s + round_wait;  // the stream's hand-offs (δ) and its wait among the others'
    completion = std::max(completion, out_end);
    if (k == 0) first = out_end;
  }
  FarmSchedule out;
  out.completion_s = completion;
  out.first_task_s = first;
  // The kernel slots in waves: ⌊L/m⌋ full groups of m = min(S, c) kernels sharing the GPU, each
  // max(t_ker, n·t_full), and the short last group; per task.
  const double Sd = static_cast<double>(S), m = static_cast<double>(slots), Ld = static_cast<double>(tasks);
  const double full_groups = std::floor(Ld / m), rest = Ld - full_groups * m;
  // With no more streams than slots the streams, not the slots, limit the kernels: t_ker / S (the
  // groups' sharing is then the t_full term).
  const double kernel_stage =
      m < Sd ? (full_groups * std::max(p.kernel_s, std::min(m, arrivals) * p.full_gpu_s) +
                (rest > 0 ? std::max(p.kernel_s, std::min(rest, arrivals) * p.full_gpu_s) : 0.0)) / Ld
             : p.kernel_s / Sd;
  std::vector<std::pair<const char*, double>> terms = {
      {"host issue", p.issue_s},
      {"H2D", p.h2d_s * share.h2d_ratio},
      {"D2H", p.d2h_s * share.d2h_ratio},
      {"copy link", std::max(in_gap, out_gap)},
      {"GPU throughput", p.full_gpu_s},
      // Groups whose kernels together saturate the GPU are its throughput, not the slots.
      {m < Sd && std::min(m, arrivals) * p.full_gpu_s >= p.kernel_s ? "GPU throughput" : "kernel slots", kernel_stage},
      {"per-stream latency", (p.h2d_s + p.kernel_s + p.d2h_s + p.chain_s + round_wait) / Sd},
  };
  if (queue_limited) terms.push_back({"work queues", (p.h2d_s + p.kernel_s) / static_cast<double>(Q)});
  const auto worst = std::max_element(terms.begin(), terms.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  out.service_s = worst->second;
  out.bound = worst->first;
  return out;
}

double serial_farm_s(const FarmPipeline& p, long long tasks) {
  if (tasks < 1) throw InputError("a farm needs at least one task (--tasks)");
  return static_cast<double>(tasks) * (p.h2d_s + p.kernel_s + p.d2h_s + p.serial_gap_s + p.kernel_wait_s);
}

double observed_queue_limit(const StreamCalibration& s, double kernel_slots) {
  // gpu.streams.concurrency ran the farm pattern (tiny copies, one-block spin kernels of spin_s,
  // L tasks over S streams) with the host issuing one task per issue_s. Its time is what this
  // schedule predicts with no queue limit — the host issue, each stream's own chain of tasks and
  // the resident-grid slots — unless streams share a hardware queue (false serialisation, a
  // stream's copy-out blocking the next stream's task: about S/Q times longer). The first S whose
  // measured time exceeds that prediction by more than 25 % is beyond the queues; the limit is
  // the largest S below it. None: no limit seen (0).
  if (!(s.spin_s > 0) || !(s.issue_s > 0) || s.concurrency.rows.empty()) return 0;
  FarmPipeline p;
  p.issue_s = s.issue_s;
  p.kernel_s = s.spin_s;
  p.kernel_slots = kernel_slots;
  p.queues = 0;
  const std::size_t cs = s.concurrency.column("streams"), ct = s.concurrency.column("tasks"), cd = s.concurrency.column("seconds");
  const bool with_host = s.concurrency.has("host_s");
  const std::size_t ch = with_host ? s.concurrency.column("host_s") : 0;
  double limit = 0;
  for (const auto& row : s.concurrency.rows) {
    const long long S = std::llround(row[cs]), L = std::llround(row[ct]);
    if (S < 1 || L < 1) continue;
    // The row at the host's own rate while it issued it, where recorded: a host issuing slower
    // than issue_s (its rate drifts by half between minutes) must not read as a queue. GPU
    // 0385df6e, 2026-11-27, without it: the 96- and 128-stream rows took 7.7 and 7.4 ms against 4.6
    // expected at issue_s, a limit of 64 streams; its farm then ran 132 and 264 streams
    // unserialised, that limit's predictions 94 % and 63 % over.
    p.issue_s = with_host && row[ch] > 0 ? row[ch] / static_cast<double>(L) : s.issue_s;
    if (row[cd] > 1.25 * schedule_farm(p, L, S).completion_s) return limit > 0 ? limit : 1;
    limit = row[cs];
  }
  return 0;
}

std::vector<int> farm_stream_sweep(int sms) {
  std::vector<int> v = {0, 1, 2, 3, 4, 8, 16, 32, 64};
  if (sms > 0) v.push_back(sms), v.push_back(2 * sms);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

std::string FarmSetup::label() const { return workload ? workload->kernel : task.label(); }

namespace {
constexpr double kPageableStagedBytes = 65536;  // host-to-device copies this small are asynchronous (CUDA)
}  // namespace

FarmPredictor::FarmPredictor(const Profile& profile, const FarmSetup& setup) : setup_(setup) {
  if (!setup.workload) {
    const std::string problem = farm_task_problem(setup.task);
    if (!problem.empty()) throw InputError(problem);
  } else {
    if (setup.workload->phases.empty()) throw InputError("the task's workload has no kernel");
    if (!(setup.bytes_in >= 0) || !(setup.bytes_out >= 0)) throw InputError("a task's copies cannot have negative bytes");
  }
  if (setup.tasks < 1) throw InputError("--tasks: a farm needs at least one task, got " + std::to_string(setup.tasks));
  if (setup.connections && (*setup.connections < 1 || *setup.connections > 32))
    throw InputError("--connections: CUDA_DEVICE_MAX_CONNECTIONS is 1 to 32, got " + std::to_string(*setup.connections));
  const GpuCalibration& gpu = profile.require_gpu();
  profile.require_pcie();
  if (!gpu.launch) throw InputError("the profile has no gpu.launch section (run perfmodel calibrate --only gpu.launch)");
  const LaunchCalibration& launch = *gpu.launch;
  const CommunicationPredictor comm(profile);
  const double L = static_cast<double>(setup.tasks);
  sms_ = gpu.device.multiprocessors;
  bytes_in_ = setup.workload ? setup.bytes_in : setup.task.bytes_in();
  bytes_out_ = setup.workload ? setup.bytes_out : setup.task.bytes_out();

  // Kernels: one task alone, and all L tasks in one launch (the full GPU's rate).
  const double l2 = gpu.device.l2_cache_bytes;
  std::vector<std::string> missing;
  const GpuWorkload one = setup.workload ? *setup.workload : describe_farm_task(setup.task, setup.resources, l2, &missing);
  const GpuWorkload all = setup.workload ? batch_workload(one, L) : describe_farm_batch(setup.task, L, setup.resources, l2);
  // Kernel slots from the task's widest launch; every launch must fit an SM (execution_metrics
  // throws InputError naming what does not fit).
  const GpuPhase* widest = nullptr;
  ExecutionMetrics m;
  for (const GpuPhase& phase : one.phases) {
    if (phase.name == "memset") continue;
    ExecutionMetrics pm;
    try {
      pm = execution_metrics(gpu.device, phase.blocks(), phase.threads_per_block(), phase.registers_per_thread,
                             phase.shared_bytes_per_block);
    } catch (const InputError& e) {
      throw InputError("the task's kernel " + phase.name + " cannot launch on " + profile.provenance.device_name + ": " + e.what());
    }
    if (!widest || phase.blocks() > widest->blocks()) widest = &phase, m = pm;
  }
  if (!widest) throw InputError("the task's workload has no kernel");
  const GpuPrediction alone = predict_gpu(gpu, one);
  const GpuPrediction batch = predict_gpu(gpu, all);
  const double queued_kernel = launch.queued ? launch.queued->kernel_s : 0.0;
  FarmPipeline& p = pipeline_;
  p.kernel_s = alone.seconds - alone.launch_s + queued_kernel * static_cast<double>(one.phases.size());
  // The front end's turn among the connections: q per launch of each other stream's task, up to
  // C − 1 streams (a described task's kernels each count).
  p.handoff_s = queued_kernel * static_cast<double>(one.phases.size());
  p.connections = setup.connections.value_or(
      gpu.streams && gpu.streams->connections > 0 ? static_cast<int>(gpu.streams->connections) : kDefaultConnections);
  if (p.handoff_s > 0)
    assumptions_.push_back("each round of S streams a task waits for the other streams' launches: (min(S, " + sci(p.connections) +
                           ") - 1) x " + format_seconds(p.handoff_s) + " (gpu.launch.queued.kernel_s; CUDA_DEVICE_MAX_CONNECTIONS)");
  p.full_gpu_s = std::max(0.0, batch.seconds - batch.launch_s) / L;
  p.kernel_slots = std::max(1.0, std::min(kMaxResidentGrids, std::ceil(m.blocks_per_sm * sms_ / widest->blocks())));
  if (!missing.empty())
    assumptions_.push_back("registers of " + missing.front() +
                           " estimated by the reference descriptor (no recorded farm resources given)");

  // Copies: the pinned curves at the task's bytes (and the pageable ones for that variant), as
  // copies queued in a stream (cudaMemcpyAsync), which is how the farm issues them.
  const auto copy_s = [&](Direction d, HostMemory mem, double bytes) {
    return comm.predict(Transfer{{d, mem}, static_cast<std::uint64_t>(std::llround(bytes))}, TransferMode::stream).seconds;
  };
  p.h2d_s = copy_s(Direction::h2d, HostMemory::pinned, bytes_in_);
  p.d2h_s = copy_s(Direction::d2h, HostMemory::pinned, bytes_out_);
  if (gpu.overlap && gpu.overlap->h2d_s > 0 && gpu.overlap->d2h_s > 0 && gpu.overlap->h2d_d2h_s > 0) {
    p.link_factor = gpu.overlap->h2d_d2h_s / (gpu.overlap->h2d_s + gpu.overlap->d2h_s);
  } else {
    p.link_factor = 0.5;
    assumptions_.push_back("copies in both directions assumed full duplex (the profile has no gpu.overlap section)");
  }

  // What the stream calibration measured, or what the CUDA runtime documents.
  const double tiny_parts = copy_s(Direction::h2d, HostMemory::pinned, 4) + copy_s(Direction::d2h, HostMemory::pinned, 4) + queued_kernel;
  if (gpu.streams) {
    const StreamCalibration& s = *gpu.streams;
    // The host issues a farm's tasks while its streams have work pending: the calibration's issue
    // rate in that state where it kept it (the concurrency rows' host time), else the idle-GPU loop's.
    p.issue_s = s.busy_issue_s() > 0 ? s.busy_issue_s() : s.issue_s;
    if (s.busy_issue_s() > 0)
      assumptions_.push_back("host issue: " + format_seconds(p.issue_s) + " per task with the GPU busy (gpu.streams.concurrency's host " +
                             "time at 8 or more streams; " + format_seconds(s.issue_s) + " with it idle)");
    p.serial_gap_s = std::max(0.0, s.serial_task_s - tiny_parts);
    // One stream's chain: gpu.streams.concurrency at one stream ran tasks of a 4-byte copy in, a
    // spin kernel and a 4-byte copy out back to back in one stream; each took c1 = T/L − spin.
    // The schedule's chain for that task is t_in(4) + q + t_out(4); the rest, δ, is what the
    // stream adds per task: the hand-offs between the copy engines and the SMs (copy-in → kernel,
    // kernel → copy-out, copy-out → the next copy-in), or, negative, what the transfer curves'
    // small copies overstate inside a stream.
    if (!s.concurrency.rows.empty() && s.spin_s > 0) {
      const std::size_t cs = s.concurrency.column("streams"), ct = s.concurrency.column("tasks"), cd = s.concurrency.column("seconds");
      for (const auto& row : s.concurrency.rows)
        if (row[cs] == 1 && row[ct] > 0) {
          const double c1 = row[cd] / row[ct] - s.spin_s;
          p.chain_s = c1 - tiny_parts;
          assumptions_.push_back("one stream's chain: " + sci(c1 * 1e6) + " us per task beyond the kernel (gpu.streams.concurrency at 1 stream), " +
                                 sci(p.chain_s * 1e6) + " us beyond its copies and queued launch");
          break;
        }
    }
    if (!s.copies.rows.empty()) {
      // The engines' time per copy when S streams issue copies (gpu.streams.copies, measured at two
      // sizes): linear in bytes between them (a per-copy cost plus bytes over the engine's rate),
      // the smallest size's value below it. It replaces the
      // transfer model's copy time as the engine's occupancy (the copy's latency stays t_in): copies
      // of many streams overlap their setup, so the engine takes the next copy sooner.
      const std::size_t cs = s.copies.column("streams"), cb = s.copies.column("bytes"), ch = s.copies.column("h2d_s_per_copy"),
                        cp = s.copies.column("bidir_s_per_pair");
      std::vector<double> counts;
      for (const auto& row : s.copies.rows) counts.push_back(row[cs]);
      std::sort(counts.begin(), counts.end());
      counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
      const auto per_copy = [&](double S, double bytes, std::size_t col) {
        std::vector<std::pair<double, double>> pts;  // (bytes, seconds) at S streams
        for (const auto& row : s.copies.rows)
          if (row[cs] == S) pts.emplace_back(row[cb], row[col]);
        std::sort(pts.begin(), pts.end());
        if (pts.empty()) return 0.0;
        if (pts.size() == 1 || bytes <= pts.front().first) return pts.front().second;
        std::size_t i = 1;
        while (i + 1 < pts.size() && pts[i].first < bytes) ++i;
        const auto& a = pts[i - 1];
        const auto& b = pts[i];
        return a.second + (bytes - a.first) * (b.second - a.second) / (b.first - a.first);
      };
      for (double S : counts) {
        FarmPipeline::Sharing x;
        x.streams = S;
        const double in = per_copy(S, bytes_in_, ch), out = per_copy(S, bytes_out_, ch);  // H2D measured, used for both
        const double pair = per_copy(S, 0.5 * (bytes_in_ + bytes_out_), cp);
        if (in > 0 && p.h2d_s > 0) x.h2d_ratio = in / p.h2d_s;
        if (out > 0 && p.d2h_s > 0) x.d2h_ratio = out / p.d2h_s;
        x.link_factor = pair > 0 && p.h2d_s + p.d2h_s > 0 ? pair / (p.h2d_s + p.d2h_s) : p.link_factor;
        // ρ: how much a copy slows beside the other direction's, read where the bytes dominate the
        // per-copy cost (the largest size measured): a pair's time over one copy's alone. At one
        // stream the pair's two copies share that stream and run one after the other (ρ ≈ 2.2):
        // not a copy beside another, and one stream's chain orders its copies anyway.
        const double largest = std::max_element(s.copies.rows.begin(), s.copies.rows.end(), [&](const auto& a, const auto& b) {
                                 return a[cb] < b[cb];
                               })->at(cb);
        const double alone_l = per_copy(S, largest, ch), pair_l = per_copy(S, largest, cp);
        if (S >= 2 && alone_l > 0 && pair_l > alone_l) x.bidir_slowdown = pair_l / alone_l;
        p.sharing.push_back(x);
      }
      assumptions_.push_back("copy engines: time per copy when S streams issue copies from gpu.streams.copies (" +
                             sci(p.sharing.front().h2d_ratio * p.h2d_s * 1e6) + " us per H2D copy of a task at " +
                             sci(p.sharing.front().streams) + " stream), in place of the transfer model's " + sci(p.h2d_s * 1e6) + " us");
    }
    const int measured_under = s.connections > 0 ? static_cast<int>(s.connections) : kDefaultConnections;
    if (!setup.connections || *setup.connections == measured_under) {
      // Not the plateau of the measured concurrency (`queues`): that plateau is the host's issue
      // cost (L tasks at issue_s each), so the limit is what the schedule cannot explain.
      p.queues = observed_queue_limit(s, kMaxResidentGrids);
      const double largest = s.concurrency.rows.empty() ? 0 : s.concurrency.rows.back()[s.concurrency.column("streams")];
      assumptions_.push_back(p.queues > 0 ? "work queues: streams beyond " + sci(p.queues) +
                                                " serialise in gpu.streams.concurrency (beyond the host issue and resident grids)"
                                          : "work queues: no false serialisation in gpu.streams.concurrency up to " + sci(largest) +
                                                " streams once the host issue and resident grids are accounted for (no queue limit)");
    } else {
      p.queues = *setup.connections;
      assumptions_.push_back("work queues = CUDA_DEVICE_MAX_CONNECTIONS = " + std::to_string(*setup.connections) +
                             " (the profile's gpu.streams was measured under " + std::to_string(measured_under) + ")");
    }
  } else {
    p.issue_s = 3 * launch.empty_kernel_s;
    p.serial_gap_s = 2 * launch.launch_sync_s;
    p.queues = setup.connections.value_or(kDefaultConnections);
    assumptions_.push_back("no gpu.streams section (perfmodel calibrate --only gpu.streams measures it): host issue per task "
                           "assumed 3 x gpu.launch.empty_kernel_s = " + format_seconds(p.issue_s) +
                           " (an async copy costing the host what a launch does); serial loop assumed to add 2 x "
                           "gpu.launch.launch_sync_s = " + format_seconds(p.serial_gap_s) + " per task (two synchronous round trips)");
    assumptions_.push_back("work queues = " + std::to_string(static_cast<int>(p.queues)) +
                           (setup.connections ? " (CUDA_DEVICE_MAX_CONNECTIONS as given)"
                                              : " (CUDA_DEVICE_MAX_CONNECTIONS: the CUDA runtime's documented default, not a measurement)"));
  }
  assumptions_.push_back("at most " + sci(p.kernel_slots) + " task kernels resident at once (" + sci(m.blocks_per_sm) +
                         " blocks per SM x " + sci(sms_) + " SMs / " + sci(widest->blocks()) +
                         " blocks per task, capped at CUDA's 128 resident grids)");

  if (setup.issue_s) {
    if (!(*setup.issue_s > 0) || !std::isfinite(*setup.issue_s))
      throw InputError("the host issue cost per task must be > 0 s, got " + std::to_string(*setup.issue_s));
    p.issue_s = *setup.issue_s;
    assumptions_.push_back("host issue per task: " + format_seconds(p.issue_s) + " as given, in place of the profile's");
  }
  pageable_ = p;
  pageable_.h2d_s = copy_s(Direction::h2d, HostMemory::pageable, bytes_in_);
  pageable_.d2h_s = copy_s(Direction::d2h, HostMemory::pageable, bytes_out_);

  // The serial loop's copy-out waits for a running kernel: the calibration's serial task (an empty
  // kernel, done before the host calls the synchronous D2H copy) never waits for one, every real
  // task does, and pays one synchronisation round trip more, the part of a launch + synchronise
  // beyond the host's enqueue (gpu.launch: launch_sync_s − empty_kernel_s). Pinned serial loop
  // and data-parallel reference; the pageable form keeps its staged copies' own gap.
  if (launch.launch_sync_s > launch.empty_kernel_s && launch.empty_kernel_s > 0) {
    p.kernel_wait_s = launch.launch_sync_s - launch.empty_kernel_s;
    assumptions_.push_back("serial loop: the copy-out's wait for the running kernel costs " + format_seconds(p.kernel_wait_s) +
                           " per task (gpu.launch.launch_sync_s - empty_kernel_s), beyond the calibration's serial task");
  }

  // A pageable H2D copy of at most 64 KiB returns once staged (CUDA C++ Programming Guide,
  // "Asynchronous Concurrent Execution": host-to-device copies of 64 KB or less are asynchronous
  // with respect to the host): the task's synchronisation round trip w overlaps its GPU work.
  // Larger copies wait for their DMA. On the 2026-11-27 farm runs (GPUs 12f0227a, bf08d174,
  // 0d285e39, standard and holdout cases) the pageable form was 4–11 µs a task over the S = 0
  // form's error for copies in of 4–48 KiB, and within ±7 µs from 72 KiB up.
  if (bytes_in_ <= kPageableStagedBytes && p.kernel_wait_s > 0) {
    pageable_.serial_gap_s = std::max(0.0, pageable_.serial_gap_s - p.kernel_wait_s);
    if (setup.memory == HostMemory::pageable)
      assumptions_.push_back("pageable: the copy in (" + format_bytes(bytes_in_) + ", at most 64 KiB) returns once staged; its " +
                             "synchronisation round trip (" + format_seconds(p.kernel_wait_s) + ") overlaps the task");
  }

  serial_s_ = serial_farm_s(p, setup.tasks);
  const HostMemory mem = setup.memory;
  data_parallel_s_ = copy_s(Direction::h2d, mem, bytes_in_ * L) + batch.seconds + copy_s(Direction::d2h, mem, bytes_out_ * L) +
                     p.serial_gap_s + (mem == HostMemory::pinned ? p.kernel_wait_s : 0.0);
}

FarmPrediction FarmPredictor::predict(int streams) const {
  if (streams < 0) throw InputError("--streams: must be 0 (serial) or more, got " + std::to_string(streams));
  FarmPrediction out;
  out.streams = streams;
  out.memory = setup_.memory;
  const double L = static_cast<double>(setup_.tasks);
  if (setup_.memory == HostMemory::pageable) {
    out.completion_s = serial_farm_s(pageable_, setup_.tasks);
    out.service_s = out.completion_s / L;
    out.bound = "pageable copies (serialised)";
  } else if (streams == 0) {
    out.completion_s = serial_s_;
    out.service_s = serial_s_ / L;
    out.bound = "serial (synchronous copies)";
  } else {
    const FarmSchedule s = schedule_farm(pipeline_, setup_.tasks, streams);
    out.completion_s = s.completion_s;
    out.service_s = s.service_s;
    out.bound = s.bound;
  }
  out.speedup_vs_serial = serial_s_ / out.completion_s;
  out.speedup_vs_data_parallel = data_parallel_s_ / out.completion_s;
  return out;
}

int FarmPredictor::best_streams(const std::vector<int>& candidates) const {
  if (candidates.empty()) throw InputError("no stream counts to choose from");
  std::vector<int> sorted = candidates;
  std::sort(sorted.begin(), sorted.end());
  double best_s = 0;
  for (int s : sorted) {
    const double t = predict(s).completion_s;
    if (best_s == 0 || t < best_s) best_s = t;
  }
  // Among the stream counts that reach the least time (within 1 %), the first with headroom: its
  // streams' chains take at most half the binding stage's time per task, (t_in + t_ker + t_out + δ)/S
  // ≤ T_s/2. At the knee of the schedule (the chains exactly keep the binding stage busy) any jitter
  // in a chain idles it: the schedule's knee is sharp, a real pipeline's is not (a closed network of
  // S circulating tasks reaches its bottleneck's rate only well past N* = chain / T_s: Denning and
  // Buzen's asymptotic bounds and mean value analysis), while past the knee more streams cost little.
  const FarmPipeline& p = pipeline_;
  const double chain = p.h2d_s + p.kernel_s + p.d2h_s + p.chain_s;
  int last = sorted.front();
  for (int s : sorted) {
    const FarmPrediction f = predict(s);
    if (f.completion_s > best_s * 1.05) continue;
    if (s == 0 || setup_.memory == HostMemory::pageable || chain / s <= 0.5 * f.service_s) return s;
    last = s;
  }
  return last;
}

}  // namespace perfmodel
