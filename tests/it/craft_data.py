#!/usr/bin/env python3
"""Small perf.data files of corners perf's own recordings rarely show, for
parity tests. No feature sections (so no EVENT_DESC: perf derives the
event's name). Usage: craft_data.py CASE OUT

late-comm    thread 5000 is sampled before its first COMM and renamed
             twice; thread 5001 never gets a name (perf names it ":5001",
             and overrides a ":TID" name in place with the first COMM).
bad-context  call chains holding a context marker perf does not know (the
             garbage a frame-pointer walk of a user stack can yield): perf
             discards such a chain whole, last marker or not.
fork-unnamed thread 5100, sampled before any COMM (":5100"), forks a thread
             and a process: they keep their own ":TID" (perf's thread__fork
             passes on only a name a COMM set); after a COMM, the next
             fork's child carries it.
zero-ip      samples at address 0 (a frame-pointer walk's end, a jump to
             NULL): perf sizes an unresolved symbol's column for
             "0x" and 16 digits, though it prints 0 as 16 zeros.
chains BINARY A B C
             call chains of the binary's functions at ELF addresses A, B
             and C mixed with addresses no map holds, one sample's own
             among them (report -U leaves out that sample, and the
             unmapped frames of the others' chains).
task-makers  threads made by each kind of record: an MMAP alone, an MMAP
             and an EXIT, MMAP, sample and EXIT, a sample and an EXIT, a
             COMM and an EXIT, a thread's COMM (its leader made too), a
             FORK from an unknown parent, an MMAP then a COMM: perf's
             --tasks reads no MMAP (a thread only they made is none), its
             --mmaps does.
rounds       FINISHED_ROUND records between samples, one sample older
             than the round before it: perf script --show-round-events
             shows each round and every record in file order.
addrs BINARY ADDR...
             one sample at each of the binary's ELF addresses (hex), the
             binary mapped whole as one executable mapping: which symbol
             names an address, as perf's lookup finds it."""
import struct, sys

IP, TID, TIME, CALLCHAIN, PERIOD = 1, 2, 4, 32, 256
T0 = 1_000_000_000
B = 0x400000
USER = (1 << 64) - 512


def pad8(b): return b + b'\0' * ((-len(b)) % 8)
def cstr(s): return pad8(s.encode() + b'\0')
def rec(typ, misc, body): return struct.pack('<IHH', typ, misc, 8 + len(body)) + body
def trailer(pid, tid, t): return struct.pack('<IIQ', pid, tid, t)   # sample_id_all: TID, TIME


def sample(st, pid, tid, t, ip, chain=()):
    b = struct.pack('<QIIQQ', ip, pid, tid, t, 1000)
    if st & CALLCHAIN:
        b += struct.pack('<Q', len(chain)) + b''.join(struct.pack('<Q', x) for x in chain)
    return rec(9, 2, b)


def comm(pid, tid, name, t): return rec(3, 0, struct.pack('<II', pid, tid) + cstr(name) + trailer(pid, tid, t))


def late_comm():
    st = IP | TID | TIME | PERIOD
    r = [rec(1, 2, struct.pack('<IIQQQ', 5000, 5000, B, 0x1000, 0) + cstr('/nonexistent/a') +
             trailer(5000, 5000, T0))]
    t = T0 + 10
    for _ in range(3):
        r.append(sample(st, 5000, 5000, t, B + 0x10)); t += 10
    r.append(sample(st, 5000, 5001, t, B + 0x20)); t += 10
    r.append(comm(5000, 5000, 'late', t)); t += 10
    for _ in range(2):
        r.append(sample(st, 5000, 5000, t, B + 0x10)); t += 10
    r.append(comm(5000, 5000, 'later', t)); t += 10
    r.append(sample(st, 5000, 5000, t, B + 0x10))
    return st, r


def fork(pid, ppid, tid, ptid, t):
    return rec(7, 0, struct.pack('<IIIIQ', pid, ppid, tid, ptid, t) + trailer(pid, tid, t))


def fork_unnamed():
    st = IP | TID | TIME | PERIOD
    r = [rec(1, 2, struct.pack('<IIQQQ', 5100, 5100, B, 0x1000, 0) + cstr('/nonexistent/f') +
             trailer(5100, 5100, T0))]
    t = T0 + 10
    r.append(sample(st, 5100, 5100, t, B + 0x10)); t += 10
    r.append(fork(5100, 5100, 5101, 5100, t)); t += 10
    r.append(fork(5102, 5100, 5102, 5100, t)); t += 10
    r.append(sample(st, 5100, 5101, t, B + 0x20)); t += 10
    r.append(sample(st, 5102, 5102, t, B + 0x30)); t += 10
    r.append(comm(5100, 5100, 'named', t)); t += 10
    r.append(fork(5103, 5100, 5103, 5100, t)); t += 10
    r.append(sample(st, 5103, 5103, t, B + 0x40))
    return st, r


def bad_context():
    st = IP | TID | TIME | PERIOD | CALLCHAIN
    r = [comm(6000, 6000, 'prog', T0),
         rec(1, 2, struct.pack('<IIQQQ', 6000, 6000, B, 0x1000, 0) + cstr('/nonexistent/b') +
             trailer(6000, 6000, T0 + 1))]
    chains = [
        [USER, B + 0x10, B + 0x20, B + 0x30],
        [USER, B + 0x10, B + 0x20, (1 << 64) - 400],        # garbage last
        [USER, B + 0x10, 0x21fd6168, (1 << 64) - 1],        # garbage last, an unmapped frame before it
        [USER, B + 0x40, (1 << 64) - 1, B + 0x20, B + 0x30],  # garbage inside
        [USER, B + 0x10, B + 0x20, B + 0x30],
    ]
    t = T0 + 10
    for c in chains:
        r.append(sample(st, 6000, 6000, t, c[1], c)); t += 10
    return st, r


def zero_ip():
    st = IP | TID | TIME | PERIOD | CALLCHAIN
    r = [comm(6100, 6100, 'z', T0)]
    t = T0 + 10
    for c in ([USER, 0], [USER, 0, 0]):
        r.append(sample(st, 6100, 6100, t, 0, c)); t += 10
    return st, r


def task_makers():
    st = IP | TID | TIME | PERIOD

    def mm(pid, t):
        return rec(1, 2, struct.pack('<IIQQQ', pid, pid, B, 0x1000, 0) + cstr('/nonexistent/m') +
                   trailer(pid, pid, t))

    def exit_(pid, ppid, t):
        return rec(4, 0, struct.pack('<IIIIQ', pid, ppid, pid, ppid, t) + trailer(pid, pid, t))
    r = [comm(5200, 5200, 'named', T0)]
    t = T0 + 10
    r.append(mm(5201, t)); t += 10
    r += [mm(5202, t), exit_(5202, 100, t + 10)]; t += 20
    r += [mm(5203, t), sample(st, 5203, 5203, t + 10, B + 0x10), exit_(5203, 100, t + 20)]; t += 30
    r += [sample(st, 5205, 5205, t, B + 0x10), exit_(5205, 100, t + 10)]; t += 20
    r += [comm(5206, 5206, 'f', t), exit_(5206, 100, t + 10)]; t += 20
    r.append(comm(5210, 5211, 'thr', t)); t += 10
    r.append(fork(5220, 5221, 5220, 5221, t)); t += 10
    r += [mm(5230, t), comm(5230, 5230, 'late', t + 10)]; t += 20
    return st, r


def rounds():
    st = IP | TID | TIME | PERIOD
    rnd = struct.pack('<IHH', 68, 0, 8)          # FINISHED_ROUND: a header alone
    r = [comm(5300, 5300, 'r', T0),
         rec(1, 2, struct.pack('<IIQQQ', 5300, 5300, B, 0x1000, 0) + cstr('/nonexistent/r') +
             trailer(5300, 5300, T0))]
    for group in ((10, 20, 30), (40, 50), (60, 25), (70,)):
        r += [sample(st, 5300, 5300, T0 + t * 1000, B + t) for t in group]
        r.append(rnd)
    return st, r[:-1]


def write(out, st, recs):
    data = b''.join(recs)
    flags = (1 << 8) | (1 << 9) | (1 << 18)     # mmap, comm, sample_id_all
    attr = struct.pack('<IIQQQQQIIQQ', 1, 128, 0, 4000, st, 0, flags, 0, 0, 0, 0).ljust(128, b'\0')
    fattr = attr + struct.pack('<QQ', 0, 0)     # no ids
    hsz = 104
    hdr = (b'PERFILE2' + struct.pack('<QQ', hsz, len(fattr)) +
           struct.pack('<QQQQQQ', hsz, len(fattr), hsz + len(fattr), len(data), 0, 0) + bytes(32))
    with open(out, 'wb') as f:
        f.write(hdr + fattr + data)


def addrs(path, *hexes):
    import os
    st = IP | TID | TIME | PERIOD
    with open(path, 'rb') as f:
        elf = f.read(64)
    pie = struct.unpack_from('<H', elf, 16)[0] == 3        # ET_DYN
    base = 0x555555554000 if pie else 0x400000
    size = (os.path.getsize(path) + 0xfff) & ~0xfff
    r = [comm(7000, 7000, 'prog', T0),
         rec(1, 2, struct.pack('<IIQQQ', 7000, 7000, base, size, 0) + cstr(os.path.abspath(path)) +
             trailer(7000, 7000, T0 + 1))]
    t = T0 + 10
    for h in hexes:
        a = int(h, 16)
        r.append(sample(st, 7000, 7000, t, a + (base if pie else 0))); t += 10
    return st, r


def chains(path, a, b, c):
    st = IP | TID | TIME | PERIOD | CALLCHAIN
    r, base = addrs(path)[1], 0
    with open(path, 'rb') as f:
        pie = struct.unpack_from('<H', f.read(64), 16)[0] == 3
    base = 0x555555554000 if pie else 0
    a, b, c = (int(x, 16) + base for x in (a, b, c))
    t = T0 + 10
    for ch in ([a, 0x10, b, c], [0x20, b, c], [b, 0x30, 0x40, c], [a, b, c], [c, 0x50],
               [a, 0x10, b, c], [b, c]):
        r.append(sample(st, 7000, 7000, t, ch[0], [USER] + ch)); t += 10
    return st, r


cases = {'late-comm': late_comm, 'fork-unnamed': fork_unnamed, 'bad-context': bad_context,
         'zero-ip': zero_ip, 'addrs': addrs, 'task-makers': task_makers,
         'rounds': rounds}
if len(sys.argv) < 3 or sys.argv[1] not in cases and sys.argv[1] != 'chains' or \
        (sys.argv[1] not in ('addrs', 'chains')) != (len(sys.argv) == 3) or \
        (sys.argv[1] == 'chains' and len(sys.argv) != 7):
    sys.exit(__doc__)
if sys.argv[1] == 'chains':
    write(sys.argv[2], *chains(*sys.argv[3:]))
elif sys.argv[1] == 'addrs':
    write(sys.argv[2], *addrs(sys.argv[3], *sys.argv[4:]))
else:
    write(sys.argv[2], *cases[sys.argv[1]]())
