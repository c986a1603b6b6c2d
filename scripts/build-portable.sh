#!/usr/bin/env bash
# Builds, on this (GPU-less) machine, a perfmodel that runs on the GPU machine: Boost,
# yaml-cpp, libstdc++ and the CUDA runtime linked statically (nlohmann/json is header-only: found
# here at build time, nothing of it travels), sm_90 code, installed into dist/.
# The GPU machine has no Boost and no package registry, so the binary travels instead.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-portable -DCMAKE_BUILD_TYPE=Release -DPERFMODEL_PORTABLE=ON -DPERFMODEL_WERROR=ON \
      -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_INSTALL_PREFIX="$PWD/dist" >/dev/null
cmake --build build-portable -j"$(nproc)"
rm -rf dist
cmake --install build-portable >/dev/null
# GPU tests travel too (they are not installed by `cmake --install`).
mkdir -p dist/tests
for t in build-portable/tests/perfmodel_gpu_tests build-portable/tests/perfmodel_gpu_racecheck_tests; do [ -x "$t" ] && cp "$t" dist/tests/; done
# Symbols stay in build-portable/; the carried copies go without them (2.3 MB less of the device
# tool's 64 MiB, which the tracked tree shares).
if command -v strip > /dev/null; then strip dist/bin/perfmodel dist/tests/perfmodel_gpu_tests dist/tests/perfmodel_gpu_racecheck_tests 2> /dev/null || true; fi
ldd dist/bin/perfmodel | grep -vE 'linux-vdso|libc.so|libm.so|ld-linux|libgcc_s|libdl|librt|libpthread' || true
du -sh dist
