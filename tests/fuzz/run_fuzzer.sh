#!/usr/bin/env bash
# Runs one libFuzzer target of perfmodel's readers on a fresh corpus seeded from the bundled data.
# usage: run_fuzzer.sh FUZZER RUNS SEED...    (extra libFuzzer flags: $FUZZ_FLAGS)
#   A SEED "a+b" is the concatenation of files a and b (a validation run's two CSVs). A profile
#   seed (*.yaml starting "# perfmodel calibration profile") is also split into one seed per
#   section (preamble + pcie | gpu | cpu, each table cut to its first two rows: a whole profile
#   still, of 8-13 KiB), and every seed is cut to its first 16 KiB at a line boundary, so that
#   each execution stays short. The seeds in data/ are never written to.
# Exit status: libFuzzer's (0: no finding in RUNS executions). Findings are written to $PWD.
set -euo pipefail
fuzzer=$1 runs=$2
shift 2
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
i=0
cut() {  # cut FILE: its first 16 KiB, ending at a line boundary
  if [ "$(wc -c < "$1")" -gt 16384 ]; then head -c 16384 "$1" | sed '$d'; else cat "$1"; fi
}
add() {  # add FILE: a seed cut to 16 KiB
  i=$((i + 1))
  cut "$1" > "$corpus/seed-$i"
}
for seed in "$@"; do
  if [[ "$seed" == *+* ]]; then
    i=$((i + 1))
    { cut "${seed%%+*}"; cut "${seed#*+}"; } > "$corpus/seed-$i"
    continue
  fi
  add "$seed"
  if [[ "$seed" == *.yaml ]] && head -n1 "$seed" | grep -q '^# perfmodel calibration profile'; then
    for section in pcie gpu cpu; do
      awk -v s="$section" '/^[a-z_]+:/ { key = $1; sub(":", "", key); keep = (key == "schema_version" || key == "provenance" || key == s) }
                           /^ +- \[/ { if (++rows > 2) next } !/^ +- \[/ { rows = 0 }
                           keep || /^\.\.\.$/ { print }' "$seed" > "$corpus/section"
      add "$corpus/section"
      rm -f "$corpus/section"
    done
  fi
done
# -runs counts every execution, the seeds' included; -rss_limit_mb bounds a reader's memory.
exec "$fuzzer" -runs="$runs" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 ${FUZZ_FLAGS:-} "$corpus"
