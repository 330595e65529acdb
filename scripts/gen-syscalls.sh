#!/bin/sh
# Regenerate the syscall tables, numbers to names, from the kernel headers:
#   lib/event/syscall_names.h        x86-64's, from unistd_64.h (linux-libc-dev)
#   lib/event/syscall_names_arm64.h  arm64's, asm-generic's unistd.h through
#                                    the aarch64 cross compiler (make deps ARCH=arm64)
# Kept in the tree so the tables do not change with the build machine's headers.
# Usage: gen-syscalls.sh [x86_64 [HDR] | arm64]
set -eu
case "${1:-x86_64}" in
arm64)
	out=lib/event/syscall_names_arm64.h
	{
		echo "/* SPDX-License-Identifier: MIT */"
		echo "/* arm64 syscall names by number: scripts/gen-syscalls.sh arm64 from asm-generic/unistd.h. */"
		# __NR_x may name an __NR3264_y (the 64-bit one); neither the
		# count (syscalls) nor the arch range's base is a syscall
		echo '#include <asm/unistd.h>' | aarch64-linux-gnu-gcc -E -dM - |
			awk '$1 == "#define" && $2 ~ /^__NR(3264)?_/ { v[$2] = $3 }
			     END { for (k in v) if (k ~ /^__NR_/) { x = v[k]; while (x in v) x = v[x]
				if (x ~ /^[0-9]+$/) { n = k; sub("__NR_", "", n); print x, n } } }' |
			grep -Ev ' (syscalls|arch_specific_syscall)$' | sort -n |
			awk '{ printf "\t[%d] = \"%s\",\n", $1, $2 }'
	} > "$out"
	;;
*)
	hdr=${2:-/usr/include/x86_64-linux-gnu/asm/unistd_64.h}
	out=lib/event/syscall_names.h
	{
		echo "/* SPDX-License-Identifier: MIT */"
		echo "/* x86-64 syscall names by number: scripts/gen-syscalls.sh from $(basename "$hdr"). */"
		awk '/^#define __NR_[a-z0-9_]+ [0-9]+$/ { sub("__NR_", "", $2); printf "\t[%d] = \"%s\",\n", $3, $2 }' "$hdr"
	} > "$out"
	;;
esac
