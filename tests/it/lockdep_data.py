#!/usr/bin/env python3
"""A lockdep recording made from a lock contention one, for lock_lockdep.sh:
this kernel has no lockdep (lock:lock_acquire, _acquired, _contended,
_release), so its sequences are made from the contention_begin and _end
samples of a tally lock record file. Usage: lockdep_data.py IN OUT

Each contention_begin becomes lock_acquire (READ_LOCK for a read wait)
and lock_contended 1 ns later; each contention_end lock_acquired and
lock_release 500 ns later; the formats (tracing data), events, ids and
EVENT_DESC are rewritten to match, the other records and features kept.
The lock names: a long one for rwsems (report cuts it), "&rq->__lock"
for spinlocks, "sem" for the others. A read wait acquired as a read lock
then contended is a broken sequence, as perf counts it."""
import struct, sys

src, out = sys.argv[1], sys.argv[2]
b = open(src, "rb").read()
_, _, attr_size = struct.unpack_from("<8sQQ", b, 0)
ao, asz, do, dsz = struct.unpack_from("<4Q", b, 24)
feats = list(struct.unpack_from("<4Q", b, 72))
bits = [i for i in range(256) if feats[i // 64] >> (i % 64) & 1]
ft = do + dsz
sections = {bit: struct.unpack_from("<QQ", b, ft + 16 * k) for k, bit in enumerate(bits)}

# the two attrs and their ids
attrs = []
for i in range(asz // attr_size):
    off = ao + i * attr_size
    raw = b[off:off + attr_size - 16]
    io, isz = struct.unpack_from("<QQ", b, off + attr_size - 16)
    ids = struct.unpack_from("<%dQ" % (isz // 8), b, io)
    attrs.append((raw, ids))
config = [struct.unpack_from("<Q", a[0], 8)[0] for a in attrs]   # begin, end
id_kind = {}
for k, (_, ids) in enumerate(attrs):
    for x in ids:
        id_kind[x] = k

# the tracing data: the lock system's formats replaced by lockdep's four
o, s = sections[1]
td = b[o:o + s]
p = 10
p = td.index(b"\0", p) + 1          # version
p += 1 + 1 + 4                      # endian, long size, page size
head = td[:p]
def section(p):
    n = td.index(b"\0", p) + 1
    sz = struct.unpack_from("<Q", td, n)[0]
    return n + 8 + sz
p = section(p); p = section(p)      # header_page, header_event
nf = struct.unpack_from("<I", td, p)[0]; p += 4
for _ in range(nf):
    p += 8 + struct.unpack_from("<Q", td, p)[0]
ftrace_end = p
nsys = struct.unpack_from("<I", td, p)[0]; p += 4
systems = []
for _ in range(nsys):
    n = td.index(b"\0", p); name = td[p:n]; p = n + 1
    cnt = struct.unpack_from("<I", td, p)[0]; p += 4
    fmts = []
    for _ in range(cnt):
        sz = struct.unpack_from("<Q", td, p)[0]; fmts.append(td[p + 8:p + 8 + sz]); p += 8 + sz
    systems.append((name, fmts))
tail = td[p:]
IDS = [0x7f01, 0x7f02, 0x7f03, 0x7f04]
NAMES = ["lock_acquire", "lock_acquired", "lock_contended", "lock_release"]
COMMON = ("\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
          "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
          "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
          "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n")
def fmt(k):
    f = "name: %s\nID: %d\nformat:\n" % (NAMES[k], IDS[k]) + COMMON
    if k == 0:
        f += "\tfield:unsigned int flags;\toffset:8;\tsize:4;\tsigned:0;\n"
    f += ("\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n"
          "\tfield:void * lockdep_addr;\toffset:16;\tsize:8;\tsigned:0;\n\n"
          "print fmt: \"%%p %%s\", REC->lockdep_addr, __get_str(name)\n")
    return f.encode()
systems = [(n, f) for n, f in systems if n != b"lock"] + [(b"lock", [fmt(k) for k in range(4)])]
td2 = td[:ftrace_end] + struct.pack("<I", len(systems))
for n, fs in systems:
    td2 += n + b"\0" + struct.pack("<I", len(fs))
    for f in fs:
        td2 += struct.pack("<Q", len(f)) + f
td2 += tail

# the samples: begin -> acquire + contended, end -> acquired + release
def lock_name(flags):
    if flags & 0x2 or flags & 0x4:          # rwsem
        return b"&mm->mmap_lock_of_the_process"   # past 19 characters: cut by report
    return b"&rq->__lock" if flags & 1 else b"sem"
def raw(k, pid, addr, flags, name):
    body = struct.pack("<HBBi", IDS[k], 0, 0, pid)
    body += struct.pack("<I", (flags & 2) and 2 or 0)     # lockdep: READ_LOCK for read waits
    name = name + b"\0"
    body += struct.pack("<I", (len(name) << 16) | 24) + struct.pack("<Q", addr) + name
    size = len(body)
    pad = (-(size + 4)) % 8
    return struct.pack("<I", size + pad) + body + b"\0" * pad
NEWST = 0x1 | 0x2 | 0x4 | 0x80 | 0x100 | 0x400 | 0x10000
data = bytearray()
last = {}   # (tid, addr) of the begin, for its end's name
p = do
while p < do + dsz:
    typ, misc, size = struct.unpack_from("<IHH", b, p)
    rec = b[p:p + size]
    p += size
    if typ != 9:
        # the sample_id_all trailer ends with the old event's id: one of the new
        if len(rec) >= 16 and struct.unpack_from("<Q", rec, len(rec) - 8)[0] in id_kind:
            rec = rec[:-8] + struct.pack("<Q", 0x7f000)
        data += rec
        continue
    q = 8
    ident, ip, pid, tid, t = struct.unpack_from("<QQIIQ", rec, q); q += 32
    cpu, res, period = struct.unpack_from("<IIQ", rec, q); q += 16
    nr = struct.unpack_from("<Q", rec, q)[0]; q += 8 + 8 * nr
    rsz = struct.unpack_from("<I", rec, q)[0]; r = rec[q + 4:q + 4 + rsz]
    kind = id_kind.get(ident)
    if kind is None:
        continue
    addr = struct.unpack_from("<Q", r, 8)[0]
    if kind == 0:
        flags = struct.unpack_from("<I", r, 16)[0]
        last[(tid, addr)] = flags
        pairs = [(0, t), (2, t + 1)]
    else:
        flags = last.get((tid, addr), 0)
        pairs = [(1, t), (3, t + 500)]
    for k, tt in pairs:
        body = struct.pack("<QQIIQIIQ", 0x7f000 + k, ip, pid, tid, tt, cpu, res, period)
        body += raw(k, pid, addr, flags, lock_name(flags))
        data += struct.pack("<IHH", 9, misc, 8 + len(body)) + body

# the file: header, ids, attrs, data, feature table and sections
attr_bytes, ids_bytes = b"", b""
hdr = 104
ids_off = hdr
ids_bytes = b"".join(struct.pack("<Q", 0x7f000 + k) for k in range(4))
attrs_off = ids_off + len(ids_bytes)
for k in range(4):
    a = bytearray(attrs[0][0])
    struct.pack_into("<Q", a, 8, IDS[k])
    struct.pack_into("<Q", a, 24, NEWST)
    attr_bytes += bytes(a) + struct.pack("<QQ", ids_off + 8 * k, 8)
data_off = attrs_off + len(attr_bytes)
new_sections = {}
for bit in bits:
    o, s = sections[bit]
    new_sections[bit] = b[o:o + s]
new_sections[1] = td2
# EVENT_DESC: the four events, their names and ids
ed = struct.pack("<II", 4, len(attrs[0][0]))
for k in range(4):
    a = bytearray(attrs[0][0]); struct.pack_into("<Q", a, 8, IDS[k]); struct.pack_into("<Q", a, 24, NEWST)
    nm = ("lock:" + NAMES[k]).encode() + b"\0"; nm += b"\0" * ((-len(nm)) % 64)
    ed += bytes(a) + struct.pack("<I", 1) + struct.pack("<I", len(nm)) + nm + struct.pack("<Q", 0x7f000 + k)
new_sections[12] = ed
ft_off = data_off + len(data)
table, blob = b"", b""
pos = ft_off + 16 * len(bits)
for bit in bits:
    table += struct.pack("<QQ", pos + len(blob), len(new_sections[bit]))
    blob += new_sections[bit]
header = struct.pack("<8sQQ", b"PERFILE2", 104, len(attrs[0][0]) + 16)
header += struct.pack("<6Q", attrs_off, len(attr_bytes), data_off, len(data), 0, 0)
header += struct.pack("<4Q", *feats)
open(out, "wb").write(header + ids_bytes + attr_bytes + bytes(data) + table + blob)
