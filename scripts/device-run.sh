#!/usr/bin/env bash
# Runs ON the lent GPU machine, from the repository root, with dist/ carried (build it here
# first with scripts/build-portable.sh). Everything it produces lands in $OUT (the device
# tool brings that folder back; at most 8 files, so results travel as one tarball). One call
# does it all, because device time is scarce:
#   1. record the machine (nvidia-smi, CPU, kernel),
#   2. run the GPU test suite (CTest label `gpu`),
#   3. time a quick GPU calibration (perfmodel calibrate --only gpu --quick),
#   4. calibrate everything: perfmodel calibrate --out <profile> (raw samples beside it),
#   5. calibrate again into <profile>.repeat.yaml: how much two runs on one machine differ.
# Usage: scripts/device-run.sh [PROFILE_NAME]      (default: nvidia-h100-80gb-hbm3)
# Unpack here with: tar -xzf <files_at>/results.tar.gz -C data/profiles (see data/profiles/README.md).
set -uo pipefail
name=${1:-nvidia-h100-80gb-hbm3}
OUT=${OUT:-$PWD/out/device}
mkdir -p "$OUT"
bin=$PWD/dist/bin/perfmodel
[ -x "$bin" ] || { echo "dist/bin/perfmodel is missing: run scripts/build-portable.sh and carry dist" >&2; exit 2; }
work=$(mktemp -d)
runs="$work/runs"
mkdir -p "$runs"
day=$(date -u +%F)

{ date -u +%FT%TZ; nvidia-smi; nvidia-smi -q | grep -iE 'Product Name|Bus Id|Link|Max|Current' | head -40;
  lscpu | head -20; uname -a; } > "$runs/$day-h100-machine.txt" 2>&1

echo "== GPU tests"
if [ -x dist/tests/perfmodel_gpu_tests ]; then
  dist/tests/perfmodel_gpu_tests 2>&1 | tee "$runs/$day-h100-gpu-tests.log" | tail -8
else
  echo "no GPU test binary in dist/tests" | tee "$runs/$day-h100-gpu-tests.log"
fi

rc=0
timed() {  # timed LOG COMMAND...: runs in $work, appends exit status and wall time to LOG
  local log=$1; shift
  local start end status
  start=$(date +%s.%N)
  (cd "$work" && "$@" > "$log" 2>&1)
  status=$?
  end=$(date +%s.%N)
  echo "exit $status, wall $(awk "BEGIN{print $end - $start}") s: $*" | tee -a "$log"
  [ $status -eq 0 ] || rc=$status
}
echo "== quick GPU calibration"
timed "$runs/$day-h100-calibrate-gpu-quick.log" "$bin" calibrate --only gpu --quick --out "$work/quick.yaml"
for run in "$name" "$name.repeat"; do
  echo "== calibrate -> $run.yaml"
  timed "$runs/$day-h100-calibrate-$run.log" "$bin" calibrate --out "$run.yaml"
  grep -E "gpu\.|pcie\." "$runs/$day-h100-calibrate-$run.log" | grep -v "^run" | head -20
done
rm -f "$work/quick.yaml" "$work/quick.gpu_samples.csv"
tar -czf "$OUT/results.tar.gz" -C "$work" .
ls -la "$work" "$runs"
exit $rc
