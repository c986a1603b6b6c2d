// `perfmodel validate --suite generalisation` in a build without CUDA.
#include "perfmodel/model/errors.hpp"
#include "perfmodel/validate/generalisation.hpp"

namespace perfmodel {

GenRunRecord run_generalisation(const std::vector<GenPoint>&, const std::string&, std::ostream*, std::vector<std::string>&,
                                const std::string&) {
  throw RuntimeFailure(
      "cannot validate on a GPU: this perfmodel was built without CUDA (use --from DIR to analyse a recorded run)");
}

}  // namespace perfmodel
