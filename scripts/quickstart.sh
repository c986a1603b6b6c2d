#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main job:
#   with a usable GPU: calibrate its PCIe link into build/profile.yaml and predict from it;
#   without one: predict from the bundled NVIDIA H100 profile (data/profiles/);
#   either way: predict GPU kernel times (S0's optimised Mv and MM) from the bundled H100
#   profile, next to what the recorded validation run measured, and the launch configuration the
#   model picks; then calibrate this machine's CPU (quick) and predict a CPU kernel from it.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
profile=()
if ./build/perfmodel calibrate --list --format csv 2>/dev/null | grep -q '^pcie\.[a-z2]*\.[a-z]*,true'; then
  ./build/perfmodel calibrate --only pcie --out build/profile.yaml
  profile=(--profile build/profile.yaml)
fi
# S0's matrix-vector transfers at n = 8192 (A and b to the GPU, c back), pinned and pageable.
./build/perfmodel predict transfer --for mv --n 8192 --memory pinned "${profile[@]}"
./build/perfmodel predict transfer --for mv --n 8192 --memory pageable "${profile[@]}"
# GPU kernel time before coding: S0's tuned Mv and MM on the H100 (bundled profile), the
# recorded measurement beside each prediction, and the configuration the model ranks first.
./build/perfmodel predict kernel --kernel mv-opt --n 8192
./build/perfmodel tune --kernel mm-opt --n 4096 --top 5
# The CPU half, on this machine: a quick CPU calibration (about 15 s), then Mv's CPU time from it.
./build/perfmodel calibrate --only cpu --quick --out build/cpu-profile.yaml --format csv >/dev/null
./build/perfmodel predict cpu --kernel mv --n 2048 --n 8192 --profile build/cpu-profile.yaml
