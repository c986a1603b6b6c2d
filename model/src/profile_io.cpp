#include "perfmodel/model/profile_io.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>

#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/limits.hpp"
#include "perfmodel/model/input_file.hpp"
#include "profile_sections.hpp"
#include "yaml_reader.hpp"

namespace perfmodel {
namespace {
constexpr const char* kProfileFirstLine = "# perfmodel calibration profile";
constexpr const char* kProfileEndLine = "...";  // YAML's document end marker
}  // namespace

using sections::emit_quality;
using sections::read_quality;

const PcieCalibration& Profile::require_pcie() const {
  if (!pcie) throw InputError("the profile has no pcie section; run `perfmodel calibrate --only pcie` on the machine");
  return *pcie;
}

const GpuCalibration& Profile::require_gpu() const {
  if (!gpu) throw InputError("the profile has no gpu section; run `perfmodel calibrate --only gpu` on the machine");
  return *gpu;
}

const CpuCalibration& Profile::require_cpu() const {
  if (!cpu) throw InputError("the profile has no cpu section; run `perfmodel calibrate --only cpu` on the machine");
  return *cpu;
}

const TransferCurve& PcieCalibration::curve(const TransferKey& key, TransferMode mode) const {
  const auto& set = mode == TransferMode::single ? curves : stream_curves;
  const auto it = set.find(key);
  if (it == set.end())
    throw InputError("the profile has no calibration for " + key.name() + " transfers (" + to_string(mode) + " copies)");
  return it->second;
}

// ---------------------------------------------------------------- writing
namespace {

void emit_curve(YAML::Emitter& out, const TransferCurve& c) {
  out << YAML::BeginMap;
  out << YAML::Key << "criterion" << YAML::Value << c.criterion;
  out << YAML::Key << "timing" << YAML::Value << c.timing;
  out << YAML::Key << "samples" << YAML::Value << c.samples;
  out << YAML::Key << "min_bytes" << YAML::Value << c.min_bytes;
  out << YAML::Key << "max_bytes" << YAML::Value << c.max_bytes;
  if (c.mixed_setup_s != 0) out << YAML::Key << "mixed_setup_s" << YAML::Value << c.mixed_setup_s;
  emit_quality(out, "fit", c.fit);
  if (c.holdout) emit_quality(out, "holdout", *c.holdout);
  out << YAML::Key << "segments" << YAML::Value << YAML::BeginSeq;
  for (const TransferSegment& s : c.segments) {
    out << YAML::Flow << YAML::BeginMap;
    out << YAML::Key << "from_bytes" << YAML::Value << s.from_bytes;
    out << YAML::Key << "to_bytes" << YAML::Value << s.to_bytes;
    out << YAML::Key << "setup_s" << YAML::Value << s.setup_s;
    out << YAML::Key << "s_per_byte" << YAML::Value << s.s_per_byte;
    out << YAML::Key << "misaligned_s" << YAML::Value << s.misaligned_s;
    out << YAML::Key << "sizes" << YAML::Value << s.sizes;
    out << YAML::Key << "mean_rel_error" << YAML::Value << s.mean_rel_error;
    out << YAML::Key << "max_rel_error" << YAML::Value << s.max_rel_error;
    if (s.has_interval()) {
      out << YAML::Key << "interval_low" << YAML::Value << s.interval_low;
      out << YAML::Key << "interval_high" << YAML::Value << s.interval_high;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
}

// `name: {h2d: {pinned: CURVE, ...}, ...}`
void emit_curves(YAML::Emitter& out, const char* name, const std::map<TransferKey, TransferCurve>& curves) {
  out << YAML::Key << name << YAML::Value << YAML::BeginMap;
  Direction open_direction = Direction::h2d;
  bool open = false;
  for (const auto& [key, curve] : curves) {
    if (!open || key.direction != open_direction) {
      if (open) out << YAML::EndMap;
      out << YAML::Key << to_string(key.direction) << YAML::Value << YAML::BeginMap;
      open = true;
      open_direction = key.direction;
    }
    out << YAML::Key << to_string(key.memory) << YAML::Value;
    emit_curve(out, curve);
  }
  if (open) out << YAML::EndMap;
  out << YAML::EndMap;
}

}  // namespace

std::string profile_to_yaml(const Profile& profile) {
  YAML::Emitter out;
  out.SetDoublePrecision(17);
  out << YAML::BeginMap;
  out << YAML::Key << "schema_version" << YAML::Value << kProfileSchemaVersion;  // what is written is the newest form
  out << YAML::Key << "provenance" << YAML::Value << YAML::BeginMap;
  for (const auto& [key, value] : profile.provenance.fields())
    out << YAML::Key << key << YAML::Value << YAML::DoubleQuoted << *value;
  if (!profile.provenance.refit.empty())
    out << YAML::Key << "refit" << YAML::Value << YAML::DoubleQuoted << profile.provenance.refit;
  if (!profile.provenance.run_id.empty())
    out << YAML::Key << "run_id" << YAML::Value << YAML::DoubleQuoted << profile.provenance.run_id;
  out << YAML::EndMap;
  if (profile.pcie) {
    const PcieCalibration& p = *profile.pcie;
    out << YAML::Key << "pcie" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "samples_file" << YAML::Value << p.samples_file;
    out << YAML::Key << "timer" << YAML::Value << p.timer;
    out << YAML::Key << "calibration_wall_s" << YAML::Value << p.calibration_wall_s;
    if (!p.host_buffer.empty()) out << YAML::Key << "host_buffer" << YAML::Value << p.host_buffer;
    emit_curves(out, "curves", p.curves);
    if (!p.stream_curves.empty()) emit_curves(out, "stream_curves", p.stream_curves);
    out << YAML::EndMap;
  }
  if (profile.gpu) {
    out << YAML::Key << "gpu" << YAML::Value;
    sections::emit_gpu(out, *profile.gpu);
  }
  if (profile.cpu) {
    out << YAML::Key << "cpu" << YAML::Value;
    sections::emit_cpu(out, *profile.cpu);
  }
  out << YAML::EndMap;
  // The document end marker closes every profile perfmodel writes: a copy cut short at any byte
  // lacks it, and the reader refuses it (see parse_profile).
  return std::string(kProfileFirstLine) + "\n" + out.c_str() + "\n" + kProfileEndLine + "\n";
}

// ---------------------------------------------------------------- reading
namespace {

TransferCurve read_curve(const yaml::Value& v, int schema) {
  if (schema >= 4)
    v.allow_only({"criterion", "timing", "samples", "min_bytes", "max_bytes", "mixed_setup_s", "fit", "holdout", "segments"});
  else v.allow_only({"criterion", "samples", "min_bytes", "max_bytes", "fit", "holdout", "segments"});
  TransferCurve c;
  c.criterion = v.get("criterion").as_string();
  c.timing = "batched";  // schema 2-3: back-to-back copies, batched where short
  if (schema >= 4) {
    c.timing = v.get("timing").as_string();
    if (c.timing != "single" && c.timing != "stream" && c.timing != "batched")
      throw v.get("timing").error("must be single, stream or batched, got '" + c.timing + "'");
  }
  c.samples = v.get("samples").as_count();
  c.min_bytes = v.get("min_bytes").as_number_in(0, limits::kMaxBytes);
  c.max_bytes = v.get("max_bytes").as_number_in(0, limits::kMaxBytes);
  if (c.max_bytes < c.min_bytes) throw v.get("max_bytes").error("is smaller than min_bytes");
  if (v.has("mixed_setup_s")) {
    c.mixed_setup_s = v.get("mixed_setup_s").as_number_in(-1.0, 1.0);
    if (c.timing != "single") throw v.get("mixed_setup_s").error("belongs to a curve of single copies only");
  }
  c.fit = read_quality(v.get("fit"));
  if (v.has("holdout")) c.holdout = read_quality(v.get("holdout"));
  const yaml::Value segments = v.get("segments");
  const std::size_t n = segments.sequence_size();
  if (n == 0) throw segments.error("needs at least one segment");
  for (std::size_t i = 0; i < n; ++i) {
    const yaml::Value s = segments.at(i);
    if (schema >= 4)
      s.allow_only({"from_bytes", "to_bytes", "setup_s", "s_per_byte", "misaligned_s", "sizes", "mean_rel_error",
                    "max_rel_error", "interval_low", "interval_high"});
    else
      s.allow_only({"from_bytes", "to_bytes", "setup_s", "s_per_byte", "misaligned_s", "sizes", "mean_rel_error",
                    "max_rel_error"});
    TransferSegment seg;
    seg.from_bytes = s.get("from_bytes").as_number_in(0, limits::kMaxBytes);
    seg.to_bytes = s.get("to_bytes").as_nonnegative_or_inf();
    seg.sizes = s.get("sizes").as_count();
    // A bridge (schema 3: fitted on no sizes) is a line across a gap: only its values there mean
    // anything, so its intercept may be negative, not its time.
    const bool bridge = schema >= 3 && seg.sizes == 0;
    seg.setup_s = s.get("setup_s").as_number_in(bridge ? -limits::kMaxConstantSeconds : 0, limits::kMaxConstantSeconds);
    seg.s_per_byte = s.get("s_per_byte").as_number_in(0, 1 / limits::kMinRate);
    seg.misaligned_s = s.get("misaligned_s").as_number_in(0, limits::kMaxConstantSeconds);
    if (bridge && (i == 0 || i + 1 == n))
      throw s.get("sizes").error("a bridge (a segment fitted on no sizes) must lie between two fitted segments");
    if (bridge && !(seg.setup_s + seg.s_per_byte * seg.from_bytes > 0))
      throw s.get("setup_s").error("a bridge's time must be positive over its range (setup_s + s_per_byte * from_bytes <= 0)");
    seg.mean_rel_error = s.get("mean_rel_error").as_nonnegative();
    seg.max_rel_error = s.get("max_rel_error").as_nonnegative();
    if (s.has("interval_low") != s.has("interval_high"))
      throw s.get(s.has("interval_low") ? "interval_low" : "interval_high").error("interval_low and interval_high come together");
    if (s.has("interval_low")) {
      seg.interval_low = s.get("interval_low").as_nonnegative();
      seg.interval_high = s.get("interval_high").as_nonnegative();
      if (!(seg.interval_low > 0 && seg.interval_low <= 1))
        throw s.get("interval_low").error("must lie in (0, 1] (a ratio to the predicted time)");
      if (!(seg.interval_high >= 1 && std::isfinite(seg.interval_high)))
        throw s.get("interval_high").error("must be a finite ratio >= 1 (to the predicted time)");
    }
    if (!(seg.to_bytes > seg.from_bytes)) throw s.get("to_bytes").error("must be greater than from_bytes");
    if (i == 0 && seg.from_bytes != 0) throw s.get("from_bytes").error("the first segment must start at 0");
    if (i > 0 && seg.from_bytes != c.segments.back().to_bytes)
      throw s.get("from_bytes").error(seg.from_bytes < c.segments.back().to_bytes
                                          ? "overlaps the previous segment (segments must be ascending and contiguous)"
                                          : "leaves a gap after the previous segment (segments must be contiguous)");
    if (i + 1 == n && !std::isinf(seg.to_bytes)) throw s.get("to_bytes").error("the last segment must extend to .inf");
    if (i + 1 < n && std::isinf(seg.to_bytes)) throw s.get("to_bytes").error("only the last segment may extend to .inf");
    if (i + 1 == n && seg.s_per_byte == 0)
      throw s.get("s_per_byte").error("the last segment must have a positive time per byte (it defines the asymptotic rate)");
    c.segments.push_back(seg);
  }
  return c;
}

void read_curves(const yaml::Value& curves, int schema, std::map<TransferKey, TransferCurve>& into) {
  curves.allow_only({"h2d", "d2h", "bidir"});
  for (Direction d : {Direction::h2d, Direction::d2h, Direction::bidir}) {
    if (!curves.has(to_string(d))) continue;
    const yaml::Value by_memory = curves.get(to_string(d));
    by_memory.allow_only({"pinned", "pageable"});
    for (HostMemory m : {HostMemory::pinned, HostMemory::pageable})
      if (by_memory.has(to_string(m))) into[{d, m}] = read_curve(by_memory.get(to_string(m)), schema);
  }
}

PcieCalibration read_pcie(const yaml::Value& v, int schema) {
  if (schema >= 4) v.allow_only({"samples_file", "timer", "calibration_wall_s", "host_buffer", "curves", "stream_curves"});
  else v.allow_only({"samples_file", "timer", "calibration_wall_s", "host_buffer", "curves"});
  PcieCalibration p;
  p.samples_file = v.get("samples_file").as_file_name();
  p.timer = v.get("timer").as_string();
  if (p.timer != "cuda_events" && p.timer != "host_clock")
    throw v.get("timer").error("must be cuda_events or host_clock, got '" + p.timer + "'");
  p.calibration_wall_s = v.get("calibration_wall_s").as_nonnegative();
  if (v.has("host_buffer")) {
    p.host_buffer = v.get("host_buffer").as_string();
    if (!is_pcie_host_buffer(p.host_buffer))
      throw v.get("host_buffer").error("must be rotating or fixed, got '" + p.host_buffer + "'");
  }
  const yaml::Value curves = v.get("curves");
  read_curves(curves, schema, p.curves);
  if (schema >= 4 && v.has("stream_curves")) read_curves(v.get("stream_curves"), schema, p.stream_curves);
  if (schema < 4) p.stream_curves = p.curves;  // one batched curve per transfer serves both modes
  if (p.curves.empty()) throw curves.error("no transfer curve");
  return p;
}

}  // namespace

namespace {

// A file that starts as perfmodel writes profiles must end as it writes them; anything else was
// cut short (an interrupted copy or download) and would be read as a smaller profile.
void require_whole(const std::string& text, const std::string& file_name) {
  if (text.rfind(kProfileFirstLine, 0) != 0) return;  // written by hand: nothing to compare with
  std::size_t end = text.size();
  while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r' || text[end - 1] == ' ')) --end;
  const std::string marker(kProfileEndLine);
  const std::size_t start = text.rfind('\n', end == 0 ? 0 : end - 1);
  const std::string last = text.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1));
  if (last == marker) return;
  const int lines = static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(end), '\n')) + 1;
  throw input_error_at({file_name, lines, 0}, "",
                       "the profile ends without its last line '" + marker +
                           "': the file is cut short (an interrupted copy?); copy it again or re-run `perfmodel fit` on its "
                           "samples (a profile written before perfmodel ended profiles so: check that it is whole, "
                           "then append the line '...')");
}

}  // namespace

Profile parse_profile(const std::string& yaml_text, const std::string& file_name) {
  const yaml::Value root(yaml::parse(yaml_text, file_name), "", file_name);
  if (!root.node().IsMap()) throw root.error("a profile must be a YAML mapping, starting with schema_version");
  if (root.has("perfmodel_workload"))
    throw root.error("this is a perfmodel workload file, not a profile (give it to `perfmodel predict workload`)");
  if (!root.has("schema_version"))
    throw root.error("not a perfmodel profile: it has no schema_version (profiles are written by `perfmodel calibrate` or `fit`)");
  Profile profile;
  const yaml::Value version = root.get("schema_version");
  const long long found = version.as_integer();
  if (found < kOldestReadableProfileSchemaVersion || found > kProfileSchemaVersion)
    throw version.error("unsupported profile schema version " + std::to_string(found) + "; this perfmodel reads versions " +
                        std::to_string(kOldestReadableProfileSchemaVersion) + "-" + std::to_string(kProfileSchemaVersion) +
                        " (re-run `perfmodel calibrate` to produce one)");
  profile.schema_version = static_cast<int>(found);
  require_whole(yaml_text, file_name);
  root.allow_only({"schema_version", "provenance", "pcie", "gpu", "cpu"});

  const yaml::Value provenance = root.get("provenance");
  provenance.expect_map();
  auto fields = profile.provenance.fields();
  std::vector<std::string> names;
  for (const auto& field : fields) names.push_back(field.first);
  names.push_back("refit");
  names.push_back("run_id");
  provenance.allow_only(names);
  for (auto& [name, value] : fields) *value = provenance.get(name).as_string();
  if (provenance.has("refit")) profile.provenance.refit = provenance.get("refit").as_string();
  if (provenance.has("run_id")) profile.provenance.run_id = provenance.get("run_id").as_string();

  if (root.has("pcie")) profile.pcie = read_pcie(root.get("pcie"), profile.schema_version);
  if (root.has("gpu")) profile.gpu = sections::read_gpu(root.get("gpu"));
  if (root.has("cpu")) profile.cpu = sections::read_cpu(root.get("cpu"));
  return profile;
}

Profile load_profile(const std::string& path) { return parse_profile(read_input_file(path), path); }

void save_profile(const Profile& profile, const std::string& path) {
  // What is written must read back: a profile its own reader refuses is not written at all.
  const std::string text = profile_to_yaml(profile);
  try {
    static_cast<void>(parse_profile(text, path));
  } catch (const InputError& e) {
    throw RuntimeFailure(std::string("the profile is not written, it would not read back: ") + e.what());
  }
  write_file_atomically(path, text);
}

}  // namespace perfmodel
