#!/bin/sh
# Regenerate lib/event/syscall_names.h, x86-64's syscall numbers and
# names, from the kernel headers (linux-libc-dev). Kept in the tree so
# the table does not change with the build machine's headers.
set -eu
hdr=${1:-/usr/include/x86_64-linux-gnu/asm/unistd_64.h}
out=${2:-lib/event/syscall_names.h}
{
	echo "/* SPDX-License-Identifier: MIT */"
	echo "/* x86-64 syscall names by number: scripts/gen-syscalls.sh from $(basename "$hdr"). */"
	awk '/^#define __NR_[a-z0-9_]+ [0-9]+$/ { sub("__NR_", "", $2); printf "\t[%d] = \"%s\",\n", $3, $2 }' "$hdr"
} > "$out"
