#pragma once
// The perfmodel command line, callable in-process (tests drive it this way).
#include <iosfwd>
#include <string>
#include <vector>

namespace perfmodel::cli {

// args excludes the program name. Returns the exit code: 0 ok, 1 bad input, 2 runtime failure.
// Errors are printed to err as one line "perfmodel: error: …".
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace perfmodel::cli
