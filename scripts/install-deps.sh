#!/usr/bin/env bash
# Installs what perfmodel needs to build and test on Debian/Ubuntu (as root, or through sudo).
# The CUDA toolkit is optional: without nvcc the GPU calibration is left out of the build and
# everything else (predict, profile, plot, the tests) still works.
set -euo pipefail
packages=(cmake make g++ libboost-program-options-dev libyaml-cpp-dev libeigen3-dev libgtest-dev nlohmann-json3-dev gnuplot-nox chromium)
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -eq 0 ]; then echo "perfmodel: build dependencies already installed"; exit 0; fi
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
