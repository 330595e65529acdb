#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the seed corpus of fuzz/fuzz_record.c into fuzz/corpus/record:
one valid record of every PERF_RECORD_* type (1..21, MMAP2 in both forms),
samples under several layouts, a perf user type and two broken records.
Each file is the target's 12-byte layout prefix (u64 sample_type; u8
read_format | 0x20 sample_id_all | 0x40 BRANCH_HW_INDEX | 0x80 odd address;
u8 regs_user mask; u8 regs_intr mask; u8 unused) followed by the record,
laid out from perf_event_open(2), independently of the C unit tests.
    python3 fuzz/gen_record_corpus.py   (from the top of the tree)"""
import os
import struct

OUT = "fuzz/corpus/record"

IP, TID, TIME, ADDR, READ, CALLCHAIN, ID, CPU, PERIOD, STREAM_ID, RAW, BRANCH, \
    REGS_USER, STACK_USER, WEIGHT, DATA_SRC, IDENTIFIER, TRANSACTION, REGS_INTR, \
    PHYS_ADDR, AUX, CGROUP, DATA_PAGE_SIZE, CODE_PAGE_SIZE, WEIGHT_STRUCT = \
    [1 << i for i in range(25)]
F_ENA, F_RUN, F_ID, F_GROUP, F_LOST = 1, 2, 4, 8, 16
SID_ALL, HW_IDX, ODD = 0x20, 0x40, 0x80


def q(*v): return struct.pack("<%dQ" % len(v), *v)
def l(*v): return struct.pack("<%dI" % len(v), *v)
def h(*v): return struct.pack("<%dH" % len(v), *v)


def cstr(s):
    b = s.encode() + b"\0"
    return b + b"\0" * (-len(b) % 8)


def sid(st):
    out = b""
    if st & TID: out += l(4242, 4243)
    if st & TIME: out += q(1000000)
    if st & ID: out += q(77)
    if st & STREAM_ID: out += q(78)
    if st & CPU: out += l(1, 0)
    if st & IDENTIFIER: out += q(77)
    return out


def rec(rtype, misc, body):
    return struct.pack("<IHH", rtype, misc, 8 + len(body)) + body


def write(name, st, flags, body_rec, regs_user=0, regs_intr=0):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(q(st) + bytes([flags, regs_user, regs_intr, 0]) + body_rec)


def kernel(name, rtype, misc, body, st=TID | TIME | ID | CPU | IDENTIFIER, flags=SID_ALL | F_ID):
    write(name, st, flags, rec(rtype, misc, body + (sid(st) if flags & SID_ALL else b"")))


os.makedirs(OUT, exist_ok=True)
kernel("mmap", 1, 1, l(0xffffffff, 0) + q(0xffffffff81000000, 0x12090c8, 0xffffffff81000000)
       + cstr("[kernel.kallsyms]_text"), st=TID | TIME)
kernel("lost", 2, 0, q(77, 12))
kernel("comm_exec", 3, 0x2000, l(4242, 4242) + cstr("work"))
kernel("exit", 4, 0, l(4242, 1, 4242, 1) + q(5000))
kernel("throttle", 5, 0, q(6000, 77, 78))
kernel("unthrottle_nosid", 6, 0, q(6001, 77, 78), flags=0)
kernel("fork", 7, 0x2000, l(4243, 4242, 4243, 4242) + q(5500))
kernel("read_group", 8, 0, l(4242, 4243) + q(2, 100, 90) + q(11, 77, 0) + q(22, 79, 1),
       flags=SID_ALL | F_GROUP | F_ENA | F_RUN | F_ID | F_LOST)
kernel("mmap2", 10, 2, l(4242, 4242) + q(0x401000, 0x1000, 0x1000) + l(8, 1) + q(1234, 0)
       + l(5, 2) + cstr("/tmp/work"))
kernel("mmap2_build_id", 10, 0x4002, l(4242, 4242) + q(0x7f0000001000, 0x2000, 0)
       + bytes([20, 0, 0, 0]) + bytes(range(0xa0, 0xb4)) + l(5, 2)
       + cstr("/usr/lib/x86_64-linux-gnu/libc.so.6"))
kernel("aux", 11, 0, q(0, 4096, 1))
kernel("itrace_start", 12, 0, l(4242, 4243))
kernel("lost_samples", 13, 0, q(3))
kernel("switch_out", 14, 0x2000, b"")
kernel("switch_cpu_wide", 15, 0x6000, l(1, 2), st=TID | TIME | CPU | STREAM_ID)
kernel("namespaces", 16, 0, l(4242, 4242) + q(2) + q(4, 0xf0000001, 4, 0xf0000002))
kernel("ksymbol", 17, 0, q(0xffffffffc0001000) + l(0x88) + h(1, 0) + cstr("bpf_prog_6deef7357e7b4530"))
kernel("bpf_event", 18, 0, h(1, 0) + l(42) + bytes(range(1, 9)))
kernel("cgroup", 19, 0, q(1) + cstr("/user.slice"))
kernel("text_poke", 20, 0, q(0xffffffff81001000) + h(5, 5) + bytes([0x0f, 0x1f, 0x44, 0, 0, 0xe9, 1, 2, 3, 4])
       + b"\0" * 2)
kernel("aux_output_hw_id", 21, 0, q(7))

# perf record -g: IP|TID|TIME|CALLCHAIN|PERIOD, no trailer on samples
write("sample_perf_g", 0x127, SID_ALL | F_ID | F_LOST,
      rec(9, 2, q(0x401136) + l(4242, 4242) + q(123456, 1000, 4, 0xfffffffffffffe00, 0x401136,
                                                   0x401150, 0x7f0000029d90)))
# tracepoint with everything the integration test asks for
raw = b"\x05\x00" + bytes(range(2, 26))                # 26 bytes: 4 + 28 padded to 32
raw += b"\0" * (28 - len(raw))
write("sample_tracepoint", IDENTIFIER | IP | TID | TIME | ID | CPU | PERIOD | READ | CALLCHAIN | RAW,
      SID_ALL | F_ID | F_LOST | F_ENA | F_RUN,
      rec(9, 1, q(77, 0xffffffff81002000) + l(4242, 4242) + q(99, 77) + l(1, 0) + q(1)
          + q(5, 100, 100, 77, 0) + q(2, 0xffffffffffffff80, 0xffffffff81002000)
          + l(len(raw)) + raw))
# branch stack with hw_idx, regs (abi 64, 3 regs), stack, weight struct, data_src, aux
write("sample_branch_regs_stack", IP | BRANCH | REGS_USER | STACK_USER | WEIGHT_STRUCT | DATA_SRC
      | REGS_INTR | PHYS_ADDR | CGROUP | DATA_PAGE_SIZE | CODE_PAGE_SIZE | AUX | TRANSACTION,
      HW_IDX, rec(9, 2, q(0x401000, 2, 5, 0x401000, 0x401100, 1, 0x401200, 0x401300, 0)
                  + q(2, 1, 2, 3) + q(16) + bytes(range(16)) + q(12) + q(0x1234, 0x5678, 0)
                  + q(0) + q(0x1000, 9, 4096, 4096) + q(8) + b"auxdata!"),
      regs_user=0x7, regs_intr=0x3)
# group read in a sample, odd address
write("sample_group_read_odd", TID | READ, F_GROUP | F_ID | F_LOST | F_ENA | ODD,
      rec(9, 2, l(1, 2) + q(3, 500) + q(10, 100, 0, 20, 101, 0, 30, 102, 5)))
# perf's user type FINISHED_ROUND: header only
write("user_finished_round", TID, SID_ALL, rec(68, 0, b""))
# broken: a comm without its NUL; a callchain count past the record
write("bad_comm_no_nul", TID, 0, rec(3, 0, l(1, 1) + b"abcdefgh"))
write("bad_callchain_count", CALLCHAIN, 0, rec(9, 0, q(1 << 61, 1)))
# a layout no kernel accepts: WEIGHT with WEIGHT_STRUCT (-EINVAL)
write("bad_layout_two_weights", WEIGHT | WEIGHT_STRUCT, 0, rec(9, 0, q(1)))
