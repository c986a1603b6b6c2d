#include "perfmodel/model/gpu_workload_file.hpp"

#include <algorithm>
#include <cmath>

#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/input_file.hpp"
#include "perfmodel/model/limits.hpp"
#include "gpu_workload_detail.hpp"
#include "yaml_reader.hpp"

namespace perfmodel {
namespace detail {

bool has_strided_efficiency(const GpuCalibration& gpu) { return gpu.partition && !gpu.partition->strided.rows.empty(); }

double strided_efficiency(const GpuCalibration& gpu, double stride, double element_bytes) {
  if (!gpu.partition || gpu.partition->strided.rows.empty()) return 1;
  const NumericTable& t = gpu.partition->strided;
  const std::size_t cs = t.column("stride_elements"), ce = t.column("efficiency"), cb = t.column("element_bytes");
  std::vector<std::pair<double, double>> curve;
  for (const auto& row : t.rows)
    if (row[cb] == element_bytes) curve.push_back({row[cs], row[ce]});
  if (curve.empty())
    for (const auto& row : t.rows) curve.push_back({row[cs] * row[cb] / element_bytes, row[ce]});
  std::sort(curve.begin(), curve.end());
  if (stride <= curve.front().first) return curve.front().second;
  if (stride >= curve.back().first) return curve.back().second;
  for (std::size_t i = 1; i < curve.size(); ++i)
    if (stride <= curve[i].first) {
      const double u = std::log(stride / curve[i - 1].first) / std::log(curve[i].first / curve[i - 1].first);
      return curve[i - 1].second + u * (curve[i].second - curve[i - 1].second);
    }
  return curve.back().second;
}

}  // namespace detail

namespace {

using detail::strided_efficiency;

constexpr double kWarp = 32, kLine = 128, kSector = 32;

GpuPhase read_kernel(const yaml::Value& k, const GpuCalibration& gpu) {
  k.expect_map();
  k.allow_only({"name", "launches", "grid", "block", "registers_per_thread", "shared_bytes_per_block", "flops_fp32", "flops_fp64",
                "special_calls", "warp_instructions", "read_bytes", "write_bytes", "access", "stride_elements", "element_bytes",
                "loads_in_flight", "loads_issued_together", "shared_accesses", "conflict_degree", "latency_chain"});
  GpuPhase p;
  p.name = k.has("name") ? k.get("name").as_string() : "kernel";
  // Every amount is bounded (limits.hpp) so that no product of them overflows on the way to a time.
  auto number = [&](const char* key, double fallback) {
    return k.has(key) ? k.get(key).as_number_in(0, limits::kMaxWorkAmount) : fallback;
  };
  auto pair = [&](const char* key, double max_x, double max_y) {
    const yaml::Value v = k.get(key);
    if (v.sequence_size() < 1 || v.sequence_size() > 2) throw v.error("expected [x] or [x, y]");
    return std::pair<double, double>{v.at(0).as_whole_in(1, max_x), v.sequence_size() == 2 ? v.at(1).as_whole_in(1, max_y) : 1.0};
  };
  p.launches = k.has("launches") ? k.get("launches").as_whole_in(1, limits::kMaxLaunches) : 1;
  // CUDA's limits on a launch (Programming Guide, "Compute capabilities").
  std::tie(p.grid_x, p.grid_y) = pair("grid", limits::kMaxGridX, limits::kMaxGridY);
  std::tie(p.block_x, p.block_y) = pair("block", limits::kMaxThreadsPerBlock, limits::kMaxThreadsPerBlock);
  if (p.block_x * p.block_y > limits::kMaxThreadsPerBlock) throw k.get("block").error("more than 1024 threads per block");
  p.registers_per_thread = number("registers_per_thread", 32);
  if (p.registers_per_thread < 1 || p.registers_per_thread > 255) throw k.get("registers_per_thread").error("must be 1 … 255");
  p.shared_bytes_per_block = k.has("shared_bytes_per_block") ? k.get("shared_bytes_per_block").as_whole_in(0, limits::kMaxBytes) : 0;
  if (gpu.device.shared_memory_per_block_optin > 0 && p.shared_bytes_per_block > gpu.device.shared_memory_per_block_optin)
    throw k.get("shared_bytes_per_block")
        .error("more than the " + std::to_string(static_cast<long long>(gpu.device.shared_memory_per_block_optin)) +
               " bytes a block may have on the profile's GPU (shared_memory_per_block_optin)");
  p.flops_fp32 = number("flops_fp32", 0);
  p.flops_fp64 = number("flops_fp64", 0);
  p.special_calls = number("special_calls", 0);
  const double read = number("read_bytes", 0), write = number("write_bytes", 0);
  const double e = number("element_bytes", 4);
  if (e != 1 && e != 2 && e != 4 && e != 8 && e != 16) throw k.get("element_bytes").error("must be 1, 2, 4, 8 or 16");
  const std::string access = k.has("access") ? k.get("access").as_string() : "coalesced";
  const double stride = number("stride_elements", 1);
  if (stride < 1) throw k.get("stride_elements").error("must be >= 1");
  if (k.has("stride_elements") && access != "strided") throw k.get("stride_elements").error("only meaningful with access: strided");
  p.loads_in_flight = number("loads_in_flight", 1);
  if (p.loads_in_flight < 1) throw k.get("loads_in_flight").error("must be >= 1");
  const double useful = read + write, warp_accesses = useful / e / kWarp;
  if (access == "coalesced") {
    p.l1_wavefronts = warp_accesses * std::ceil(kWarp * e / kLine);
    p.l2_bytes = p.dram_bytes = useful;
    p.request_bytes = kWarp * e;
  } else if (access == "strided" || access == "random") {
    const double span = access == "random" ? 1e30 : kWarp * stride * e;
    const double lines = std::min(kWarp, std::ceil(span / kLine)), sectors = std::min(kWarp, std::ceil(span / kSector));
    p.l1_wavefronts = warp_accesses * lines;
    p.l2_bytes = warp_accesses * sectors * kSector;
    p.dram_bytes = useful / strided_efficiency(gpu, access == "random" ? 1e9 : stride, e);
    p.request_bytes = sectors * kSector;
  } else {
    throw k.get("access").error("'" + access + "' is not coalesced, strided or random");
  }
  if (useful > 0) p.dram_write_bytes = p.dram_bytes * write / useful;  // the stores' share (format 2 splits it the same way)
  const double shared = number("shared_accesses", 0), degree = number("conflict_degree", 1);
  if (degree < 1 || degree > 32) throw k.get("conflict_degree").error("must be 1 … 32");
  if (shared > 0) p.shared_accesses[degree] = shared;
  // Default instruction count: one per warp-wide FMA (2 flop × 32 lanes), per memory access, plus
  // two of address and loop overhead per access.
  p.warp_instructions = k.has("warp_instructions") ? k.get("warp_instructions").as_nonnegative()
                                                   : p.flops_fp32 / 64 + 3 * warp_accesses + shared;
  const double threads = p.grid_x * p.grid_y * p.block_x * p.block_y;
  if (k.has("loads_issued_together")) {
    const std::string v = k.get("loads_issued_together").as_string();
    if (v != "true" && v != "false") throw k.get("loads_issued_together").error("must be true or false");
    p.loads_issued_together = v == "true";
  }
  if (k.has("latency_chain")) {
    // The longest chain of dependent steps one thread runs, counted by the latency each waits.
    const yaml::Value c = k.get("latency_chain");
    c.expect_map();
    c.allow_only({"fma", "cosf", "l1_loads", "l2_loads", "dram_loads"});
    auto steps = [&](const char* key) { return c.has(key) ? c.get(key).as_nonnegative() : 0.0; };
    p.chain_fma = steps("fma");
    p.chain_cosf = steps("cosf");
    p.chain_l1_loads = steps("l1_loads");
    p.chain_l2_loads = steps("l2_loads");
    p.chain_dram_loads = steps("dram_loads");
  } else {
    // Without one: each thread's share of the accesses, loads_in_flight at a time, one L2 round trip each.
    p.chain_l2_loads = warp_accesses > 0 ? std::max(1.0, std::ceil(useful / e / threads / p.loads_in_flight)) : 0;
  }
  return p;
}

}  // namespace

GpuWorkloadFile parse_gpu_workload(const std::string& text, const std::string& file_name, const GpuCalibration& gpu,
                                   const WorkloadParams& set) {
  const yaml::Value root(yaml::parse(text, file_name), "", file_name);
  root.expect_map();
  if (root.has("schema_version") && !root.has("perfmodel_workload") && !root.has("format"))
    throw root.error("this is a perfmodel profile, not a workload file (give it with --profile)");
  if (root.has("format")) return detail::parse_workload_format2(root, file_name, gpu, set);
  if (!root.has("perfmodel_workload"))
    throw root.error("not a workload file: it needs 'format: 2' (docs/workload-format.md) or 'perfmodel_workload: 1'");
  if (!set.empty())
    throw InputError("--set " + set.begin()->first + ": " + file_name + " is a format 1 workload, which has no params");
  root.allow_only({"perfmodel_workload", "name", "kernels", "transfers"});
  const yaml::Value version = root.get("perfmodel_workload");
  if (version.as_integer() != 1)
    throw version.error("workload schema " + version.as_string() +
                        " is not supported (perfmodel_workload: 1 is the older form; newer files say 'format: 2')");
  GpuWorkloadFile f;
  f.name = root.has("name") ? root.get("name").as_string() : file_name;
  f.workload.kernel = f.name;
  const yaml::Value kernels = root.get("kernels");
  if (kernels.sequence_size() == 0) throw kernels.error("needs at least one kernel");
  for (std::size_t i = 0; i < kernels.sequence_size(); ++i) {
    GpuPhase p = read_kernel(kernels.at(i), gpu);
    f.workload.flops += p.launches * (p.flops_fp32 + p.flops_fp64);
    f.workload.algorithmic_bytes += p.launches * p.dram_bytes;
    f.workload.phases.push_back(std::move(p));
  }
  if (root.has("transfers")) {
    const yaml::Value t = root.get("transfers");
    for (std::size_t i = 0; i < t.sequence_size(); ++i) {
      const yaml::Value x = t.at(i);
      x.expect_map();
      x.allow_only({"direction", "memory", "bytes"});
      DescribedTransfer d;
      const auto dir = parse_direction(x.get("direction").as_string());
      if (!dir) throw x.get("direction").error("must be h2d, d2h or bidir");
      const auto mem = parse_host_memory(x.has("memory") ? x.get("memory").as_string() : "pinned");
      if (!mem) throw x.get("memory").error("must be pinned or pageable");
      d.key = {*dir, *mem};
      d.bytes = x.get("bytes").as_whole_in(1, limits::kMaxBytes);
      (*dir == Direction::d2h ? f.workload.d2h_bytes : f.workload.h2d_bytes) += d.bytes;
      f.transfers.push_back(d);
    }
  }
  return f;
}

GpuWorkloadFile read_gpu_workload(const std::string& path, const GpuCalibration& gpu, const WorkloadParams& set) {
  return parse_gpu_workload(read_input_file(path), path, gpu, set);
}

}  // namespace perfmodel
