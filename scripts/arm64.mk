# make ARCH=arm64: the aarch64 cross build, included by the Makefile.
# Debian's cross compiler (gcc-aarch64-linux-gnu) with its own glibc
# (/usr/aarch64-linux-gnu), the field libraries from the arm64 packages
# that `make deps ARCH=arm64` (scripts/deps-arm64.sh) unpacks into
# ARM64_SYSROOT, linked statically (cmocka, which ships no archive, is the
# tests' one shared library: rpath). The x86 build is untouched: its
# variables are only replaced here.
ARM64_SYSROOT ?= $(or $(TALLY_ARM64_SYSROOT),$(HOME)/.cache/tally-arm64)
ARM64_LIBDIR  := $(ARM64_SYSROOT)/usr/lib/aarch64-linux-gnu
CC            := aarch64-linux-gnu-gcc
# one tree per architecture, whatever BUILD the environment has
override BUILD := build-arm64
override SAN   :=
PKG_CONFIG    := PKG_CONFIG_LIBDIR=$(ARM64_LIBDIR)/pkgconfig:$(ARM64_SYSROOT)/usr/share/pkgconfig \
                 PKG_CONFIG_SYSROOT_DIR=$(ARM64_SYSROOT) pkg-config
# after the compiler's own headers: the sysroot holds only the libraries'
ARM64_CFLAGS  := -idirafter $(ARM64_SYSROOT)/usr/include \
                 -idirafter $(ARM64_SYSROOT)/usr/include/aarch64-linux-gnu
ARM64_LDLIBS  := -L$(ARM64_LIBDIR) -Wl,-Bstatic -lncursesw -ltinfo -ltracefs -ltraceevent -lbpf \
                 -ldw -lelf -lzstd -lprotobuf-c -lcapstone -lz -llzma -lbz2 -lpfm -lstdc++ \
                 -Wl,-Bdynamic -lm -lpthread -ldl
ARM64_CMOCKA  := -L$(ARM64_LIBDIR) -lcmocka -Wl,-rpath,$(ARM64_LIBDIR)
BPF_ARCH_INC  := /usr/aarch64-linux-gnu/include
