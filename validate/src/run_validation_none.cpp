// `perfmodel validate` in a build without CUDA: the plan exists, the GPU does not.
#include "perfmodel/model/errors.hpp"
#include "perfmodel/validate/plan.hpp"

namespace perfmodel {

ValidationRun run_validation(const ValidationOptions&, const std::string&, std::ostream*, std::vector<std::string>&) {
  throw RuntimeFailure("cannot validate on a GPU: this perfmodel was built without CUDA (use --from DIR to analyse a recorded run)");
}

}  // namespace perfmodel
