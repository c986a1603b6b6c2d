// Predicts S0's matrix-vector transfers from an installed profile through the installed package:
//   consumer PROFILE.yaml N
// prints the total seconds of A and b down and c up (pinned host memory).
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>

#include "perfmodel/model/profile_io.hpp"
#include "perfmodel/predictors/communication.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: consumer PROFILE.yaml N\n");
    return 2;
  }
  try {
    const perfmodel::Profile profile = perfmodel::load_profile(argv[1]);
    const perfmodel::CommunicationPredictor predictor(profile);
    const auto n = static_cast<std::uint64_t>(std::stoull(argv[2]));
    const perfmodel::TransferListPrediction p = predictor.predict(perfmodel::mv_transfers(n, perfmodel::HostMemory::pinned));
    std::printf("%.9e\n", p.total_seconds);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
  return 0;
}
