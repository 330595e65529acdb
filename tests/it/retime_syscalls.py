#!/usr/bin/env python3
"""Gives a perf.data of raw_syscalls:* (one thread) new times, so that
each system call of two calls or more has durations whose sum lies on a
rounding tie of perf trace -s's "total (msec)" column, and perf's total
(calls times the running mean) prints another last digit than the sum:
a recording shows that corner about once in a thousand rows.
Usage: retime_syscalls.py IN OUT (prints how many calls' totals differ)"""
import struct, sys

IDENTIFIER, IP, TID, TIME, ADDR, READ, CALLCHAIN, ID, CPU, PERIOD, STREAM_ID, RAW = (
    1 << 16, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
SAMPLE, USER_START = 9, 64
GAP = 1_000_000   # between one event and the next but for an exit: 1 ms


def perf_total(ds):
    """perf's total: n * (running mean / 1e6), its update_stats()'s mean"""
    mean = 0.0
    for n, d in enumerate(ds, 1):
        mean += (d - mean) / n
    return len(ds) * (mean / 1e6)


def durations(n):
    """n durations (ns) whose sum ends in 500 ns and whose two totals print apart"""
    for a in range(5000, 200000, 7):
        b = a + 500 - (n * a) % 1000
        ds = [a] * (n - 1) + [b]
        if '%.3f' % (sum(ds) / 1e6) != '%.3f' % perf_total(ds):
            return ds
    return [5000] * n


def main(src, dst):
    b = bytearray(open(src, 'rb').read())
    _, _, attr_size = struct.unpack_from('<8sQQ', b, 0)
    ao, asz, do, dsz = struct.unpack_from('<4Q', b, 24)
    st = struct.unpack_from('<Q', b, ao + 24)[0]    # one sample_type for all events
    trailer = 8 * sum(1 for f in (ID, STREAM_ID, CPU, IDENTIFIER) if st & f)
    ev = []     # [time, file order, time's offset, kind, tid, syscall]
    off = do
    while off < do + dsz:
        typ, _, size = struct.unpack_from('<IHH', b, off)
        if size < 8:
            break
        if typ == SAMPLE:
            p = off + 8 + (8 if st & IDENTIFIER else 0) + (8 if st & IP else 0)
            tid = struct.unpack_from('<I', b, p + 4)[0]
            t_off = p + 8
            p = t_off + 8
            for f in (ADDR, ID, STREAM_ID, CPU, PERIOD):
                p += 8 if st & f else 0
            if st & CALLCHAIN:
                p += 8 + 8 * struct.unpack_from('<Q', b, p)[0]
            raw_size = struct.unpack_from('<I', b, p)[0]
            nr = struct.unpack_from('<q', b, p + 4 + 8)[0]
            kind = 'enter' if raw_size > 40 else 'exit'   # args[6] vs ret
            ev.append([struct.unpack_from('<Q', b, t_off)[0], len(ev), t_off, kind, tid, nr])
        elif typ < USER_START:
            t_off = off + size - trailer - 8
            ev.append([struct.unpack_from('<Q', b, t_off)[0], len(ev), t_off, 'other', 0, 0])
        off += size
    ev.sort()
    # each call's duration: an enter followed by its exit on the thread
    calls = {}
    last = {}
    pairs = []
    for e in ev:
        if e[3] == 'exit' and last.get(e[4], [None] * 6)[3] == 'enter' and last[e[4]][5] == e[5]:
            calls.setdefault(e[5], []).append(e)
            pairs.append(e)
        if e[3] != 'other':
            last[e[4]] = e
    dur, apart = {}, 0
    for nr, exits in calls.items():
        ds = durations(len(exits)) if len(exits) > 1 else [5000]
        apart += '%.3f' % (sum(ds) / 1e6) != '%.3f' % perf_total(ds)
        for e, d in zip(exits, ds):
            dur[id(e)] = d
    print(apart)     # the calls whose two totals print apart
    # 1 ms between events, but 1 ns for those inside a call (the
    # side-band of an mmap), and an exit at its enter's time + duration
    t, entered = 0, None
    for e in ev:
        if e[0] == 0:
            continue     # synthesized before the run: left at 0
        if id(e) in dur:
            t, entered = entered + dur[id(e)], None
        else:
            t += 1 if entered is not None else GAP
            if e[3] == 'enter':
                entered = t
            elif e[3] == 'exit':
                entered = None
        struct.pack_into('<Q', b, e[2], t)
    open(dst, 'wb').write(b)


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
