# perfkit build: GNU make + pkg-config, objects out of tree under $(BUILD).
#
#   make            library, command, tests, workload
#   make demo       install missing packages, build, run perfkit stat, record and report on the bundled
#                   workload, perfkit gpu, and perfkit oa report on an OA recording
#   make check      install missing packages, build, run every test with prove
#   make bench      benchmarks against Linux perf (ratios, medians)
#   make fuzz       libFuzzer targets under build-fuzz/ (clang)
#   make SAN=1 ...  AddressSanitizer + UndefinedBehaviorSanitizer build in build-san/
#                   (baseline ISA only: no AVX2 clones, so tests run that code)
#   make SAN=thread test-threads
#                   ThreadSanitizer build in build-tsan/, and the tests of the code
#                   that runs on two threads (report pipeline, oa report)
#   make install PREFIX=/usr/local DESTDIR=
#                   also Intel's OA metric files (OA_METRICS, default ../shared/data/intel-oa)
#                   into PREFIX/share/perfkit/oa, where perfkit oa looks by default

ifeq ($(SAN),1)
BUILD ?= build-san
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
	    -DPK_NO_TARGET_CLONES
else ifeq ($(SAN),thread)
# (-Wno-tsan: TSan cannot see the fences of the perf mmap ring, which only the counter tests use)
BUILD ?= build-tsan
SANFLAGS := -fsanitize=thread -Wno-tsan -DPK_NO_TARGET_CLONES
else
BUILD ?= build
SANFLAGS :=
endif

CC ?= cc
PREFIX ?= /usr/local
OA_METRICS ?= ../shared/data/intel-oa
# the OA recording make demo reports on (a synthetic Tiger Lake one in IGT's format)
OA_DEMO := ../shared/data/i915-perf/tgl_renderbasic
PKG_CONFIG ?= pkg-config
PKGS := json-c libelf libdw libzstd libtraceevent zlib ncursesw libpci libxml-2.0

PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
# libxml2 is not linked: lib/oa/xml_lib.c opens it when a metric file is first
# read (it brings ICU and libstdc++, about 1 ms of every command's start), by
# the soname of the library its headers belong to.
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(filter-out libxml-2.0,$(PKGS)) 2>/dev/null)
LIBXML2_SONAME := $(shell objdump -p "$$($(PKG_CONFIG) --variable=libdir libxml-2.0 2>/dev/null)/libxml2.so" \
	2>/dev/null | awk '$$1 == "SONAME" { print $$2 }')
ifneq ($(LIBXML2_SONAME),)
PKG_CFLAGS += -DPK_LIBXML2_SONAME='"$(LIBXML2_SONAME)"'
endif

WARN := -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter -Wstrict-prototypes
CFLAGS ?= -O2 -g
ALL_CFLAGS := -std=gnu11 -D_GNU_SOURCE $(WARN) $(CFLAGS) $(SANFLAGS) -fPIC -fvisibility=hidden \
	-Iinclude -Ilib $(PKG_CFLAGS) -MMD -MP
ALL_LDFLAGS := $(LDFLAGS) $(SANFLAGS)
LIBS := $(PKG_LIBS) -liberty -lm

LIB_SRCS := $(sort $(wildcard lib/*/*.c))
CLI_SRCS := $(sort $(wildcard cli/*.c))
UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
BENCH_SRCS := $(sort $(wildcard bench/*.c))
FUZZ_SRCS := $(sort $(wildcard fuzz/fuzz_*.c))

LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/%.o)
UNIT_BINS := $(UNIT_SRCS:%.c=$(BUILD)/%)
BENCH_BINS := $(BENCH_SRCS:%.c=$(BUILD)/%)
WORKLOAD := $(BUILD)/tests/pk-workload
FAKE_PMU := $(BUILD)/tests/pk-fake-pmu.so
FAIL_ALLOC := $(BUILD)/tests/pk-fail-alloc.so
SLOW_OPEN := $(BUILD)/tests/pk-slow-open.so
FAKE_I915 := $(BUILD)/tests/pk-fake-i915.so

STATIC_LIB := $(BUILD)/libperfkit.a
SHARED_LIB := $(BUILD)/libperfkit.so
PERFKIT := $(BUILD)/perfkit

.PHONY: all deps demo check test test-threads bench fuzz fuzz-run install clean
.DELETE_ON_ERROR:
.SECONDARY:

all: $(PERFKIT) $(SHARED_LIB) $(UNIT_BINS) $(WORKLOAD) $(FAKE_PMU) $(FAIL_ALLOC) $(SLOW_OPEN) $(FAKE_I915)

deps:
	@scripts/install-deps

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(STATIC_LIB): $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(SHARED_LIB): $(LIB_OBJS)
	$(CC) -shared $(ALL_LDFLAGS) -Wl,-soname,libperfkit.so.0 -o $@ $^ $(LIBS)

$(PERFKIT): $(CLI_OBJS) $(STATIC_LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $(CLI_OBJS) $(STATIC_LIB) $(LIBS)

$(BUILD)/tests/unit/%: $(BUILD)/tests/unit/%.o $(STATIC_LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(STATIC_LIB) $(LIBS)

$(BUILD)/bench/%: $(BUILD)/bench/%.o $(STATIC_LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(STATIC_LIB) $(LIBS)

# (not under SAN=thread: TSan's calls through the PLT would be sampled, and perf 6.1
# names those addresses of an unstripped binary _init+N where perfkit says name@plt)
$(WORKLOAD): tests/workload/pk-workload.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) -O1 -g $(if $(filter thread,$(SAN)),,$(SANFLAGS)) -pthread -o $@ $<

# (never sanitized: it is preloaded into perf as well as into perfkit)
$(FAKE_PMU): tests/workload/pk-fake-pmu.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) -O1 -g -shared -fPIC -o $@ $< -ldl

# (never sanitized: it stands in front of libc's allocator, which a sanitizer replaces)
$(FAIL_ALLOC): tests/workload/pk-fail-alloc.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) -O1 -g -fno-builtin -shared -fPIC -o $@ $< -ldl

# (never sanitized: it stands in front of libc's open)
$(SLOW_OPEN): tests/workload/pk-slow-open.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) -O1 -g -shared -fPIC -o $@ $< -ldl

# (never sanitized: it stands in front of libc's ioctl, read, poll and close)
$(FAKE_I915): tests/workload/pk-fake-i915.c tests/fake_oa_report.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) -O1 -g -shared -fPIC $(PKG_CFLAGS) -o $@ $< -ldl

# Tests: C unit tests and shell tests for the command, run by prove (TAP),
# two files at a time: the tests spend most of their time starting processes
# (perf, perfkit, the workload), and the timing-dependent ones were made to
# pass with busy loops beside them. The longest files go first, so that the
# two jobs end together (fail_alloc.sh is a third of make check's work).
PROVE_JOBS ?= 2
SLOW_TESTS := tests/cli/fail_alloc.sh tests/cli/report.sh tests/cli/perfdata_corrupt.sh
# top.sh runs alone afterwards: it compares perfkit top's sample rate on a -p
# target with perf record's, and that rate is the target's share of the CPUs.
# Another test beside it changes that share from one second to the next, and
# top's refreshes and perf's seconds are apart by top's start-up (refresh 2
# showed 1,324/s against perf's 1,674/s at 4cd95b0).
SERIAL_TESTS := tests/cli/top.sh
CLI_TESTS := $(SLOW_TESTS) $(filter-out $(SLOW_TESTS) $(SERIAL_TESTS),$(sort $(wildcard tests/cli/*.sh)))
TEST_ENV = PERFKIT=$(abspath $(PERFKIT)) PK_WORKLOAD=$(abspath $(WORKLOAD)) \
	PK_FAKE_PMU=$(abspath $(FAKE_PMU)) PK_FAIL_ALLOC_SO=$(abspath $(FAIL_ALLOC)) \
	PK_SLOW_OPEN_SO=$(abspath $(SLOW_OPEN)) PK_FAKE_I915_SO=$(abspath $(FAKE_I915)) PK_BUILD=$(abspath $(BUILD)) PK_SHARED=$(abspath ../shared)
test: all
	$(TEST_ENV) prove -j$(PROVE_JOBS) --timer -f $(CLI_TESTS) $(UNIT_BINS)
	$(TEST_ENV) prove --timer -f $(SERIAL_TESTS)

# The code that runs on two threads, under ThreadSanitizer (make SAN=thread test-threads).
THREAD_TESTS := $(BUILD)/tests/unit/test_report_pipeline $(BUILD)/tests/unit/test_oa_report \
	$(BUILD)/tests/unit/test_oa_follow
test-threads: $(PERFKIT) $(THREAD_TESTS) $(WORKLOAD)
	$(TEST_ENV) PK_THREAD_TESTS=1 prove -j$(PROVE_JOBS) --timer -f tests/cli/report.sh tests/cli/oa.sh $(THREAD_TESTS)

check: deps
	@$(MAKE) --no-print-directory test

demo: deps
	@$(MAKE) --no-print-directory all
	@echo '$$ $(PERFKIT) stat -- $(WORKLOAD) --writes 20000 --pages 4096 --spin-ms 200'
	@$(PERFKIT) stat -- $(WORKLOAD) --writes 20000 --pages 4096 --spin-ms 200
	@echo
	@echo '$$ $(PERFKIT) record -F 4999 -g -o $(BUILD)/demo.data -- $(WORKLOAD) --spin-ms 300 --threads 2'
	@$(PERFKIT) record -F 4999 -g -o $(BUILD)/demo.data -- $(WORKLOAD) --spin-ms 300 --threads 2 \
		|| { echo "(perfkit record failed: no perf.data to report)"; exit 0; }
	@echo '$$ $(PERFKIT) report --stdio --no-children -g none -i $(BUILD)/demo.data'
	@$(PERFKIT) report --stdio --no-children -g none -i $(BUILD)/demo.data | head -n 25
	@echo '$$ $(PERFKIT) report --format folded -i $(BUILD)/demo.data | sort -k2 -nr | head -n 5'
	@$(PERFKIT) report --format folded -i $(BUILD)/demo.data | sort -t' ' -k2 -nr | head -n 5
	@echo
	@echo '$$ $(PERFKIT) gpu -n 1 --stdio'
	@$(PERFKIT) gpu -n 1 --stdio || echo "(perfkit gpu failed: no GPU snapshot)"
	@echo
	@if [ -f $(OA_DEMO).i915perf ] && [ -d $(OA_METRICS) ]; then \
		echo '$$ $(PERFKIT) oa report $(OA_DEMO).i915perf --metrics-dir $(OA_METRICS) -c GpuTime,GpuBusy,AvgGpuCoreFrequency'; \
		$(PERFKIT) oa report $(OA_DEMO).i915perf --metrics-dir $(OA_METRICS) -c GpuTime,GpuBusy,AvgGpuCoreFrequency | head -n 24; \
	else echo "(no i915 OA recording in $(dir $(OA_DEMO)): oa report not shown)"; fi

bench: deps
	@$(MAKE) --no-print-directory all $(BENCH_BINS)
	@for b in bench/*.sh; do PERFKIT=$(abspath $(PERFKIT)) PK_BUILD=$(abspath $(BUILD)) bash $$b || exit 1; done

# libFuzzer targets: the library is compiled once by clang with ASan+UBSan and
# fuzzer coverage (build-fuzz/libperfkit-fuzz.a), then linked into each target.
# Undefined behaviour stops the run like a crash (no recovery), so that the
# fuzzer saves the input and fuzz-run fails. Leaks inside the libraries on
# malformed input are suppressed (fuzz/lsan.supp), perfkit's are not.
FUZZ_BUILD := build-fuzz
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=gnu11 -D_GNU_SOURCE -O1 -g $(FUZZ_SAN) -Iinclude -Ilib $(PKG_CFLAGS)
FUZZ_LIB_OBJS := $(LIB_SRCS:%.c=$(FUZZ_BUILD)/%.o)
FUZZ_LIB := $(FUZZ_BUILD)/libperfkit-fuzz.a
FUZZ_BINS := $(FUZZ_SRCS:fuzz/%.c=$(FUZZ_BUILD)/%)
FUZZ_SECONDS ?= 20

fuzz: $(FUZZ_BINS)

$(FUZZ_BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(FUZZ_LIB): $(FUZZ_LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(FUZZ_BUILD)/fuzz_%: fuzz/fuzz_%.c $(FUZZ_LIB)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB) $(LIBS)

# One run per target, as many at once as make's -j allows (each uses one core).
FUZZ_RUNS := $(FUZZ_BINS:$(FUZZ_BUILD)/fuzz_%=fuzz-run-%)
.PHONY: $(FUZZ_RUNS)
fuzz-run: $(FUZZ_RUNS)

$(FUZZ_RUNS): fuzz-run-%: $(FUZZ_BUILD)/fuzz_%
	@mkdir -p $(FUZZ_BUILD)/corpus/$*; \
	LSAN_OPTIONS=suppressions=$(abspath fuzz/lsan.supp) \
	$< -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=1024 \
		-print_final_stats=1 $(FUZZ_BUILD)/corpus/$* fuzz/corpus/$* \
		2>$(FUZZ_BUILD)/$*.log || { echo "fuzz: $* FAILED"; tail -50 $(FUZZ_BUILD)/$*.log; exit 1; }; \
	echo "fuzz: $* for $(FUZZ_SECONDS)s:" \
		$$(grep -E 'stat::number_of_executed_units|Done' $(FUZZ_BUILD)/$*.log | tail -2)

install: $(PERFKIT) $(SHARED_LIB) $(STATIC_LIB)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/perfkit
	install -m 755 $(PERFKIT) $(DESTDIR)$(PREFIX)/bin/perfkit
	install -m 644 $(STATIC_LIB) $(DESTDIR)$(PREFIX)/lib/libperfkit.a
	install -m 755 $(SHARED_LIB) $(DESTDIR)$(PREFIX)/lib/libperfkit.so.0
	ln -sf libperfkit.so.0 $(DESTDIR)$(PREFIX)/lib/libperfkit.so
	install -m 644 include/perfkit/*.h $(DESTDIR)$(PREFIX)/include/perfkit/
	@if ls $(OA_METRICS)/oa-*.xml >/dev/null 2>&1; then \
		install -d $(DESTDIR)$(PREFIX)/share/perfkit/oa && \
		install -m 644 $(OA_METRICS)/oa-*.xml $(DESTDIR)$(PREFIX)/share/perfkit/oa/ && \
		echo "installed $$(ls $(OA_METRICS)/oa-*.xml | wc -l) OA metric files in $(PREFIX)/share/perfkit/oa"; \
	else \
		echo "no OA metric files (oa-*.xml) in $(OA_METRICS): perfkit oa report will need --metrics"; \
	fi

clean:
	rm -rf build build-san build-tsan build-fuzz

-include $(LIB_OBJS:.o=.d) $(CLI_OBJS:.o=.d) $(UNIT_BINS:=.d) $(FUZZ_LIB_OBJS:.o=.d)
