#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the crafted seeds of fuzz/fuzz_trace_fmt.c into fuzz/corpus/trace_fmt:
copies of whole-three-tracepoints.data (see the README there) with one damage
each, every edit the same length so the file's sizes stay right:
  damaged-flags-field.data  __print_flags(REC->prev_state -> REC->pre\\xd5_state
                            (libtraceevent writes through a NULL field)
  damaged-div-zero.data     sched_switch's "<< 1) - 1)" -> "<< 1) / 0)"
  damaged-field-line.data   "field:char prev_comm[16]" -> "field:char prev_c\\xd5mm[16]"
  damaged-cpumask.data      __get_str(filename) -> __get_cpumask(fxyz) (a NULL
                            field read when printed)
  bad-data-loc.data         the first sched_process_exec sample's filename
                            __data_loc pointed at offset 0xfff0
    python3 fuzz/gen_trace_fmt_corpus.py   (from the top of the tree)"""
import struct

DIR = "fuzz/corpus/trace_fmt"
src = open(DIR + "/whole-three-tracepoints.data", "rb").read()


def edit(name, old, new, nth=0):
    assert len(old) == len(new)
    i = -1
    for _ in range(nth + 1):
        i = src.index(old, i + 1)
    open("%s/%s" % (DIR, name), "wb").write(src[:i] + new + src[i + len(old):])


edit("damaged-flags-field.data", b"__print_flags(REC->prev_state", b"__print_flags(REC->pre\xd5_state")
edit("damaged-div-zero.data", b"<< 1) - 1)", b"<< 1) / 0)")
edit("damaged-field-line.data", b"field:char prev_comm[16]", b"field:char prev_c\xd5mm[16]")
edit("damaged-cpumask.data", b"__get_str(filename)", b"__get_cpumask(fxyz)")

# The first sample whose RAW (its last field: u32 size, then the data, to the
# record's end) starts with sched_process_exec's id as common_type.
fmt = src.index(b"name: sched_process_exec\nID: ")
exec_id = int(src[fmt + 29:src.index(b"\n", fmt + 29)])
data_off, data_size = struct.unpack_from("<QQ", src, 40)
off = data_off
while off < data_off + data_size:
    typ, misc, size = struct.unpack_from("<IHH", src, off)
    raw = next((j for j in range(8, size - 4, 4)
                if struct.unpack_from("<I", src, off + j)[0] == size - j - 4 and
                struct.unpack_from("<H", src, off + j + 4)[0] == exec_id), None)
    if typ == 9 and raw is not None:
        loc = off + raw + 4 + 8  # filename's __data_loc: offset 8 of the data
        out = bytearray(src)
        out[loc:loc + 4] = struct.pack("<HH", 0xfff0, 16)
        open(DIR + "/bad-data-loc.data", "wb").write(out)
        break
    off += size
else:
    raise SystemExit("no sched_process_exec sample")
