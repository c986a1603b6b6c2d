#!/usr/bin/env python3
"""Dependent global-load rounds per tile of mv-opt's compiled tile loop, from cuobjdump -sass text.

The compiler unrolls mv_opt<X,Y,const>'s tile loop and hoists the next tiles' loads above the
barrier by a factor it picks per instantiation; how many round trips to memory a tile costs is a
property of that code, not of the source (data/experiments/2026-11-23-h100-tiles). This script
reads the SASS of the toolkit's build and, per instantiation, walks the body of the main tile loop
(of the backward branches, the one whose body holds the most global loads: the unrolled loop): a round is the run of LDGs issued
before an instruction reads a register one of them loads (the warp waits there for the round
trip). rounds per tile = rounds in the body / (LDGs in the body / (X / Y) loads per tile).

  scripts/sass_load_rounds.py SASS.txt[.gz]|-          prints the C++ table rows (- : stdin)
  scripts/sass_load_rounds.py --check SASS.txt[.gz] kernels/descriptors/reference_descriptors.cpp
      exits 1 (naming the row) unless the table in the source file equals the SASS's

Get the SASS of a build with: cuobjdump -sass build/kernels/libperfmodel_kernels_cuda.a
"""
import gzip
import re
import sys

FUNC = re.compile(r"Function : _ZN9perfmodel3gpu6mv_optILi(\d+)ELi(\d+)ELb([01])EEEvPKfS3_Pfi")
INSTR = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)\s*([^;]*);")
REG = re.compile(r"\bR(\d+)\b")
WIDTH = {"64": 2, "128": 4}


def read(path):
    if path == "-":
        return sys.stdin.read()
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return f.read()


def functions(text):
    """{(X, Y): [(address, opcode, operands)]} for the constant-b instantiations."""
    out, current = {}, None
    for line in text.splitlines():
        m = FUNC.search(line)
        if m:
            current = (int(m.group(1)), int(m.group(2))) if m.group(3) == "1" else None
            if current:
                out[current] = []
            continue
        if "Function :" in line:
            current = None
            continue
        if current:
            i = INSTR.search(line)
            if i:
                out[current].append((int(i.group(1), 16), i.group(3), i.group(4).strip()))
    return out


def loaded_registers(opcode, operands):
    dest = REG.search(operands.split(",")[0])
    width = next((w for suffix, w in WIDTH.items() if ("." + suffix + ".") in opcode + "."), 1)
    return {int(dest.group(1)) + k for k in range(width)} if dest else set()


def read_registers(opcode, operands):
    parts = operands.split(",")
    if not opcode.startswith(("ST", "BAR", "BRA", "RED", "ATOM")):
        parts = parts[1:]  # the first operand is the destination
    return {int(r) for p in parts for r in REG.findall(p)}


def rounds_per_tile(x, y, code):
    loops = []  # (global loads, body) of every loop: a backward branch and what it jumps over
    for address, opcode, operands in code:
        target = re.search(r"0x([0-9a-f]+)", operands) if opcode.startswith("BRA") else None
        if target and int(target.group(1), 16) < address:
            body = [c for c in code if int(target.group(1), 16) <= c[0] <= address]
            loops.append((sum(1 for c in body if c[1].startswith("LDG")), body))
    if not loops or max(n for n, _ in loops) == 0:
        raise SystemExit(f"mv_opt<{x},{y},const>: no loop with global loads found")
    # The main loop is the most unrolled one (a remainder loop runs a tile at a time).
    loads, body = max(loops, key=lambda lb: lb[0])
    rounds, pending, count = [], set(), 0
    for _, op, ops in body:
        if pending & read_registers(op, ops):
            rounds.append(count)
            pending, count = set(), 0
        if op.startswith("LDG"):
            pending |= loaded_registers(op, ops)
            count += 1
    if count:
        rounds.append(count)
    return len(rounds) / (loads / (x // y)), rounds


def table(path):
    return {key: rounds_per_tile(*key, code) for key, code in sorted(functions(read(path)).items(), reverse=True)}


def row(key, value):
    (x, y), (per_tile, rounds) = key, value
    return f"    {{{x}, {y}, {per_tile:g}}},  // LDGs per round {rounds}"


def main(argv):
    if len(argv) == 4 and argv[1] == "--check":
        want = table(argv[2])
        source = read(argv[3])
        bad = [row(k, v) for k, v in want.items() if row(k, v).split("//")[0].strip() not in source]
        if not want or bad:
            print(f"{argv[3]}: the mv-opt load-round table does not match {argv[2]}; expected rows:", file=sys.stderr)
            print("\n".join(bad or ["(no mv_opt<X,Y,const> in the SASS)"]), file=sys.stderr)
            return 1
        print(f"{len(want)} mv-opt instantiations match {argv[2]}")
        return 0
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    for k, v in table(argv[1]).items():
        print(row(k, v))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
