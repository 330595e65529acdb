#!/usr/bin/env python3
"""perf.data files holding the records perf's recordings rarely show, for
-D (dump_raw.sh): each record type of the kernel and of perf, samples at
every level and with every field perf's dump prints. Usage:
dump_data.py CASE OUT

kinds     two events (IDENTIFIER), every kernel record type, perf's own
          records (ID_INDEX with guest entries, THREAD_MAP, CPU_MAP in
          each encoding, EVENT_UPDATE of each kind, TIME_CONV short and
          long, BUILD_ID, FINISHED_INIT), samples at user, kernel,
          hypervisor levels, in and out of maps, with branch stacks,
          registers (no user stack: perf would unwind it), weights,
          data sources; two CPUs' records interleaved out of time order
          across rounds.
corners   kinds' records with an LBR call stack, guest samples, an event
          whose samples carry no thread, an EVENT_UPDATE naming an event
          (report -D only: perf script's own lines for those differ).
nosid     no sample_id_all: perf takes the file in its order, unordered.
notime    samples without TID or TIME: perf delivers each at once.
pipe      perf's pipe format: two ATTR records (the second adds CPU to
          the samples' fields), EVENT_TYPE, EVENT_UPDATE, BUILD_ID."""
import struct, sys

IP, TID, TIME, ADDR, READ, CALLCHAIN, ID, CPU, PERIOD, STREAM_ID, RAW = \
    1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024
BRANCH_STACK, REGS_USER, STACK_USER, WEIGHT, DATA_SRC, IDENTIFIER, TRANSACTION = \
    1 << 11, 1 << 12, 1 << 13, 1 << 14, 1 << 15, 1 << 16, 1 << 17
REGS_INTR, PHYS_ADDR, DATA_PAGE_SIZE, CODE_PAGE_SIZE, WEIGHT_STRUCT = \
    1 << 18, 1 << 19, 1 << 22, 1 << 23, 1 << 24
T0 = 5_000_000_000
KERNEL = 0xffffffff81000000
PROG = 0x400000
ANON = 0x7f0000000000
CTX_KERNEL, CTX_USER = (1 << 64) - 128, (1 << 64) - 512
U64 = (1 << 64) - 1


def pad8(b): return b + b'\0' * ((-len(b)) % 8)
def cstr(s): return pad8(s.encode() + b'\0')
def rec(typ, misc, body): return struct.pack('<IHH', typ, misc, 8 + len(body)) + body
def q(*v): return b''.join(struct.pack('<Q', x & U64) for x in v)


class Ev:
    """An event: its attr and the layout of its records' fields."""
    def __init__(self, st, ident, sid_all=True, config=0, bst=0, regs=0, rf=0):
        self.st, self.id, self.sid_all, self.config, self.type = st, ident, sid_all, config, 1
        self.bst, self.regs, self.rf = bst, regs, rf

    def attr(self):
        flags = (1 << 8) | (1 << 9) | (1 << 23) | (1 << 24) | ((1 << 18) if self.sid_all else 0)
        a = struct.pack('<IIQQQQQII', self.type, 128, self.config, 1000, self.st, self.rf, flags, 0, 0)
        a += q(0, 0, self.bst, self.regs) + struct.pack('<Ii', 1024 if self.st & STACK_USER else 0, 0)
        a += q(self.regs)
        return a.ljust(128, b'\0')

    def trailer(self, pid, tid, t, cpu):
        """sample_id_all's fields, in the kernel's order"""
        if not self.sid_all:
            return b''
        b = b''
        if self.st & TID: b += struct.pack('<II', pid, tid)
        if self.st & TIME: b += q(t)
        if self.st & ID: b += q(self.id)
        if self.st & STREAM_ID: b += q(self.id + 1)
        if self.st & CPU: b += struct.pack('<II', cpu, 0)
        if self.st & IDENTIFIER: b += q(self.id)
        return b


def sample(ev, misc, pid, tid, t, cpu, ip, chain=(), branches=(), n=0):
    st, b = ev.st, b''
    if st & IDENTIFIER: b += q(ev.id)
    if st & IP: b += q(ip)
    if st & TID: b += struct.pack('<II', pid, tid)
    if st & TIME: b += q(t)
    if st & ADDR: b += q(0x601000 + n)
    if st & ID: b += q(ev.id)
    if st & STREAM_ID: b += q(ev.id + 1)
    if st & CPU: b += struct.pack('<II', cpu, 0)
    if st & PERIOD: b += q(1000 + n)
    if st & CALLCHAIN: b += q(len(chain), *chain)
    if st & BRANCH_STACK:
        b += q(len(branches))
        for frm, to, flags in branches:
            b += q(frm, to, flags)
    nregs = bin(ev.regs).count('1')
    if st & REGS_USER:
        # every third sample without registers (ABI none), one 32-bit
        abi = (0, 2, 1)[n % 3]
        b += q(abi) + (q(*(0x1000 * n + i for i in range(nregs))) if abi else b'')
    if st & STACK_USER:
        if n % 2:
            b += q(0)
        else:
            b += q(64) + bytes(range(64)) + q(48)
    if st & (WEIGHT | WEIGHT_STRUCT): b += q(0x0007000d00000029 + n)
    if st & DATA_SRC: b += q(0x68100142 + n)
    if st & TRANSACTION: b += q(0x1f + n)
    if st & REGS_INTR: b += q(2) + q(*(0xdead0000 + 0x101 * i + n for i in range(nregs)))
    if st & PHYS_ADDR: b += q(0x12345000 + n)
    if st & DATA_PAGE_SIZE: b += q((4096, 2 << 20, 1024, 0)[n % 4])
    if st & CODE_PAGE_SIZE: b += q((4096, 1 << 30, 2048, 0)[n % 4])
    return rec(9, misc, b)


def mmap(ev, misc, pid, start, length, pgoff, name, t, cpu=0):
    return rec(1, misc, struct.pack('<IIQQQ', pid, pid, start, length, pgoff) + cstr(name) +
               ev.trailer(pid, pid, t, cpu))


def build_id(misc, pid, name):
    """perf's HEADER_BUILD_ID: pid, 20 bytes of id, its size, a name (its record 8-aligned)"""
    body = struct.pack('<i', pid) + bytes(range(20)) + bytes([20, 0, 0, 0]) + name.encode() + b'\0'
    return rec(67, misc, body + b'\0' * ((-(8 + len(body))) % 8))


def kind_records(e0, e1, guest=0, names=False):
    tr = e0.trailer
    P = 3000
    r = []
    # perf's own records first, as perf record writes them
    r.append(rec(69, 0, q(2) + q(e0.id, 0, 0, P) + q(e1.id, 1, 1, -1) + q(0, 0) + q(0, 1)))
    r.append(rec(73, 0, q(2) + q(P) + cstr('prog').ljust(16, b'\0') + q(P + 1) +
                 cstr('prog').ljust(16, b'\0')))
    r.append(rec(74, 0, pad8(struct.pack('<HH4H', 0, 4, 0, 2, 3, 0xffff))))
    r.append(rec(74, 0, pad8(struct.pack('<HHHI', 1, 1, 4, 0b10110101))))
    r.append(rec(74, 0, pad8(struct.pack('<HHH4xQQ', 1, 2, 8, 0b11, 1 << 5))))
    r.append(rec(74, 0, pad8(struct.pack('<HBBHH', 2, 1, 0, 4, 6))))
    r.append(rec(74, 0, pad8(struct.pack('<HHH', 0, 0, 0))))
    r.append(rec(78, 0, q(0, e0.id) + cstr('msec')))
    r.append(rec(78, 0, q(1, e0.id) + struct.pack('<d', 0.000001)))
    if names:
        r.append(rec(78, 0, q(2, e1.id) + cstr('renamed')))
    r.append(rec(78, 0, q(3, e1.id) + pad8(struct.pack('<HHH', 2, 0, 1) + struct.pack('<H', 3))))
    r.append(rec(78, 0, q(9, e1.id)))
    r.append(rec(79, 0, q(31, 1000, 123456789)))
    r.append(rec(79, 0, q(31, 1000, 123456789, 42, 0xffffffffffff) + bytes([1, 1]) + bytes(6)))
    r.append(build_id(0, P, '/nonexistent/prog'))
    r.append(rec(1, 1, struct.pack('<IIQQQ', U64 & 0xffffffff, 0, KERNEL, 0x1000000, KERNEL) +
                 cstr('[kernel.kallsyms]_text') + bytes(len(tr(0, 0, 0, 0)))))
    r.append(rec(3, 0, struct.pack('<II', P, P) + cstr('prog') + bytes(len(tr(0, 0, 0, 0)))))
    r.append(rec(82, 0, b''))
    t = T0
    # the first round: two CPUs' records, each in its own order
    cpu0 = [rec(3, 0x2000, struct.pack('<II', P, P) + cstr('prog-exec') + tr(P, P, t + 10, 0)),
            mmap(e0, 2, P, PROG, 0x10000, 0, '/nonexistent/prog', t + 20),
            mmap(e0, 2 | 0x2000, P, 0x600000, 0x1000, 0, '/nonexistent/data', t + 30),
            rec(10, 2 | 0x4000, struct.pack('<IIQQQ', P, P, 0x800000, 0x2000, 0x1000) +
                bytes([20, 0, 0, 0]) + bytes(range(1, 21)) + struct.pack('<II', 5, 2) +
                cstr('/nonexistent/lib.so') + tr(P, P, t + 40, 0)),
            rec(10, 2, struct.pack('<IIQQQIIQQII', P, P, ANON, 0x4000, 0, 0, 0, 0, 0, 7, 0x22) +
                cstr('//anon') + tr(P, P, t + 50, 0)),
            rec(7, 0, struct.pack('<IIIIQ', P, P, P + 1, P, t + 60) + tr(P, P + 1, t + 60, 0)),
            sample(e0, 2, P, P, t + 70, 0, PROG + 0x10,
                   [CTX_KERNEL, KERNEL + 0x100, CTX_USER, PROG + 0x10, PROG + 0x20],
                   [(PROG + 0x30, PROG + 0x40, 0x5 | (3 << 4) | (4 << 20)),
                    (PROG + 0x50, PROG + 0x60, 0x2 | (15 << 20) | (7 << 26) | (1 << 40))], 0),
            sample(e1, 1, P, P, t + 80, 0, KERNEL + 0x200, n=1),
            rec(2, 0, q(e0.id, 7) + tr(P, P, t + 90, 0)),
            rec(5, 0, q(t + 100, e0.id, e0.id + 1) + tr(P, P, t + 100, 0)),
            rec(6, 0, q(t + 110, e0.id, e0.id + 1) + tr(P, P, t + 110, 0))]
    cpu1 = [sample(e0, 2, P, P + 1, t + 15, 1, PROG + 0x900000, [CTX_USER, PROG + 0x900000],
                   [(PROG + 0x70, PROG + 0x80, 0x1)], 1),
            sample(e0, 3, P, P + 1, t + 25, 1, 0x1234, [], [], 2),
            sample(e0, guest or 1, P, P + 1, t + 35, 1, KERNEL + 0x300, [CTX_KERNEL, KERNEL + 0x300],
                   [(1, 2, 8 << 20)], 3),
            sample(e1, 2, P, P + 1, t + 45, 1, ANON + 0x10, n=4),
            rec(11, 0, q(0x1000, 0x2000, 7) + tr(P, P + 1, t + 55, 1)),
            rec(12, 0, struct.pack('<II', P, P + 1) + tr(P, P + 1, t + 65, 1)),
            rec(14, 0, tr(P, P + 1, t + 75, 1)),
            rec(14, 0x2000, tr(P, P + 1, t + 85, 1)),
            rec(14, 0x2000 | 0x4000, tr(P, P + 1, t + 95, 1))]
    r += cpu0[:6] + cpu1[:5] + cpu0[6:] + cpu1[5:] + [rec(68, 0, b'')]
    t += 1000
    cpu0 = [rec(15, 0, struct.pack('<II', 17, 18) + tr(P, P, t + 10, 0)),
            rec(15, 0x2000, struct.pack('<II', 19, 20) + tr(P, P, t + 20, 0)),
            rec(16, 0, struct.pack('<IIQ', P, P, 9) + q(*[v for i in range(9) for v in (i + 1, 0xeffff000 + i)])
                + tr(P, P, t + 30, 0)),
            rec(17, 0, q(0xffffffffc0001000) + struct.pack('<IHH', 0x80, 1, 0) + cstr('bpf_prog_1234_f') +
                tr(P, P, t + 40, 0)),
            rec(18, 0, struct.pack('<HHI', 1, 0, 42) + bytes(range(8)) + tr(P, P, t + 50, 0)),
            rec(19, 0, q(77) + cstr('/a/b c') + tr(P, P, t + 60, 0)),
            rec(20, 0, pad8(q(KERNEL + 0x123) + struct.pack('<HH', 3, 20) + bytes(range(3)) +
                            bytes(range(0x40, 0x54))) + tr(P, P, t + 70, 0)),
            rec(21, 0, q(0x1234) + tr(P, P, t + 80, 0)),
            rec(13, 0, q(12) + tr(P, P, t + 90, 0))]
    cpu1 = [sample(e0, 2, P, P + 1, t + 5, 1, PROG + 0x20, [CTX_USER, PROG + 0x20], [], 5),
            sample(e0, 2, P, P + 1, t - 500, 1, PROG + 0x30, [CTX_USER, PROG + 0x30], [], 6),
            rec(4, 0, struct.pack('<IIIIQ', P, P, P + 1, P, t + 100) + tr(P, P + 1, t + 100, 1))]
    r += cpu1[:2] + cpu0 + [rec(68, 0, b'')] + cpu1[2:]
    return r


def write(out, evs, recs, pipe=False):
    data = b''.join(recs)
    if pipe:
        with open(out, 'wb') as f:
            f.write(b'PERFILE2' + q(16) + data)
        return
    hsz, asz = 104, 128 + 16
    attrs, ids = b'', b''
    ids_at = hsz + asz * len(evs)
    for i, e in enumerate(evs):
        attrs += e.attr() + q(ids_at + 8 * i, 8)
        ids += q(e.id)
    data_at = ids_at + len(ids)
    hdr = (b'PERFILE2' + q(hsz, asz) + q(hsz, len(attrs)) + q(data_at, len(data)) + q(0, 0) + bytes(32))
    with open(out, 'wb') as f:
        f.write(hdr + attrs + ids + data)


def kinds(out, corners=False):
    regs = 0x1ff | (0x3 << 32)      # nine registers and XMM0's two halves
    e0 = Ev(IDENTIFIER | IP | TID | TIME | ADDR | ID | STREAM_ID | CPU | PERIOD | CALLCHAIN |
            BRANCH_STACK | REGS_USER | WEIGHT | DATA_SRC | TRANSACTION | REGS_INTR |
            PHYS_ADDR | DATA_PAGE_SIZE | CODE_PAGE_SIZE, 100,
            bst=0x8 | (0x800 if corners else 0), regs=regs)
    e1 = Ev(IDENTIFIER | IP | TID | TIME | ID | CPU | PERIOD | WEIGHT_STRUCT, 200, config=1)
    evs, recs = [e0, e1], kind_records(e0, e1, 4 if corners else 0, corners)
    if corners:     # an event whose samples carry no thread
        e2 = Ev(IDENTIFIER | IP | TIME | PERIOD, 300, config=2)
        evs.append(e2)
        recs.insert(-2, sample(e2, 1, 0, 0, T0 + 1500, 0, KERNEL + 0x10))
        recs.insert(-2, sample(e2, 5, 0, 0, T0 + 1510, 0, PROG + 0x10))
    write(out, evs, recs)


def corners(out):
    kinds(out, True)


def nosid(out):
    e = Ev(IP | TID | TIME | PERIOD, 1, sid_all=False)
    P, t = 4000, T0
    r = [rec(3, 0, struct.pack('<II', P, P) + cstr('early')),
         mmap(e, 2, P, PROG, 0x10000, 0, '/nonexistent/n', 0),
         sample(e, 2, P, P, t + 30, 0, PROG + 0x10), sample(e, 2, P, P, t + 10, 0, PROG + 0x20),
         rec(68, 0, b''),
         rec(3, 0, struct.pack('<II', P, P) + cstr('late')),
         sample(e, 2, P, P, t + 20, 0, PROG + 0x30), rec(68, 0, b''),
         rec(4, 0, struct.pack('<IIIIQ', P, P, P, P, t + 40))]
    write(out, [e], r)


def notime(out):
    e = Ev(IP | TID | PERIOD, 1)
    P = 4200
    r = [rec(3, 0, struct.pack('<II', P, P) + cstr('untimed') + e.trailer(P, P, 0, 0)),
         mmap(e, 2, P, PROG, 0x10000, 0, '/nonexistent/t', 0),
         sample(e, 2, P, P, 0, 0, PROG + 0x10), rec(68, 0, b''), sample(e, 1, P, P, 0, 0, KERNEL)]
    write(out, [e], r)


def pipe(out):
    e0 = Ev(IP | TID | TIME | PERIOD | ID, 300)
    e1 = Ev(IP | TID | TIME | PERIOD | ID | CPU, 301, config=1)
    e1.type = 0     # hardware: script takes a new type's fields into its combined type
    P, t = 4100, T0
    r = [rec(64, 0, e0.attr() + q(e0.id)), rec(64, 0, e1.attr() + q(e1.id)),
         rec(65, 0, q(1) + bytes(64)),
         rec(78, 0, q(2, e1.id) + cstr('second')),
         rec(3, 0, struct.pack('<II', P, P) + cstr('piped') + e0.trailer(P, P, 0, 0)),
         mmap(e0, 2, P, PROG, 0x10000, 0, '/nonexistent/p', t),
         sample(e0, 2, P, P, t + 10, 0, PROG + 0x10), sample(e1, 2, P, P, t + 5, 1, PROG + 0x20),
         rec(68, 0, b''),
         build_id(0x8000, P, '/nonexistent/p'),
         sample(e1, 2, P, P, t + 20, 1, PROG + 0x30)]
    write(out, [e0, e1], r, pipe=True)


cases = {'kinds': kinds, 'corners': corners, 'nosid': nosid, 'notime': notime, 'pipe': pipe}
if len(sys.argv) != 3 or sys.argv[1] not in cases:
    sys.exit(__doc__)
cases[sys.argv[1]](sys.argv[2])
