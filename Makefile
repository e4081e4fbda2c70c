# faultline: plain make, dependencies from pkg-config (libpfm4 has no .pc
# file on Debian: -lpfm).
#
#   make              build ./faultline (installs missing Debian packages as root)
#   make demo         build, record the bundled demo, print what it found
#   make check        build and run every test, then again under ASan+UBSan
#   make check-fast   the tests once, without the sanitizer pass
#   make fuzz         run the libFuzzer targets (FUZZ_SECONDS each)
#   make bench        the benchmarks in bench/ (needs linux-perf)
#   make install PREFIX=/usr/local

PREFIX ?= /usr/local
CC ?= cc
CFLAGS ?= -O2 -g
SAN ?=
FUZZ_SECONDS ?= 60

ifeq ($(SAN),1)
BUILD ?= build/san
SANFLAGS = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
else
BUILD ?= build/release
SANFLAGS =
endif

PKGS = libelf libdw sqlite3 libtraceevent libtracefs
WARN = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
       -Wno-missing-field-initializers
ALL_CFLAGS = -std=gnu11 $(WARN) $(CFLAGS) $(SANFLAGS) -D_GNU_SOURCE \
	     $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpfm
LDFLAGS += $(SANFLAGS)

COMMON_SRC = common/errmsg.c
DECODER_SRC = decoder/perf_record.c decoder/event.c decoder/idmap.c decoder/timeline.c \
	      decoder/order.c decoder/hist.c decoder/fault_pair.c \
	      decoder/thread_table.c decoder/fault_stream.c decoder/tracepoint.c \
	      decoder/text_fields.c decoder/addr_syms.c decoder/kallsyms.c \
	      decoder/perf_map.c decoder/addr_space.c decoder/elf_files.c decoder/symbolize.c \
	      decoder/metric_parse.c decoder/metric_parse_field.c \
	      decoder/metric_parse_split.c
COLLECTOR_SRC = collector/ring.c collector/procfs.c collector/targets.c collector/tracepoints.c \
		collector/event_resolve.c collector/perf_open.c \
		collector/fault_events.c collector/recorder.c collector/symbol_sources.c \
		collector/udp_sampler.c
SCHEMA_SRC = schema/db.c schema/loader.c schema/symbol_store.c schema/query_def.c \
	     schema/metric_store.c
CLI_SRC = cli/faultline.c cli/usage.c cli/opt.c cli/version.c \
	  cli/record.c cli/record_pipeline.c cli/record_summary.c cli/record_udp.c \
	  cli/query.c cli/query_run.c cli/table_out.c cli/report.c \
	  cli/session_pick.c cli/symbolize.c cli/stacks.c cli/fmt_dur.c \
	  cli/import.c
# record --stacks
DECODER_SRC += decoder/stack_table.c decoder/callchain.c decoder/unwind.c \
	       decoder/held_records.c
COLLECTOR_SRC += collector/stack_events.c
CLI_SRC += cli/record_stacks.c

GEN_SRC = $(BUILD)/gen/schema_sql.c $(BUILD)/gen/indexes_sql.c $(BUILD)/gen/queries_sql.c
QUERIES = $(sort $(wildcard queries/*.sql))

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
DECODER_OBJ = $(call obj,$(COMMON_SRC) $(DECODER_SRC))
COLLECTOR_OBJ = $(call obj,$(COLLECTOR_SRC))
SCHEMA_OBJ = $(call obj,$(SCHEMA_SRC)) $(GEN_SRC:.c=.o)
CLI_OBJ = $(call obj,$(filter-out cli/faultline.c,$(CLI_SRC)))
MAIN_OBJ = $(call obj,cli/faultline.c)
LIB_OBJ = $(DECODER_OBJ) $(COLLECTOR_OBJ) $(SCHEMA_OBJ) $(CLI_OBJ)

FAULTLINE = $(BUILD)/faultline

.PHONY: all deps deps-check deps-demo deps-bench demo check check-fast unwind-fixture \
	check-san fuzz bench install clean

all: deps $(FAULTLINE)
	@ln -sf $(FAULTLINE) faultline

deps:
	@mk/deps.sh build
deps-check:
	@mk/deps.sh check
deps-demo:
	@mk/deps.sh demo
deps-bench:
	@mk/deps.sh bench

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/gen/schema_sql.c: schema/schema.sql mk/embed.sh
	@mkdir -p $(dir $@)
	mk/embed.sh schema_sql $< > $@
$(BUILD)/gen/indexes_sql.c: schema/indexes.sql mk/embed.sh
	@mkdir -p $(dir $@)
	mk/embed.sh indexes_sql $< > $@
$(BUILD)/gen/queries_sql.c: $(QUERIES) mk/embed_queries.sh
	@mkdir -p $(dir $@)
	mk/embed_queries.sh $(QUERIES) > $@
$(BUILD)/gen/queries_sql.o: $(BUILD)/gen/queries_sql.c schema/query_def.h
	$(CC) $(ALL_CFLAGS) -I. -c -o $@ $<
$(BUILD)/gen/%.o: $(BUILD)/gen/%.c
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(FAULTLINE): $(MAIN_OBJ) $(LIB_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

# ---- tests ---------------------------------------------------------------

UNIT_TESTS = test_perf_record test_order test_fault_pair test_fault_stream test_timeline \
	     test_ring test_opt test_hist test_symbolize test_unwind test_metric_parse
UNIT_BIN = $(addprefix $(BUILD)/tests/,$(UNIT_TESTS))
INTEGRATION_BIN = $(BUILD)/tests/test_record $(BUILD)/tests/test_thread_state \
		  $(BUILD)/tests/test_tracepoints $(BUILD)/tests/test_udp_sampler \
		  $(BUILD)/tests/test_stacks $(BUILD)/tests/test_demo
WORKLOAD_BIN = $(BUILD)/tests/fault_workload $(BUILD)/tests/sched_workload \
	       $(BUILD)/tests/udp_workload
DEMO_BIN = $(BUILD)/demo/nak_demo
FUZZ_TARGETS = fuzz_perf_record fuzz_fault_stream fuzz_import fuzz_symbol_maps
# record --stacks
WORKLOAD_BIN += $(STACK_WORKLOAD_BIN)
FUZZ_TARGETS += fuzz_unwind
STACK_WORKLOAD_BIN = $(BUILD)/tests/stack_workload_fp $(BUILD)/tests/stack_workload_nofp
FUZZ_REPLAY_BIN = $(addprefix $(BUILD)/tests/replay_,$(FUZZ_TARGETS))
TEST_BIN = $(UNIT_BIN) $(INTEGRATION_BIN) $(BUILD)/tests/test_messages \
	   $(BUILD)/tests/test_query \
	   $(BUILD)/tests/test_import \
	   $(FUZZ_REPLAY_BIN) tests/man_vs_help.sh

# A cmocka test: its source (the first prerequisite) and the library.
define link_test
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB_OBJ) $(LDFLAGS) $(LIBS) -lcmocka
endef

$(BUILD)/tests/test_%: tests/unit/test_%.c tests/unit/records.h $(LIB_OBJ)
	$(link_test)

# The symbolizer's fixture library, -g, and the copies its tests need:
# stripped (.dynsym only); split, with the debug file found by build id
# under symfix/debugroot; split with a .gnu_debuglink to a file beside it
# (symfix/linked).
SYMFIX = $(BUILD)/tests/symfix
SYMFIX_FILES = $(SYMFIX)/libsymfix.so $(SYMFIX)/libsymfix_stripped.so \
	       $(SYMFIX)/libsymfix_bid.so $(SYMFIX)/linked/libsymfix_link.so
$(BUILD)/tests/test_symbolize: $(SYMFIX_FILES) tests/integration/run.h

$(SYMFIX)/libsymfix.so: tests/fixtures/symbolize/symfix.c
	@mkdir -p $(dir $@)
	$(CC) -g -O1 -fPIC -shared -fno-optimize-sibling-calls -Wl,--build-id=sha1 -o $@ $<
$(SYMFIX)/libsymfix_stripped.so: $(SYMFIX)/libsymfix.so
	strip --strip-all -o $@ $<
$(SYMFIX)/libsymfix_bid.so: $(SYMFIX)/libsymfix.so
	objcopy --only-keep-debug $< $(SYMFIX)/libsymfix.debug
	id=$$(readelf -n $< | sed -n 's/.*Build ID: *//p'); \
	d=$(SYMFIX)/debugroot/.build-id/$$(echo $$id | cut -c1-2); \
	mkdir -p $$d && cp $(SYMFIX)/libsymfix.debug $$d/$$(echo $$id | cut -c3-).debug
	strip --strip-all -o $@ $<
$(SYMFIX)/linked/libsymfix_link.so: $(SYMFIX)/libsymfix_bid.so
	@mkdir -p $(dir $@)
	cp $(SYMFIX)/libsymfix.debug $(SYMFIX)/linked/libsymfix_link.debug
	objcopy --add-gnu-debuglink=$(SYMFIX)/linked/libsymfix_link.debug $< $@

$(INTEGRATION_BIN): $(BUILD)/tests/test_%: tests/integration/test_%.c \
		tests/integration/run.h tests/integration/elf_syms.h $(LIB_OBJ)
	$(link_test)

$(BUILD)/tests/test_messages: tests/cli/test_messages.c tests/integration/run.h $(LIB_OBJ)
	$(link_test)

$(BUILD)/tests/test_query: tests/cli/test_query.c tests/integration/run.h $(LIB_OBJ)
	$(link_test)

$(BUILD)/tests/test_import: tests/cli/test_import.c tests/integration/run.h $(LIB_OBJ)
	$(link_test)

$(BUILD)/tests/%_workload: tests/integration/%_workload.c tests/integration/dropped_page.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LDFLAGS) -pthread

# The stack workloads are built with fixed flags (no sanitizer, build
# paths mapped away), so both builds produce the binary that
# tests/unit/fixtures/unwind_*.txt were recorded from.
STACK_WL_FLAGS = -g -Wall -ffile-prefix-map=$(CURDIR)=. \
		 -L$(BUILD)/tests -lstacklazy -Wl,-z,lazy -Wl,-rpath,'$$ORIGIN'
$(BUILD)/tests/libstacklazy.so: tests/integration/stack_lazy_lib.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -fPIC -shared -ffile-prefix-map=$(CURDIR)=. -o $@ $<
$(BUILD)/tests/stack_workload_fp: tests/integration/stack_workload.c \
		tests/integration/dropped_page.h $(BUILD)/tests/libstacklazy.so
	$(CC) -O1 -fno-omit-frame-pointer -o $@ $< $(STACK_WL_FLAGS)
$(BUILD)/tests/stack_workload_nofp: tests/integration/stack_workload.c \
		tests/integration/dropped_page.h $(BUILD)/tests/libstacklazy.so
	$(CC) -O2 -fomit-frame-pointer -o $@ $< $(STACK_WL_FLAGS)
$(BUILD)/demo/%: demo/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LDFLAGS) -pthread

# tests/unit/test_unwind replays a sample the workload recorded of its own
# major fault; after a change to stack_workload.c or its flags, rerun this
# (the test says so when the binary's build id no longer matches).
UNWIND_FIXTURE = tests/unit/fixtures/unwind_nofp.txt
unwind-fixture: $(BUILD)/tests/stack_workload_nofp
	$(BUILD)/tests/stack_workload_nofp --major-file build/unwind-fixture.dat \
		--capture $(UNWIND_FIXTURE)
	readelf -n $< | sed -n 's/.*Build ID: /build_id=/p' >> $(UNWIND_FIXTURE)
	rm -f build/unwind-fixture.dat
$(BUILD)/tests/test_unwind: $(BUILD)/tests/stack_workload_nofp $(UNWIND_FIXTURE)
$(BUILD)/tests/replay_fuzz_unwind: | $(BUILD)/tests/stack_workload_nofp

$(BUILD)/tests/replay_%: tests/fuzz/%.c tests/fuzz/replay_main.c $(DECODER_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDFLAGS) $(LIBS)

check-fast: deps-check $(FAULTLINE) $(TEST_BIN) $(WORKLOAD_BIN) $(DEMO_BIN)
	@FAULTLINE=$(FAULTLINE) WORKLOAD=$(BUILD)/tests/fault_workload \
		SCHED_WORKLOAD=$(BUILD)/tests/sched_workload \
		UDP_WORKLOAD=$(BUILD)/tests/udp_workload BUILD=$(BUILD) \
		NAK_DEMO=$(DEMO_BIN) \
		tests/run.sh $(TEST_BIN)

check-san: deps-check
	@$(MAKE) --no-print-directory SAN=1 check-fast

check: check-fast
	@$(MAKE) --no-print-directory check-san

# libFuzzer (clang): crashes land in tests/fuzz/crashes/<target>/, which
# the replay binaries run on every make check.  New inputs go to a scratch
# corpus in build/fuzz; the committed seeds are read, never written.
fuzz: deps-check
	for t in $(FUZZ_TARGETS); do \
		mkdir -p build/fuzz/corpus/$$t tests/fuzz/crashes/$$t && \
		clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE \
			$(shell pkg-config --cflags libtraceevent libdw libelf) \
			-o build/fuzz/$$t tests/fuzz/$$t.c $(COMMON_SRC) $(DECODER_SRC) \
			$(shell pkg-config --libs libtraceevent libdw libelf) && \
		build/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) \
			-artifact_prefix=tests/fuzz/crashes/$$t/ \
			build/fuzz/corpus/$$t tests/fuzz/corpus/$$t || exit 1; \
	done

# ---- demo, bench, install ------------------------------------------------

demo: deps-demo $(FAULTLINE) $(DEMO_BIN)
	@FAULTLINE=$(FAULTLINE) NAK_DEMO=$(DEMO_BIN) demo/run.sh

bench: deps-bench $(FAULTLINE) $(BUILD)/bench/fault_loop $(BUILD)/bench/loader_rate \
		$(BUILD)/bench/import_rate_parse \
		$(BUILD)/bench/symbolize_rate \
		$(BUILD)/bench/pingpong $(BUILD)/bench/wake_loop $(BUILD)/tests/udp_workload
	$(BUILD)/bench/loader_rate
	FAULTLINE=$(FAULTLINE) LOOP=$(BUILD)/bench/fault_loop RATE=$(BUILD)/bench/symbolize_rate \
		bench/schema/symbolize_rate.sh
	FAULTLINE=$(FAULTLINE) LOOP=$(BUILD)/bench/fault_loop bench/collector/record_overhead.sh
	FAULTLINE=$(FAULTLINE) LOOP=$(BUILD)/bench/fault_loop bench/collector/stack_overhead.sh
	FAULTLINE=$(FAULTLINE) PINGPONG=$(BUILD)/bench/pingpong bench/collector/switch_overhead.sh
	FAULTLINE=$(FAULTLINE) BUILD=$(BUILD) bench/queries/stalls_near.sh
	FAULTLINE=$(FAULTLINE) PARSE=$(BUILD)/bench/import_rate_parse \
		bench/schema/import_rate.sh
	FAULTLINE=$(FAULTLINE) UDP_WORKLOAD=$(BUILD)/tests/udp_workload \
		WAKE_LOOP=$(BUILD)/bench/wake_loop bench/collector/udp_sampling.sh

$(BUILD)/bench/import_rate_parse: bench/schema/import_rate_parse.c $(DECODER_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDFLAGS) $(LIBS)

$(BUILD)/bench/pingpong: bench/collector/pingpong.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -o $@ $< -pthread

$(BUILD)/bench/wake_loop: bench/collector/wake_loop.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -o $@ $<

$(BUILD)/bench/fault_loop: bench/collector/fault_loop.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -o $@ $<

$(BUILD)/bench/symbolize_rate: bench/schema/symbolize_rate.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB_OBJ) $(LDFLAGS) $(LIBS)

$(BUILD)/bench/loader_rate: bench/schema/loader_rate.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB_OBJ) $(LDFLAGS) $(LIBS)

install: all
	install -D -m 755 $(FAULTLINE) $(DESTDIR)$(PREFIX)/bin/faultline
	for m in man/*.1; do \
		install -D -m 644 $$m $(DESTDIR)$(PREFIX)/share/man/man1/$${m#man/} || exit 1; \
	done
	install -D -m 644 man/faultline-schema.5 $(DESTDIR)$(PREFIX)/share/man/man5/faultline-schema.5

clean:
	rm -rf build faultline

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
