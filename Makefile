# faultline: plain make, dependencies from pkg-config (libpfm4 has no .pc
# file on Debian: -lpfm).
#
#   make              build ./faultline (installs missing Debian packages as root)
#   make demo         build, record the bundled demo, print what it found
#   make check        build and run every test, then again under ASan+UBSan
#   make check-fast   the tests once, without the sanitizer pass
#   make check-stress the tests once, beside two CPU hogs
#   make soak         record a faulting, switching workload for SOAK_MINUTES (30)
#   make fuzz         run the libFuzzer targets (FUZZ_SECONDS each)
#   make bench        the benchmarks in bench/ (needs linux-perf)
#   make install PREFIX=/usr/local
#   make deb          build/deb/faultline_VERSION_ARCH.deb (apt install ./faultline_*.deb)

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
# libipt (Intel PT decoding) has no .pc file on Debian either: -lipt;
# nor libiberty (demangling), a static library: -liberty.
LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpfm -lipt -liberty -lm
LDFLAGS += $(SANFLAGS)

COMMON_SRC = common/errmsg.c common/clock.c common/cpulist.c common/array.c common/strbuf.c \
	     common/json.c common/utf8.c common/file.c common/sha256.c common/out_file.c
# files at paths another user may plant (perf maps, mapped files, debug files)
COMMON_SRC += common/outside_file.c
# the FIFO a recorder reads commands and metric lines from
COMMON_SRC += common/command_fifo.c
# outside text shown on a terminal, escaped
COMMON_SRC += common/term_text.c
# text inside XML or HTML (the SVG picture, the runs page), escaped
COMMON_SRC += common/markup.c
# a duration for people ("4.9 ms"), the one way
COMMON_SRC += common/fmt_dur.c
# one CSV field writer, formulas neutralised (query -f csv, export csv)
COMMON_SRC += common/csv.c
# C++ and Rust names demangled when printed (libiberty, static)
COMMON_SRC += common/demangle.c
# "did you mean": commands, options, tracepoints, queries
COMMON_SRC += common/edit_distance.c
# a process told from a later one with its pid (a killed recorder's session)
COMMON_SRC += common/proc_ident.c
# the one label model: its rule, its parser, its JSON encoding
COMMON_SRC += common/labels.c
DECODER_SRC = decoder/clock_map.c decoder/comm_cache.c decoder/perf_record.c decoder/event.c \
	      decoder/idmap.c decoder/sample_owner.c decoder/timeline.c \
	      decoder/order.c decoder/hist.c decoder/fault_pair.c \
	      decoder/thread_table.c decoder/fault_stream.c decoder/tracepoint.c \
	      decoder/text_fields.c decoder/addr_syms.c decoder/kallsyms.c \
	      decoder/perf_map.c decoder/addr_space.c decoder/elf_files.c decoder/symbolize.c \
	      decoder/metric_parse.c decoder/metric_parse_field.c \
	      decoder/metric_parse_split.c decoder/metric_parse_cols.c
COLLECTOR_SRC = collector/ring.c collector/spool.c collector/spill_file.c collector/drain.c collector/procfs.c \
		collector/targets.c collector/tracepoints.c \
		collector/event_resolve.c collector/perf_open.c \
		collector/fault_events.c collector/event_set.c collector/recorder.c \
		collector/symbol_sources.c \
		collector/udp_sampler.c collector/waking_filter.c collector/event_close.c
# is there memory for the spool and the rings, before they are made
COLLECTOR_SRC += collector/mem_room.c
# The record engine: ring records to rows (record/session.h).
RECORD_SRC = record/session.c record/options_json.c record/pipeline.c record/clock.c \
	     record/udp.c record/thread_names.c
SCHEMA_SRC = schema/db.c schema/checkpointer.c schema/upgrade.c schema/loader.c \
	     schema/row_batch.c schema/symbol_store.c schema/query_def.c schema/metric_store.c
# one SQLite value as CSV or JSON, one set of rules (query, report, export
# csv); beside the schema, not in COMMON_SRC: it needs libsqlite3, which
# the fuzz targets do not link
SCHEMA_SRC += common/sql_value.c
CLI_SRC = cli/faultline.c cli/usage.c cli/opt.c cli/version.c \
	  cli/record.c cli/record_summary.c \
	  cli/query.c cli/query_run.c cli/table_out.c cli/report.c \
	  cli/session_pick.c cli/symbolize.c cli/stacks.c cli/stacks_out.c cli/reader.c \
	  cli/import.c cli/import_check.c
# Readers of a finished database: exports (export/) and the timeline plot
# (plot/).  They read through SQL only.
EXPORT_SRC = export/session_info.c export/stack_text.c export/stack_frames.c export/chrome_trace.c \
	     export/csv.c
PLOT_SRC = plot/reduce.c plot/source.c plot/cpus.c plot/lost.c plot/html.c plot/svg.c \
	   plot/plot.c plot/when.c
PLOT_GEN_SRC = $(BUILD)/gen/plot_page_js.c $(BUILD)/gen/plot_page_css.c
CLI_SRC += cli/export.c cli/plot.c
# record --stacks
DECODER_SRC += decoder/stack_table.c decoder/callchain.c decoder/unwind.c \
	       decoder/held_records.c
# the page cache of the files read for stacks, put back as it was
DECODER_SRC += decoder/page_cache.c decoder/unwind_files.c decoder/debug_paths.c
COLLECTOR_SRC += collector/stack_events.c
RECORD_SRC += record/stacks.c record/symbolize.c
# record --udp-port: the /proc/net parsers, sock_diag, the sampling thread
DECODER_SRC += decoder/proc_net_udp.c
COLLECTOR_SRC += collector/sock_diag.c collector/sampler_thread.c
# symbolization, one path for symbolize and record --stacks
DECODER_SRC += decoder/symbolize_job.c
# record --pt, faultline pt
DECODER_SRC += decoder/pt_time.c decoder/pt_image.c decoder/pt_flow.c \
	       decoder/pt_sideband.c
COLLECTOR_SRC += collector/pt_pmu.c collector/pt_config.c collector/pt_aux.c \
		 collector/pt_clock.c collector/pt_record.c collector/pt_drain.c
SCHEMA_SRC += schema/pt_store.c schema/pt_replay.c schema/pt_names.c
RECORD_SRC += record/pt.c
CLI_SRC += cli/record_pt.c cli/pt.c
# what ran on a CPU while a target waited for it
DECODER_SRC += decoder/cpu_runs.c
COLLECTOR_SRC += collector/cpu_switches.c
# record --syscalls: the calls of this architecture (generated), the set
# asked for, the raw_syscalls events
COLLECTOR_SRC += collector/syscall_table.c collector/syscall_set.c \
		 collector/syscall_events.c
DECODER_SRC += decoder/syscall_pair.c decoder/syscall_ev.c decoder/proc_net_sock.c
COLLECTOR_SRC += collector/fd_names.c
RECORD_SRC += record/syscalls.c record/syscall_files.c
COLLECTOR_GEN_SRC = $(BUILD)/gen/syscall_table.c
# record --latency START/END[:FIELD]: the pairing, the events, the rows
DECODER_SRC += decoder/latency_pair.c
COLLECTOR_SRC += collector/latency_events.c
RECORD_SRC += record/latency.c
# record --block-io: block requests read through a tracefs instance
DECODER_SRC += decoder/block_rq.c
COLLECTOR_SRC += collector/block_trace.c
RECORD_SRC += record/block_io.c
# faultline upgrade (schema/upgrade.c)
CLI_SRC += cli/upgrade.c
# faultline label, faultline merge
SCHEMA_SRC += schema/merge.c
CLI_SRC += cli/label.c cli/merge.c
# faultline diagnose: the engine and its patterns (diagnose/), the PLT
# reader that names a lazily bound function
DIAGNOSE_SRC = diagnose/engine.c diagnose/group.c diagnose/describe.c \
	       diagnose/render.c diagnose/patterns.c diagnose/p_lazy_binding.c \
	       diagnose/p_reclaim.c diagnose/p_numa.c diagnose/p_file_evicted.c diagnose/p_file_in_flight.c \
	       diagnose/p_anon_swapped.c diagnose/p_recorder.c \
	       diagnose/p_preemption.c diagnose/p_slow_wakeup.c \
	       diagnose/cpu_holders.c
# diagnose: the system-call patterns (record --syscalls)
DIAGNOSE_SRC += diagnose/p_file_io.c diagnose/p_fsync.c diagnose/p_futex.c
# diagnose: the files of one directory, one finding
DIAGNOSE_SRC += diagnose/by_directory.c
# diagnose: time blocked in the kernel that no other pattern explains
DIAGNOSE_SRC += diagnose/p_blocked.c
# diagnose: the stalls no pattern named, counted and said
DIAGNOSE_SRC += diagnose/unnamed.c
DECODER_SRC += decoder/plt_bind.c
CLI_SRC += cli/diagnose.c cli/diagnose_event.c
# plot --finding N
CLI_SRC += cli/plot_finding.c
# faultline diagnose: each thread's time off the CPU by reason
DIAGNOSE_SRC += diagnose/reasons.c
SCHEMA_SRC += schema/views.c
# sessions whose recorder was killed: found, said, marked
SCHEMA_SRC += schema/killed.c
# record --cgroup: the cpu.stat parsers, the sampler, its rows; the
# cpu-quota pattern
DECODER_SRC += decoder/cgroup_cpu.c
COLLECTOR_SRC += collector/cgroup_sampler.c
RECORD_SRC += record/cgroup.c
# the session's environment (session_env): read at the start, build ids
# at the end
DECODER_SRC += decoder/env_text.c decoder/build_id.c
COLLECTOR_SRC += collector/sys_env.c
RECORD_SRC += record/environment.c
# record --flight (record/flight.h)
RECORD_SRC += record/flight.c record/flight_history.c record/flight_dump.c \
	      record/flight_watch.c record/flight_minute.c record/flight_aside.c \
	      record/flight_block.c
# record --flight --trigger metric:NAME>VALUE: the live lines and their reading
DECODER_SRC += decoder/metric_line.c
COLLECTOR_SRC += collector/metric_feed.c
SCHEMA_SRC += schema/flight_store.c
DIAGNOSE_SRC += diagnose/p_cpu_quota.c
# export --to PostgreSQL (libpq), query on PostgreSQL.  libpq is loaded
# when a command first connects (export/pq_lib.h says why): its headers at
# build time, its library at link time only for the tests that call it.
ALL_CFLAGS += $(shell pkg-config --cflags libpq 2>/dev/null)
PQ_LIBS = $(shell pkg-config --libs libpq 2>/dev/null)
EXPORT_SRC += export/pq_lib.c export/pg_conn.c export/pg_schema.c export/pg_copy.c export/pg_session.c \
	      export/pg_export.c export/session_select.c \
	      export/pg_functions.c export/pg_stage.c
CLI_SRC += cli/query_pg.c
# faultline compare, faultline runs: runs side by side, the chart of runs,
# change points by cause (runs/)
RUNS_SRC = runs/env_diff.c runs/edivisive.c runs/runs.c runs/changes.c runs/page.c
CLI_SRC += cli/compare.c cli/runs.c

GEN_SRC = $(BUILD)/gen/schema_sql.c $(BUILD)/gen/indexes_sql.c \
	  $(BUILD)/gen/load_indexes_sql.c $(BUILD)/gen/queries_sql.c \
	  $(BUILD)/gen/pg_functions_sql.c
QUERIES = $(sort $(wildcard queries/*.sql))

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
DECODER_OBJ = $(call obj,$(COMMON_SRC) $(DECODER_SRC))
COLLECTOR_OBJ = $(call obj,$(COLLECTOR_SRC)) $(COLLECTOR_GEN_SRC:.c=.o)
RECORD_OBJ = $(call obj,$(RECORD_SRC))
SCHEMA_OBJ = $(call obj,$(SCHEMA_SRC)) $(GEN_SRC:.c=.o)
CLI_OBJ = $(call obj,$(filter-out cli/faultline.c,$(CLI_SRC)))
READER_OBJ = $(call obj,$(EXPORT_SRC) $(PLOT_SRC)) $(PLOT_GEN_SRC:.c=.o)
MAIN_OBJ = $(call obj,cli/faultline.c)
DIAGNOSE_OBJ = $(call obj,$(DIAGNOSE_SRC))
RUNS_OBJ = $(call obj,$(RUNS_SRC))
LIB_OBJ = $(DECODER_OBJ) $(COLLECTOR_OBJ) $(SCHEMA_OBJ) $(RECORD_OBJ) $(READER_OBJ) $(CLI_OBJ) \
	  $(DIAGNOSE_OBJ) $(RUNS_OBJ)

FAULTLINE = $(BUILD)/faultline

.PHONY: all deps deps-check deps-demo deps-bench demo check check-fast check-run soak unwind-fixture bench-diagnose \
	check-san check-stress fuzz bench install deb clean

# The packages first, then the build in a sub-make: with -j, a compile
# must not start before the headers it needs are installed.
all: deps
	@$(MAKE) --no-print-directory $(FAULTLINE)
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
# Every index (the ones kept up during a load first), and those alone.
$(BUILD)/gen/indexes_sql.c: schema/load_indexes.sql schema/indexes.sql mk/embed.sh
	@mkdir -p $(dir $@)
	mk/embed.sh indexes_sql schema/load_indexes.sql schema/indexes.sql > $@
$(BUILD)/gen/load_indexes_sql.c: schema/load_indexes.sql mk/embed.sh
	@mkdir -p $(dir $@)
	mk/embed.sh load_indexes_sql $< > $@
$(BUILD)/gen/pg_functions_sql.c: export/pg_functions.sql mk/embed.sh
	@mkdir -p $(dir $@)
	mk/embed.sh pg_functions_sql $< > $@
$(BUILD)/gen/plot_page_js.c: plot/page.js mk/embed.sh
	@mkdir -p $(dir $@)
	mk/embed.sh plot_page_js $< > $@
$(BUILD)/gen/plot_page_css.c: plot/page.css mk/embed.sh
	@mkdir -p $(dir $@)
	mk/embed.sh plot_page_css $< > $@
$(BUILD)/gen/queries_sql.c: $(QUERIES) mk/embed_queries.sh
	@mkdir -p $(dir $@)
	mk/embed_queries.sh $(QUERIES) > $@
$(BUILD)/gen/queries_sql.o: $(BUILD)/gen/queries_sql.c schema/query_def.h
	$(CC) $(ALL_CFLAGS) -I. -c -o $@ $<
$(BUILD)/gen/syscall_table.c: mk/syscall_table.sh
	@mkdir -p $(dir $@)
	mk/syscall_table.sh "$(CC)" > $@
$(BUILD)/gen/syscall_table.o: $(BUILD)/gen/syscall_table.c collector/syscall_table.h
	$(CC) $(ALL_CFLAGS) -I. -c -o $@ $<
$(BUILD)/gen/%.o: $(BUILD)/gen/%.c
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(FAULTLINE): $(MAIN_OBJ) $(LIB_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

# ---- tests ---------------------------------------------------------------

UNIT_TESTS = test_common test_clock_map test_spool test_perf_record test_order test_fault_pair \
	     test_fault_stream test_timeline test_ring test_opt test_hist test_symbolize \
	     test_unwind test_metric_parse test_sha256 test_symbolize_job
# the page cache of the files read for stacks and names
UNIT_TESTS += test_page_cache test_debug_paths
# files at paths another user may plant
UNIT_TESTS += test_outside_file
# what ran on a CPU while a target waited for it
UNIT_TESTS += test_cpu_runs
# record --latency: the pairing and its option
UNIT_TESTS += test_latency_pair
# record --block-io: the matching of a request's steps
UNIT_TESTS += test_block_rq
# record --pt, faultline pt
UNIT_TESTS += test_pt_time test_pt_pmu test_pt_aux test_pt_decode test_pt_store
# plot
UNIT_TESTS += test_plot_reduce
# a session row's end on a full disk
UNIT_TESTS += test_loader_end
# rows written as one INSERT of many
UNIT_TESTS += test_row_batch
# diagnose: files grouped by directory
UNIT_TESTS += test_by_directory
# symbolizing: the kallsyms lines a session's kernel frames need
UNIT_TESTS += test_kallsyms_pick
# the events' closing, on a thread of its own
UNIT_TESTS += test_event_close
UNIT_BIN = $(addprefix $(BUILD)/tests/,$(UNIT_TESTS))
INTEGRATION_BIN = $(BUILD)/tests/test_record $(BUILD)/tests/test_thread_state \
		  $(BUILD)/tests/test_tracepoints $(BUILD)/tests/test_udp_sampler \
		  $(BUILD)/tests/test_stacks $(BUILD)/tests/test_demo \
		  $(BUILD)/tests/test_clock_step $(BUILD)/tests/test_pt_clock \
		  $(BUILD)/tests/test_waking_filter $(BUILD)/tests/test_storm \
		  $(BUILD)/tests/test_wakers $(BUILD)/tests/test_real_programs \
		  $(BUILD)/tests/test_ran_instead $(BUILD)/tests/test_syscalls
WORKLOAD_BIN = $(BUILD)/tests/fault_workload $(BUILD)/tests/sched_workload \
	       $(BUILD)/tests/udp_workload $(BUILD)/tests/clock_step_workload \
	       $(BUILD)/tests/waking_workload $(BUILD)/bench/pingpong \
	       $(BUILD)/tests/syscall_workload
# record --block-io: direct reads of a known size, against /sys/block
INTEGRATION_BIN += $(BUILD)/tests/test_block_io
WORKLOAD_BIN += $(BUILD)/tests/block_workload
DEMO_BIN = $(BUILD)/demo/nak_demo
FUZZ_TARGETS = fuzz_perf_record fuzz_fault_stream fuzz_import fuzz_symbol_maps
# record --stacks
WORKLOAD_BIN += $(STACK_WORKLOAD_BIN)
# the observer effect: does recording bring an evicted library back?
WORKLOAD_BIN += $(BUILD)/tests/cold_workload
FUZZ_TARGETS += fuzz_unwind
# record --udp-port
UNIT_TESTS += test_proc_net_udp test_sampler_thread
FUZZ_TARGETS += fuzz_proc_net_udp fuzz_proc_net_sock
# record --pt
FUZZ_TARGETS += fuzz_pt
# record --flight --trigger metric:NAME>VALUE: the live lines
FUZZ_TARGETS += fuzz_metric_line
# faultline diagnose; plt_bind reads a library built here, lazily
# linked, and one with IBT's .plt.sec stubs
INTEGRATION_BIN += $(BUILD)/tests/test_diagnose
UNIT_TESTS += test_plt_bind
WORKLOAD_BIN += $(BUILD)/tests/diagnose_workload
# record --cgroup, the cpu-quota pattern
UNIT_TESTS += test_cgroup_cpu
INTEGRATION_BIN += $(BUILD)/tests/test_cgroup_quota
# a recorder killed outright: found, said, marked; what it lost, measured
INTEGRATION_BIN += $(BUILD)/tests/test_kill
# the session's environment (session_env), from a real recording
INTEGRATION_BIN += $(BUILD)/tests/test_session_env
# record --flight
UNIT_TESTS += test_flight_history test_flight_block
INTEGRATION_BIN += $(BUILD)/tests/test_flight
WORKLOAD_BIN += $(BUILD)/tests/flight_workload
UNIT_TESTS += test_env_text
# change points by E-Divisive means (runs/edivisive.c)
UNIT_TESTS += test_edivisive
# which event wrote a sample, where another session's id took its place
UNIT_TESTS += test_sample_owner
STACK_WORKLOAD_BIN = $(BUILD)/tests/stack_workload_fp $(BUILD)/tests/stack_workload_nofp
FUZZ_REPLAY_BIN = $(addprefix $(BUILD)/tests/replay_,$(FUZZ_TARGETS))
TEST_BIN = $(UNIT_BIN) $(INTEGRATION_BIN) $(BUILD)/tests/test_messages \
	   $(BUILD)/tests/test_query \
	   $(BUILD)/tests/test_import $(BUILD)/tests/test_finished_db \
	   $(BUILD)/tests/test_pt \
	   $(BUILD)/tests/test_export $(BUILD)/tests/test_plot \
	   $(BUILD)/tests/test_upgrade $(BUILD)/tests/test_merge \
	   $(BUILD)/tests/test_compare $(BUILD)/tests/test_runs \
	   $(BUILD)/tests/test_labels $(BUILD)/tests/test_shared_box \
	   $(FUZZ_REPLAY_BIN) tests/man_vs_help.sh
# export --to and query on PostgreSQL
TEST_BIN += $(BUILD)/tests/test_pg
# stacks --folded, -f json and csv, parsed back; a C++ program's names
TEST_BIN += $(BUILD)/tests/test_stacks_out
# bash completion, sourced and called; the Debian package, read with
# dpkg-deb and unpacked into a scratch root
TEST_BIN += tests/completion.sh tests/deb_check.sh
# a recording that faults and switches without end: memory flat, nothing
# lost (1 minute in check-run; make soak runs SOAK_MINUTES)
TEST_BIN += tests/soak.sh
SOAK_MINUTES ?= 30

# A cmocka test: its source (the first prerequisite) and the library.
define link_test
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB_OBJ) $(LDFLAGS) $(LIBS) -lcmocka
endef

$(BUILD)/tests/test_%: tests/unit/test_%.c tests/unit/records.h $(LIB_OBJ)
	$(link_test)
# The code the Intel PT tests decode, hand-written so its trace is known;
# fixed flags, the same in both builds.  -Bsymbolic: its calls stay
# direct (no PLT), as the assembly says.
PTFIX = $(BUILD)/tests/ptfix/libptcode.so
$(addprefix $(BUILD)/tests/,test_pt_aux test_pt_decode test_pt_store): tests/unit/pt_stream.h
$(addprefix $(BUILD)/tests/,test_pt_decode test_pt_store): tests/unit/pt_fixture.h \
		$(PTFIX)
$(BUILD)/tests/test_pt_store: tests/unit/pt_db.h tests/integration/run.h
$(BUILD)/tests/test_loader_end $(BUILD)/tests/test_row_batch: tests/integration/run.h
$(PTFIX): tests/fixtures/pt/ptcode.S
	@mkdir -p $(dir $@)
	$(CC) -shared -nostdlib -Wl,-Bsymbolic -Wl,--build-id=sha1 -o $@ $<

# The symbolizer's fixture library, -g, and the copies its tests need:
# stripped (.dynsym only); split, with the debug file found by build id
# under symfix/debugroot; split with a .gnu_debuglink to a file beside it
# (symfix/linked).
SYMFIX = $(BUILD)/tests/symfix
SYMFIX_FILES = $(SYMFIX)/libsymfix.so $(SYMFIX)/libsymfix_stripped.so \
	       $(SYMFIX)/libsymfix_bid.so $(SYMFIX)/linked/libsymfix_link.so
$(BUILD)/tests/test_symbolize: $(SYMFIX_FILES) tests/integration/run.h tests/unit/symfix.h
$(BUILD)/tests/test_symbolize_job: $(SYMFIX_FILES) tests/unit/symfix.h

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

$(BUILD)/tests/test_finished_db: tests/cli/test_finished_db.c tests/integration/run.h $(LIB_OBJ)
	$(link_test)

$(BUILD)/tests/test_upgrade: tests/cli/test_upgrade.c tests/integration/run.h $(LIB_OBJ)
	$(link_test)

$(BUILD)/tests/test_merge: tests/cli/test_merge.c tests/integration/run.h $(LIB_OBJ)
	$(link_test)
$(BUILD)/tests/test_compare: tests/cli/test_compare.c tests/integration/run.h $(LIB_OBJ)
	$(link_test)
$(BUILD)/tests/test_labels: tests/cli/test_labels.c tests/integration/run.h $(LIB_OBJ)
	$(link_test)
$(BUILD)/tests/test_runs: tests/cli/test_runs.c tests/cli/plot_fixture.h \
		tests/integration/run.h $(LIB_OBJ)
	$(link_test)

$(BUILD)/tests/test_shared_box: tests/cli/test_shared_box.c tests/integration/run.h $(LIB_OBJ)
	$(link_test)

$(BUILD)/tests/test_pt: tests/cli/test_pt.c tests/integration/run.h tests/unit/pt_db.h \
		tests/unit/pt_fixture.h tests/unit/pt_stream.h $(PTFIX) $(LIB_OBJ)
	$(link_test)

# plot and export: their checkers (tests/*_check.py) run python3 and
# headless Chromium.
$(BUILD)/tests/test_export $(BUILD)/tests/test_plot: $(BUILD)/tests/test_%: \
		tests/cli/test_%.c tests/cli/plot_fixture.h tests/integration/run.h $(LIB_OBJ)
	$(link_test)

# stacks' outputs, on a C++ program with frame pointers (fixed flags,
# the same in both builds; -mno-red-zone: its walk through data pushes)
$(BUILD)/tests/test_stacks_out: tests/cli/test_stacks_out.c tests/cli/plot_fixture.h \
		tests/integration/run.h $(BUILD)/tests/cxx_walker $(LIB_OBJ)
	$(link_test)
$(BUILD)/tests/cxx_walker: tests/fixtures/cxx/walker.cc
	@mkdir -p $(dir $@)
	g++ -O1 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -mno-red-zone \
		-o $@ $<

PLTFIX = $(BUILD)/tests/pltfix/libpltfix.so $(BUILD)/tests/pltfix/libpltfix_ibt.so
$(BUILD)/tests/test_plt_bind: $(PLTFIX)
$(BUILD)/tests/pltfix/libpltfix.so: tests/fixtures/plt/pltfix.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -fPIC -shared -fcf-protection=none -Wl,-z,lazy -o $@ $<
$(BUILD)/tests/pltfix/libpltfix_ibt.so: tests/fixtures/plt/pltfix.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -fPIC -shared -fcf-protection=full -Wl,-z,ibtplt -Wl,-z,lazy -o $@ $<

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
# The observer-effect probe: the same library, bound lazily.
$(BUILD)/tests/cold_workload: tests/integration/cold_workload.c \
		tests/integration/dropped_page.h $(BUILD)/tests/libstacklazy.so
	$(CC) -O2 -o $@ $< $(STACK_WL_FLAGS)
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

check-fast: deps-check
	@$(MAKE) --no-print-directory check-run
check-run: $(FAULTLINE) $(TEST_BIN) $(WORKLOAD_BIN) $(DEMO_BIN)
	@FAULTLINE=$(FAULTLINE) WORKLOAD=$(BUILD)/tests/fault_workload \
		SCHED_WORKLOAD=$(BUILD)/tests/sched_workload \
		UDP_WORKLOAD=$(BUILD)/tests/udp_workload BUILD=$(BUILD) \
		CLOCK_STEP_WORKLOAD=$(BUILD)/tests/clock_step_workload \
		NAK_DEMO=$(DEMO_BIN) SOAK_MINUTES=1 \
		tests/run.sh $(TEST_BIN)

# The soak alone, for SOAK_MINUTES (tests/soak.sh says what it holds to).
soak: $(FAULTLINE) $(BUILD)/tests/fault_workload
	@FAULTLINE=$(FAULTLINE) WORKLOAD=$(BUILD)/tests/fault_workload \
		SOAK_MINUTES=$(SOAK_MINUTES) tests/soak.sh

check-san: deps-check
	@$(MAKE) --no-print-directory SAN=1 check-fast

check: check-fast
	@$(MAKE) --no-print-directory check-san

# The suite with two CPU hogs beside it (this machine has 2 cores): a test
# that passes only on a quiet machine fails here.  The hogs are killed when
# the suite ends, whatever its result, on ^C too, and die with this shell
# if it is killed outright.
$(BUILD)/tests/cpu_hog: tests/cpu_hog.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -Wall -o $@ $<

check-stress: deps-check $(BUILD)/tests/cpu_hog
	@hogs=; \
	trap 'kill $$hogs 2>/dev/null' EXIT; \
	trap 'exit 130' INT TERM; \
	for i in 1 2; do $(BUILD)/tests/cpu_hog & hogs="$$hogs $$!"; done; \
	echo "check-stress: the suite beside two CPU hogs (pids$$hogs)"; \
	$(MAKE) --no-print-directory check-fast; status=$$?; \
	kill $$hogs 2>/dev/null; exit $$status

# libFuzzer (clang): crashes land in tests/fuzz/crashes/<target>/, which
# the replay binaries run on every make check.  New inputs go to a scratch
# corpus in build/fuzz; the committed seeds are read, never written.
fuzz: deps-check
	for t in $(FUZZ_TARGETS); do \
		mkdir -p build/fuzz/corpus/$$t tests/fuzz/crashes/$$t && \
		clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE \
			$(shell pkg-config --cflags libtraceevent libdw libelf) \
			-o build/fuzz/$$t tests/fuzz/$$t.c $(COMMON_SRC) $(DECODER_SRC) \
			$(shell pkg-config --libs libtraceevent libdw libelf) -lipt -liberty && \
		build/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) \
			-artifact_prefix=tests/fuzz/crashes/$$t/ \
			build/fuzz/corpus/$$t tests/fuzz/corpus/$$t || exit 1; \
	done

# export --to PostgreSQL beside perf's export-to-postgresql.py; part of
# make bench
.PHONY: bench-fleet
bench: bench-fleet
bench-fleet: deps-bench $(FAULTLINE) $(BUILD)/bench/fault_loop $(BUILD)/tests/fault_workload
	FAULTLINE=$(FAULTLINE) BUILD=$(BUILD) LOOP=$(BUILD)/bench/fault_loop \
		bench/fleet/export_pg.sh
	FAULTLINE=$(FAULTLINE) BUILD=$(BUILD) WORKLOAD=$(BUILD)/tests/fault_workload \
		bench/fleet/export_pg_jobs.sh

# export --to and query on PostgreSQL: a real server (tests/pg_server.sh)
$(BUILD)/tests/test_pg: LIBS += $(PQ_LIBS)
$(BUILD)/tests/test_pg: tests/cli/test_pg.c tests/integration/run.h $(LIB_OBJ)
	$(link_test)

# ---- demo, bench, install ------------------------------------------------

demo: deps-demo
	@$(MAKE) --no-print-directory $(FAULTLINE) $(DEMO_BIN)
	@FAULTLINE=$(FAULTLINE) NAK_DEMO=$(DEMO_BIN) demo/run.sh

bench: deps-bench $(FAULTLINE) $(BUILD)/bench/fault_loop $(BUILD)/bench/loader_rate \
		$(BUILD)/bench/pt_decode_rate $(PTFIX) \
		$(BUILD)/bench/import_rate_parse \
		$(BUILD)/bench/symbolize_rate \
		$(BUILD)/bench/pingpong $(BUILD)/bench/wake_loop $(BUILD)/tests/udp_workload \
		$(BUILD)/bench/syscall_loop
	$(BUILD)/bench/loader_rate
	$(BUILD)/bench/pt_decode_rate $(PTFIX)
	FAULTLINE=$(FAULTLINE) LOOP=$(BUILD)/bench/fault_loop RATE=$(BUILD)/bench/symbolize_rate \
		bench/schema/symbolize_rate.sh
	FAULTLINE=$(FAULTLINE) LOOP=$(BUILD)/bench/fault_loop LOADER_RATE=$(BUILD)/bench/loader_rate \
		bench/collector/record_overhead.sh
	FAULTLINE=$(FAULTLINE) LOOP=$(BUILD)/bench/fault_loop bench/collector/stack_overhead.sh
	FAULTLINE=$(FAULTLINE) PINGPONG=$(BUILD)/bench/pingpong bench/collector/switch_overhead.sh
	FAULTLINE=$(FAULTLINE) LOOP=$(BUILD)/bench/fault_loop PINGPONG=$(BUILD)/bench/pingpong \
		bench/collector/flight_overhead.sh
	FAULTLINE=$(FAULTLINE) LOOP=$(BUILD)/bench/syscall_loop bench/collector/syscall_overhead.sh
	FAULTLINE=$(FAULTLINE) BUILD=$(BUILD) bench/queries/stalls_near.sh
	FAULTLINE=$(FAULTLINE) BUILD=$(BUILD) bench/fleet/merge.sh
	FAULTLINE=$(FAULTLINE) BUILD=$(BUILD) LOOP=$(BUILD)/bench/fault_loop \
		bench/plot/plot_export.sh
	FAULTLINE=$(FAULTLINE) PARSE=$(BUILD)/bench/import_rate_parse \
		bench/schema/import_rate.sh
	FAULTLINE=$(FAULTLINE) UDP_WORKLOAD=$(BUILD)/tests/udp_workload \
		WAKE_LOOP=$(BUILD)/bench/wake_loop bench/collector/udp_sampling.sh
	FAULTLINE=$(FAULTLINE) bench/servers/redis.sh
	FAULTLINE=$(FAULTLINE) bench/servers/mariadb.sh
	$(MAKE) --no-print-directory bench-diagnose

# faultline diagnose on 10M fault and 1M thread_state rows
bench-diagnose: $(FAULTLINE) $(BUILD)/bench/fingerprints
	FAULTLINE=$(FAULTLINE) BUILD=$(BUILD) bench/diagnose/diagnose.sh

$(BUILD)/bench/fingerprints: bench/diagnose/fingerprints.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB_OBJ) $(LDFLAGS) $(LIBS)

$(BUILD)/bench/import_rate_parse: bench/schema/import_rate_parse.c $(DECODER_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDFLAGS) $(LIBS)

$(BUILD)/bench/pingpong: bench/collector/pingpong.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -o $@ $< -pthread

$(BUILD)/bench/wake_loop: bench/collector/wake_loop.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -o $@ $<

$(BUILD)/bench/fault_loop: bench/collector/fault_loop.c bench/collector/loop_clock.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -o $@ $<

$(BUILD)/bench/syscall_loop: bench/collector/syscall_loop.c bench/collector/loop_clock.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -o $@ $<

$(BUILD)/bench/symbolize_rate: bench/schema/symbolize_rate.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB_OBJ) $(LDFLAGS) $(LIBS)

$(BUILD)/bench/pt_decode_rate: bench/decoder/pt_decode_rate.c tests/unit/pt_stream.h $(LIB_OBJ)
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
	install -D -m 644 completion/faultline \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/faultline

# The Debian package, for machines where tools come from apt: the binary,
# the man pages and the completion; Depends from the libraries it links.
deb: all
	@mk/deb.sh $(FAULTLINE) build/deb

clean:
	rm -rf build faultline

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
