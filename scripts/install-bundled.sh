#!/usr/bin/env bash
# Installs a new bundled profile from what `scripts/device-run.sh calibrate,check` brought back
# (results.tar.gz, laid out like data/): the profile (its transfer intervals already widened to
# the repeat's copies), its repeat, their raw samples, the calibration logs and the independent
# transfer check. Run here, from the repository root:
#   scripts/install-bundled.sh RESULTS.tar.gz [NAME]        NAME: default nvidia-h100-80gb-hbm3
# What goes where (GPU = the first 8 hex digits of the profile's device_uuid, DAY its date):
#   data/profiles/NAME.yaml, NAME.{gpu,cpu,pcie}_samples.csv     the bundled profile, samples plain (perfmodel fit, plot and report read them)
#   data/profiles/NAME.repeat.yaml, NAME.repeat.cpu_samples.csv  its repeat (CPU samples plain: tests read them)
#   data/profiles/NAME.repeat.{gpu,pcie}_samples.csv.gz          the repeat's other samples, gzipped
#   data/profiles/runs/DAY-h100-GPU-*.log                        calibration, fit and check logs
#   data/validation/other/DAY-h100-GPU/transfer-check/           the check's copies and analysis
#   data/profiles/other/OLDDAY-h100-OLDGPU/                      the run bundled until now, when it has no copy there yet:
#                                                                its two profiles, samples gzipped (it stays in the tree;
#                                                                the new run is not copied there while it is bundled)
# The profile the samples came from is refitted from them as a check (perfmodel fit must
# reproduce it), so nothing half-installed is left when a file is missing or does not parse.
set -euo pipefail
tarball=${1:?usage: scripts/install-bundled.sh RESULTS.tar.gz [NAME]}
name=${2:-nvidia-h100-80gb-hbm3}
bin=${PERFMODEL:-build/perfmodel}
[ -x "$bin" ] || { echo "install-bundled: $bin is missing (build the perfmodel target, or set PERFMODEL)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xzf "$tarball" -C "$work"
p="$work/profiles"
for f in "$name.yaml" "$name.gpu_samples.csv" "$name.cpu_samples.csv" "$name.pcie_samples.csv" \
         "$name.repeat.yaml" "$name.repeat.gpu_samples.csv" "$name.repeat.cpu_samples.csv" "$name.repeat.pcie_samples.csv"; do
  [ -f "$p/$f" ] || { echo "install-bundled: $tarball has no profiles/$f" >&2; exit 1; }
done
# Every file must parse: a refit of the transfer section, widened as device-run.sh did.
"$bin" fit --samples "$p/$name.pcie_samples.csv" --repeat-samples "$p/$name.repeat.pcie_samples.csv" \
  --profile "$p/$name.yaml" --out "$work/refit.yaml" > /dev/null
"$bin" fit --cpu-samples "$p/$name.repeat.cpu_samples.csv" --gpu-samples "$p/$name.repeat.gpu_samples.csv" \
  --profile "$p/$name.repeat.yaml" --out "$work/refit.repeat.yaml" > /dev/null
uuid=$(sed -n 's/^ *device_uuid: *"\{0,1\}GPU-\([0-9a-f]\{8\}\).*/\1/p' "$p/$name.yaml" | head -1)
day=$(sed -n 's/^ *date_utc: *"\{0,1\}\([0-9-]\{10\}\).*/\1/p' "$p/$name.yaml" | head -1)
[ -n "$uuid" ] && [ -n "$day" ] || { echo "install-bundled: $name.yaml names no device_uuid or date_utc" >&2; exit 1; }

dest=data/profiles
# The run bundled until now keeps a copy under other/ (profiles, samples gzipped), made before it is overwritten.
old_uuid= old_day=
if [ -f "$dest/$name.yaml" ]; then
  old_uuid=$(sed -n 's/^ *device_uuid: *"\{0,1\}GPU-\([0-9a-f]\{8\}\).*/\1/p' "$dest/$name.yaml" | head -1)
  old_day=$(sed -n 's/^ *date_utc: *"\{0,1\}\([0-9-]\{10\}\).*/\1/p' "$dest/$name.yaml" | head -1)
fi
if [ -n "$old_uuid" ] && [ -n "$old_day" ] && [ "$old_uuid-$old_day" != "$uuid-$day" ] && [ ! -f "$dest/other/$old_day-h100-$old_uuid/$name.yaml" ]; then
  old_keep="$dest/other/$old_day-h100-$old_uuid"
  mkdir -p "$old_keep"
  cp "$dest/$name.yaml" "$dest/$name.repeat.yaml" "$old_keep/"
  for f in "$name" "$name.repeat"; do
    for kind in gpu cpu pcie; do
      if [ -f "$dest/$f.${kind}_samples.csv" ]; then gzip -9nc "$dest/$f.${kind}_samples.csv" > "$old_keep/$f.${kind}_samples.csv.gz"
      elif [ -f "$dest/$f.${kind}_samples.csv.gz" ]; then cp "$dest/$f.${kind}_samples.csv.gz" "$old_keep/"; fi
    done
  done
  echo "kept the run bundled until now ($old_day, GPU $old_uuid) in $old_keep"
fi
cp "$p/$name.yaml" "$p/$name.gpu_samples.csv" "$p/$name.cpu_samples.csv" "$p/$name.pcie_samples.csv" "$dest/"
cp "$p/$name.repeat.yaml" "$p/$name.repeat.cpu_samples.csv" "$dest/"
rm -f "$dest/$name.repeat.gpu_samples.csv" "$dest/$name.repeat.pcie_samples.csv"
gzip -9nc "$p/$name.repeat.gpu_samples.csv" > "$dest/$name.repeat.gpu_samples.csv.gz"
gzip -9nc "$p/$name.repeat.pcie_samples.csv" > "$dest/$name.repeat.pcie_samples.csv.gz"
if [ -d "$p/runs" ]; then
  for f in "$p"/runs/*; do
    [ -f "$f" ] || continue
    base=$(basename "$f")
    cp "$f" "$dest/runs/${base/-h100-/-h100-$uuid-}"
  done
fi
if [ -d "$work/validation/$name-transfer-check" ]; then
  mkdir -p "data/validation/other/$day-h100-$uuid/transfer-check"
  cp "$work/validation/$name-transfer-check"/* "data/validation/other/$day-h100-$uuid/transfer-check/"
fi
echo "installed the $day run of GPU $uuid as $dest/$name.yaml (+ .repeat, samples, logs, transfer check)"
