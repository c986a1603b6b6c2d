// `perfmodel validate --only farm` in a build without CUDA: the plan exists, the GPU does not.
#include "perfmodel/model/errors.hpp"
#include "perfmodel/validate/farm.hpp"

namespace perfmodel {

FarmRun run_farm_validation(FarmCaseSet, const std::string&, std::ostream*, std::vector<std::string>&) {
  throw RuntimeFailure("cannot run the farm on a GPU: this perfmodel was built without CUDA (use --from DIR to analyse a recorded run)");
}

}  // namespace perfmodel
