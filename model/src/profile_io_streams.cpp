#include "profile_io_streams.hpp"

#include "profile_sections.hpp"

namespace perfmodel::sections {
namespace {

const char* const kModel =
    "task farm on CUDA streams: issue_s = host cost of one task's three async calls; serial_task_s = one task of "
    "the synchronous zero-stream loop (4-byte copies, empty kernel); concurrency = tasks' kernels running at once "
    "against streams (farm pattern, one-block spin kernels); copies = seconds per copy against streams";

template <class S>
auto number_fields(S& s) {
  using D = std::conditional_t<std::is_const_v<S>, const double, double>;
  return std::vector<std::pair<const char*, D*>>{{"connections", &s.connections},     {"issue_s", &s.issue_s},
                                                  {"serial_task_s", &s.serial_task_s},
                                                  {"spin_s", &s.spin_s},               {"queues", &s.queues}};
}

}  // namespace

void emit_streams(YAML::Emitter& out, const StreamCalibration& s) {
  out << YAML::Key << "streams" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "model" << YAML::Value << kModel;
  out << YAML::Key << "measured_on" << YAML::Value << s.measured_on;
  out << YAML::Key << "command" << YAML::Value << s.command;
  out << YAML::Key << "samples_file" << YAML::Value << s.samples_file;
  for (const auto& [name, value] : number_fields(s)) out << YAML::Key << name << YAML::Value << *value;
  emit_table(out, "concurrency", s.concurrency);
  if (!s.copies.rows.empty()) emit_table(out, "copies", s.copies);
  out << YAML::EndMap;
}

StreamCalibration read_streams(const yaml::Value& v) {
  std::vector<std::string> keys = {"model", "measured_on", "command", "samples_file", "concurrency", "copies"};
  StreamCalibration s;
  for (const auto& field : number_fields(s)) keys.emplace_back(field.first);
  v.allow_only(keys);
  s.measured_on = v.get("measured_on").as_string();
  s.command = v.get("command").as_string();
  s.samples_file = v.get("samples_file").as_string();
  for (auto& [name, value] : number_fields(s)) *value = v.get(name).as_nonnegative();
  if (!(s.issue_s > 0)) throw v.get("issue_s").error("must be > 0");
  if (!(s.serial_task_s > 0)) throw v.get("serial_task_s").error("must be > 0");
  if (!(s.queues > 0)) throw v.get("queues").error("must be > 0");
  // host_s (the host's time to issue the row's tasks) since 2026-11-27; older profiles lack it.
  const yaml::Value table = v.get("concurrency");
  const bool with_host = table.has("columns") && table.get("columns").sequence_size() == 5;
  s.concurrency = with_host ? read_table(table, {"streams", "tasks", "seconds", "concurrency", "host_s"})
                            : read_table(table, {"streams", "tasks", "seconds", "concurrency"});
  if (s.concurrency.rows.empty()) throw v.get("concurrency").error("needs at least one row");
  for (std::size_t i = 1; i < s.concurrency.rows.size(); ++i)
    if (!(s.concurrency.rows[i][0] > s.concurrency.rows[i - 1][0])) throw v.get("concurrency").error("streams must ascend");
  if (v.has("copies")) s.copies = read_table(v.get("copies"), {"streams", "bytes", "h2d_s_per_copy", "bidir_s_per_pair"});
  return s;
}

}  // namespace perfmodel::sections
