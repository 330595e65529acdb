# tally — GNU Make build. `make` builds the library and the command;
# `make test` runs every test; `make test SAN=1` does it under ASan+UBSan.
# Sources are found by wildcard so adding a file never needs a Makefile edit.

VERSION     := 0.5.0
SOVERSION   := 0
PREFIX      ?= /usr/local
CC          ?= cc
SAN         ?=
# ARCH=arm64: the cross build (scripts/arm64.mk), into build-arm64/
ARCH        ?=
PKG_CONFIG  := pkg-config
ifeq ($(ARCH),arm64)
include scripts/arm64.mk
endif
BUILD       ?= $(if $(SAN),build-san,build)

PKGS        := libtracefs libtraceevent libelf libdw libzstd libprotobuf-c libbpf capstone
PKG_CFLAGS  := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS    := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -lpfm
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)

WARN        := -Wall -Wextra -Wno-unused-parameter -Wshadow -Wstrict-prototypes \
               -Wmissing-prototypes -Wformat=2 -Wundef
CFLAGS      ?= -O2 -g
# lib/ has one folder per layer (scripts/layers.txt); a module includes
# its own and lower layers' headers by name, so every folder is searched.
LIB_DIRS    := $(sort $(wildcard lib/*/))
LIB_INC     := $(patsubst %/,-I%,$(LIB_DIRS))
BASE_CFLAGS := -std=gnu11 -fPIC -fvisibility=hidden -D_GNU_SOURCE -DTALLY_VERSION='"$(VERSION)"' \
               -Iinclude $(LIB_INC) -I$(BUILD)/gen $(WARN) $(PKG_CFLAGS)
ifneq ($(SAN),)
BASE_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDSAN       := -fsanitize=address,undefined
CFLAGS      := -O1 -g
endif
ALL_CFLAGS  = $(BASE_CFLAGS) $(CFLAGS)
# cli/ keeps the shared CLI layer at its root and a folder per command of
# several files (report, stat, record); only the command and its unit
# tests see its headers, never the library
CLI_INC     := -Icli $(patsubst %/,-I%,$(sort $(wildcard cli/*/)))
$(BUILD)/cli/%.o: ALL_CFLAGS += $(CLI_INC)
$(BUILD)/tests/unit/cli/%: ALL_CFLAGS += $(CLI_INC)
LDLIBS      := $(PKG_LIBS) -llzma -lz -lstdc++ -lm -lpthread
# The tally command links the field libraries statically and is not PIE:
# libpfm4 alone brings ~42k relative relocations and the shared libraries
# cost page faults at every start. Measured on `tally stat -- true`:
# 3.3 ms dynamic, 2.4 ms this way (perf: 7.6 ms). See bench/RESULTS.md.
# libstdc++ too: tally needs only its demangler (48 KB), while loading the
# shared library and running its initialisers took ~1 ms of every start.
TOOL_LDLIBS := -no-pie -Wl,-Bstatic -lncursesw -ltinfo -ltracefs -ltraceevent -lbpf -ldw -lelf -lzstd \
               -lprotobuf-c -lcapstone -lz -llzma -lbz2 -lpfm -lstdc++ -Wl,-Bdynamic -lm -lpthread -ldl
ifeq ($(ARCH),arm64)
BASE_CFLAGS += $(ARM64_CFLAGS)
LDLIBS      := $(ARM64_LDLIBS)
TOOL_LDLIBS := $(ARM64_LDLIBS)
CMOCKA_LIBS := $(ARM64_CMOCKA)
endif

LIB_SRC     := $(sort $(wildcard lib/*/*.c))
CLI_SRC     := $(sort $(wildcard cli/*.c cli/*/*.c))
UNIT_SRC    := $(sort $(wildcard tests/unit/*/test_*.c))
IT_SRC      := $(sort $(wildcard tests/it/test_*.c))
HELPER_SRC  := $(sort $(wildcard tests/helpers/*.c))
EX_SRC      := $(sort $(wildcard examples/*.c))
BENCH_SRC   := $(sort $(wildcard bench/*.c))

# pprof's profile.proto, turned into C by protoc-c (protobuf-c-compiler)
GEN_SRC     := $(BUILD)/gen/profile.pb-c.c
LIB_OBJ     := $(LIB_SRC:%.c=$(BUILD)/%.o) $(GEN_SRC:%.c=%.o)
CLI_OBJ     := $(CLI_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN    := $(UNIT_SRC:%.c=$(BUILD)/%)
IT_BIN      := $(IT_SRC:%.c=$(BUILD)/%)
HELPER_BIN  := $(HELPER_SRC:tests/helpers/%.c=$(BUILD)/helpers/%)
EX_BIN      := $(EX_SRC:examples/%.c=$(BUILD)/examples/%)
BENCH_BIN   := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)

.PHONY: all lib cli tests arm64-tests arm64-quick test-quick examples install deps test demo bench clean fuzz format

all: lib cli $(BUILD)/tally.pc

lib: $(BUILD)/libtally.a $(BUILD)/libtally.so
cli: $(BUILD)/tally

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/gen/profile.pb-c.c $(BUILD)/gen/profile.pb-c.h: proto/profile.proto
	@mkdir -p $(BUILD)/gen
	protoc-c --c_out=$(BUILD)/gen --proto_path=proto $<

# generated code: built without our warnings
$(BUILD)/gen/profile.pb-c.o: $(BUILD)/gen/profile.pb-c.c
	$(CC) -std=gnu11 -fPIC -fvisibility=hidden $(PKG_CFLAGS) $(CFLAGS) \
		$(LDSAN) -c $< -o $@

$(BUILD)/lib/export/pprof.o: $(BUILD)/gen/profile.pb-c.h

BPF_ARCH_INC ?= /usr/include/$(shell $(CC) -dumpmachine)
# The BPF programs (bpf/NAME.bpf.c: tally trace's string reader, record
# --off-cpu's sched_switch timer, lock contention -b's waits), built by clang and embedded in the
# library as bpftool's skeletons (libbpf-dev, bpftool, clang)
$(BUILD)/gen/%.bpf.o: bpf/%.bpf.c
	@mkdir -p $(BUILD)/gen
	clang -O2 -g -target bpf -I$(BPF_ARCH_INC) -c $< -o $@
$(BUILD)/gen/%.skel.h: $(BUILD)/gen/%.bpf.o
	bpftool gen skeleton $< name $* > $@.tmp && mv $@.tmp $@
$(BUILD)/lib/session/syscall_strings.o: $(BUILD)/gen/syscall_strings.skel.h
$(BUILD)/lib/sample/offcpu.o: $(BUILD)/gen/off_cpu.skel.h
$(BUILD)/lib/sample/lockcon.o: $(BUILD)/gen/lock_contention.skel.h
# tally_version() says the Makefile's VERSION
$(BUILD)/lib/util/core.o: Makefile

$(BUILD)/libtally.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libtally.so: $(LIB_OBJ) lib/libtally.map
	$(CC) -shared -Wl,-soname,libtally.so.$(SOVERSION) \
		-Wl,--version-script=lib/libtally.map $(LDSAN) -o $@.$(VERSION) $(LIB_OBJ) $(LDLIBS)
	ln -sf libtally.so.$(VERSION) $@.$(SOVERSION)
	ln -sf libtally.so.$(VERSION) $@

$(BUILD)/tally: $(CLI_OBJ) $(BUILD)/libtally.a
	$(CC) $(LDSAN) -o $@ $(CLI_OBJ) $(BUILD)/libtally.a $(TOOL_LDLIBS)

$(BUILD)/tally.pc: tally.pc.in Makefile
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' \
	    -e 's|@LIBS@|$(PKG_LIBS) -llzma -lz -lstdc++ -lm -lpthread|' $< > $@

# Test, example and bench programs link the static library: no LD_LIBRARY_PATH.
$(BUILD)/tests/%: tests/%.c $(BUILD)/libtally.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDSAN) -MMD -MP -MF $@.d -o $@ $< $(BUILD)/libtally.a $(CMOCKA_LIBS) $(LDLIBS)

# The command's unit tests link its objects (an archive: only what each
# test calls comes in), never include its sources.
CLI_LIB     := $(BUILD)/cli/libcli.a
$(CLI_LIB): $(filter-out $(BUILD)/cli/main.o,$(CLI_OBJ))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/tests/unit/cli/%: tests/unit/cli/%.c $(CLI_LIB) $(BUILD)/libtally.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDSAN) -MMD -MP -MF $@.d -o $@ $< $(CLI_LIB) $(BUILD)/libtally.a $(CMOCKA_LIBS) $(LDLIBS)

# Helpers are workloads for tests: no sanitizer, no library, fixed code.
$(BUILD)/helpers/%: tests/helpers/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O1 -g -fno-omit-frame-pointer -Wall -Wextra -no-pie -fno-pie -MMD -MP -MF $@.d -o $@ $< -lpthread

$(BUILD)/examples/%: examples/%.c $(BUILD)/libtally.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDSAN) -o $@ $< $(BUILD)/libtally.a $(LDLIBS)

$(BUILD)/bench/%: bench/%.c $(BUILD)/libtally.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDSAN) -o $@ $< $(BUILD)/libtally.a $(LDLIBS) $(shell pkg-config --libs papi 2>/dev/null)

tests: all $(UNIT_BIN) $(IT_BIN) $(HELPER_BIN) examples
# the builds that test, demo and bench start use every CPU unless make was given -j
JOBS := $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc))
# what the arm64 build runs under qemu: the unit tests (and the command)
arm64-tests: $(BUILD)/libtally.a $(BUILD)/tally $(UNIT_BIN)
# the unit tests of arm64's own code (selfmon's mrs and config1 bits, the
# mmap page, core PMUs and thresholds, the unwinder's registers, the
# syscall table): what make test runs under qemu, to keep it near its
# 8 minutes; make test ARCH=arm64 runs every unit test
ARM64_QUICK := sys/test_mrs sys/test_mmap_page count/test_selfmon_bits count/test_evlist_config \
	event/test_events event/test_syscalls symbol/test_unwind
arm64-quick: $(BUILD)/libtally.a $(addprefix $(BUILD)/tests/unit/,$(ARM64_QUICK))
examples: $(EX_BIN)

# deps: apt-get what is missing (as root), or print the line to run.
deps:
	@scripts/deps.sh
ifeq ($(ARCH),arm64)
	@scripts/deps-arm64.sh
endif

ifeq ($(ARCH),arm64)
test: deps
	@$(MAKE) --no-print-directory $(JOBS) ARCH=arm64 arm64-tests
	@BUILD=$(BUILD) scripts/test-arm64.sh
test-quick:
	@$(MAKE) --no-print-directory $(JOBS) ARCH=arm64 arm64-quick
	@BUILD=$(BUILD) ARM64_ONLY="$(ARM64_QUICK)" scripts/test-arm64.sh
else
ARM64_READY := command -v aarch64-linux-gnu-gcc >/dev/null && command -v qemu-aarch64 >/dev/null && \
	[ -f "$(or $(TALLY_ARM64_SYSROOT),$(HOME)/.cache/tally-arm64)/.packages" ]
# With the aarch64 cross compiler and its sysroot (make deps ARCH=arm64),
# arm64's own unit tests run first under qemu (ARM64_QUICK), then the
# suite, whose line "N passed, N failed" ends the output; either failing
# fails the target.
test: deps
	@$(MAKE) --no-print-directory $(JOBS) tests
	@rc=0; if [ -z "$(SAN)" ] && $(ARM64_READY); then \
		$(MAKE) --no-print-directory ARCH=arm64 test-quick || rc=1; fi; \
	BUILD=$(BUILD) SAN=$(SAN) tests/run.sh && exit $$rc
endif

# the demo needs no test readers (npm): Debian's packages only
demo:
	@scripts/deps.sh --no-readers
	@$(MAKE) --no-print-directory $(JOBS) all examples
	@BUILD=$(BUILD) demo/run.sh

bench: deps
	@$(MAKE) --no-print-directory $(JOBS) all $(BENCH_BIN)
	@BUILD=$(BUILD) bench/run.sh

fuzz: $(BUILD)/gen/profile.pb-c.c $(BUILD)/gen/syscall_strings.skel.h
	@$(MAKE) --no-print-directory -f fuzz/Makefile GEN=$(BUILD)/gen VERSION=$(VERSION)

install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/tally \
		$(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin \
		$(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man3 \
		$(DESTDIR)$(PREFIX)/share/doc/tally
	install -m 644 $(BUILD)/libtally.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(BUILD)/libtally.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libtally.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libtally.so.$(SOVERSION)
	ln -sf libtally.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libtally.so
	install -m 644 include/tally/*.h $(DESTDIR)$(PREFIX)/include/tally/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' \
	    -e 's|@LIBS@|$(PKG_LIBS) -llzma -lz -lstdc++ -lm -lpthread|' tally.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/tally.pc
	install -m 755 $(BUILD)/tally $(DESTDIR)$(PREFIX)/bin/
	install -m 644 docs/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 docs/man3/*.3 $(DESTDIR)$(PREFIX)/share/man/man3/
	install -m 644 docs/api.md $(DESTDIR)$(PREFIX)/share/doc/tally/

clean:
	rm -rf build build-san build-arm64

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
