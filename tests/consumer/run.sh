#!/usr/bin/env bash
# Installs the build in $1 into a temporary prefix, builds tests/consumer against the installed
# CMake package (find_package(perfmodel)), and checks that it predicts what the perfmodel command
# of that prefix predicts for S0's Mv transfers at n = 4096 from the installed bundled profile.
set -euo pipefail
build=$1
consumer=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$consumer" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release > "$work/configure.log"
cmake --build "$work/build" > "$work/build.log"
profile=$(find "$work/prefix" -path '*/perfmodel/profiles/nvidia-h100-80gb-hbm3.yaml' | head -1)
[ -n "$profile" ] || { echo "the bundled profile was not installed" >&2; exit 1; }
got=$("$work/build/consumer" "$profile" 4096)
want=$("$work/prefix/bin/perfmodel" predict transfer --for mv --n 4096 --profile "$profile" --format json |
       sed -n 's/.*"total_seconds": \([0-9.e+-]*\).*/\1/p' | head -1)
echo "consumer: $got s, perfmodel predict: $want s"
awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 1e-9 * b) }'
