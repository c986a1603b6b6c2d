// The `cpu:` section of an offload workload file (perfmodel/predictors/offload.hpp).
#include <sstream>

#include "../../model/src/yaml_reader.hpp"
#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/predictors/offload.hpp"

namespace perfmodel {
namespace {

// The text with the top-level `cpu:` block's lines blanked (line numbers kept).
std::string without_cpu_section(const std::string& text) {
  std::istringstream in(text);
  std::ostringstream out;
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    const bool top_level = !line.empty() && line[0] != ' ' && line[0] != '\t' && line[0] != '#';
    if (top_level) inside = line.rfind("cpu:", 0) == 0;
    out << (inside ? "" : line) << "\n";
  }
  return out.str();
}

}  // namespace

OffloadWorkloadFile parse_offload_workload(const std::string& text, const std::string& file_name, const GpuCalibration& gpu) {
  OffloadWorkloadFile f;
  const yaml::Value root(yaml::parse(text, file_name), "", file_name);
  root.expect_map();
  if (root.has("cpu")) {
    const yaml::Value c = root.get("cpu");
    c.expect_map();
    c.allow_only({"kernel", "n", "iterations", "threads", "bytes_read", "bytes_written", "working_set_bytes", "flops_fp32", "flops_fp64",
                  "serial_flops", "parallel_regions", "efficiency", "measured_s", "splittable"});
    CpuSide side;
    const bool builtin = c.has("kernel"), measured = c.has("measured_s");
    const bool signature = c.has("bytes_read") || c.has("bytes_written") || c.has("flops_fp32") || c.has("flops_fp64");
    if (builtin + measured + signature != 1)
      throw c.error("give exactly one CPU side: `kernel` (+ `n`), a signature (bytes_read, bytes_written, flops_fp32, …) or `measured_s`");
    if (c.has("threads")) {
      side.threads = c.get("threads").as_nonnegative();
      if (!(side.threads >= 1)) throw c.get("threads").error("must be >= 1");
    }
    if (builtin) {
      side.kind = CpuSide::Kind::builtin;
      side.kernel = c.get("kernel").as_string();
      try {
        offload_gpu_kernel(side.kernel);
      } catch (const InputError& e) {
        throw c.get("kernel").error(e.what());
      }
      side.n = c.get("n").as_nonnegative();
      if (!(side.n >= 1)) throw c.get("n").error("must be >= 1");
      if (c.has("iterations")) {
        const long long it = c.get("iterations").as_integer();
        if (it < 1) throw c.get("iterations").error("must be >= 1");
        side.iterations = static_cast<int>(it);
      }
    } else if (measured) {
      side.kind = CpuSide::Kind::measured;
      side.measured_s = c.get("measured_s").as_nonnegative();
      if (!(side.measured_s > 0)) throw c.get("measured_s").error("must be > 0");
    } else {
      side.kind = CpuSide::Kind::signature;
      CpuSignature& s = side.signature;
      const auto v = [&](const char* key, double fallback) { return c.has(key) ? c.get(key).as_nonnegative() : fallback; };
      s.bytes_read = v("bytes_read", 0), s.bytes_written = v("bytes_written", 0);
      s.working_set_bytes = v("working_set_bytes", s.bytes_read + s.bytes_written);
      s.flops_fp32 = v("flops_fp32", 0), s.flops_fp64 = v("flops_fp64", 0), s.serial_flops = v("serial_flops", 0);
      s.parallel_regions = v("parallel_regions", 1);
      s.threads = side.threads;
      if (c.has("efficiency")) {
        s.efficiency = c.get("efficiency").as_nonnegative();
        if (!(s.efficiency > 0 && s.efficiency <= 1)) throw c.get("efficiency").error("must be in (0, 1]");
      }
      if (s.serial_flops > s.flops_fp32) throw c.get("serial_flops").error("cannot exceed flops_fp32");
    }
    for (const char* key : {"kernel", "n", "iterations"})
      if (!builtin && c.has(key)) throw c.get(key).error("belongs to the built-in form (`kernel`)");
    if (c.has("splittable")) {
      const std::string s = c.get("splittable").as_string();
      if (s != "true" && s != "false") throw c.get("splittable").error("must be true or false");
      f.splittable = s == "true";
    }
    f.cpu = side;
  }
  f.gpu = parse_gpu_workload(without_cpu_section(text), file_name, gpu);
  return f;
}

OffloadWorkloadFile read_offload_workload(const std::string& path, const GpuCalibration& gpu) {
  return parse_offload_workload(read_file(path), path, gpu);
}

}  // namespace perfmodel
