#pragma once
// Raw host↔device transfer timings, every sample kept, as CSV with provenance in '#' lines:
//
//   # perfmodel transfer samples v2
//   # device_name: NVIDIA H100 80GB HBM3
//   # ...
//   direction,memory,mode,bytes,set,round,batch,event_s,wall_s
//   h2d,pinned,single,4,fit,0,1,1.03e-05,1.21e-05
//
// `mode` is how the copies were issued (TransferMode): single (one synchronous copy between two
// events; batch 1) or stream (`batch` copies queued back to back in one stream, between two
// events). Files of v1 (no mode column: back-to-back synchronous copies, batched below ~30 µs a
// copy) are read with every row as mode stream and TransferSampleFile::version 1.
//
// A "# pcie_host_buffer: rotating|fixed" line says which host bytes the copies used.
// One row is one timed batch of `batch` back-to-back copies of `bytes` each; event_s and wall_s
// are the per-copy times (batch time / batch), by CUDA events and by the host's steady clock.
// Small copies are batched so that the timer's resolution stays far below the copy time.
// `set` says whether the size belongs to the fit set or to the held-out set, or (`mixed`) whether
// the copy was one of calibrate's pcie.mixed: single copies of the four one-way kinds and many
// sizes in one random interleaved order, host bytes at a random page, timed the way
// `perfmodel check transfers` times (apply_mixed_copies).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "perfmodel/model/provenance.hpp"
#include "perfmodel/model/transfer_model.hpp"

namespace perfmodel {

enum class SizeSet { fit, holdout, mixed };
const char* to_string(SizeSet s);

struct TransferSample {
  TransferKey key;
  std::uint64_t bytes = 0;
  SizeSet set = SizeSet::fit;
  int round = 0;
  int batch = 1;
  double event_s = 0;
  double wall_s = 0;
  TransferMode mode = TransferMode::single;
};

struct TransferSampleFile {
  Provenance provenance;
  std::vector<TransferSample> samples;
  // Which host bytes the copies used ("# pcie_host_buffer: rotating|fixed"; calibrate
  // --pcie-host-buffer); empty in files written before it was recorded: fixed bytes before commit
  // 4e99ac3, rotating from it unless the command line says fixed.
  std::string host_buffer;
  int version = 2;  // of the file format read (1: batched, no mode column)
};

std::string to_csv(const TransferSampleFile& file);
// Throws InputError "file:line: column: problem" on any malformed row or header.
TransferSampleFile parse_transfer_samples(const std::string& text, const std::string& file_name);
TransferSampleFile load_transfer_samples(const std::string& path);

enum class TimerSource { event, wall };

// Typical time (interquartile mean) per distinct size of the samples of one curve and one size
// set (of one mode, or all), ascending in bytes, each with its samples in the order taken.
std::vector<SizeTime> typical_times_by_size(const std::vector<TransferSample>& samples, const TransferKey& key,
                                        SizeSet set, TimerSource timer = TimerSource::event,
                                        std::optional<TransferMode> mode = std::nullopt);

}  // namespace perfmodel
