#pragma once
// `perfmodel offload` and `perfmodel validate --only offload` (apps/cmd_offload.cpp).
#include <string>

#include "cli_common.hpp"

namespace perfmodel::cli {

int cmd_offload(const Invocation& inv);
// The offload validation: measure (CUDA) or re-analyse (--from), then report.
int validate_offload(const Invocation& inv, const po::variables_map& vm, Format format, const std::string& out_dir);

}  // namespace perfmodel::cli
