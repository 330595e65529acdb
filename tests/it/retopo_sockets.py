#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""retopo_sockets.py IN OUT: a copy of the perf.data file IN whose
CPU_TOPOLOGY section says that CPU i sits in socket i (a machine of as
many sockets as CPUs), for the socket key's tests on a one-socket
machine. The section keeps its size: only the socket ids after the
sibling lists change. Exits 1 when IN has no such ids."""
import struct
import sys

NRCPUS, CPU_TOPOLOGY = 7, 13


def sections(b):
    """feature bit -> (offset, size) of each section the header lists."""
    data_off, data_size = struct.unpack_from('<QQ', b, 40)
    bits = int.from_bytes(b[72:104], 'little')
    out, at = {}, data_off + data_size
    for f in range(256):
        if bits >> f & 1:
            out[f] = struct.unpack_from('<QQ', b, at)
            at += 16
    return out


def main():
    b = bytearray(open(sys.argv[1], 'rb').read())
    if b[:8] != b'PERFILE2':
        sys.exit("%s: not a perf.data file" % sys.argv[1])
    sec = sections(b)
    if CPU_TOPOLOGY not in sec or NRCPUS not in sec:
        sys.exit("%s: no CPU_TOPOLOGY or NRCPUS" % sys.argv[1])
    _, avail = struct.unpack_from('<II', b, sec[NRCPUS][0])
    off, size = sec[CPU_TOPOLOGY]
    at = off
    for _ in range(2):          # core siblings, thread siblings
        n, = struct.unpack_from('<I', b, at)
        at += 4
        for _ in range(n):
            l, = struct.unpack_from('<I', b, at)
            at += 4 + l
    if at + 8 * avail > off + size:
        sys.exit("%s: no core and socket ids" % sys.argv[1])
    for cpu in range(avail):
        struct.pack_into('<I', b, at + 8 * cpu + 4, cpu)
    open(sys.argv[2], 'wb').write(b)


if __name__ == '__main__':
    main()
