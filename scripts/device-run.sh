#!/usr/bin/env bash
# Runs ON the lent GPU machine, from the repository root, with dist/ carried (build it here
# first with scripts/build-portable.sh). Everything it produces lands in $OUT (the device
# tool brings that folder back). One call does it all, because device time is scarce:
#   1. record the machine (nvidia-smi, CPU, kernel),
#   2. run the GPU test suite (CTest label `gpu`),
#   3. calibrate: perfmodel calibrate --out <profile> (raw samples beside it),
#   4. calibrate again into <profile>.repeat.yaml: how much two runs on one machine differ.
# Usage: scripts/device-run.sh [PROFILE_NAME]      (default: nvidia-h100-80gb-hbm3)
set -uo pipefail
name=${1:-nvidia-h100-80gb-hbm3}
OUT=${OUT:-$PWD/out/device}
mkdir -p "$OUT"
bin=$PWD/dist/bin/perfmodel
[ -x "$bin" ] || { echo "dist/bin/perfmodel is missing: run scripts/build-portable.sh and carry dist" >&2; exit 2; }

{ date -u +%FT%TZ; nvidia-smi; nvidia-smi -q | grep -iE 'Product Name|Bus Id|Link|Max|Current' | head -40; 
  lscpu | head -20; uname -a; } > "$OUT/machine.txt" 2>&1

echo "== GPU tests"
if [ -x dist/tests/perfmodel_gpu_tests ]; then
  dist/tests/perfmodel_gpu_tests 2>&1 | tee "$OUT/gpu_tests.log" | tail -15
else
  echo "no GPU test binary in dist/tests" | tee "$OUT/gpu_tests.log"
fi

rc=0
for run in "$name" "$name.repeat"; do
  echo "== calibrate -> $run.yaml"
  start=$(date +%s.%N)
  (cd "$OUT" && "$bin" calibrate --out "$run.yaml" > "$run.log" 2>&1)
  status=$?
  end=$(date +%s.%N)
  echo "calibrate exit $status, wall $(awk "BEGIN{print $end - $start}") s" | tee -a "$OUT/$run.log"
  grep -E "^  (h2d|d2h|bidir)/" "$OUT/$run.log" | head -5
  [ $status -eq 0 ] || rc=$status
done
exit $rc
