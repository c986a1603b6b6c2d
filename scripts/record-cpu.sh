#!/usr/bin/env bash
# Records this machine's CPU calibration into data/profiles/ the way the bundled 2-core VM
# profile was recorded: a timed `calibrate --only cpu --quick` (log only), then the full
# `calibrate --only cpu`, the machine's lscpu record, all with nothing else running.
# Usage: scripts/record-cpu.sh NAME        (e.g. xeon-2core-vm; build/perfmodel must be built
#        from a clean, committed tree so the profile names its commit)
set -uo pipefail
name=${1:?usage: scripts/record-cpu.sh NAME}
cd "$(dirname "$0")/.."
bin=$PWD/build/perfmodel
[ -x "$bin" ] || { echo "build/perfmodel is missing: build first" >&2; exit 2; }
work=$(mktemp -d)
day=$(date -u +%F)
runs=$PWD/data/profiles/runs
timed() {  # timed LOG COMMAND...: appends the exit status and wall time to LOG
  local log=$1; shift
  local start end status
  start=$(date +%s.%N)
  (cd "$work" && "$@" > "$log" 2>&1)
  status=$?
  end=$(date +%s.%N)
  echo "exit $status, wall $(awk "BEGIN{print $end - $start}") s: $*" | tee -a "$log"
  return $status
}
timed "$runs/$day-$name-calibrate-cpu-quick.log" "$bin" calibrate --only cpu --quick --out quick.yaml || exit $?
timed "$runs/$day-$name-calibrate.log" "$bin" calibrate --only cpu --out "$name.yaml" || exit $?
{ date -u +%FT%TZ; lscpu; free -g; uname -a; } > "$runs/$day-$name-machine.txt"
cp "$work/$name.yaml" "$work/$name.cpu_samples.csv" data/profiles/
rm -rf "$work"
