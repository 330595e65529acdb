#!/usr/bin/env python3
"""Rewrite a little-endian perf.data as a big-endian machine would have
written it: every field in its own width, the attr's flag bits mirrored
in each byte. Feature sections of a layout not written here are dropped
(the bit cleared). The test's oracle: perf 6.1 reads swapped files, so
perf's rows of the result must equal perf's rows of the input.

usage: to_big_endian.py IN OUT"""
import ctypes
import struct
import sys

SAMPLE = dict(IP=1 << 0, TID=1 << 1, TIME=1 << 2, ADDR=1 << 3, READ=1 << 4,
              CALLCHAIN=1 << 5, ID=1 << 6, CPU=1 << 7, PERIOD=1 << 8,
              STREAM_ID=1 << 9, RAW=1 << 10, BRANCH_STACK=1 << 11,
              REGS_USER=1 << 12, STACK_USER=1 << 13, WEIGHT=1 << 14,
              DATA_SRC=1 << 15, IDENTIFIER=1 << 16, TRANSACTION=1 << 17,
              REGS_INTR=1 << 18, PHYS_ADDR=1 << 19, AUX=1 << 20,
              CGROUP=1 << 21, DATA_PAGE_SIZE=1 << 22, CODE_PAGE_SIZE=1 << 23,
              WEIGHT_STRUCT=1 << 24)


class Buf:
    """Little-endian bytes read by a cursor, written out big-endian."""

    def __init__(self, b):
        self.b, self.pos, self.out = b, 0, bytearray()

    def f(self, fmt):
        n = struct.calcsize('<' + fmt)
        v = struct.unpack_from('<' + fmt, self.b, self.pos)
        self.out += struct.pack('>' + fmt, *v)
        self.pos += n
        return v[0] if len(v) == 1 else v

    def raw(self, n):
        self.out += self.b[self.pos:self.pos + n]
        self.pos += n

    def rest(self):
        self.raw(len(self.b) - self.pos)

    def left(self):
        return len(self.b) - self.pos


def mirror(byte):
    return int('{:08b}'.format(byte)[::-1], 2)


def attr(c, size):
    start = c.pos
    c.f('IIQQQQ')
    for i in range(8):
        c.out.append(mirror(c.b[c.pos + i]))
    c.pos += 8
    for fmt in ('I', 'I', 'Q', 'Q', 'Q', 'Q', 'I', 'i', 'Q', 'I', 'H', 'H', 'I', 'I', 'Q', 'Q'):
        if c.pos - start + struct.calcsize(fmt) > size:
            break
        c.f(fmt)
    c.raw(size - (c.pos - start))


def unpack_attr(b):
    typ, size, config, period, st, rf = struct.unpack_from('<IIQQQQ', b)
    flags = struct.unpack_from('<Q', b, 40)[0]
    bst = struct.unpack_from('<Q', b, 72)[0] if size >= 80 else 0
    regs_user = struct.unpack_from('<Q', b, 80)[0] if size >= 88 else 0
    regs_intr = struct.unpack_from('<Q', b, 96)[0] if size >= 104 else 0
    return dict(st=st, rf=rf, sample_id_all=bool(flags >> 18 & 1), bst=bst,
                regs_user=regs_user, regs_intr=regs_intr)


def read_values(c, rf):
    per = 1 + bool(rf & 4) + bool(rf & 16)
    if rf & 8:
        nr = c.f('Q')
        if rf & 1:
            c.f('Q')
        if rf & 2:
            c.f('Q')
        for _ in range(nr * per):
            c.f('Q')
    else:
        c.f('Q')
        for bit in (1, 2, 4, 16):
            if rf & bit:
                c.f('Q')


def sample(c, a):
    st = a['st']

    def has(n):
        return st & SAMPLE[n]
    for n, fmt in (('IDENTIFIER', 'Q'), ('IP', 'Q'), ('TID', 'II'), ('TIME', 'Q'),
                   ('ADDR', 'Q'), ('ID', 'Q'), ('STREAM_ID', 'Q'), ('CPU', 'II'),
                   ('PERIOD', 'Q')):
        if has(n):
            c.f(fmt)
    if has('READ'):
        read_values(c, a['rf'])
    if has('CALLCHAIN'):
        for _ in range(c.f('Q')):
            c.f('Q')
    if has('RAW'):
        c.raw(c.f('I'))
    if has('BRANCH_STACK'):
        nr = c.f('Q')
        if a['bst'] & (1 << 17):
            c.f('Q')
        for _ in range(nr * 3):
            c.f('Q')
    if has('REGS_USER') and c.f('Q'):
        for _ in range(bin(a['regs_user']).count('1')):
            c.f('Q')
    if has('STACK_USER'):
        n = c.f('Q')
        c.raw(n)
        if n:
            c.f('Q')
    if has('WEIGHT_STRUCT'):
        c.f('IHH')
    elif has('WEIGHT'):
        c.f('Q')
    for n in ('DATA_SRC', 'TRANSACTION'):
        if has(n):
            c.f('Q')
    if has('REGS_INTR') and c.f('Q'):
        for _ in range(bin(a['regs_intr']).count('1')):
            c.f('Q')
    if has('PHYS_ADDR'):
        c.f('Q')
    if has('AUX'):
        c.raw(c.f('Q'))
    for n in ('CGROUP', 'DATA_PAGE_SIZE', 'CODE_PAGE_SIZE'):
        if has(n):
            c.f('Q')
    if c.left():
        sys.exit('sample longer than its layout')


def trailer(c, a):
    if not a['sample_id_all']:
        c.rest()
        return
    st = a['st']
    fields = [(n, fmt) for n, fmt in (('TID', 'II'), ('TIME', 'Q'), ('ID', 'Q'),
                                      ('STREAM_ID', 'Q'), ('CPU', 'II'),
                                      ('IDENTIFIER', 'Q')) if st & SAMPLE[n]]
    c.raw(c.left() - 8 * len(fields))
    for _, fmt in fields:
        c.f(fmt)


# the kernel's records: their fixed fields (the rest up to the trailer is bytes)
KERNEL = {1: 'IIQQQ', 2: 'QQ', 3: 'II', 4: 'IIIIQ', 5: 'QQQ', 6: 'QQQ', 7: 'IIIIQ',
          11: 'QQQ', 12: 'II', 13: 'Q', 14: '', 15: 'II', 17: 'QIHH', 18: 'HHI',
          19: 'Q', 20: 'QHH', 21: 'Q'}


def record(c, t, misc, attrs, by_id):
    first = attrs[0]
    if t == 9:
        a = first
        if len(attrs) > 1:
            st = first['st']
            off = 0 if st & SAMPLE['IDENTIFIER'] else 8 * sum(
                bool(st & SAMPLE[n]) for n in ('IP', 'TID', 'TIME', 'ADDR'))
            a = by_id[struct.unpack_from('<Q', c.b, c.pos + off)[0]]
        sample(c, a)
    elif t == 10:
        c.f('IIQQQ')
        if misc & (1 << 14):
            c.raw(24)
        else:
            c.f('IIQQ')
        c.f('II')
        trailer(c, first)
    elif t in KERNEL:
        if KERNEL[t]:
            c.f(KERNEL[t])
        trailer(c, first)
    elif t in (68, 82):            # FINISHED_ROUND, FINISHED_INIT
        c.rest()
    elif t == 79:                  # TIME_CONV: u64s
        while c.left():
            c.f('Q')
    elif t == 69:                  # ID_INDEX
        for _ in range(c.f('Q') * 4):
            c.f('Q')
    elif t == 78:                  # EVENT_UPDATE: type, id, then a name, unit or scale
        kind = c.f('QQ')[0]
        if kind == 1:
            c.f('d')
        elif kind == 3:
            sys.exit('EVENT_UPDATE with a cpu map: not rewritten here')
        c.rest()
    elif t == 74:                  # CPU_MAP: a list, a mask or a range
        kind = c.f('H')
        if kind == 0:
            for _ in range(c.f('H')):
                c.f('H')
        elif kind == 2:
            c.f('BBHH')
        else:
            nr, long_size = c.f('HH')
            if long_size == 8:
                c.f('I')
            for _ in range(nr):
                c.f('Q' if long_size == 8 else 'I')
        c.rest()
    elif t == 73:                  # THREAD_MAP
        for _ in range(c.f('Q')):
            c.f('Q')
            c.raw(16)
    else:
        sys.exit('record type %d: not rewritten here' % t)


class Zstd:
    """libzstd through ctypes: one decompression stream across the file's
    COMPRESSED records (a record may end inside another), one-shot frames
    for the rewritten ones."""

    class Buf(ctypes.Structure):
        _fields_ = [('p', ctypes.c_void_p), ('size', ctypes.c_size_t), ('pos', ctypes.c_size_t)]

    def __init__(self):
        self.z = ctypes.CDLL('libzstd.so.1')
        self.z.ZSTD_createDCtx.restype = ctypes.c_void_p
        self.z.ZSTD_decompressStream.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        self.z.ZSTD_decompressStream.restype = ctypes.c_size_t
        self.z.ZSTD_compress.restype = ctypes.c_size_t
        self.z.ZSTD_compress.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                         ctypes.c_size_t, ctypes.c_int]
        self.z.ZSTD_isError.argtypes = [ctypes.c_size_t]
        self.d = self.z.ZSTD_createDCtx()

    def decompress(self, data):
        src = ctypes.create_string_buffer(data, len(data))
        out = bytearray()
        inb = self.Buf(ctypes.addressof(src), len(data), 0)
        while True:
            dst = ctypes.create_string_buffer(1 << 20)
            outb = self.Buf(ctypes.addressof(dst), len(dst), 0)
            r = self.z.ZSTD_decompressStream(self.d, ctypes.byref(outb), ctypes.byref(inb))
            if self.z.ZSTD_isError(r):
                sys.exit('corrupt zstd data')
            out += dst.raw[:outb.pos]
            if inb.pos == inb.size and outb.pos < outb.size:
                return bytes(out)

    def compress(self, data):
        dst = ctypes.create_string_buffer(len(data) + 1024)
        n = self.z.ZSTD_compress(dst, len(dst), bytes(data), len(data), 1)
        if self.z.ZSTD_isError(n):
            sys.exit('zstd compression failed')
        return dst.raw[:n]


def convert(rec, attrs, by_id):
    """One whole little-endian record, big-endian."""
    t, misc, size = struct.unpack_from('<IHH', rec)
    c = Buf(rec[8:size])
    record(c, t, misc, attrs, by_id)
    return struct.pack('>IHH', t, misc, size) + c.out


def compressed(payload, z, carry, attrs, by_id):
    """A COMPRESSED record's records (those that end in it), rewritten and
    compressed again, as one or more COMPRESSED records."""
    carry += z.decompress(payload)
    done, pos = bytearray(), 0
    while len(carry) - pos >= 8:
        size = struct.unpack_from('<H', carry, pos + 6)[0]
        if size > len(carry) - pos:
            break
        done += convert(carry[pos:pos + size], attrs, by_id)
        pos += size
    del carry[:pos]
    out, i = bytearray(), 0
    while i < len(done):            # split: a record's size is a u16
        j = i
        while j < len(done):
            size = struct.unpack_from('>H', done, j + 6)[0]
            if j + size - i > 16384 and j > i:
                break
            j += size
        frame = z.compress(done[i:j])
        out += struct.pack('>IHH', 81, 0, 8 + len(frame)) + frame
        i = j
    return bytes(out)


def string(c):
    c.raw(c.f('I'))


def feature(f, b):
    """A section rewritten, or None when its layout is not written here."""
    c = Buf(b)
    if f in (3, 4, 5, 6, 8, 9):
        string(c)
    elif f == 7:
        c.f('II')
    elif f in (10, 23):
        c.f('Q')
    elif f == 11:
        for _ in range(c.f('I')):
            string(c)
    elif f == 12:
        nr, asz = c.f('II')
        for _ in range(nr):
            attr(c, asz)
            nids = c.f('I')
            string(c)
            for _ in range(nids):
                c.f('Q')
    elif f == 16:
        for _ in range(c.f('I')):
            c.f('I')
            string(c)
    elif f == 21:
        c.f('QQ')
    elif f == 27:
        c.f('IIIII')
    elif f == 29:
        c.f('IIQQ')
    elif f == 2:
        while c.left() >= 8:
            t, misc, size = c.f('IHH')
            c.f('i')
            c.raw(size - 12)
    else:
        return None
    c.rest()
    return bytes(c.out)


def pipe(b, dst):
    """perf's pipe format: a 16-byte header, then records only (the attrs,
    features and tracing data as records of perf's own types first)."""
    out = bytearray(struct.pack('>QQ', 0x32454c4946524550, 16))
    attrs, by_id, pos = [], {}, 16
    while pos + 8 <= len(b):
        t, misc, size = struct.unpack_from('<IHH', b, pos)
        rec = b[pos:pos + size]
        c = Buf(rec[8:])
        blob = b''
        if t == 64:                  # HEADER_ATTR: the attr, then its ids
            asz = struct.unpack_from('<I', rec, 12)[0]
            a = unpack_attr(rec[8:8 + asz])
            attr(c, asz)
            while c.left():
                by_id[struct.unpack_from('<Q', c.b, c.pos)[0]] = a
                c.f('Q')
            attrs.append(a)
        elif t == 66:                # TRACING_DATA: its size; the blob follows, in its own order
            n = c.f('I')
            c.rest()
            blob = b[pos + size:pos + size + ((n + 7) & ~7)]
        elif t == 67:                # HEADER_BUILD_ID: pid, build id, name
            c.f('i')
            c.rest()
        elif t == 80:                # HEADER_FEATURE: feat, then its section
            feat = struct.unpack_from('<Q', rec, 8)[0]
            body = feature(feat, rec[16:])
            if body is None:         # a layout not written here: left out
                pos += size
                continue
            c = Buf(b'')
            c.out = bytearray(struct.pack('>Q', feat) + body)
        else:
            record(c, t, misc, attrs, by_id)
        out += struct.pack('>IHH', t, misc, 8 + len(c.out)) + c.out + blob
        pos += size + len(blob)
    open(dst, 'wb').write(out)


def main(src, dst):
    b = open(src, 'rb').read()
    magic, hsize, asz = struct.unpack_from('<QQQ', b)
    if magic == 0x32454c4946524550 and hsize == 16:
        pipe(b, dst)
        return
    if magic != 0x32454c4946524550 or hsize != 104:
        sys.exit('not a little-endian perf.data file')
    a_off, a_size, d_off, d_size, e_off, e_size = struct.unpack_from('<6Q', b, 24)
    feats = struct.unpack_from('<4Q', b, 72)
    out = bytearray(b)
    # attrs and their ids
    attrs, by_id = [], {}
    for i in range(a_size // asz):
        p = a_off + i * asz
        c = Buf(b[p:p + asz])
        attr(c, asz - 16)
        a = unpack_attr(b[p:p + asz - 16])
        ids_off, ids_size = struct.unpack_from('<QQ', b, p + asz - 16)
        c.f('QQ')
        out[p:p + asz] = c.out
        for k in range(ids_size // 8):
            (v,) = struct.unpack_from('<Q', b, ids_off + 8 * k)
            by_id[v] = a
            struct.pack_into('>Q', out, ids_off + 8 * k, v)
        attrs.append(a)
    # records (COMPRESSED ones change size: the data section is laid again)
    pos, data, z, carry = d_off, bytearray(), None, bytearray()
    while pos < d_off + d_size:
        t, misc, size = struct.unpack_from('<IHH', b, pos)
        if t == 81:
            z = z or Zstd()
            data += compressed(b[pos + 8:pos + size], z, carry, attrs, by_id)
        else:
            data += convert(b[pos:pos + size], attrs, by_id)
        pos += size
    if carry:
        sys.exit('compressed data ends inside a record')
    out = out[:d_off] + data
    # features: the table after the data, one {offset, size} per set bit
    table = d_off + d_size
    d_size = len(data)
    present = [f for f in range(256) if feats[f // 64] >> (f % 64) & 1]
    secs = [struct.unpack_from('<QQ', b, table + 16 * k) for k in range(len(present))]
    kept, bodies = [], []
    for f, (off, size) in zip(present, secs):
        body = feature(f, b[off:off + size])
        if body is not None:
            kept.append(f)
            bodies.append(body)
    # lay out: the table, then the sections in order
    table_bytes, data_bytes = bytearray(), bytearray()
    off = d_off + d_size + 16 * len(kept)
    for body in bodies:
        table_bytes += struct.pack('>QQ', off, len(body))
        data_bytes += body
        off += len(body)
    out = out[:d_off + d_size] + table_bytes + data_bytes
    words = [0, 0, 0, 0]
    for f in kept:
        words[f // 64] |= 1 << (f % 64)
    struct.pack_into('>QQQ', out, 0, magic, hsize, asz)
    struct.pack_into('>6Q', out, 24, a_off, a_size, d_off, d_size, e_off, e_size)
    struct.pack_into('>4Q', out, 72, *words)
    open(dst, 'wb').write(out)


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
