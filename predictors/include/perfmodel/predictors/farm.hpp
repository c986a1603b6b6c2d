#pragma once
// Task farm on CUDA streams (Cecconi, MODELS.md §1.13): the completion time T_c and service time
// T_s of a stream of L tasks (copy in, one kernel, copy out) dealt round-robin over S streams, the
// stage that bounds it, the speedup over the serial (zero-stream) loop and over the data-parallel
// version, and the best S.
//
// Per task (all from the profile; model/farm.hpp describes the tasks):
//   h       the host's cost of issuing one task's three asynchronous calls: with the GPU busy, as a
//           farm's host issues (StreamCalibration::busy_issue_s: the concurrency rows' host time per
//           task at S ≥ 8), else gpu.streams.issue_s (an idle GPU; 7 % lower on GPU 418e2ad9,
//           whose farm's host issued at 6.8–11 µs a task, median over its cases 7.6)
//   t_in    its H2D copy, t_out its D2H copy: the transfer model's pinned curves at the task's
//           bytes (short copies there are timed back to back in a stream, as the farm issues them)
//   t_ker   its kernel alone: the GPU predictor's time for one task's launch without the launch
//           overhead, plus the GPU's own cost of a queued launch (gpu.launch.queued.kernel_s)
//   t_full  its share of a full GPU: the GPU predictor's data-parallel launch over all L tasks,
//           without launch overhead, / L (no number of streams makes kernels run faster than this)
//   c       task kernels that can be resident at once: min(⌈SMs · resident blocks per SM / task
//           blocks⌉, 128 resident grids — the CUDA limit for compute capability ≥ 3.5). Rounded up:
//           a kernel starts once its first blocks fit (the block scheduler fills SMs as they free),
//           so a task of 144 blocks where 264 fit runs beside the next one, both sharing the GPU
//           (d_k below); rounded down, kernels of 144 blocks ran one at a time, 46 % slow on the
//           holdout blur 384² (2026-11-26, GPU-5355697b)
//   δ       one stream's chain beyond its stages: gpu.streams.concurrency at one stream ran tasks of
//           a 4-byte copy in, a spin kernel and a 4-byte copy out in one stream, c1 = T/L − spin
//           each; δ = c1 − (t_in(4 B) + q + t_out(4 B)), q = gpu.launch.queued.kernel_s: the
//           hand-offs between the copy engines and the SMs (copy-in → kernel → copy-out → the
//           stream's next copy-in; 8.5 µs a task on GPU-a8fb659b), or, negative, what the transfer
//           curves' small copies overstate inside a stream (the bundled schema-3 profile's 9–10 µs
//           copies: −3.3 µs). 0 without the section
//   q, C    each round of S streams a task waits for the other streams' launches: the GPU's front
//           end takes the connections' queued launches in turn, q = gpu.launch.queued.kernel_s each
//           (the GPU's own cost of a launch queued behind work; × the task's kernels), from at most
//           C − 1 others, C = CUDA_DEVICE_MAX_CONNECTIONS (round robin among C queues): (min(S, C) −
//           1)·q on each stream's chain per task. The recorded runs measured S·T(S) − T(1) = 2.9 µs
//           per other stream per round at S = 2–3, 1.7 at S = 4 (all six, cosine as matmul and blur;
//           q = 1.86–1.99 µs); the schedule had none. Found and scored on the same runs (2026-11-27)
//   Q       hardware work queues the streams are spread over: the largest S whose
//           gpu.streams.concurrency time the schedule explains without a queue limit, each row at
//           the host's own issue rate while it issued that row where recorded (host_s)
//           (observed_queue_limit; none seen: no limit, Q = ∞). A queue that made the host's own
//           calls block would hide in host_s; on the four calibrations that kept it (2026-11-27)
//           the rows' host time per task at 8–128 streams stayed within ±8 % of their median. Not the measured plateau
//           gpu.streams.queues: on the H100 that plateau (84 kernels at 128 streams) is the host
//           issuing 512 tasks at h each, L·s/(L·h + s) = 86. Without the section the CUDA runtime's
//           documented default of CUDA_DEVICE_MAX_CONNECTIONS = 8 (or the value given): a fact of
//           the runtime, not a measurement
//   κ       copies in both directions at once share the link: one H2D and one D2H together take
//           κ·(t_H2D + t_D2H), κ = gpu.overlap.h2d_d2h_s / (h2d_s + d2h_s) (measured; 1/2 would be
//           full duplex); 1/2 without the overlap section
//
// The schedule (a max-plus recurrence over tasks k = 0 … L−1, stream s = k mod S, queue q = s mod Q;
// generalises Cecconi's pipeline, Eqs 3.2/3.3, from one worker per stage to S streams sharing two
// copy engines and c kernel slots):
//   H_k      = H_{k−1} + h                                          host has issued task k
//   ready_k  = max(H_k, D2H end of stream s's previous task + δ + (min(S, C) − 1)·q,
//                  [S > Q] kernel end of queue q's previous task)    false serialisation in a queue
//   in_k     = a_k + t_in,  a_k = max(ready_k, a_{k−1} + max(r·t_in, κ·(t_in + t_out), ρ·r·t_in))
//                                                                    H2D engine, in issue order; back-
//                                                                    to-back copies share the link
//   K_k      = max(in_k, a kernel slot free) + d_k, and ≥ F_k = max(K_k start, F_{k−1}) + t_full
//                                                                    (no faster than the full GPU)
//   d_k      = max(t_ker, n_k·t_full): kernels resident together share the GPU (processor sharing);
//              n_k = min(size of k's group, Q where streams share queues, 1 + ⌊t_ker/h⌋): groups of
//              m = min(S, c) consecutive tasks (the last one short), and no more kernels than the
//              host issues during one kernel.
//              With c = 128 resident grids and S ≥ 128 this is Cecconi's #SM bound in waves: ⌈L/c⌉
//              waves of max(t_ker, n·t_full). Generalises Eq 3.3's worker stage from one time per
//              worker to workers sharing one processor (and the data-parallel t_full, Eq 5.12).
//   out_k    = b_k + t_out, b_k = max(K_k, b_{k−1} + max(r·t_out, κ·(t_in + t_out), ρ·r·t_out))  D2H
//   The copy stage: a copy's latency is t_in (t_out), but its engine's occupancy is r·t_in, and a
//   back-to-back H2D/D2H pair's is κ·(t_in + t_out), with r·t and κ·(t_in + t_out) the per-copy and
//   per-pair times gpu.streams.copies measured when S streams issue copies (the largest measured
//   S not above S; linear in bytes between its 4 KiB and 1 MiB points, the 4 KiB value below):
//   copies of many streams overlap their setup, so the engine takes the next copy before the
//   previous one's latency is over. This generalises Cecconi's stage time (Eq 3.3, T_s = max_i t_i)
//   from one time per stage to a stage whose service time differs from its latency. Without the
//   table r = 1 and κ from gpu.overlap. Chosen on the first H100 farm run (2026-11-26, in-sample):
//   ratios to the transfer model's copy time instead predicted copy-bound cases 1.5–2.8× slow;
//   this form took the run's median error from 22.7 % to 11.3 % (p90 125 % → 33 %).
//   ρ: a copy beside copies in the other direction moves its bytes at the bidirectional rate, its
//   time alone r·t times ρ = (pair per pair) / (H2D copy alone) that gpu.streams.copies measured at
//   its largest size (1 MiB: 1.10–1.14 on the H100s; S ≥ 2, at one stream the pair is serial). κ·(t_in + t_out) reads the pair at the
//   mean of the two sizes, which shortens the larger copy of an unequal task (matmul: 2n² floats in,
//   n² out); ρ·r·t keeps it whole. 0 (no floor) without the table. Chosen on the 2026-11-27 farm
//   cases (GPU a07c6e1d): matmul 256² at S ≥ 8 from −19 % to −9 %; checked on the five other runs.
//   T_c      = max_k out_k
// Its steady state is the pipeline's slowest stage (Cecconi Eq 3.3 generalised):
//   T_s = max{ h, r·t_in, r·t_out, κ·(t_in + t_out), ρ·r·t_in, ρ·r·t_out, t_full, K / L,
//              (t_in + t_ker + t_out + δ + (min(S, C) − 1)·q) / S,  [S > Q] (t_in + t_ker) / Q }
//   K = ⌊L/m⌋·max(t_ker, n·t_full) + [r > 0] max(t_ker, min(r, n)·t_full), r = L − m⌊L/m⌋, n = min(m, Q, 1 + t_ker/h):
//   the kernel slots in waves ("kernel slots"; "GPU throughput" when a group saturates the GPU,
//   n·t_full ≥ t_ker) where S > c; for S ≤ c the streams limit the kernels: K/L = t_ker / S.
// and T_c ≈ L·T_s + fill/drain: t_in + t_ker + t_out − T_s when one shared stage binds (the classic
// pipeline: the first task's latency, then one task per T_s), the first copy-ins' stagger when the
// streams bind (Eqs 3.5/5.8: T_seq / n_w + T_ov). The recurrence computes T_c exactly.
// The bound stage is the term that sets T_s: "host issue", "H2D", "D2H", "copy link", "kernel slots",
// "GPU throughput", "per-stream latency", "work queues".
//   S = 0 (serial, Eq 3.4):  T = L · (t_in + t_ker + t_out + g + w),  g = gpu.streams.serial_task_s
//     minus its tiny parts (two synchronous round trips per task; without the section:
//     2 · launch_sync_s), w = gpu.launch.launch_sync_s − empty_kernel_s: the synchronous copy-out
//     waits for the task's kernel, still running when the host calls it — one synchronisation
//     round trip beyond the launch, which the calibration's serial task (an empty kernel, done
//     before that call) never paid. Seen on all six recorded runs as 4–7 µs a task under the
//     prediction at any size (run medians 3.8–6.7 µs, matmul and cosine S = 0, three calibrations);
//     w = 5.6–6.8 µs there.
//   pageable host memory, any S: the copies return only once staged or done, so the host issues the
//     next task after the previous one's copy-out: the serial form with the pageable curves; a copy
//     in of at most 64 KiB returns once staged (asynchronous with respect to the host, CUDA C++
//     Programming Guide), so the task's synchronisation round trip w overlaps it: g − w
//   data-parallel (Eq 5.12): T = T_H2D(L·b_in) + T_kernel(all L tasks, one launch) + T_D2H(L·b_out) + g + w
//     (w for pinned memory: its copy-out waits for the one launch too)
//   speedup over serial Sp(S) = T(0) / T(S), bounded by #SM for tasks of one block (Eq 5.9).
// S may exceed L: streams beyond the L-th get no task, so T(S) = T(L).
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "perfmodel/model/farm.hpp"
#include "perfmodel/model/profile.hpp"
#include "perfmodel/model/transfer_model.hpp"

namespace perfmodel {

// The per-task stage times and limits of the recurrence above.
struct FarmPipeline {
  double issue_s = 0;        // h
  double h2d_s = 0;          // t_in
  double d2h_s = 0;          // t_out
  double kernel_s = 0;       // t_ker
  double full_gpu_s = 0;     // t_full
  double kernel_slots = 1;   // c
  double queues = 8;         // Q; 0: no queue limit (none observed)
  double link_factor = 0.5;  // κ
  double serial_gap_s = 0;   // g: what the serial loop adds per task beyond t_in + t_ker + t_out
  double kernel_wait_s = 0;  // w: the serial loop's copy-out waiting for a running kernel (pinned)
  // The GPU's front end takes the connections' launches in turn: each round of S streams a task's
  // hand-off waits for those of the other streams, (min(S, C) − 1)·q. q: gpu.launch.queued.kernel_s;
  // C: CUDA_DEVICE_MAX_CONNECTIONS (0: no cap).
  double handoff_s = 0;      // q
  double connections = 0;    // C
  // What S streams add to each stream's chain per task: (min(S, C) − 1)·q.
  double round_wait_s(double streams) const;
  double chain_s = 0;        // δ: what one stream's chain adds per task beyond t_in + t_ker + t_out
  // Copies of different streams sharing the engines (gpu.streams.copies), by stream count
  // (ascending; the last entry at or below S applies): the engine's measured time per copy at the
  // task's bytes over t_in (t_out), r, and the measured pair's time over t_in + t_out, κ.
  // Empty: r = 1 and link_factor.
  struct Sharing {
    double streams = 1, h2d_ratio = 1, d2h_ratio = 1, link_factor = 0.5;
    // ρ: a copy's time beside the other direction's over its time alone (gpu.streams.copies at
    // its largest size: the pair's time per pair over the H2D copy's); 0: not measured.
    double bidir_slowdown = 0;
  };
  std::vector<Sharing> sharing;
};

struct FarmSchedule {
  double completion_s = 0;  // T_c from the recurrence
  double service_s = 0;     // T_s, the steady state
  std::string bound;        // the term that sets T_s
  double first_task_s = 0;  // latency of the first task (the pipeline's fill)
};

// The recurrence for S ≥ 1 streams (S > L acts as S = L). Throws InputError for L < 1 or S < 1.
FarmSchedule schedule_farm(const FarmPipeline& p, long long tasks, long long streams);
// The work-queue limit gpu.streams.concurrency shows: the largest stream count whose measured time
// this schedule explains without a queue limit (host issue, each stream's chain, `kernel_slots`
// resident grids), within 25 %, below the first it does not; 0 when every row is explained.
double observed_queue_limit(const StreamCalibration& s, double kernel_slots);
// The serial loop (S = 0).
double serial_farm_s(const FarmPipeline& p, long long tasks);

struct FarmPrediction {
  int streams = 0;  // 0: serial
  HostMemory memory = HostMemory::pinned;
  double completion_s = 0;
  double service_s = 0;
  std::string bound;
  double speedup_vs_serial = 0;         // T(0) / T(S), pinned serial reference
  double speedup_vs_data_parallel = 0;  // T_data_parallel / T(S)
};

struct FarmSetup {
  FarmTask task;                   // a built-in application's task, unless `workload` is given
  long long tasks = 0;
  HostMemory memory = HostMemory::pinned;
  std::optional<int> connections;  // CUDA_DEVICE_MAX_CONNECTIONS of the run predicted; unset: the profile's or 8
  // The host's issue cost per task instead of the profile's gpu.streams.issue_s (a recorded run's
  // own, for the validation report's what-if); unset: the profile's.
  std::optional<double> issue_s;
  ResourceTable resources;         // compiled resources of the farm kernels, where recorded
  // A described task instead (a workload file): its kernels, run one after another in the task's
  // stream, and its copies in and out; `task` is then unused.
  std::optional<GpuWorkload> workload;
  double bytes_in = 0, bytes_out = 0;

  std::string label() const;  // the task's label, or the workload's kernel name
  // A built-in application's task.
  static FarmSetup built_in(const FarmTask& task, long long tasks, HostMemory memory, std::optional<int> connections = {},
                            ResourceTable resources = {}) {
    FarmSetup s;
    s.task = task, s.tasks = tasks, s.memory = memory, s.connections = connections, s.resources = std::move(resources);
    return s;
  }
};

class FarmPredictor {
 public:
  // Throws InputError when the profile lacks what the prediction needs (pcie curves, gpu sections),
  // for a task with a problem, L < 1, or a task whose block cannot run on the GPU.
  FarmPredictor(const Profile& profile, const FarmSetup& setup);

  const FarmPipeline& pipeline() const { return pipeline_; }
  const FarmSetup& setup() const { return setup_; }
  // S ≥ 1 streams, or 0 for the serial loop; with pageable memory every S is the serial form.
  FarmPrediction predict(int streams) const;
  double serial_s() const { return serial_s_; }
  double data_parallel_s() const { return data_parallel_s_; }
  double sm_bound() const { return sms_; }  // Eq 5.9: Sp ≤ #SM for tasks of one block
  double bytes_in() const { return bytes_in_; }
  double bytes_out() const { return bytes_out_; }
  // The S to use among `candidates`: of those predicted within 5 % of the least completion time,
  // the smallest whose streams leave the binding stage headroom, (t_in + t_ker + t_out + δ) / S ≤
  // T_s / 2 (the schedule's knee is sharp, a real pipeline's is not: at the knee any jitter in a
  // chain idles the bottleneck), else the largest of them; S = 0 and pageable memory as predicted.
  int best_streams(const std::vector<int>& candidates) const;
  // What the prediction assumes instead of measuring (sections missing from the profile), and
  // where each number comes from.
  const std::vector<std::string>& assumptions() const { return assumptions_; }

 private:
  FarmSetup setup_;
  FarmPipeline pipeline_;
  FarmPipeline pageable_;
  double serial_s_ = 0, data_parallel_s_ = 0, sms_ = 0, bytes_in_ = 0, bytes_out_ = 0;
  std::vector<std::string> assumptions_;
};

// The stream counts a sweep tries: 0, 1, 2, 3, 4, 8, 16, 32, 64, #SM, 2·#SM (sorted, distinct).
std::vector<int> farm_stream_sweep(int sms);

}  // namespace perfmodel
