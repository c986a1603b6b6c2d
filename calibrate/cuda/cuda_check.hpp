#pragma once
// One error path for every CUDA runtime call: a failure becomes a RuntimeFailure that names
// the expression, where it was called, and CUDA's own message.
#include <cuda_runtime.h>

#include <string>

#include "perfmodel/model/errors.hpp"

namespace perfmodel {

inline void cuda_check(cudaError_t status, const char* expression, const char* file, int line) {
  if (status == cudaSuccess) return;
  throw RuntimeFailure(std::string("CUDA error: ") + expression + " failed at " + file + ":" + std::to_string(line) +
                       ": " + cudaGetErrorName(status) + ": " + cudaGetErrorString(status));
}

}  // namespace perfmodel

#define PERFMODEL_CUDA_CHECK(expr) ::perfmodel::cuda_check((expr), #expr, __FILE__, __LINE__)
// After a kernel launch: catches both launch-configuration errors and (in debug) execution faults.
#define PERFMODEL_CUDA_CHECK_LAUNCH() PERFMODEL_CUDA_CHECK(cudaGetLastError())
