#include "perfmodel/model/transfer_samples.hpp"

#include <cmath>
#include <map>
#include <sstream>

#include "perfmodel/model/atomic_file.hpp"
#include "perfmodel/model/errors.hpp"
#include "perfmodel/model/input_file.hpp"
#include "perfmodel/model/limits.hpp"
#include "perfmodel/model/statistics.hpp"
#include "sample_csv.hpp"

namespace perfmodel {
namespace {

constexpr const char* kMagic = "# perfmodel transfer samples v2";
constexpr const char* kHeader = "direction,memory,mode,bytes,set,round,batch,event_s,wall_s";
constexpr const char* kMagicV1 = "# perfmodel transfer samples v1";
constexpr const char* kHeaderV1 = "direction,memory,bytes,set,round,batch,event_s,wall_s";

}  // namespace

const char* to_string(SizeSet s) { return s == SizeSet::fit ? "fit" : s == SizeSet::holdout ? "holdout" : "mixed"; }

std::string to_csv(const TransferSampleFile& file) {
  std::ostringstream out;
  out << csv::header_lines(kMagic, file.provenance);
  if (!file.host_buffer.empty()) out << "# pcie_host_buffer: " << file.host_buffer << "\n";
  out << kHeader << "\n";
  for (const TransferSample& s : file.samples)
    out << to_string(s.key.direction) << ',' << to_string(s.key.memory) << ',' << to_string(s.mode) << ',' << s.bytes << ',' << to_string(s.set)
        << ',' << s.round << ',' << s.batch << ',' << csv::format_g(s.event_s) << ',' << csv::format_g(s.wall_s) << "\n";
  return out.str();
}

TransferSampleFile parse_transfer_samples(const std::string& text, const std::string& file_name) {
  TransferSampleFile file;
  const auto on_metadata = [&](const std::string& key, const std::string& value, const csv::ErrorAt& error) {
    if (key != "pcie_host_buffer") return;  // other comments are allowed and ignored
    if (!is_pcie_host_buffer(value)) throw error(key, "must be rotating or fixed, got '" + value + "'");
    file.host_buffer = value;
  };
  file.version = text.rfind(kMagicV1, 0) == 0 ? 1 : 2;
  const bool v1 = file.version == 1;
  csv::read_sample_file(text, file_name, v1 ? kMagicV1 : kMagic, v1 ? kHeaderV1 : kHeader, file.provenance, on_metadata,
                        [&](std::vector<std::string> cells, const csv::ErrorAt& error) {
    TransferSample s;
    if (v1) {
      if (cells.size() != 8) throw error("row", "expected 8 columns, found " + std::to_string(cells.size()));
      s.mode = TransferMode::stream;  // v1: back-to-back synchronous copies (TransferCurve::timing "batched")
    } else {
      if (cells.size() != 9) throw error("row", "expected 9 columns, found " + std::to_string(cells.size()));
      const auto mode = parse_transfer_mode(cells[2]);
      if (!mode) throw error("mode", "'" + cells[2] + "' is not single or stream");
      s.mode = *mode;
      cells.erase(cells.begin() + 2);
    }
    const auto direction = parse_direction(cells[0]);
    if (!direction) throw error("direction", "'" + cells[0] + "' is not h2d, d2h or bidir");
    const auto memory = parse_host_memory(cells[1]);
    if (!memory) throw error("memory", "'" + cells[1] + "' is not pinned or pageable");
    s.key = {*direction, *memory};
    s.bytes = static_cast<std::uint64_t>(csv::parse_whole(cells[2], "bytes", error, 1, limits::kMaxBytes));
    if (cells[3] == "fit") s.set = SizeSet::fit;
    else if (cells[3] == "holdout") s.set = SizeSet::holdout;
    else if (cells[3] == "mixed" && !v1) s.set = SizeSet::mixed;
    else throw error("set", "'" + cells[3] + "' is not fit, holdout or mixed");
    s.round = static_cast<int>(csv::parse_whole(cells[4], "round", error, 0, 1e9));
    s.batch = static_cast<int>(csv::parse_whole(cells[5], "batch", error, 1, 1e9));
    s.event_s = csv::parse_number(cells[6], "event_s", error);
    s.wall_s = csv::parse_number(cells[7], "wall_s", error);
    if (s.batch < 1) throw error("batch", "must be >= 1");
    if (!v1 && s.mode == TransferMode::single && s.batch != 1) throw error("batch", "a single copy's sample has batch 1");
    if (s.set == SizeSet::mixed && (s.mode != TransferMode::single || s.key.direction == Direction::bidir))
      throw error("set", "mixed copies are single copies one way (h2d or d2h)");
    if (!(s.event_s > 0 && s.event_s <= limits::kMaxSampleSeconds)) throw error("event_s", "must be a positive time of at most a day");
    if (!(s.wall_s > 0 && s.wall_s <= limits::kMaxSampleSeconds)) throw error("wall_s", "must be a positive time of at most a day");
    file.samples.push_back(s);
  });
  return file;
}

TransferSampleFile load_transfer_samples(const std::string& path) { return parse_transfer_samples(read_input_file(path), path); }

std::vector<SizeTime> typical_times_by_size(const std::vector<TransferSample>& samples, const TransferKey& key,
                                        SizeSet set, TimerSource timer, std::optional<TransferMode> mode) {
  std::map<std::uint64_t, std::vector<double>> by_size;
  std::map<std::uint64_t, int> batch;  // a size's batch; 0 where its samples differ (recorded before PcieBatchPlan)
  for (const TransferSample& s : samples)
    if (s.key == key && s.set == set && (!mode || s.mode == *mode)) {
      by_size[s.bytes].push_back(timer == TimerSource::event ? s.event_s : s.wall_s);
      const auto [it, first] = batch.emplace(s.bytes, s.batch);
      if (!first && it->second != s.batch) it->second = 0;
    }
  std::vector<SizeTime> out;
  for (auto& [bytes, times] : by_size) {
    const std::size_t count = times.size();
    // Only the held-out sizes are judged against their noise (FitQuality::Noise); the bootstrap
    // costs ~1 ms a size.
    const double rel_se = set == SizeSet::holdout ? interquartile_mean_rel_se(times) : 0.0;
    const SampleSummary summary = summarize(times);
    out.push_back({static_cast<double>(bytes), summary.interquartile_mean, count, rel_se, summary.relative_spread(), batch[bytes],
                   std::move(times)});
  }
  return out;
}

}  // namespace perfmodel
