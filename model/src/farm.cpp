#include "perfmodel/model/farm.hpp"

#include <cmath>

#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/kernel_workload.hpp"

namespace perfmodel {

const char* to_string(FarmApp app) {
  switch (app) {
    case FarmApp::cosine: return "cosine";
    case FarmApp::matmul: return "matmul";
    case FarmApp::blur: return "blur";
  }
  return "?";
}

std::optional<FarmApp> parse_farm_app(const std::string& text) {
  if (text == "cosine") return FarmApp::cosine;
  if (text == "matmul") return FarmApp::matmul;
  if (text == "blur") return FarmApp::blur;
  return std::nullopt;
}

std::string FarmTask::label() const {
  const std::string s = std::to_string(size);
  switch (app) {
    case FarmApp::cosine: return "cosine " + s + " floats M=" + std::to_string(iterations);
    case FarmApp::matmul: return "matmul " + s + "x" + s;
    case FarmApp::blur: return "blur " + s + "x" + s;
  }
  return "?";
}

double FarmTask::bytes_in() const {
  const double n = size;
  switch (app) {
    case FarmApp::cosine: return 4 * n;
    case FarmApp::matmul: return 8 * n * n;
    case FarmApp::blur: return 3 * n * n;
  }
  return 0;
}

double FarmTask::bytes_out() const {
  const double n = size;
  switch (app) {
    case FarmApp::cosine: return 4 * n;
    case FarmApp::matmul: return 4 * n * n;
    case FarmApp::blur: return 3 * n * n;
  }
  return 0;
}

double FarmTask::blocks() const {
  const double n = size;
  switch (app) {
    case FarmApp::cosine: return std::ceil(n / 1024);
    case FarmApp::matmul: return std::ceil(n / 32) * std::ceil(n / 32);
    case FarmApp::blur: return std::ceil(n * n / 1024);
  }
  return 0;
}

double FarmTask::threads_per_block() const { return 1024; }

std::string FarmTask::kernel_name() const {
  switch (app) {
    case FarmApp::cosine: return "farm_cosine";
    case FarmApp::matmul: return "farm_matmul";
    case FarmApp::blur: return "farm_blur";
  }
  return "?";
}

std::string farm_task_problem(const FarmTask& task) {
  switch (task.app) {
    case FarmApp::cosine:
      if (task.size < 1 || task.size > (1 << 22)) return "a cosine task holds 1 to 4194304 floats, got " + std::to_string(task.size);
      if (task.iterations < 1 || task.iterations > 100000000)
        return "a cosine task needs M (cosf per element) from 1 to 1e8, got " + std::to_string(task.iterations);
      return "";
    case FarmApp::matmul:
      if (task.size < 1 || task.size > 4096) return "a matmul task's N must be 1 to 4096, got " + std::to_string(task.size);
      if (task.iterations != 0) return "M (iterations) applies to the cosine application only";
      return "";
    case FarmApp::blur:
      if (task.size < 1 || task.size > 8192) return "a blur task's image side must be 1 to 8192, got " + std::to_string(task.size);
      if (task.iterations != 0) return "M (iterations) applies to the cosine application only";
      return "";
  }
  return "unknown application";
}

namespace {

// SASS instructions farm_blur runs per window column (see reference_descriptor).
constexpr double kFarmBlurColumnInstructions = 394;
// Of them on the integer pipes: 74.9 % (Nsight Compute's executed-instruction mix of farm_blur,
// sm_90 build, 2026-11-27; blur_kernel's is 72.4 %).
constexpr double kFarmBlurIntegerShare = 0.749;

// The reference kernel's descriptor at the task's size, renamed to the farm's kernel and with
// the farm kernel's compiled resources where they were recorded.
// `alone`: one task's own launch, whose time is its fullest block's (see the cosine case below);
// otherwise the task's share of a launch over many tasks, counted by its real work.
GpuWorkload reference_descriptor(const FarmTask& task, const ResourceTable& resources, double l2, std::vector<std::string>* missing,
                                 bool alone) {
  const std::string problem = farm_task_problem(task);
  if (!problem.empty()) throw InputError(problem);
  GpuWorkload w;
  switch (task.app) {
    case FarmApp::cosine: w = describe_gpu_kernel("cosine", task.size, {1024, 1, 0}, {}, l2); break;
    case FarmApp::matmul: w = describe_gpu_kernel("matmul", task.size, {32, 32, 0}, {}, l2); break;
    case FarmApp::blur: w = describe_gpu_kernel("blur", task.size, {1024, 1, 0}, {}, l2); break;
  }
  GpuPhase& p = w.phases.at(0);
  p.name = task.kernel_name();
  const auto it = resources.find(p.name);
  if (it != resources.end()) {
    p.registers_per_thread = it->second.registers_per_thread;
    p.shared_bytes_per_block = it->second.static_shared_bytes;
  } else if (missing) {
    missing->push_back(p.name);
  }
  if (task.app == FarmApp::blur) {
    // farm_blur is blur_kernel plus the task offset (in += blockIdx.y·3·side²), and the compiler
    // does not keep that offset: it re-reads blockIdx.y (S2R) and redoes the 64-bit products at
    // every window pixel's loads. Its SASS (sm_90, nvcc 13, -O3: 488 instructions against
    // blur_kernel's 384; 9 S2R against 1) runs 394 instructions per window column of 11 pixels —
    // a 4-way unrolled loop of 131 for 4 pixels, twice, and 132 for the 3-pixel remainder and the
    // column overhead — where blur_kernel runs 261 (83 twice, 95): the reference count, counted
    // the same way, applied to the farm's code. The kernel is issue-bound, so its time follows.
    const double window = (2.0 * kBlurRadius + 1) * (2.0 * kBlurRadius + 1);
    const double warps = std::ceil(static_cast<double>(task.size) * task.size / 32);
    p.warp_instructions = warps * (window * kFarmBlurColumnInstructions / (2 * kBlurRadius + 1) + 60);
    p.integer_warp_instructions = kFarmBlurIntegerShare * p.warp_instructions;
  }
  if (task.app == FarmApp::cosine) {
    // The reference descriptor counts kCosineRepeats calls per element; the farm's task runs M.
    const double m = task.iterations, n = task.size, warps = std::ceil(n / 32);
    p.special_calls = m * n;
    const double integer_share = p.warp_instructions > 0 ? p.integer_warp_instructions / p.warp_instructions : 0;  // the reference's
    p.warp_instructions = warps * (12 + 5.0 * m);  // as the reference: loop and range test ≈ 5 per call
    p.integer_warp_instructions = integer_share * p.warp_instructions;
    p.chain_cosf = m;
    w.flops = 10.0 * m * n;  // Cecconi counts ≈ 10 flop per cosf
    if (alone) {
      // The loop's work sits where its warps are: a task of 1536 floats runs a block of 32 busy
      // warps on one SM and one of 16 on another, and the launch ends with the fuller one. The
      // GPU predictor spreads a launch's counts evenly over its blocks, so one task's launch is
      // described as blocks all as busy as the first (48 warps become 2 × 32); the many-task
      // launch (t_full) keeps the real counts, its blocks sharing the SMs.
      const double busy_warps = std::ceil(std::min(n, 1024.0) / 32) * std::ceil(n / 1024);
      p.special_calls *= busy_warps / warps;
      p.warp_instructions *= busy_warps / warps;
      p.integer_warp_instructions *= busy_warps / warps;
    }
  }
  return w;
}

}  // namespace

GpuWorkload describe_farm_task(const FarmTask& task, const ResourceTable& resources, double l2_bytes, std::vector<std::string>* missing) {
  return reference_descriptor(task, resources, l2_bytes, missing, true);
}

GpuWorkload describe_farm_batch(const FarmTask& task, double tasks, const ResourceTable& resources, double l2_bytes,
                                std::vector<std::string>* missing) {
  return batch_workload(reference_descriptor(task, resources, l2_bytes, missing, false), tasks);
}

GpuWorkload batch_workload(const GpuWorkload& one_task, double tasks) {
  if (!(tasks >= 1)) throw InputError("the data-parallel reference needs at least one task");
  GpuWorkload w = one_task;
  for (GpuPhase& p : w.phases) {
    p.grid_y *= tasks;
    p.flops_fp32 *= tasks, p.flops_fp64 *= tasks, p.special_calls *= tasks, p.warp_instructions *= tasks;
    p.integer_warp_instructions *= tasks, p.sfu_calls *= tasks;
    p.dram_bytes *= tasks, p.dram_write_bytes *= tasks, p.l2_bytes *= tasks, p.l1_wavefronts *= tasks, p.l1_data_bytes *= tasks;
    for (auto& entry : p.shared_accesses) entry.second *= tasks;
  }
  w.flops *= tasks, w.algorithmic_bytes *= tasks, w.h2d_bytes *= tasks, w.d2h_bytes *= tasks;
  return w;
}

}  // namespace perfmodel
