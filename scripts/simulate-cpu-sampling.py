#!/usr/bin/env python3
"""Replays the CPU calibration's sampling rules on recorded samples, re-fits, and compares.

A full calibration's cpu_samples.csv holds every repetition of every case in the order it was
taken. This script keeps only what the current rules (calibrate/src/cpu_benchmarks.cpp) would have
taken of them -- the stopping rule per case (SampleStop), the working-set bisection per kind
(bracket_refine), the kernels' rounds and budget, the FMA / dispatch repetitions -- writes that
subset, fits it with `perfmodel fit --cpu-samples`, and compares every CPU constant of that fit
with the fit of all the samples, next to how far a repeat calibration's fit lies from the same
full fit (the run-to-run spread). It also estimates the sampling time saved, from the samples'
own durations (probes, warm-up passes and samples of the bandwidth cases; rounds of the kernels).

What it cannot replay: a real run under the new rules takes its samples at other moments (later
waves, shorter rounds), so its noise differs; the comparison shows what the rules throw away.

Usage: scripts/simulate-cpu-sampling.py FULL.cpu_samples.csv[.gz] REPEAT.cpu_samples.csv[.gz]
           [--perfmodel build/perfmodel] [--work DIR]
Needs PyYAML (to read the fitted profiles).
"""
import argparse
import collections
import csv
import gzip
import math
import os
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:
    sys.exit("simulate-cpu-sampling.py needs PyYAML (pip install pyyaml)")

# The rules, as calibrate/src/cpu_benchmarks.cpp states them.
BANDWIDTH_STOP = (0.02, 3, 5)      # kBandwidthStop: target rel. s.e. of the median, min, max samples
BANDWIDTH_FLAT = 0.05              # kBandwidthFlat
BANDWIDTH_SAMPLE_S = 3e-3          # a bandwidth sample's target duration (probe sizing)
KERNEL_STOP = (0.015, 4, 31)       # kKernelStop
KERNEL_BUDGET_S = 0.6              # kKernelBudgetSeconds
DISPATCH_STOP = (0.01, 3, 7)       # kDispatchStop
FMA_STOP = (0.01, 3, 5)            # kFmaStop
# The rules the samples were taken under (2026-11-26), to cost the full run the same way.
OLD_KERNEL = ((0.015, 5, 31), 1.0)


def quantile(v, p):
    v = sorted(v)
    i = p * (len(v) - 1)
    lo = int(math.floor(i))
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (i - lo)


def median_rel_se(v):  # as calibrate/src/pcie_sizes.cpp
    if len(v) < 2:
        return math.inf
    m = quantile(v, 0.5)
    if not m > 0:
        return math.inf
    return 1.2533 * ((quantile(v, 0.75) - quantile(v, 0.25)) / 1.349) / m / math.sqrt(len(v))


def enough(v, stop):  # SampleStop::enough
    target, least, most = stop
    return len(v) >= most or (len(v) >= least and median_rel_se(v) <= target)


def kept_count(v, stop):  # samples a case takes under `stop`, its recorded ones in order
    for n in range(len(v) + 1):
        if enough(v[:n], stop):
            return n
    return len(v)


def params(text):
    return {k: float(x) for k, x in (kv.split("=") for kv in text.split(";"))}


def read_samples(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        lines = f.readlines()
    header = [l for l in lines if l.startswith("#")]
    rows = list(csv.reader(l for l in lines if not l.startswith("#")))
    info = {}
    for l in header:
        if ":" in l:
            k, _, x = l[1:].partition(":")
            info[k.strip()] = x.strip()
    return header, rows[0], rows[1:], info


# ------------------------------------------------------------------ bandwidth
def bandwidth_case_cost(ws, secs, amount, llc, kept=None):
    """Seconds a bandwidth case cost: probe, untimed warm-up passes, samples."""
    kept = len(secs) if kept is None else kept
    passes = max(1, round(amount / ws))
    per_pass = quantile(secs, 0.5) / passes
    cold = ws >= 2 * llc  # beyond twice the cache: no warm-up, the probe is the first sample
    if passes == 1:
        probe = 0 if cold else per_pass
    else:
        last = 1
        while last * per_pass < BANDWIDTH_SAMPLE_S / 4:
            last *= 8
        probe = sum(per_pass * last / 8 ** k for k in range(int(round(math.log(last, 8))) + 1))
    warm = 0 if cold else per_pass * kept
    return probe + warm + sum(secs[:kept])


def bracket_refine(sizes, rates, intervals, tolerance):  # as calibrate/src/cpu_benchmarks.cpp
    measure, out = [], []
    for lo, hi in intervals:
        if hi - lo < 2:
            continue
        a, b = rates[lo], rates[hi]
        if min(a, b) > 0 and max(a, b) / min(a, b) - 1 <= tolerance:
            continue
        middle = 0.5 * (math.log(sizes[lo]) + math.log(sizes[hi]))
        mid = lo + 1
        for i in range(lo + 2, hi):
            if abs(math.log(sizes[i]) - middle) < abs(math.log(sizes[mid]) - middle):
                mid = i
        measure.append(mid)
        out += [(lo, mid), (mid, hi)]
    return sorted(set(measure)), out


def replay_bandwidth(rows, info):
    llc = max(float(info.get("cpu.l3_bytes", 0)), 8 * 1024 * 1024)
    l2, l2_shared = float(info.get("cpu.l2_bytes", 0)), max(1.0, float(info.get("cpu.l2_shared_by", 1)))
    l1, l1_shared = float(info.get("cpu.l1d_bytes", 0)), max(1.0, float(info.get("cpu.l1d_shared_by", 1)))
    cases = collections.OrderedDict()
    for r in rows:
        if r[0].startswith("bandwidth."):
            cases.setdefault((r[0], r[1]), []).append(r)
    grid = collections.defaultdict(set)
    key_of = {}
    for (s, p) in cases:
        d = params(p)
        grid[(s, d["threads"])].add(d["working_set_bytes"])
        key_of[(s, d["threads"], d["working_set_bytes"])] = (s, p)
    keep = {}
    cost_full = cost_new = 0.0
    for (s, threads), ws_set in grid.items():
        sizes = sorted(ws_set)
        by_ws = {}
        for w in sizes:
            rs = cases[key_of[(s, threads, w)]]
            secs = [float(r[3]) for r in rs]
            n = kept_count(secs, BANDWIDTH_STOP)
            by_ws[w] = (rs, secs, n)
        rate = {i: float(by_ws[w][0][0][4]) / quantile(by_ws[w][1][:by_ws[w][2]], 0.5) for i, w in enumerate(sizes)}
        agg_l2 = l2 * math.ceil(threads / l2_shared)
        agg_l1 = l1 * math.ceil(threads / l1_shared)
        start = 2 * (agg_l2 if agg_l2 > 0 else agg_l1)
        last = len(sizes) - 1
        first = next((i for i, w in enumerate(sizes) if start > 0 and w >= start), last)
        measured = set(range(first + 1)) | {last}
        intervals = [(first, last)] if last > first + 1 else []
        while intervals:
            more, intervals = bracket_refine(sizes, rate, intervals, BANDWIDTH_FLAT)
            measured |= set(more)
        for i, w in enumerate(sizes):
            rs, secs, n = by_ws[w]
            cost_full += bandwidth_case_cost(w, secs, float(rs[0][4]), llc)
            if i in measured:
                keep[(s, rs[0][1])] = n
                cost_new += bandwidth_case_cost(w, secs, float(rs[0][4]), llc, n)
    return keep, cost_full, cost_new


# ------------------------------------------------------------------ kernels
def kernel_working_set(kernel, n):  # model/src/kernel_workload.cpp
    e = 4
    return {"mv": e * (n * n + 2 * n), "mm": e * 3 * n * n, "dot": e * 2 * n, "cg": e * (n * n + 5 * n),
            "cholesky": e * n * n, "conv2d": e * (2 * n * n + 25), "blur": 6 * n * n, "cosine": e * n}[kernel]


def replay_kernels(rows, stop, budget, read_rate):
    kernels = collections.defaultdict(collections.OrderedDict)
    for r in rows:
        if not r[0].startswith("kernel."):
            continue
        d = params(r[1])
        if d["threads"] == 1:
            continue  # the one-thread batches: unchanged
        c = kernels[r[0]].setdefault((d["n"], d["holdout"]), {"batch": [], "single": []})
        (c["single"] if d.get("single") == 1 else c["batch"]).append(r)
    keep, spent_total = {}, 0.0
    for series, cases in kernels.items():
        taken = {k: 0 for k in cases}
        spent = 0.0
        for rnd in range(stop[2]):
            if rnd >= stop[1] and spent >= budget:
                break
            any_case = False
            for k, c in cases.items():
                per_run = [float(r[3]) / float(r[4]) for r in c["batch"][:taken[k]]]
                if enough(per_run, stop) or rnd >= len(c["batch"]):
                    continue
                any_case = True
                sec, runs = float(c["batch"][rnd][3]), float(c["batch"][rnd][4])
                single = float(c["single"][rnd][3]) if rnd < len(c["single"]) else 0.0
                warm = 0.0 if kernel_working_set(series[7:], k[0]) / read_rate <= stop[0] * sec else sec / runs
                spent += sec + single + warm
                taken[k] += 1
            if not any_case:
                break
        keep[series] = taken
        spent_total += spent
    return keep, spent_total


# ------------------------------------------------------------------ the subset, its fit, the comparison
def subset(rows, info):
    bw_keep, bw_full, bw_new = replay_bandwidth(rows, info)
    # The all-thread read rate at the largest working set (what the kernels' warm-up rule uses).
    top = max((params(r[1])["threads"], params(r[1])["working_set_bytes"]) for r in rows if r[0] == "bandwidth.read")
    read = [float(r[4]) / float(r[3]) for r in rows
            if r[0] == "bandwidth.read" and (params(r[1])["threads"], params(r[1])["working_set_bytes"]) == top]
    read_rate = quantile(read, 0.5)
    k_keep, k_new = replay_kernels(rows, KERNEL_STOP, KERNEL_BUDGET_S, read_rate)
    _, k_full = replay_kernels(rows, *OLD_KERNEL, read_rate)
    per_case = collections.defaultdict(list)
    for r in rows:
        per_case[(r[0], r[1])].append(r)
    out, c_full, c_new = [], 0.0, 0.0
    for (s, p), rs in per_case.items():
        if s.startswith("bandwidth."):
            out += rs[:bw_keep.get((s, p), 0)]
        elif s.startswith("kernel."):
            d = params(p)
            if d["threads"] == 1:
                out += rs
            else:
                n = k_keep[s][(d["n"], d["holdout"])]
                out += [r for r in rs if int(r[2]) < n]
        else:  # compute.fp32/fp64, sync.dispatch
            secs = [float(r[3]) for r in rs]
            n = kept_count(secs, DISPATCH_STOP if s == "sync.dispatch" else FMA_STOP)
            c_full += sum(secs)
            c_new += sum(secs[:n])
            out += rs[:n]
    return out, {"bandwidth": (bw_full, bw_new), "kernels (sampling rounds)": (k_full, k_new),
                 "compute (samples)": (c_full, c_new)}


def fit(perfmodel, samples, out):
    subprocess.run([perfmodel, "fit", "--cpu-samples", samples, "--out", out], check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        return yaml.safe_load(f)["cpu"]


def interpolate(points, x, log_y=True):
    points = sorted(points)
    if x <= points[0][0]:
        return points[0][1]
    if x >= points[-1][0]:
        return points[-1][1]
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        if x0 <= x <= x1:
            t = math.log(x / x0) / math.log(x1 / x0)
            return math.exp(math.log(y0) * (1 - t) + math.log(y1) * t) if log_y else y0 * (1 - t) + y1 * t


def constants(cpu, grid):
    """Every CPU constant, evaluated at the full fit's points (bandwidths and efficiencies as the
    model reads them: interpolated where a fit has no point)."""
    out = {}
    for kind, table in cpu["bandwidth"].items():
        by = collections.defaultdict(list)
        for t, w, r in table["rows"]:
            by[t].append((w, r))
        for t, pts in by.items():
            for w in grid.get(("bw", kind, t), []):
                out[("bandwidth " + kind, t, w)] = interpolate(pts, w)
    best = collections.defaultdict(float)
    for p in cpu["plateaus"]:
        best[("plateau " + p["level"], p["threads"], 0)] = max(best[("plateau " + p["level"], p["threads"], 0)], p["read_Bps"])
    out.update(best)
    for t, f32, f64 in cpu["compute"]["rows"]:
        out[("fp32", t, 0)], out[("fp64", t, 0)] = f32, f64
    for t, s in cpu["dispatch"]["rows"]:
        out[("dispatch", t, 0)] = s
    for k, m in cpu["kernels"].items():
        pts = [tuple(r) for r in m["efficiency"]["rows"]]
        for w in grid.get(("eff", k), []):
            out[("kernel efficiency", k, w)] = interpolate(pts, w, log_y=False)
        for w, r in m.get("one_thread", {}).get("rows", []):
            out[("one-thread ratio", k, w)] = r
        if "holdout" in m:
            out[("held-out mean error (abs.)", k, 0)] = m["holdout"]["mean_rel_error"]
    return out


def grid_of(cpu):
    g = collections.defaultdict(list)
    for kind, table in cpu["bandwidth"].items():
        for t, w, _ in table["rows"]:
            g[("bw", kind, t)].append(w)
    for k, m in cpu["kernels"].items():
        g[("eff", k)] = [w for w, _ in m["efficiency"]["rows"]]
    return g


def compare(full, sim, repeat):
    g = grid_of(full)
    cf, cs, cr = constants(full, g), constants(sim, g), constants(repeat, g)
    groups = collections.defaultdict(lambda: ([], []))
    for k, v in cf.items():
        if k not in cs or k not in cr:
            continue
        absolute = k[0].startswith("held-out")
        ds = abs(cs[k] - v) if absolute else abs(cs[k] / v - 1)
        dr = abs(cr[k] - v) if absolute else abs(cr[k] / v - 1)
        groups[k[0]][0].append(ds)
        groups[k[0]][1].append(dr)
    med = lambda v: sorted(v)[len(v) // 2]
    p90 = lambda v: sorted(v)[int(0.9 * (len(v) - 1))]
    print("%-28s %4s | %-25s | %-25s | %s" % ("constant", "n", "rule vs all: median p90 max", "repeat vs all: median p90 max",
                                              "rule > repeat"))
    total = beyond = 0
    for name, (ds, dr) in sorted(groups.items()):
        b = sum(1 for x, y in zip(ds, dr) if x > y)
        total, beyond = total + len(ds), beyond + b
        print("%-28s %4d | %6.2f%% %6.2f%% %6.2f%%   | %6.2f%% %6.2f%% %6.2f%%   | %d" % (
            name, len(ds), 100 * med(ds), 100 * p90(ds), 100 * max(ds), 100 * med(dr), 100 * p90(dr), 100 * max(dr), b))
    print("%d constants; the rule's fit lies farther from the full fit than the repeat's at %d" % (total, beyond))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("full")
    ap.add_argument("repeat")
    ap.add_argument("--perfmodel", default="build/perfmodel")
    ap.add_argument("--work", default=None, help="folder for the subset and the fits (default: a temporary one)")
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="cpu-sampling-")
    os.makedirs(work, exist_ok=True)
    fits = {}
    for name, path in (("full", a.full), ("repeat", a.repeat)):
        header, columns, rows, info = read_samples(path)
        plain = os.path.join(work, name + ".cpu_samples.csv")
        with open(plain, "w") as f:
            f.writelines(header)
            w = csv.writer(f, lineterminator="\n")
            w.writerow(columns)
            w.writerows(rows)
        fits[name] = fit(a.perfmodel, plain, os.path.join(work, name + ".yaml"))
        kept, costs = subset(rows, info)
        ruled = os.path.join(work, name + ".rule.cpu_samples.csv")
        with open(ruled, "w") as f:
            f.writelines(header)
            w = csv.writer(f, lineterminator="\n")
            w.writerow(columns)
            w.writerows(kept)
        fits[name + ".rule"] = fit(a.perfmodel, ruled, os.path.join(work, name + ".rule.yaml"))
        print("== %s (%s): %d of %d samples kept; calibration_wall_s %s" % (name, path, len(kept), len(rows),
                                                                            info.get("calibration_wall_s", "?")))
        for part, (before, after) in costs.items():
            print("   %-26s %6.2f s -> %6.2f s (estimated from the samples' durations)" % (part, before, after))
    for name, other in (("full", "repeat"), ("repeat", "full")):
        print("\n== the rule on the %s run's samples, against all of them; the %s run beside" % (name, other))
        compare(fits[name], fits[name + ".rule"], fits[other])
    print("\n(work folder: %s)" % work)


if __name__ == "__main__":
    main()
