#!/usr/bin/env bash
# Runs ON the GPU machine, from the repository root, with dist/bin carried (build it here
# first with scripts/build-portable.sh; dist/tests, for the `tests` step, travels in a call of its
# own: with the tracked tree, dist/bin and dist/tests together exceed the 64 MiB a GPU call carries)
# and PERFMODEL_DATA_DIR=$PWD/data, so that the binary finds the bundled data in the tree there.
# The command of the 2026-11-23 19:56 UTC run (the bundled one):
#   export PERFMODEL_DATA_DIR=$PWD/data
#   STEP_TIMEOUT=250 scripts/device-run.sh tests,validate,calibrate > $OUT/device-run.log 2>&1
# Everything it produces lands in $OUT/results.tar.gz, laid out like data/ (unpack with:
# tar -xzf results.tar.gz -C data). One call does whole steps:
#   tests      record the machine; run the GPU test suite (CTest label `gpu`)
#   validate   perfmodel validate --quick (timed), then the full validation into
#              validation/NAME/ (measurements, resources, predictions, report, plot); the
#              kernels' SASS goes to runs/ as evidence for the workload descriptors
#   calibrate  time a quick GPU calibration; calibrate everything into profiles/NAME.yaml
#              (raw samples beside it), then again into NAME.repeat.yaml (run-to-run spread);
#              then NAME.yaml's transfer intervals are widened to the repeat's copies
#              (perfmodel fit --repeat-samples, log in runs/DAY-h100-fit-repeat.log)
#   check      perfmodel check transfers against profiles/NAME.yaml (run calibrate first), $CHECK_DELAY
#              seconds (default 30) after it, into validation/NAME-transfer-check/
#   farm-holdout, offload-holdout  the farm's holdout cases and the offload advisor's holdout plan
#              (sizes no model change was chosen on) into validation/NAME-farm-holdout/, NAME-offload-holdout/
#   generalisation  perfmodel validate --suite generalisation into validation/DAY-h100-generalisation/
#              (docs/generalisation-suite.md; about a minute), its log beside it; predicted from this
#              call's calibration when the calibrate step ran, else from the bundled profile
#   farm       calibrate the stream concurrency (gpu.streams) into profiles/NAME.streams.yaml, merge it
#              into a copy of the bundled profile, and measure the task farm (perfmodel validate --only
#              farm) into validation/NAME-farm/ (docs/farm.md; about two minutes)
#   offload    perfmodel validate --only offload into validation/NAME-offload/ (docs/offload.md; about
#              two minutes): the offloaded operation and the CPU reference, host-timed
#   tensor     the compute and tensor-core ceilings alone (calibrate --only gpu.compute --only
#              gpu.tensor) into profiles/runs/DAY-h100-tensor.yaml
#   anchors    the public tools beside the calibration, where their builds are carried in .anchors/
#              (not part of this repository): nvbandwidth and mixbench-cuda (binaries), BabelStream's source (built
#              here with cmake and nvcc); their outputs go to profiles/runs/DAY-h100-{mixbench,babelstream}*.txt
#   sanitize   compute-sanitizer memcheck over the GPU test binary (dist/tests, if carried),
#              `perfmodel validate --quick` (the reference kernels) and `perfmodel calibrate --only
#              gpu --quick` (the microbenchmarks); racecheck over the reference kernels at their
#              smallest sizes, a few blocks per launch, and the offload cases (the racecheck build,
#              dist/tests/perfmodel_gpu_racecheck_tests; see below); each run is killed after
#              $SANITIZE_TIMEOUT seconds (default 90; racecheck is 10-100x slower than the run);
#              $SANITIZE_TOOLS picks the tools (default "memcheck racecheck"). The racecheck
#              run of 2026-11-27 (the 32 configurations left unfinished the day before):
#                SANITIZE_TOOLS=racecheck RACECHECK_SHARDS=16 SANITIZE_TIMEOUT=240 scripts/device-run.sh sanitize
#              Logs and a summary of the "ERROR SUMMARY" lines go to profiles/runs/DAY-h100-sanitize-*.
# A step's command is killed after $STEP_TIMEOUT seconds (default: never), so that its log still
# comes back when the call's own time limit is near.
# Usage: scripts/device-run.sh [STEPS] [NAME]     STEPS: comma list (default tests,validate,calibrate;
#                                                 sanitize on request),
#                                                 NAME: default nvidia-h100-80gb-hbm3
set -uo pipefail
steps=${1:-tests,validate,calibrate}
name=${2:-nvidia-h100-80gb-hbm3}
OUT=${OUT:-$PWD/out/device}
mkdir -p "$OUT"
bin=$PWD/dist/bin/perfmodel
[ -x "$bin" ] || { echo "dist/bin/perfmodel is missing: run scripts/build-portable.sh and carry dist/bin" >&2; exit 2; }
work=$(mktemp -d)
runs="$work/profiles/runs"
mkdir -p "$runs" "$work/validation"
day=$(date -u +%F)
has() { [[ ",$steps," == *",$1,"* ]]; }

rc=0
timed() {  # timed LOG COMMAND...: runs in $work, appends exit status and wall time to LOG
  local log=$1; shift
  local start end status
  start=$(date +%s.%N)
  (cd "$work" && timeout "${STEP_TIMEOUT:-100000}" "$@" > "$log" 2>&1)
  status=$?
  end=$(date +%s.%N)
  echo "exit $status, wall $(awk "BEGIN{print $end - $start}") s: $*" | tee -a "$log"
  [ $status -eq 0 ] || rc=$status
}

if has tests; then
  { date -u +%FT%TZ; nvidia-smi; nvidia-smi -q | grep -iE 'Product Name|Bus Id|Link|Max|Current' | head -40;
    lscpu | head -20; uname -a; } > "$runs/$day-h100-machine.txt" 2>&1
  echo "== GPU tests"
  if [ -x dist/tests/perfmodel_gpu_tests ]; then
    dist/tests/perfmodel_gpu_tests 2>&1 | tee "$runs/$day-h100-gpu-tests.log" | tail -15
  else
    echo "no GPU test binary in dist/tests" | tee "$runs/$day-h100-gpu-tests.log"
  fi
  # The racecheck build (docs/input-limits.md) at 64 blocks per launch: every grid of at most 64
  # blocks runs whole through the block table, in another order, and its result is checked.
  if [ -x dist/tests/perfmodel_gpu_racecheck_tests ]; then
    PERFMODEL_RACECHECK_BLOCKS=64 dist/tests/perfmodel_gpu_racecheck_tests 2>&1 | tee "$runs/$day-h100-gpu-racecheck-build-tests.log" | tail -4
  fi
fi
if has validate; then
  echo "== validate --quick"
  timed "$runs/$day-h100-validate-quick.log" "$bin" validate --quick --out "$work/validate-quick"
  tail -25 "$runs/$day-h100-validate-quick.log"
  rm -rf "$work/validate-quick"
  echo "== validate"
  timed "$work/validation/$day-h100-validate.log" "$bin" validate --out "validation/$name"
  grep -vE '^\s+\[' "$work/validation/$day-h100-validate.log" | tail -40
  if command -v cuobjdump > /dev/null; then
    cuobjdump -sass "$bin" 2> /dev/null | gzip > "$runs/$day-h100-sass.txt.gz"
    # mv-opt's load-round table must describe the code that ran
    python3 scripts/sass_load_rounds.py --check "$runs/$day-h100-sass.txt.gz" kernels/descriptors/reference_descriptors.cpp 2>&1 |
      tee "$runs/$day-h100-sass-check.log"
  fi
fi
if has calibrate; then
  echo "== quick calibration"
  timed "$runs/$day-h100-calibrate-quick.log" "$bin" calibrate --quick --out "$work/quick.yaml"
  grep -E "^done:|_calibration_wall_s" "$runs/$day-h100-calibrate-quick.log"
  rm -f "$work"/quick.*
  for run in ${CALIBRATE_RUNS:-"$name" "$name.repeat"}; do
    echo "== calibrate -> $run.yaml"
    timed "$runs/$day-h100-calibrate-$run.log" "$bin" calibrate --out "profiles/$run.yaml"
    grep -E "gpu\.|pcie\." "$runs/$day-h100-calibrate-$run.log" | grep -v "^run" | head -20
    # Where the wall time went: each CPU benchmark's line ends with its own time; then the parts.
    grep -E "^     cpu\.[a-z]+: " "$runs/$day-h100-calibrate-$run.log" | sed -E 's/^ +(cpu\.[a-z]+): .*(\([^()]*\))$/   \1 \2/'
    grep -E "^done:|_calibration_wall_s|^exit " "$runs/$day-h100-calibrate-$run.log"
  done
  # The bundled profile's transfer intervals span the repeat's copies too (the spread between
  # runs, not only within one): fit --repeat-samples, in place (docs/transfers.md).
  if [ -f "$work/profiles/$name.repeat.pcie_samples.csv" ] && [ -f "$work/profiles/$name.pcie_samples.csv" ]; then
    timed "$runs/$day-h100-fit-repeat.log" "$bin" fit --samples "profiles/$name.pcie_samples.csv" \
      --repeat-samples "profiles/$name.repeat.pcie_samples.csv" --profile "profiles/$name.yaml" --out "profiles/$name.yaml"
  fi
fi
if has check; then
  echo "== independent transfer check (a minute after the calibration)"
  sleep "${CHECK_DELAY:-30}"
  timed "$runs/$day-h100-check-transfers.log" "$bin" check transfers --profile "profiles/$name.yaml" --out "validation/$name-transfer-check"
  grep -vE '^\s+\[' "$runs/$day-h100-check-transfers.log" | tail -25
fi
if has farm-holdout; then
  echo "== farm, the holdout cases"
  timed "$work/validation/$day-h100-farm-holdout.log" "$bin" validate --only farm --cases holdout --out "validation/$name-farm-holdout"
  grep -vE '^\s+\[' "$work/validation/$day-h100-farm-holdout.log" | tail -30
fi
# The offload validation predicts with this host's own profile where the calibrate step made one
# in this call (its CPU side is this host's: the bundled one's came from another VM), else the bundled one.
offload_profile=()
if [ -f "$work/profiles/$name.yaml" ]; then offload_profile=(--profile "$work/profiles/$name.yaml"); fi
if has offload-holdout; then
  echo "== offload, the holdout plan"
  timed "$work/validation/$day-h100-offload-holdout.log" "$bin" validate --only offload --plan holdout --out "validation/$name-offload-holdout" \
    ${offload_profile[@]+"${offload_profile[@]}"}
  grep -vE '^\s+\[' "$work/validation/$day-h100-offload-holdout.log" | tail -30
fi
if has generalisation; then
  echo "== validate --suite generalisation"
  # Predicted from this call's calibration where the calibrate step made one (what a user who
  # calibrates first gets), else from the bundled profile; the report names the profile.
  timed "$work/validation/$day-h100-generalisation.log" "$bin" validate --suite generalisation --out "validation/$day-h100-generalisation" \
    ${offload_profile[@]+"${offload_profile[@]}"}
  grep -vE '^\s+\[' "$work/validation/$day-h100-generalisation.log" | tail -60
fi
if has farm; then
  echo "== farm: gpu.streams, then validate --only farm"
  timed "$runs/$day-h100-calibrate-streams.log" "$bin" calibrate --only gpu.streams --out "profiles/$name.streams.yaml"
  timed "$runs/$day-h100-fit-streams.log" "$bin" fit --streams-samples "profiles/$name.streams.gpu_samples.csv" \
    --profile "$PERFMODEL_DATA_DIR/profiles/$name.yaml" --out "profiles/$name.with-streams.yaml"
  timed "$work/validation/$day-h100-farm.log" "$bin" validate --only farm --out "validation/$name-farm" \
    --profile "$work/profiles/$name.with-streams.yaml"
  grep -vE '^\s+\[' "$work/validation/$day-h100-farm.log" | tail -40
fi
if has offload; then
  echo "== validate --only offload"
  timed "$work/validation/$day-h100-offload.log" "$bin" validate --only offload --out "validation/$name-offload" \
    ${offload_profile[@]+"${offload_profile[@]}"}
  grep -vE '^\s+\[' "$work/validation/$day-h100-offload.log" | tail -40
fi
if has tensor; then
  echo "== compute and tensor-core ceilings"
  timed "$runs/$day-h100-calibrate-tensor.log" "$bin" calibrate --only gpu.compute --only gpu.tensor --out "profiles/runs/$day-h100-tensor.yaml"
  grep -E "gpu\.(compute|tensor)" "$runs/$day-h100-calibrate-tensor.log" | head
fi
if has anchors; then
  echo "== anchors"
  if [ -x .anchors/mixbench-cuda ]; then
    timed "$runs/$day-h100-mixbench.txt" "$PWD/.anchors/mixbench-cuda"
    tail -5 "$runs/$day-h100-mixbench.txt"
  fi
  if [ -x .anchors/nvbandwidth ]; then  # built elsewhere (it needs Boost and NVML headers)
    timed "$runs/$day-h100-nvbandwidth.txt" "$PWD/.anchors/nvbandwidth" -t host_to_device_memcpy_ce device_to_host_memcpy_ce
    grep -E "^SUM|memcpy_ce" "$runs/$day-h100-nvbandwidth.txt" | head -4
  fi
  nvcc=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2> /dev/null || true)
  if [ -d .anchors/BabelStream ] && [ -n "$nvcc" ]; then
    (cd .anchors/BabelStream && cmake -S . -B build -DMODEL=cuda -DCMAKE_CUDA_COMPILER="$nvcc" -DCUDA_ARCH=sm_90 > /dev/null 2>&1 &&
      cmake --build build -j"$(nproc)" > /dev/null 2>&1) || echo "BabelStream did not build" | tee -a "$runs/$day-h100-babelstream.txt"
    if [ -x .anchors/BabelStream/build/cuda-stream ]; then
      timed "$runs/$day-h100-babelstream-fp64.txt" "$PWD/.anchors/BabelStream/build/cuda-stream" -s 268435456
      timed "$runs/$day-h100-babelstream-fp32.txt" "$PWD/.anchors/BabelStream/build/cuda-stream" -s 268435456 --float
      grep -E "^(Copy|Mul|Add|Triad|Dot)" "$runs/$day-h100-babelstream-fp64.txt" "$runs/$day-h100-babelstream-fp32.txt"
    fi
  fi
fi
if has sanitize; then
  echo "== compute-sanitizer"
  cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer /usr/local/cuda*/compute-sanitizer/compute-sanitizer 2> /dev/null | head -1 || true)
  summary="$runs/$day-h100-sanitize-summary.txt"
  if [ -z "$cs" ]; then
    echo "no compute-sanitizer on this machine" | tee "$summary"
  else
    "$cs" --version > "$summary" 2>&1
    sanitized() {  # sanitized TOOL NAME COMMAND...: one run under compute-sanitizer, bounded
      local tool=$1 label=$2; shift 2
      local log="$runs/$day-h100-sanitize-$tool-$label.log"
      (cd "$work" && timeout "${SANITIZE_TIMEOUT:-90}" "$cs" --tool "$tool" --error-exitcode 3 --print-limit 50 "$@" > "$log" 2>&1)
      local status=$?
      { echo "$tool $label: exit $status$([ $status -eq 124 ] && echo ' (timed out: partial run)')";
        grep -E "ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY" "$log" | tail -3; } | tee -a "$summary"
      [ $status -eq 3 ] && rc=3
      return 0
    }
    # memcheck: the whole GPU test binary, the reference kernels at validate --quick's sizes, the
    # microbenchmarks of a quick GPU calibration (tests that judge timings may fail under it: the
    # exit status of interest is 3, the sanitizer's).
    tools=" ${SANITIZE_TOOLS:-memcheck racecheck} "
    if [[ $tools == *" memcheck "* ]]; then
      if [ -x dist/tests/perfmodel_gpu_tests ]; then sanitized memcheck gpu-tests "$PWD/dist/tests/perfmodel_gpu_tests"; fi
      sanitized memcheck validate-quick "$bin" validate --quick --out "$work/sanitize-validate-memcheck"
      rm -rf "$work/sanitize-validate-memcheck"
      sanitized memcheck calibrate-gpu-quick "$bin" calibrate --only gpu --quick --out "$work/sanitize-memcheck.yaml"
      rm -f "$work/sanitize-memcheck.yaml" "$work/sanitize-memcheck.gpu_samples.csv"
    fi
    # racecheck instruments every shared-memory access (100-1000x slower), so it runs small work in
    # parallel processes, through the racecheck build of the kernels (dist/tests/
    # perfmodel_gpu_racecheck_tests, kernels/cuda/src/block_index.cuh): every reference-kernel
    # configuration of $RACECHECK_CONFIGS (default: the 32 that the 2026-11-26 record left
    # unfinished; `all`: every one) once at its smallest size, each launch running at most
    # $RACECHECK_BLOCKS chosen blocks of its grid (default 8: the first, the last of each dimension,
    # the corners, the centre, consecutive ones; racecheck hazards are within a block), in
    # $RACECHECK_SHARDS shards (default 12), and the offload test's cases whose kernels use shared
    # memory. First, without the sanitizer, the same configurations at 64 blocks per launch: every
    # grid of at most 64 blocks then runs whole through the block table (in another order than
    # the launch order) and its result is checked. RACECHECK_OTHERS=1 adds the generalisation, farm
    # and shared-memory microbenchmark kernels (through dist/tests/perfmodel_gpu_tests; 0 hazards on
    # 2026-11-26). The summary gives a verdict per configuration (scripts/racecheck-summary.sh).
    if [[ $tools == *" racecheck "* ]]; then
      rt=$PWD/dist/tests/perfmodel_gpu_racecheck_tests
      gt=$PWD/dist/tests/perfmodel_gpu_tests
      # In cost order, light first: a shard's second configuration is its costly one, which then
      # has the rest of the time (per-block shared accesses grow with X·Y·NE).
      unfinished=59,65,67,54,56,64,75-84,74,63,72,73,52,61,62,69,71,58,60,66,68,70,55,57
      configs=${RACECHECK_CONFIGS:-$unfinished}
      only=(PERFMODEL_GPU_TEST_ONLY="$configs")
      [ "$configs" = all ] && only=()
      blocks=${RACECHECK_BLOCKS:-8}
      shards=${RACECHECK_SHARDS:-12}
      if [ ! -x "$rt" ]; then
        echo "racecheck: no dist/tests/perfmodel_gpu_racecheck_tests (scripts/build-portable.sh builds it; carry dist/tests)" | tee -a "$summary"
      else
        table_log="$runs/$day-h100-racecheck-table-check.log"
        (cd "$work" && env ${only[@]+"${only[@]}"} PERFMODEL_RACECHECK_BLOCKS=64 timeout 120 "$rt" \
          --gtest_filter=RacecheckBlocks.EveryConfigurationAtItsSmallestSize > "$table_log" 2>&1)
        status=$?
        echo "racecheck build, block table check without the sanitizer (at most 64 blocks per launch): exit $status;" \
          "$(grep -c 'checked, passed' "$table_log") results checked and passed, $(grep -c 'checked, FAILED' "$table_log") failed," \
          "$(grep -c 'not checked (partial grid)' "$table_log") partial grids not checked" | tee -a "$summary"
        echo "racecheck: configurations $configs, at most $blocks blocks per launch, $shards shards" | tee -a "$summary"
        for ((k = 0; k < shards; k++)); do
          (export ${only[@]+"${only[@]}"} PERFMODEL_RACECHECK_BLOCKS=$blocks PERFMODEL_GPU_TEST_SHARD=$k/$shards
           sanitized racecheck blocks-$k "$rt" --gtest_filter=RacecheckBlocks.EveryConfigurationAtItsSmallestSize) &
        done
        (export PERFMODEL_RACECHECK_BLOCKS=$blocks
         sanitized racecheck offload-blocks "$rt" --gtest_filter=RacecheckBlocks.OffloadCases) &
      fi
      if [ -n "${RACECHECK_OTHERS:-}" ] && [ -x "$gt" ]; then
        (sanitized racecheck generalisation "$gt" --gtest_filter=GpuGeneralisation.EveryKernelPassesItsCheckAtItsTestSize) &
        (sanitized racecheck farm "$gt" --gtest_filter=GpuFarm.EveryModeOfEveryApplicationPassesItsCheck) &
        (sanitized racecheck microbench-shared "$gt" --gtest_filter=GpuMicrobench.SharedMemoryKernelsPassTheirChecksOnASmallGrid) &
      fi
      wait
      if [ -x "$rt" ]; then
        { echo "racecheck per configuration and offload case (hazards found / none / not finished):"
          scripts/racecheck-summary.sh "$runs/$day-h100-sanitize-racecheck-blocks-"*.log "$runs/$day-h100-sanitize-racecheck-offload-blocks.log"
        } 2>&1 | tee -a "$summary"
      fi
      grep -q "^racecheck .*: exit 3" "$summary" && rc=3
      grep -q ": hazards found" "$summary" && rc=3
    fi
  fi
fi
tar -czf "$OUT/results.tar.gz" -C "$work" .
find "$work" -type f | sed "s#$work/##" | sort
exit $rc
