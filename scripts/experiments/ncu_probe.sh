#!/usr/bin/env bash
# Experiment (not calibration): Nsight Compute counters for the validation runs the model gets
# most wrong, to find the mechanism before changing the model's form. Runs ON the GPU
# machine from the repository root with dist/bin and dist/exp carried (tile_loop built with
# nvcc -O2 -arch=sm_90 -o dist/exp/tile_loop scripts/experiments/tile_loop.cu). Clocks are left
# as the driver sets them (--clock-control none), as in the validation runs. Writes CSVs to $OUT.
set -uo pipefail
OUT=${OUT:-$PWD/out/ncu}
mkdir -p "$OUT"
B=$PWD
NCU=$(ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
[ -n "$NCU" ] || { echo "no ncu on this machine" >&2; exit 2; }
metrics="gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,sm__cycles_active.avg,smsp__cycles_active.avg"
metrics+=",smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.per_cycle_active"
metrics+=",sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active"
metrics+=",sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_uniform.avg.pct_of_peak_sustained_active"
metrics+=",dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
metrics+=",l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts.sum"
metrics+=",l1tex__lsu_writeback_active.avg.pct_of_peak_sustained_active,l1tex__throughput.avg.pct_of_peak_sustained_active"
metrics+=",regex:smsp__average_warps_issue_stalled_.*_per_issue_active\\.ratio"
probe() {  # probe NAME KERNEL_REGEX SKIP COUNT COMMAND...
  local name=$1 regex=$2 skip=$3 count=$4; shift 4
  timeout "${PROBE_TIMEOUT:-150}" "$NCU" --clock-control none --csv --page raw --metrics "$metrics" --kernel-name-base demangled \
    -k "regex:$regex" --launch-skip "$skip" --launch-count "$count" "$@" > "$OUT/$name.csv" 2> "$OUT/$name.err"
  echo "$name: exit $?, $(grep -c '^"[0-9]' "$OUT/$name.csv") kernels"
}
tl="$B/dist/exp/tile_loop"
# tile_loop: per (n, pad) 3 launches of each variant; skip n = 1024's 9, then n = 4096, pitch n, flushed.
for v in "64, \\(int\\)16" "32, \\(int\\)16" "64, \\(int\\)8" "32, \\(int\\)8" "32, \\(int\\)32"; do
  name=tile_$(echo "$v" | tr -cd '0-9_')
  probe "$name" "tile_loop<\\(int\\)$v, \\(int\\)0>" 9 1 "$tl"
done
pm="$B/dist/bin/perfmodel"
prof="$B/data/profiles/nvidia-h100-80gb-hbm3.yaml"
probe blur blur_kernel 3 2 "$pm" validate --only blur --quick --profile "$prof" --out "$OUT/v1"
PROBE_TIMEOUT=200 probe mv_global "mv_global|mv_constant" 0 400 "$pm" validate --only mv-global --only mv-constant --profile "$prof" --out "$OUT/v2"
PROBE_TIMEOUT=200 probe mm_opt "mm_opt" 0 600 "$pm" validate --only mm-opt --profile "$prof" --out "$OUT/v3"
PROBE_TIMEOUT=150 probe conv2d "conv_" 0 400 "$pm" validate --only conv2d-global --only conv2d-shared --profile "$prof" --out "$OUT/v4"
rm -rf "$OUT"/v1 "$OUT"/v2 "$OUT"/v3 "$OUT"/v4
