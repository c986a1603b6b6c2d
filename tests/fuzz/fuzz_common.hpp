#pragma once
// Shared by the libFuzzer targets: what a reader may do with any input is return a value or throw
// InputError (a message naming the file and line); anything else — a crash, a sanitizer report,
// another exception, a non-finite prediction from an accepted file — is a finding.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace perfmodel::fuzz {

// A property the readers promise is broken: print it and abort, so libFuzzer keeps the input.
[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "perfmodel fuzz finding: %s\n", what.c_str());
  std::abort();
}

inline void require_finite(double value, const char* what) {
  if (!std::isfinite(value)) finding(std::string(what) + " is not finite");
}

}  // namespace perfmodel::fuzz
