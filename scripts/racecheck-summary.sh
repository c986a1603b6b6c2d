#!/usr/bin/env bash
# Per-configuration verdicts of the racecheck shards (scripts/device-run.sh sanitize): reads the logs
# of compute-sanitizer --tool racecheck over perfmodel_gpu_racecheck_tests
# (RacecheckBlocks.EveryConfigurationAtItsSmallestSize and RacecheckBlocks.OffloadCases) and writes one
# line per configuration or offload case to stdout:
#   configuration 52 (mm-opt n=512 8x16/e32): none; finished in 3.1 s: grid 32x16 (512 blocks): 8 launched: (0,0) ...
#   configuration 61 (mm-opt n=512 16x8/e32): hazards found (racecheck reports: 2); finished in ...
#   configuration 74 (mm-opt n=512 32x16/e32): not finished (started, log ends: timed out)
#   configuration 70: not finished (not started)
# A hazard report ("Race reported", "hazard detected") belongs to the configuration or case that
# started last before it (each run synchronizes before its "finished" line, so its reports come
# before that line). A log whose RACECHECK SUMMARY counts more hazards than were attributed gets
# a line saying so. Usage: scripts/racecheck-summary.sh LOG...
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 LOG..." >&2; exit 1; }
for log in "$@"; do
  [ -r "$log" ] || { echo "$0: cannot read $log" >&2; exit 1; }
done
awk '
  function flush_log(   i, k, key, verdict) {
    if (FNR_file == "") return
    for (i = 1; i <= nplan; ++i) {
      k = plan[i]
      key = "configuration " k
      if (key in finished) continue
      verdict = (key in hazards) ? "hazards found (racecheck reports: " hazards[key] ")" : (key in started ? "not finished (started; the run ended before it did)" : "not finished (not started)")
      print key (key in what ? " (" what[key] ")" : "") ": " verdict
      done[key] = 1
    }
    for (key in started) {
      if ((key in finished) || (key in done)) continue
      if (key ~ /^offload / && ended[key] == 2) continue
      verdict = (key in hazards) ? "hazards found (racecheck reports: " hazards[key] "), not finished" : "not finished (started; the run ended before it did)"
      print key (key in what ? " (" what[key] ")" : "") ": " verdict
    }
    if (total_reported > attributed) print FNR_file ": the RACECHECK SUMMARY counts " total_reported " hazards, " attributed " attributed above"
    if (!summary_seen && nplan + nstarted > 0) print FNR_file ": no RACECHECK SUMMARY (the process was killed)"
    delete plan; delete started; delete finished; delete hazards; delete what; delete done; delete ended
    nplan = 0; nstarted = 0; current = ""; total_reported = 0; attributed = 0; summary_seen = 0
  }
  FNR == 1 { flush_log(); FNR_file = FILENAME; sub(/.*\//, "", FNR_file) }
  /^racecheck plan: / {
    sub(/.*configurations ?/, "")
    nplan = split($0, plan, " ")
    next
  }
  /^configuration [0-9]+ finished in / {
    key = $1 " " $2
    line = $0
    sub(/^configuration [0-9]+ finished in /, "", line)
    v = (key in hazards) ? "hazards found (racecheck reports: " hazards[key] ")" : "none"
    print key (key in what ? " (" what[key] ")" : "") ": " v "; finished in " line
    finished[key] = 1
    current = ""
    next
  }
  /^configuration [0-9]+ failed: / {
    key = $1 " " $2
    line = $0
    sub(/^configuration [0-9]+ failed: /, "", line)
    print key (key in what ? " (" what[key] ")" : "") ": " ((key in hazards) ? "hazards found (racecheck reports: " hazards[key] ")" : "none") "; the run failed: " line
    finished[key] = 1
    current = ""
    next
  }
  /^configuration [0-9]+: / {
    key = $1 " " $2
    sub(/:$/, "", key)
    line = $0
    sub(/^configuration [0-9]+: /, "", line)
    what[key] = line
    started[key] = 1
    ++nstarted
    current = key
    next
  }
  /^offload .*: skipped/ { print; next }
  /^offload .* (pinned|pageable) finished in / {
    key = $0
    sub(/ (pinned|pageable) finished in .*/, "", key)
    v = (key in hazards) ? "hazards found (racecheck reports: " hazards[key] ")" : "none"
    print key ": " v "; " substr($0, length(key) + 2)
    ++ended[key]  # pinned, then pageable
    next
  }
  /^offload [^:]*: / {
    key = $0
    sub(/: .*/, "", key)
    started[key] = 1
    ++nstarted
    current = key
    next
  }
  /Race reported|[Hh]azard detected/ {
    if (current != "") { ++hazards[current]; ++attributed }
    else print FNR_file ": a hazard report outside any configuration: " $0
    next
  }
  /RACECHECK SUMMARY: [0-9]+ hazards/ {
    summary_seen = 1
    for (i = 1; i <= NF; ++i) if ($i ~ /^[0-9]+$/ && $(i + 1) == "hazards") total_reported += $i
    next
  }
  END {
    flush_log()
  }
' "$@"
