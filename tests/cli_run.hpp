#pragma once
// Runs the perfmodel command line in-process, as the tests drive it: exit code and both streams.
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"

namespace perfmodel::test {

struct Result {
  int code;
  std::string out, err;
};

inline Result run(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = cli::run(args, out, err);
  return {code, out.str(), err.str()};
}

}  // namespace perfmodel::test
