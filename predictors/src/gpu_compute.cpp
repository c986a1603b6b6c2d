#include "perfmodel/predictors/gpu_compute.hpp"

#include <algorithm>
#include <cmath>

#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/kernel_description.hpp"

namespace perfmodel {
namespace {

// Bytes of global data one pass of L1's data stage moves: a warp's 128-byte line that hits L1
// takes 2.37 passes of a conflict-free shared access on the H100 (sm_90; tests/gpu/
// test_descriptor_passes.cu measures it and fails when a GPU differs).
constexpr double kGlobalBytesPerPass = 128 / 2.37;

// Seconds the L2 takes to apply one atomic update to a 32-byte sector that other updates are
// waiting for (they are applied one after another). Used only where the profile has no gpu.atomics
// measurement for the atomic's type (profiles before that benchmark, format-1 and reference
// descriptors, which list no atomics one by one): fitted to the generalisation suite's half A on the H100 (2026-11-26): one int32 address
// updated once per warp took 0.77 ns a warp (reduce_atomic_i32), 8 addresses in one sector
// 0.64 ns per address and warp (hist_global_8); 0.70 ns is their geometric mean.
constexpr double kAtomicSectorUpdate_s = 0.70e-9;

struct Rates {
  double sms = 0;
  double l2_Bps = 0, fp64 = 0, special = 0, issue = 0, sfu = 0;  // GPU-wide (sfu: 0 where the profile has no fast_cosf)
  double t1 = 0;                                       // seconds per conflict-free warp access, per SM
  const ConflictCurve* conflicts = nullptr;
  double lat_l1 = 0, lat_l2 = 0, lat_dram = 0, lat_fma = 0, lat_cosf = 0;
  double launch = 0, per_wave = 0;
  // Launches queued behind work (gpu.launch.queued): the GPU's own cost per kernel and per
  // memset, the constant of the queued sequence (events), and the host's cost per memset. A
  // profile without them: the GPU's costs 0, a memset costs the host a launch, so every launch
  // costs the host's back-to-back rate.
  bool queued = false;
  double queued_kernel = 0, queued_memset = 0, queue_base = 0, host_memset = 0;
  double fp32 = 0, dram_peak = 0;
  double int_slot = 1;  // FP32 issue slots per integer instruction of a compiled count (integer_issue_slots)
  const L2WriteBack* write_back = nullptr;
  const SaturationCurve* dram = nullptr;
  const std::map<std::string, AtomicCurve>* atomics = nullptr;  // gpu.atomics (empty in older profiles)
};

Rates rates_of(const GpuCalibration& g) {
  Rates r;
  r.sms = g.device.multiprocessors;
  r.atomics = &g.atomics;
  if (!(r.sms >= 1)) throw InputError("the profile's gpu.device has no multiprocessor count");
  r.fp32 = g.ceiling("fp32").median;
  r.issue = r.fp32 / 64;  // warp FMA instructions per second: 32 lanes × 2 flop
  r.int_slot = integer_issue_slots(&g);
  r.fp64 = g.ceiling("fp64").median;
  r.special = g.ceiling("cosf").median;
  if (const auto fast = g.ceilings.find("fast_cosf"); fast != g.ceilings.end()) r.sfu = fast->second.median;
  r.l2_Bps = g.ceiling("l2_read").median;
  if (!g.dram_concurrency) throw InputError("the profile has no gpu.dram_concurrency fit (run perfmodel calibrate --only gpu)");
  r.dram = &*g.dram_concurrency;
  r.dram_peak = g.dram_concurrency->peak_Bps;
  if (g.l2_write_back) r.write_back = &*g.l2_write_back;
  const auto c4 = g.bank_conflicts.find(4);
  if (c4 != g.bank_conflicts.end() && !c4->second.seconds_per_access.empty()) {
    r.conflicts = &c4->second;
    r.t1 = c4->second.seconds_per_access.front();
  } else {
    r.t1 = 128 * r.sms / g.ceiling("shared_load").median;
  }
  if (!g.latency) throw InputError("the profile has no gpu.latency section");
  r.lat_l1 = g.latency->l1_s;
  r.lat_l2 = g.latency->l2_s;
  r.lat_dram = g.latency->dram_s;
  if (g.operation_latency) {
    r.lat_fma = g.operation_latency->fp32_fma_s;
    r.lat_cosf = g.operation_latency->cosf_s;
  }
  if (!g.launch) throw InputError("the profile has no gpu.launch section");
  r.launch = g.launch->empty_kernel_s;
  r.per_wave = g.launch->per_wave_s;
  r.host_memset = r.launch;  // an older profile: a memset costs the host a launch
  if (const auto& q = g.launch->queued) {
    r.queued = true;
    r.queue_base = q->base_s;
    r.queued_kernel = q->kernel_s;
    r.queued_memset = q->memset_s;
    r.host_memset = q->host_memset_s;
  }
  return r;
}

// Passes of the L1/shared data path (one pass = one conflict-free warp-wide 4-byte shared access).
double shared_passes(const Rates& r, const std::map<double, double>& accesses) {
  double passes = 0;
  for (const auto& [degree, count] : accesses) passes += count * (r.conflicts ? r.conflicts->penalty(degree) : degree);
  return passes;
}

struct WaveParts {
  double dram = 0, l2 = 0, l1 = 0, issue = 0, fp64 = 0, special = 0, chain = 0;
  double q = 0, bw = 0;
  double atomic = 0;  // the busiest sector's atomic updates, one after another
  double sfu = 0;     // fast special-function calls on their own pipe
  // The special calls are instruction sequences too: they and the other instructions share the
  // schedulers' issue slots, so their times add; the memory levels overlap with both.
  // A staged-tile loop (GpuPhase::staged_tiles): each block alternates its L2 fetch of a tile
  // and its L1/shared work on it, between barriers; only the other blocks resident on the SM
  // overlap them, so of the shorter of the two a 1/blocks share stays exposed.
  // In a launch of one wave or less the blocks run in phase: each tile's fetch latency stays
  // exposed except to the share one block already serialises (T_l1l2's E in the header).
  double staged_blocks = 0;  // resident blocks per SM in the wave; 0: not a staged-tile loop
  double in_phase_latency = 0;
  double l1_l2() const {
    return staged_blocks > 0 ? std::max(l1, l2) + std::min(l1, l2) / staged_blocks + in_phase_latency : std::max(l1, l2);
  }
  // Scheduling this wave's blocks (every wave after a launch's first): the SM sets up the new
  // blocks' warps with the same dispatch slots the instructions use, so the cost joins the issue
  // term, and the memory pipes keep draining meanwhile (conv2d-global at n = 4096: the L1-bound
  // 16-wide blocks hide their 82 waves' 50 µs, the issue-bound 32-wide ones pay it).
  double scheduling = 0;
  double total() const { return std::max({dram, l1_l2(), issue + special + scheduling, fp64, chain, atomic, sfu}); }
};

// A launch's global atomics (`f`: the wave's share of the launch): the L2's steps at the measured
// time per step for the bytes they spread over, and each word's updates one after another at the
// type's same-word rate, whichever is longer. The bytes: the access's window, else its footprint,
// except where a warp updates one address (its warp's or block's slot): the warps resident at one
// time then update only their share of the footprint, F·f (reduce_block_atomic_f64: 2 MiB of block
// sums, of which the resident blocks' 8 KiB are updated at one time). A profile without gpu.atomics,
// or a phase that does not list its atomics one by one, keeps the fitted constant on the busiest
// sector; an access whose type the profile did not measure takes it too.
double atomic_seconds(const Rates& r, const GpuPhase& p, double f) {
  if (p.atomics.empty() || r.atomics->empty()) return p.atomic_sector_updates * kAtomicSectorUpdate_s;
  double serial = 0, steps = 0, unmeasured = 0;
  for (const GpuPhase::Atomic& a : p.atomics) {
    const auto c = r.atomics->find(a.type);
    if (c == r.atomics->end() || c->second.seconds_per_update.empty()) {
      unmeasured = std::max(unmeasured, a.sector_updates * kAtomicSectorUpdate_s);
      continue;
    }
    const double window = a.window_bytes > 0 ? a.window_bytes : a.one_address_per_warp ? a.footprint_bytes * std::min(1.0, f) : a.footprint_bytes;
    steps += a.warp_accesses * a.steps_per_warp * c->second.step_s(window);
    serial = std::max(serial, a.updates / a.words * c->second.same_word_update_s());
  }
  return std::max({serial, steps, unmeasured});
}

// Issue slots one warp takes in a round of a block's serial phase: the compare and the branch of
// the round's condition, two shared loads, the add, the store and the barrier (the PTX of the
// generalisation suite's trees, kernels/cuda/src/generalisation_kernels.cuh).
constexpr double kSerialRoundInstructions = 7;

// The serial phase of one block after its loads (GpuPhase::barriers), per barrier: a shared
// load's round trip, the dependent add, the store's and the barrier's round trips (each taken as
// an L1 round trip: the profile has no barrier latency), and the block's warps issuing the
// round's instructions at the SM's issue rate (the barrier releases after the last of them).
double serial_phase_s(const Rates& r, const GpuPhase& p) {
  if (p.barriers <= 0) return 0;
  const double warps = std::ceil(p.threads_per_block() / 32);
  return p.barriers * (3 * r.lat_l1 + r.lat_fma + warps * kSerialRoundInstructions * r.sms / r.issue);
}

// `evicting`: the launch's DRAM bytes (over all its waves) that evict dirty L2 lines.
WaveParts wave(const Rates& r, const GpuPhase& p, const ExecutionMetrics& m, double k, double evicting) {
  WaveParts w;
  const double f = k / m.blocks;
  const double sms_used = std::min(r.sms, k);
  const double blocks_per_sm = std::ceil(k / sms_used), warps_per_sm = blocks_per_sm * m.warps_per_block;
  // The per-SM pipes (L1, issue, special functions, FP64, the SM's L2 port) are not shared: the
  // wave lasts as long as its busiest SM, which runs this share of the wave's blocks.
  const double busiest = blocks_per_sm / k;
  // A one-wave launch of one block per SM whose chain holds its compiled fetch rounds: each tile
  // waits for its rounds, then moves its bytes at the SM's share of L2, then works on them, with
  // no other block to overlap any of it (mv-opt 64x16 at n = 1024 and 4096: 1.04 and 1.17 µs a
  // tile, where the overlapped form allowed 0.5).
  const bool serial_tiles = p.staged_tiles && p.fetch_rounds_in_chain && m.waves <= 1 && blocks_per_sm == 1;
  if (p.staged_tiles) {
    w.staged_blocks = blocks_per_sm;
    if (m.waves <= 1)
      w.in_phase_latency = (p.chain_l2_loads * r.lat_l2 + p.chain_dram_loads * r.lat_dram) * (serial_tiles ? 1 : 1 - 1 / blocks_per_sm);
  }
  // The curve is read at the wave's bytes in flight, however few SMs hold them: 64 SMs with
  // 16 KiB each read 2.10 TB/s, what 132 SMs with the same 1 MiB in all read (data/experiments/
  // 2026-11-23-h100/sm_bandwidth.csv; one SM alone reaches 70 GB/s). DRAM is shared: each of
  // the k blocks streams at BW/k and they end together, however unevenly they sit on the SMs.
  // The DRAM curve is read at the loads that take a DRAM slot (GpuPhase::dram_loads_in_flight: a
  // stencil's neighbour loads hit lines its centre load brought), the L2 latency limit at all of
  // them (they all wait on L2).
  const auto q_block_of = [&](double loads) {
    return p.loads_issued_together ? m.warps_per_block * loads * p.request_bytes
                                   : r.dram->bytes_in_flight(1, m.warps_per_block, loads, p.request_bytes);
  };
  const double q_block = q_block_of(p.loads_in_flight);
  const double dram_loads = p.dram_loads_in_flight > 0 ? std::min(p.dram_loads_in_flight, p.loads_in_flight) : p.loads_in_flight;
  const double q_block_dram = dram_loads < p.loads_in_flight ? q_block_of(dram_loads) : q_block;
  w.q = q_block_dram * k;
  // Stores do not hold their warps: while the warps wait for their loads, the written bytes
  // stream in the DRAM time the reads leave idle. The bytes in flight grow by the writes' share
  // of the DRAM bytes times that idle fraction, 1 − BW(q)/peak: a latency-bound loop moves its
  // writes almost for free (starved_triad_32x256: 44 % over when they queued behind the reads),
  // a saturated one shares the bandwidth (copy_f32 at 2^27 within 2 %; with the full share,
  // 13 % under). Both half A of the generalisation suite (H100, 2026-11-26).
  const double reads = p.dram_bytes - p.dram_write_bytes;
  if (p.dram_write_bytes > 0 && reads > 0) w.q *= 1 + (1 - r.dram->bandwidth_Bps(w.q) / r.dram_peak) * p.dram_write_bytes / reads;
  // The serial phase (GpuPhase::barriers): after each of its load rounds a block slot holds no
  // load for tau, so a slot's loads are in flight for L(q') of every L(q') + tau, where L(x) = x /
  // BW(x) is the curve's latency at x bytes in flight: q' = q · L(q') / (L(q') + tau), i.e.
  // q' + BW(q') · tau = q (increasing in q': bisection).
  const double tau = serial_phase_s(r, p) / p.load_rounds;
  double q_stream = w.q;
  if (tau > 0) {
    double lo = 0, hi = w.q;
    for (int i = 0; i < 100; ++i) {
      const double mid = 0.5 * (lo + hi);
      (mid + r.dram->bandwidth_Bps(mid) * tau < w.q ? lo : hi) = mid;
    }
    q_stream = 0.5 * (lo + hi);
  }
  w.bw = r.dram->bandwidth_Bps(q_stream);
  w.dram = f * p.dram_bytes / w.bw;
  if (evicting > 0) w.dram += r.write_back->extra_s(f * evicting, w.bw / r.dram_peak);
  const double l2_share = r.l2_Bps / (r.sms * busiest);  // the busiest SM's share of the L2 ceiling
  w.l2 = f * p.l2_bytes / (serial_tiles ? l2_share : std::min(l2_share, w.q * (q_block / q_block_dram) / (r.lat_l2 + tau)));
  // The L1/shared pipeline has an address stage (a global access: one pass per line it touches;
  // a shared access: its conflict passes) and a data stage (a shared access: the same passes;
  // global data: kGlobalBytesPerPass per pass). The stages overlap; the slower sets the pace.
  const double shared = shared_passes(r, p.shared_accesses);
  const double address = p.l1_wavefronts + shared, data = p.l1_data_bytes / kGlobalBytesPerPass + shared;
  w.l1 = f * std::max(address, data) * r.t1 * busiest;
  // A warp issues its next instruction when the previous result is ready: with few warps per SM
  // the issue rate is at most warps / FMA latency per SM (one dependent step per latency).
  double issue_per_sm = r.issue / r.sms;
  if (r.lat_fma > 0) issue_per_sm = std::min(issue_per_sm, warps_per_sm / r.lat_fma);
  // A compiled count's integer instructions issue at the profile's integer rate (int_slot slots each).
  w.issue = f * (p.warp_instructions + p.integer_warp_instructions * (r.int_slot - 1)) * busiest / issue_per_sm;
  w.fp64 = p.flops_fp64 > 0 ? f * p.flops_fp64 * busiest * r.sms / r.fp64 : 0;
  if (p.special_calls > 0) {
    double per_sm = r.special / r.sms;
    if (r.lat_cosf > 0) per_sm = std::min(per_sm, warps_per_sm * 32 / r.lat_cosf);
    w.special = f * p.special_calls * busiest / per_sm;
  }
  w.atomic = f * atomic_seconds(r, p, f);
  // The SFU runs beside the FP32 pipe: a fast call's MUFU instruction takes one issue slot
  // (counted in warp_instructions) and the SFU's rate bounds the calls on their own (sfu_sin_chain,
  // half A of the generalisation suite: 19 % over when its calls and adds were summed).
  if (p.sfu_calls > 0) {
    const double rate = r.sfu > 0 ? r.sfu : r.special;
    w.sfu = f * p.sfu_calls * busiest * r.sms / rate;
  }
  w.chain = p.chain_fma * r.lat_fma + p.chain_cosf * r.lat_cosf + p.chain_l1_loads * r.lat_l1 + p.chain_l2_loads * r.lat_l2 +
            p.chain_dram_loads * r.lat_dram;
  return w;
}

}  // namespace

GpuRunStart after_l2_flush(const GpuCalibration& gpu) {
  GpuRunStart s;
  s.l2_dirty = true;
  const auto write = gpu.ceilings.find("dram_write");
  if (write != gpu.ceilings.end() && write->second.median > 0)
    s.queue_lead_s = 2 * gpu.device.l2_cache_bytes / write->second.median;
  return s;
}

GpuPrediction predict_gpu(const GpuCalibration& gpu, const GpuWorkload& workload, const GpuRunStart& start) {
  const Rates r = rates_of(gpu);
  GpuPrediction out;
  if (start.l2_dirty && !r.write_back)
    throw InputError("the profile has no gpu.l2_write_back: it cannot predict a run that starts with a dirty L2 (run perfmodel calibrate --only gpu)");
  double dirty = start.l2_dirty ? r.write_back->bytes : 0;  // reads still to pay for the write-back
  // The launch timeline (max-plus): the host enqueues launch i at H_i = H_{i-1} + its host cost;
  // the GPU starts it at S_i = max(E_{i-1} + its queued cost, H_i) and ends it at E_i = S_i + w_i.
  // Time 0 is the start event; the host enqueued it `lead` earlier (work still queued in front).
  // Without the GPU's queued costs (an older profile) the lead cannot be used: launches would be free.
  double host = r.queued ? -start.queue_lead_s : 0, gpu_end = r.queue_base;
  const auto enqueue = [&](double launches, double host_cost, double gpu_cost, double first_work, double work) {
    if (launches <= 0) return 0.0;
    const double before = gpu_end;
    const double gpu_path = gpu_end + gpu_cost + first_work + (launches - 1) * (gpu_cost + work);
    const double first_host = host + host_cost + first_work + (launches - 1) * (gpu_cost + work);
    host += launches * host_cost;
    const double last_host = host + (launches > 1 ? work : first_work);
    gpu_end = std::max({gpu_path, first_host, last_host});
    return gpu_end - before;
  };
  for (const GpuPhase& p : workload.phases) {
    GpuPhasePrediction pp;
    pp.name = p.name;
    pp.launches = p.launches;
    if (p.launches <= 0) continue;
    if (p.name == "memset") {  // an asynchronous memset: no measurable work
      pp.seconds = enqueue(p.launches, r.host_memset, r.queued_memset, 0, 0);
      pp.launch_s = pp.seconds / p.launches;
      pp.bound = "launch";
      out.launch_s += pp.seconds;
      out.seconds += pp.seconds;
      out.phases.push_back(pp);
      continue;
    }
    pp.metrics = execution_metrics(gpu.device, p.blocks(), p.threads_per_block(), p.registers_per_thread, p.shared_bytes_per_block);
    const ExecutionMetrics& m = pp.metrics;
    const double slots = m.blocks_per_sm * r.sms;
    // (blocks in the wave, how many such waves, whether they pay the scheduling of a later wave)
    struct Waves {
      double blocks, count;
      bool later;
    };
    std::vector<Waves> waves;
    if (m.full_waves > 0) waves.push_back({slots, 1, false});
    if (m.full_waves > 1) waves.push_back({slots, m.full_waves - 1, true});
    if (m.fragment_blocks > 0) waves.push_back({m.fragment_blocks, 1, m.full_waves > 0});
    // The phase's first launch evicts what is left of the dirty L2; only it pays the write-back.
    const double evicting = std::min(dirty, p.dram_bytes);
    dirty -= evicting;
    double per_launch = 0, write_back_s = 0, scheduling = 0;
    for (const auto& [k, count, later] : waves) {
      WaveParts w = wave(r, p, m, k, 0);
      if (later) w.scheduling = r.per_wave, scheduling += count * r.per_wave;
      if (evicting > 0) {
        WaveParts evicted = wave(r, p, m, k, evicting);
        evicted.scheduling = w.scheduling;
        write_back_s += count * (evicted.total() - w.total());
      }
      per_launch += count * w.total();
      pp.dram_s += count * w.dram, pp.l2_s += count * w.l2, pp.l1_s += count * w.l1, pp.issue_s += count * w.issue;
      pp.fp64_s += count * w.fp64, pp.special_s += count * std::max(w.special, w.sfu), pp.chain_s += count * w.chain, pp.atomic_s += count * w.atomic;
      if (pp.bytes_in_flight == 0) pp.bytes_in_flight = w.q, pp.dram_Bps_reachable = w.bw;
    }
    pp.seconds = enqueue(p.launches, r.launch, r.queued_kernel, per_launch + write_back_s, per_launch);
    // What the launches add beyond the work (per launch), and the wave scheduling (reported with
    // the launch costs, though it competes with the instructions for issue slots).
    pp.launch_s = std::max(0.0, pp.seconds - p.launches * per_launch - write_back_s) / p.launches + scheduling;
    pp.dram_s += write_back_s / p.launches;  // the parts are per launch
    const std::vector<std::pair<const char*, double>> parts = {{"dram", pp.dram_s}, {"l2", pp.l2_s},     {"l1/shared", pp.l1_s},
                                                               {"issue", pp.issue_s}, {"fp64", pp.fp64_s}, {"special", pp.special_s},
                                                               {"latency", pp.chain_s}, {"atomic", pp.atomic_s}, {"launch", pp.launch_s}};
    pp.bound = std::max_element(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.second < b.second; })->first;
    out.seconds += pp.seconds;
    out.launch_s += p.launches * pp.launch_s, out.dram_s += p.launches * pp.dram_s, out.l2_s += p.launches * pp.l2_s;
    out.l1_s += p.launches * pp.l1_s, out.issue_s += p.launches * pp.issue_s, out.fp64_s += p.launches * pp.fp64_s;
    out.special_s += p.launches * pp.special_s, out.chain_s += p.launches * pp.chain_s;
    out.atomic_s += p.launches * pp.atomic_s;
    out.phases.push_back(pp);
  }
  out.seconds += r.queue_base;  // the start event to the GPU's first launch slot
  out.launch_s += r.queue_base;
  const std::vector<std::pair<const char*, double>> parts = {{"dram", out.dram_s}, {"l2", out.l2_s},     {"l1/shared", out.l1_s},
                                                             {"issue", out.issue_s}, {"fp64", out.fp64_s}, {"special", out.special_s},
                                                             {"latency", out.chain_s}, {"atomic", out.atomic_s}, {"launch", out.launch_s}};
  out.bound = std::max_element(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.second < b.second; })->first;
  if (out.seconds > 0) {
    double flops = 0;
    for (const GpuPhase& p : workload.phases) flops += p.launches * (p.flops_fp32 + p.flops_fp64);
    out.dram_fraction = workload.dram_bytes() / out.seconds / r.dram_peak;
    out.flop_fraction = flops / out.seconds / r.fp32;
  }
  // The last line of defence: a value the profile's or the workload's limits let through still
  // never becomes a time.
  for (const double part : {out.seconds, out.launch_s, out.dram_s, out.l2_s, out.l1_s, out.issue_s, out.fp64_s, out.special_s,
                            out.chain_s, out.atomic_s, out.dram_fraction, out.flop_fraction})
    if (!std::isfinite(part))
      throw InputError("the predicted time of " + workload.kernel +
                       " is not a finite number: the profile's gpu section or the workload lies outside what the model covers");
  return out;
}

double predict_gpu_steady_seconds(const GpuCalibration& gpu, const GpuWorkload& w) {
  auto repeated = [&](int m) {
    GpuWorkload r = w;
    r.phases.clear();
    for (int i = 0; i < m; ++i) r.phases.insert(r.phases.end(), w.phases.begin(), w.phases.end());
    return predict_gpu(gpu, r, GpuRunStart{}).seconds;
  };
  constexpr int m = 16;
  return (repeated(2 * m) - repeated(m)) / m;
}

}  // namespace perfmodel
