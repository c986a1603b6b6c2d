#include <algorithm>

#include "perfmodel/validate/farm.hpp"

namespace perfmodel {

std::vector<FarmCase> farm_cases(FarmCaseSet set) {
  using A = FarmApp;
  // The holdout set: no task size or task count of the standard set, each application at three
  // sizes between and beyond the standard ones (the same regimes: copy-bound small tasks, and
  // compute-bound cosine tasks at a new M), about the standard set's runtime or less.
  if (set == FarmCaseSet::holdout)
    return {
        {{A::cosine, 1536, 10000}, 200}, {{A::cosine, 1536, 2000}, 600}, {{A::cosine, 3072, 2000}, 400},
        {{A::matmul, 48, 0}, 800},       {{A::matmul, 96, 0}, 396},       {{A::matmul, 192, 0}, 200},
        {{A::blur, 96, 0}, 800},         {{A::blur, 192, 0}, 396},        {{A::blur, 384, 0}, 200},
    };
  if (set == FarmCaseSet::quick) return {{{A::cosine, 1024, 500}, 264}, {{A::matmul, 64, 0}, 264}, {{A::blur, 128, 0}, 264}};
  // Task counts: L ≥ 2·#SM of an H100 everywhere, more where tasks are short; the serial run of a
  // case (L synchronous tasks, repeated) stays well under a second. The heavy cosine tasks (about
  // a millisecond of kernel each, Cecconi's compute-bound regime) against the light ones, where
  // issuing the tasks costs the host more than the GPU takes to run them.
  return {
      {{A::cosine, 1024, 10000}, 264}, {{A::cosine, 2048, 10000}, 264}, {{A::cosine, 1024, 500}, 1056},
      {{A::matmul, 32, 0}, 1056},      {{A::matmul, 64, 0}, 1056},      {{A::matmul, 128, 0}, 528},
      {{A::matmul, 256, 0}, 264},      {{A::blur, 64, 0}, 1056},        {{A::blur, 128, 0}, 528},
      {{A::blur, 256, 0}, 264},        {{A::blur, 512, 0}, 132},
  };
}

std::vector<FarmConfig> farm_configs(int sms, bool quick) {
  std::vector<FarmConfig> out;
  out.push_back({FarmMode::serial, 0, HostMemory::pinned});
  std::vector<int> sweep = quick ? std::vector<int>{1, 4, sms} : farm_stream_sweep(sms);
  sweep.erase(std::remove(sweep.begin(), sweep.end(), 0), sweep.end());
  for (int s : sweep) out.push_back({FarmMode::streams, s, HostMemory::pinned});
  out.push_back({FarmMode::data_parallel, 0, HostMemory::pinned});
  for (int s : quick ? std::vector<int>{4} : std::vector<int>{1, 4, sms}) out.push_back({FarmMode::streams, s, HostMemory::pageable});
  return out;
}

}  // namespace perfmodel
