#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""chains_cmp.py TALLY_OUT PERF_OUT: every line equal, but for one
documented difference (docs/perf-differences.md, "DWARF unwinding goes
on where Debian's perf stops"): a call chain perf ends with its
all-ones frame, where tally's goes on from the same frames before it, or
ends with them (no frame for the unwinder's failed step).

Prints "N" (the chains that differ so) and exits 0, or prints the first
lines that differ otherwise and exits 1.
"""
import re
import sys

FRAME = re.compile(r"^\t *[0-9a-f]+ ")
ALL_ONES = re.compile(r"^\t *ffffffffffffffff \[unknown\] \(\[unknown\]\)$")


def items(path):
    """The file's lines, each run of call-chain frame lines one item."""
    out, run = [], []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if FRAME.match(line):
                run.append(line)
                continue
            if run:
                out.append(tuple(run))
                run = []
            out.append(line)
    if run:
        out.append(tuple(run))
    return out


def main():
    t, p = items(sys.argv[1]), items(sys.argv[2])
    if len(t) != len(p):
        print("tally has %d lines and chains, perf %d" % (len(t), len(p)))
        return 1
    stopped = 0
    for i, (a, b) in enumerate(zip(t, p)):
        if a == b:
            continue
        # tally's goes on from the same frames, or ends there without the marker
        if (isinstance(a, tuple) and isinstance(b, tuple) and ALL_ONES.match(b[-1])
                and len(a) >= len(b) - 1 and a[:len(b) - 1] == b[:-1]):
            stopped += 1
            continue
        print("item %d differs:\n< %s\n> %s" % (i, a, b))
        return 1
    print(stopped)
    return 0


if __name__ == "__main__":
    sys.exit(main())
