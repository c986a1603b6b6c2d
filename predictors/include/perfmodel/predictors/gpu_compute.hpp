#pragma once
// GPU computation time of a described workload (perfmodel/model/gpu_kernels.hpp), from the
// profile's gpu section. Generalises S0 §3.5.2/§4 (time = bytes ÷ bandwidth, Eq 3.1–3.13 for the
// launch) to every level a kernel can saturate, per wave (S0 Eq 3.8/3.10: full waves of
// SMs · Blks_SM^active blocks, then the fragment):
//
//   T = E_n, the end of the last launch on the launch timeline (max-plus):
//     H_i = H_{i−1} + h_i        the host has enqueued launch i   (H_0 = −lead)
//     E_i = max(E_{i−1} + g_i, H_i) + W_i                          (E_0 = base)
//     h: the host's back-to-back rate (gpu.launch.empty_kernel_s; a memset: queued.host_memset_s),
//     g: the GPU's own cost of a launch queued behind work (gpu.launch.queued: kernel_s, memset_s),
//     base: the queued sequence's constant (events), lead: how long the GPU stays busy with earlier
//     work after the host enqueues the start event (the validation runner's L2 flush: twice the L2
//     at the DRAM write ceiling, after_l2_flush). Closed form per phase of m equal launches:
//     E' = max(E + g + W_1 + (m−1)(g + W), H + h + W_1 + (m−1)(g + W), H + m·h + W_m).
//     A profile without gpu.launch.queued: g = base = lead = 0, each launch costs the host's rate.
//   W = Σ_waves T_wave
//   T_wave = max( T_dram, T_l1l2, T_issue + T_special + S, T_fp64, T_chain, T_atomic, T_sfu )   for a wave of k blocks
//     S        = t_wave for every wave after the launch's first, else 0: setting up a wave's blocks
//                takes the SM's dispatch slots, which the instructions need too, while the memory
//                pipes keep draining (conv2d at n = 4096, 62–83 waves: the L1-bound 16-wide blocks
//                ran in their L1 time, the issue-bound 32-wide ones in issue time plus the waves'
//                scheduling; added to the whole wave, the 16-wide ones ran 15–27 % over)
//     T_l1l2   = max(T_l1, T_l2) + [staged tiles] min(T_l1, T_l2) / b + E,  b = the wave's blocks per SM:
//                in a loop that stages tiles through shared memory between barriers a block's L2
//                fetch and its L1/shared work alternate, and only the other b − 1 blocks overlap
//                them (mm-opt at one or two blocks per SM ran 23–39 % over max(T_l1, T_l2));
//       E      = (chain_l2_loads · latency_L2 + chain_dram_loads · latency_DRAM) · (1 − 1/b) in a
//                launch of at most one wave, else 0: its blocks start together and stay in phase, so
//                every tile's fetch round trip finds no other block computing, and the overlap
//                above hides only the fetch's transfer, not its latency (b = 1: T_l2 already holds
//                it). mm-opt at n = 1024 (8–16 blocks per SM, 0.5–1 wave) ran 20–31 % over the
//                overlapped form, and ncu saw its L1 at 55–70 % of throughput there against 80–94 %
//                at n = 4096 (data/experiments/2026-11-23-h100-ncu); with E, 15–19 %.
//       serial tiles: one block per SM in that one wave, and a chain that counts the compiled
//                loop's fetch rounds (GpuPhase::fetch_rounds_in_chain: mv-opt with b in constant
//                memory, rounds read off the SASS): no other block overlaps anything, so a tile
//                waits for its rounds, moves its bytes, then works on them:
//                T_l1l2 = T_l1 + T_l2 + E with E's full chain (factor 1) and T_l2 at the SM's L2
//                share alone (B_L2 / (SMs · s); the latency is in E). mv-opt 64x16 at n = 1024
//                and 4096 (16 and 64 blocks) ran 1.04 and 1.17 µs a tile where the overlapped form
//                allowed 0.5: predicted 40–47 % under, and the tuner picked it (40–44 % slower
//                than 32x16); with the form and the rounds, 64x16 within 4–14 % and mv-opt's p90
//                37 → 22 %, tuner 5.6 → 2.3 % on the bundled run.
//     f        = k / blocks                      (the wave's share of the phase's work)
//     S_k      = min(SMs, k),  b = ⌈k / S_k⌉ blocks on the busiest SM,  w = b · warps per block
//     s        = b / k                           (the busiest SM's share of the wave's blocks: 1/S_k
//                when k is a multiple of S_k; 192 blocks on 132 SMs put two on 60 of them, s = 1/96)
//     q_blk    = warps per block · min(loads_in_flight, R) · request_bytes   (bytes one block has in
//                flight; R: the fitted per-warp request limit, not applied where the kernel issues its
//                loads together)
//                The DRAM curve reads q_blk at the loads that take a DRAM slot (dram_loads_in_flight,
//                docs/workload-format.md: an L1 hit on a line another access or warp brought takes
//                none, a hit on the access's own sector keeps it), T_l2's latency limit at all of
//                them: a stencil's neighbours ride on its centre's line. Chosen on the recorded
//                generalisation runs (five H100s, 2026-11-26/27): stencil2d_5pt −27 → −18 %,
//                stencil1d_3pt_f32 −22 → −7 %, stencil3d_7pt_zmarch −26 → −14 %; 423 reference runs
//                on seven machines unchanged but mv-global 64x1 (+3 %, −25 → −23 %)
//     T_dram   = f · dram_bytes / BW(k · q_blk)   BW: the fitted saturation curve (Little's law, knee)
//                at the bytes the wave's k blocks have in flight, on however many SMs (a streaming read
//                on 64 SMs with 16 KiB each reaches what 132 SMs with the same total do: data/experiments/
//                2026-11-23-h100); DRAM is shared, so every block streams at BW/k and the wave's blocks
//                end together, however unevenly they sit on the SMs (counting b blocks on every SM
//                put mv-opt, mv-shared and CG at n = 6144, 192 blocks, 16–22 % under);
//                + (run's first reads, L2 dirty at the start) k · min(f · dram_bytes, D) · BW/BW_peak,
//                k and D from gpu.l2_write_back: the write-back of the dirty lines the reads evict
//                (after the validation's L2 flush a 134 MB dot product on 1056 blocks takes 58.5 µs,
//                where its reads alone take 44)
//                A block's serial phase (GpuPhase::barriers: shared-memory rounds between barriers
//                after its loads, a reduction tree) holds its slot with no load in flight for
//                τ = barriers · (3 · latency_L1 + lat_FMA + warps per block · 7 / (I/SMs)) per r =
//                load_rounds of its loads (a shared load's, the store's and the barrier's round
//                trips, the add, the block's warps issuing the round's 7 instructions): BW is read at
//                q′ with q′ + BW(q′) · τ/r = q (a slot's loads are in flight L(q′) = q′/BW(q′) of every
//                L(q′) + τ/r), and T_l2's latency bound becomes q / (latency_L2 + τ/r). Chosen on the
//                generalisation suite's half E (GPUs 16f970b2, fa2202fb): reduce_two_pass −36 → −3 %,
//                reduce_tree512_atomic_f32 −27 → −6 %; nothing else moved (docs/workload-format.md,
//                "Barriers"). The default applies with a `chain` too (the
//                chain is its own bound in the max, the phase only moves q′): half G, GPU 7f47636c,
//                reduce_shared_tree_256_f64 −36.7 → −11.3 %; the reference dot's tree (stated,
//                log2(block) + 1): its 32 rows' mean error 9.7 → 8.4 % on every reference run.
//                q_blk × k × (1 + (1 − BW(q)/BW_peak) · W/R) where the descriptor splits its DRAM bytes
//                into reads R and writes W (dram_write_bytes): a store does not hold its warp, so the
//                writes stream in the DRAM time the reads leave idle (starved_triad_32x256 of the
//                generalisation suite's half A ran 44 % faster than writes queued behind the reads
//                allowed; at the peak, copy_f32 within 2 %; on the reference suite, which did not
//                choose it, CG's median 13.6 → 8.7 %)
//   The per-SM pipes below are not shared: the wave lasts as long as its busiest SM, which runs
//   the share s of its work (spreading it evenly over S_k SMs put the median 0.1–0.3 points higher
//   on every recorded run: the matrix products' and convolutions' partial last waves).
//     T_l2     = f · l2_bytes / min(B_L2 / (SMs · s), k · q_blk / latency_L2)
//     T_l1     = f · s · max(address, data) · t(1)                              t(d): conflict curve, per SM
//                address = l1_wavefronts + Σ_d shared_d · t(d)/t(1)   (a global access: a pass per line)
//                data    = l1_data_bytes / 54 B + Σ_d shared_d · t(d)/t(1)  (a 128-B line hitting L1 takes
//                          2.37 passes on the H100: tests/gpu/test_descriptor_passes.cu)
//     T_issue  = f · s · (warp_instructions + (σ − 1)·integer_warp_instructions) / min(I/SMs, w / lat_FMA),
//                I = FP32 ceiling / 64: one warp
//                instruction per scheduler per clock (what the FMA ceiling measures); with few warps, a
//                warp issues once per dependent-FMA latency
//                integer work (a workload's `int`: operations as written, model/src/kernel_derivation.cpp)
//                enters warp_instructions at I / (int32_logic / 32) slots per 32 operations, int32_logic
//                the measured rate of a shift/xor/add chain (gpu.compute): the ALU pipe runs logic and
//                shifts at half the issue rate (CUDA C++ Programming Guide, throughput table for
//                compute capability 9.0: 64 results a clock per SM against FP32's 128), the FMA pipes
//                take multiply-adds and the left shifts and adds the compiler moves there (IMAD,
//                IMAD.SHL, VIADD); two operations in three stay on the ALU in the SASS of such chains,
//                so a profile without int32_logic takes 4/3 slots. The generalisation suite's integer
//                chains (2026-11-27, GPU fa2202fb) came out 42–48 % over at the IMAD price (1.9 slots)
//                and 0 to +7 % at 4/3.
//                σ = I / (int32_logic / 32) is that price per instruction; a compiled count's integer
//                instructions (its `integer_share`, Nsight Compute's executed-instruction mix) pay it
//                too. Chosen on the blur kernel, issue-bound and 72 % integer (IMAD, IADD3, ISETP):
//                −16 % at one slot each, 0 % at σ on the 2026-11-27 reference run (GPU 29a2cd25,
//                re-analysed); conv2d-global (57 %) −5 → −2 %; the farm's blur tasks were the check.
//     T_special= f · s · special_calls / min(C/SMs, 32·w / lat_cosf),  C = the cosf ceiling; the calls
//                share the issue slots with the other instructions, so the two add
//     T_fp64   = f · s · SMs · flops_fp64 / FP64 ceiling
//     T_chain  = chain_fma · lat_FMA + chain_cosf · lat_cosf + Σ_level chain_level_loads · latency_level
//                (L1, L2, DRAM: the pointer-chase latencies; mv-opt: per tile one DRAM round trip and
//                X/Y dependent L1 loads)
//     T_atomic = f · max( Σ_a w_a · steps_a · r_type(W_a),  max_a U_a / K_a · λ_type ):
//                the L2 applies a warp access's updates in steps (per sector, the most lanes on one
//                word: GpuPhase::Atomic), GPU-wide at r_type(W) seconds a step when they spread over
//                W bytes (more bytes reach more L2 slices; gpu.atomics' time per update at
//                K = max(8, W/32) sectors: AtomicCurve::step_s), and a word's U/K updates follow
//                one another at λ_type (its K = 1 time per update). W: the access's window, else its
//                footprint, or f · footprint where a warp updates one address (the resident warps'
//                slots). Chosen on the atomics sweep and the generalisation suite's half A
//                (reduce_atomic_i32 −3 %, hist_global_8 +1 %); docs/workload-format.md, "Atomics".
//                Without gpu.atomics for the type: f · atomic_sector_updates · 0.70 ns (fitted to
//                the generalisation suite's half A: reduce_atomic_i32, hist_global_8)
//     T_sfu    = f · s · SMs · sfu_calls / fast_cosf ceiling: fast special functions run on the SFU
//                beside the FP32 pipe, their MUFU instructions counted in warp_instructions
//                (sfu_sin_chain, half A: 19 % over when summed with the issue term)
//   t_wave   = the measured cost of scheduling one more wave of blocks (gpu.launch.per_wave_s).
// The special forms that remain (staged tiles, their in-phase latency E, serial tiles) pay for
// themselves on runs they were not chosen on: re-analysing the five other H100 machines' reference
// runs (data/validation/other) without each, the tuner's mean loss rises from 2.3–3.4 % to 4.7–5.8 %
// (serial tiles), 5.2–6.3 % (E) and 5.9–6.9 % (staged tiles), and p90 from 18.5–20.5 % to up to
// 22.3 % (E) and 24.0 % (staged tiles). Format-2 signatures set them with the kernel keys
// staged_tiles and fetch_rounds_in_chain.
// The validation data chose the forms that differ from the seeds: overlap (max) between the memory
// levels and the pipelines, except a staged-tile loop's L2 and L1 phases (the share of blocks;
// combining the DRAM term too put mv-shared 37 % off), the issue slots shared by special calls
// and by the wave scheduling, the latency-limited issue, the launch timeline (host rate, queued
// GPU cost, the flush's lead: data/experiments/2026-11-23-h100-launch-warmup); see
// data/validation/…/report.md.
#include <string>
#include <vector>

#include "perfmodel/model/execution_metrics.hpp"
#include "perfmodel/model/gpu_calibration.hpp"
#include "perfmodel/model/gpu_kernels.hpp"
#include "perfmodel/model/profile.hpp"

namespace perfmodel {

struct GpuPhasePrediction {
  std::string name;
  double launches = 1;
  ExecutionMetrics metrics;
  double seconds = 0;  // all launches of the phase
  // Per launch, summed over waves: each wave's time is the max of these (a staged-tile loop's
  // l2 and l1 combine first, T_l1l2 above); `bound` names the largest over the phase.
  double launch_s = 0, dram_s = 0, l2_s = 0, l1_s = 0, issue_s = 0, fp64_s = 0, special_s = 0, chain_s = 0, atomic_s = 0;
  std::string bound;
  double bytes_in_flight = 0, dram_Bps_reachable = 0;  // in a full wave
};

struct GpuPrediction {
  double seconds = 0;
  std::vector<GpuPhasePrediction> phases;
  // Sums over phases (all launches) of the parts, for reporting.
  double launch_s = 0, dram_s = 0, l2_s = 0, l1_s = 0, issue_s = 0, fp64_s = 0, special_s = 0, chain_s = 0, atomic_s = 0;
  std::string bound;  // the part with the largest share of the time
  // Achieved fractions of the ceilings at the predicted time.
  double dram_fraction = 0, flop_fraction = 0;

  // The phase that takes longest (whose launch configuration matters most); nullptr when none.
  const GpuPhasePrediction* longest_phase() const {
    const GpuPhasePrediction* best = nullptr;
    for (const GpuPhasePrediction& ph : phases)
      if (!best || ph.seconds > best->seconds) best = &ph;
    return best;
  }
};

// What the GPU holds when the run starts: the state an earlier piece of work left behind.
struct GpuRunStart {  // {}: a clean L2
  // The L2 full of written data: the validation runner's state at every timed run (it flushes
  // the L2 by a memset of twice its size), and any kernel's after one that wrote more than the L2
  // holds. The run's first DRAM reads pay the profile's gpu.l2_write_back for it.
  bool l2_dirty = false;
  // How long the GPU stays busy with earlier work after the host enqueues the start event (the
  // runner's L2-flush memset): launches the host enqueues meanwhile wait in the queue.
  double queue_lead_s = 0;
};
// Right after the validation runner's L2 flush (a memset of twice the L2, enqueued just before the
// start event): a dirty L2, and the GPU busy for the flush's time at the profile's DRAM write
// bandwidth (0 where the profile has no dram_write ceiling).
GpuRunStart after_l2_flush(const GpuCalibration& gpu);
// The validation runner's state (and the CLI's default): after_l2_flush where the profile measured
// what a dirty L2 costs (gpu.l2_write_back), a clean L2 and an idle GPU otherwise.
inline GpuRunStart dirty_l2_where_measured(const GpuCalibration& gpu) {
  return gpu.l2_write_back ? after_l2_flush(gpu) : GpuRunStart{};
}

// Throws InputError when the profile lacks a part the workload needs (ceilings, launch, device).
GpuPrediction predict_gpu(const GpuCalibration& gpu, const GpuWorkload& workload, const GpuRunStart& start = {});

// The cost of the workload per repetition when it runs back to back (`--timing steady`): the
// difference between 2m and m repetitions from an idle GPU, divided by m (m = 16), so that the
// first repetition's start (the host's lead, a dirty L2) cancels and what remains is the launch
// timeline's steady rate.
double predict_gpu_steady_seconds(const GpuCalibration& gpu, const GpuWorkload& workload);

}  // namespace perfmodel
