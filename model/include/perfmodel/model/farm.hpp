#pragma once
// The task farm's vocabulary (Cecconi, MODELS.md §1.13, §3.7): a stream of L independent tasks,
// each "copy its input in, run one small kernel on it, copy its result out", dealt round-robin
// over S CUDA streams. What one task of each built-in application moves and computes, and the
// data-parallel reference that does the same work in one launch.
//
// Applications (Cecconi's three, §3.7):
//   cosine  K-COS: x ← cos(x), M times per element; a task of `size` floats (1024: <<<1,1024>>>,
//           2048: <<<2,1024>>>), copied in and out (4·size bytes each way), compute-bound;
//   matmul  K-MATMUL: naive C = A·B of N×N floats, 32×32 blocks, grid ⌈N/32⌉²; in: A and B
//           (8N² bytes, one copy), out: C (4N² bytes); memory-bound;
//   blur    K-BLUR: box blur of radius 5 over a side×side RGB byte image, one thread per pixel in
//           1024-thread blocks; in and out 3·side² bytes; memory-bound and divergent.
// The workload descriptors are the reference kernels' own (model/gpu_kernels.hpp: cosine, matmul,
// blur), the cosine loop's re-counted for M iterations instead of the reference's 100, one cosine
// task's own launch counted as its fullest block on every SM (describe_farm_task; the many-task
// launch keeps the real counts), and the blur's instructions counted on farm_blur's own SASS (the
// task offset redone at every window pixel: 394 per window column against blur_kernel's 261).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "perfmodel/model/gpu_kernels.hpp"

namespace perfmodel {

enum class FarmApp { cosine, matmul, blur };
const char* to_string(FarmApp app);
std::optional<FarmApp> parse_farm_app(const std::string& text);  // "cosine", "matmul", "blur"

struct FarmTask {
  FarmApp app = FarmApp::cosine;
  int size = 1024;       // cosine: floats per task; matmul: N; blur: image side (pixels)
  int iterations = 0;    // cosine: M (cosf per element); 0 for the others

  std::string label() const;  // "cosine 1024 floats M=10000", "matmul 128x128", "blur 256x256"
  double bytes_in() const;
  double bytes_out() const;
  // Blocks and threads per block of one task's launch.
  double blocks() const;
  double threads_per_block() const;
  // The CUDA kernel name the farm runner compiles for it (resources are recorded under it).
  std::string kernel_name() const;
};

// Why a task cannot be run or described ("" when it can): sizes out of range, M missing.
std::string farm_task_problem(const FarmTask& task);

// One task's launch as the GPU predictor sees it. `resources` supplies the compiled registers
// (by kernel_name()); missing ones get the reference descriptor's estimate and are listed.
// Throws InputError for a task with a problem.
GpuWorkload describe_farm_task(const FarmTask& task, const ResourceTable& resources, double l2_bytes,
                               std::vector<std::string>* missing = nullptr);
// The data-parallel reference (Cecconi Eq 5.12 at equal work): one launch that runs all `tasks`
// tasks' blocks (the task index in the grid's y dimension, or z for matmul): every count L times
// one task's, the per-thread chains unchanged.
GpuWorkload describe_farm_batch(const FarmTask& task, double tasks, const ResourceTable& resources, double l2_bytes,
                                std::vector<std::string>* missing = nullptr);
// The same for any task's workload (a described one): every phase's grid y and counts × tasks.
GpuWorkload batch_workload(const GpuWorkload& one_task, double tasks);

}  // namespace perfmodel
