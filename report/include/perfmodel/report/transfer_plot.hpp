#pragma once
// The transfer plot of `perfmodel plot transfers` and `perfmodel report`: per curve, time per copy
// and effective bandwidth against size, measured (typical times with p10-p90 bars; fit and held-out
// sizes apart) and modelled, log-log.
#include <string>

#include "perfmodel/model/profile.hpp"
#include "perfmodel/model/transfer_samples.hpp"

namespace perfmodel::report {

// Writes DIR/transfers.csv, transfers_model.csv, transfers.gp and draws transfers.{svg,png}
// (DIR is created; callers stage it). `samples` are the raw copies the curves were fitted on.
void write_transfer_plot(const std::string& dir, const PcieCalibration& pcie, const TransferSampleFile& samples,
                         const Provenance& provenance);

}  // namespace perfmodel::report
