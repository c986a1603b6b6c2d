#!/usr/bin/env bash
# Installs what is missing, builds with warnings as errors and runs every test that needs no GPU (CTest label `gpu` is
# excluded; on a GPU machine run `ctest --test-dir build -L gpu` as well).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh   # quick when everything is there (the report test needs Debian's chromium)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPERFMODEL_WERROR=ON >/dev/null
cmake --build build -j"$(nproc)"
ctest --test-dir build -LE gpu --output-on-failure -j"$(nproc)"
