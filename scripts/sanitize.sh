#!/usr/bin/env bash
# The suite under AddressSanitizer and UndefinedBehaviorSanitizer (float-cast-overflow included:
# GCC and clang leave it out of -fsanitize=undefined) in build-sanitize/, then every test that needs
# no GPU (CTest label `gpu` excluded). With clang (Debian: clang, libclang-rt-dev), the libFuzzer
# targets of the file readers are built too and run a fixed number of times from the bundled data
# (CTest labels `fuzz` and `sanitize`; PERFMODEL_FUZZ_RUNS executions each, default 2000).
# Separate from scripts/test.sh, which CI runs: this build takes about three times as long.
# The GPU code is checked on a GPU machine instead: scripts/device-run.sh sanitize (compute-sanitizer).
# Usage: scripts/sanitize.sh [FUZZ_RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-2000}
flags="-fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer"
if command -v clang++ > /dev/null && command -v clang > /dev/null; then
  export CC=clang CXX=clang++
  fuzz=ON
  flags="$flags -fsanitize=fuzzer-no-link"
else
  echo "sanitize.sh: no clang: building with the default compiler, without the fuzz targets" >&2
  fuzz=OFF
fi
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPERFMODEL_WITH_CUDA=OFF -DPERFMODEL_FUZZ=$fuzz \
  -DPERFMODEL_FUZZ_RUNS="$runs" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_C_FLAGS="$flags" > /dev/null
cmake --build build-sanitize -j"$(nproc)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# The installed-package test builds another project against this library without the sanitizer
# runtime: it belongs to the normal build (scripts/test.sh).
ctest --test-dir build-sanitize -LE gpu -E installed_package_consumer --output-on-failure -j"$(nproc)"
