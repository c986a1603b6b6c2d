// `perfmodel validate --only offload` in a build without CUDA: the plan and the analysis exist, the GPU does not.
#include "perfmodel/model/errors.hpp"
#include "perfmodel/validate/offload_validation.hpp"

namespace perfmodel {

OffloadRun run_offload_validation(const Profile&, const ResourceTable&, const std::string&, const std::string&, std::ostream*, std::vector<std::string>&, double, const OffloadPlanLimits&) {
  throw RuntimeFailure("cannot validate on a GPU: this perfmodel was built without CUDA (use --from DIR to analyse a recorded run)");
}

}  // namespace perfmodel
