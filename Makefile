# Umpire — build, run and test.
#
#   make run     install missing packages, build, start the daemon (127.0.0.1:8080, ./data/umpire.db)
#   make test    install missing packages, build with ASan/UBSan, run every test
#   make         build build/umpired (optimised)
#   make format / lint / clean
#
# Two build trees: build/ (release, -O2) and build/asan/ (AddressSanitizer + UBSan, used by
# `make test`). Every .c under protocol/ rules/ server/ (and their folders) is compiled; the map of
# those folders and what each may include is at the top of docs/hacking.md, checked by
# scripts/check-layers in `make test`. Adding a ruleset is adding a
# folder under rules/ and a line in rules/registry.c.

VERSION   := 0.1.0
BUILD     ?= build
SAN       ?= 0
CC        ?= cc
CXX       ?= c++
PYTHON    ?= /usr/bin/python3

# Debian's node-llhttp. Listed with $(wildcard) when the Makefile is read: a target that installs
# packages first (run, test) builds in a second make, which reads the Makefile again afterwards.
LLHTTP_SRC_DIR ?= /usr/share/llhttp
LLHTTP_INC_DIR ?= /usr/share/include/llhttp
# What installs the missing packages.
DEPS_SCRIPT ?= scripts/install-deps

WARN      := -Wall -Wextra -Werror
CPPFLAGS  := -D_GNU_SOURCE -DUMPIRE_VERSION='"$(VERSION)"' -DUMPIRE_SOURCE_DIR='"$(CURDIR)"' \
             -I. -I$(BUILD)/gen -I$(LLHTTP_INC_DIR) -I/usr/include/postgresql
ifeq ($(SAN),1)
# The test build also carries allocation-failure injection (server/core/fault_inject.h; inert unless
# UMPIRE_FAIL_ALLOC_AT* is set), so `make test` runs the allocation-failure sweeps.
CPPFLAGS  += -DUMPIRE_FAULT_INJECTION
OPT       := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
else
OPT       := -O2 -g
endif
CFLAGS    := -std=c11 $(WARN) $(OPT)
CXXFLAGS  := -std=c++17 $(WARN) $(OPT)
LDFLAGS   := $(filter -fsanitize=%,$(OPT))
LDLIBS    := -luv -ljansson -lsqlite3 -lpq -lcurl -lcrypto -lpthread -lstdc++ -lm

# Sources: everything but the two mains is the library the tests link against.
MAIN_SRC  := server/main.c
VERIFY_SRC := server/audit/umpire_verify.c
# Folders under server/ are one level deep (server/http, server/store, ...), like rules/.
SRC_DIRS  := protocol rules rules/* server server/*
LIB_C     := $(filter-out $(MAIN_SRC) $(VERIFY_SRC),$(wildcard $(addsuffix /*.c,$(SRC_DIRS))))
LIB_CXX   := $(wildcard $(addsuffix /*.cpp,$(SRC_DIRS)))
LLHTTP_C  := $(wildcard $(LLHTTP_SRC_DIR)/*.c)
# Generated C: the migrations, the web client, the scenarios and the OpenAPI base document,
# embedded so the binary runs from any directory (and in the container) with nothing beside it.
WEB_FILES      := $(sort $(shell find web -type f ! -path '*/.*' ! -path '*/node_modules/*' 2>/dev/null))
SCENARIO_FILES := $(sort $(wildcard scenarios/*.json))
OPENAPI_BASE   := $(wildcard protocol/openapi.base.json)
GEN_C     := $(BUILD)/gen/migrations_data.c $(BUILD)/gen/web_files.c $(BUILD)/gen/scenario_files.c \
             $(if $(OPENAPI_BASE),$(BUILD)/gen/openapi_base.c)

LIB_OBJ   := $(LIB_C:%.c=$(BUILD)/obj/%.o) $(LIB_CXX:%.cpp=$(BUILD)/obj/%.o) \
             $(LLHTTP_C:$(LLHTTP_SRC_DIR)/%.c=$(BUILD)/obj/llhttp/%.o) $(GEN_C:$(BUILD)/gen/%.c=$(BUILD)/obj/gen/%.o)
UNIT_SRC  := $(wildcard tests/unit/test_*.c)
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: FORCE all deps run test test-build test-run fuzz fuzz-smoke bench hostile-bench format lint clean check-format
.DEFAULT_GOAL := all

all: $(BUILD)/umpired $(BUILD)/umpire-verify

deps:
	@$(DEPS_SCRIPT)

# The library the daemon and every test link against: a test pulls in only what it uses.
LIB_A := $(BUILD)/libumpire.a
$(LIB_A): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/umpired: $(BUILD)/obj/server/main.o $(LIB_A)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/umpire-verify: $(BUILD)/obj/server/audit/umpire_verify.o $(LIB_A)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/%.o: %.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(CPPFLAGS) $(CXXFLAGS) -MMD -MP -c $< -o $@

# llhttp is Debian's generated C; compiled as shipped (strict, no lenient flag is ever set),
# without our warning set, which its generated code was not written for.
$(BUILD)/obj/llhttp/%.o: $(LLHTTP_SRC_DIR)/%.c
	@mkdir -p $(dir $@)
	$(CC) -I$(LLHTTP_INC_DIR) -std=c11 $(OPT) -w -c $< -o $@

# Migrations are embedded in the binary so it runs from any directory (and in the container).
$(BUILD)/gen/migrations_data.c: scripts/embed-migrations $(wildcard migrations/*.sql migrations/postgresql/*.sql)
	@mkdir -p $(dir $@)
	scripts/embed-migrations migrations > $@.tmp && mv $@.tmp $@

# The file lists are in the rule's text (.files), so adding or removing a file regenerates too.
$(BUILD)/gen/web_files.c: scripts/embed-files $(WEB_FILES) $(BUILD)/gen/web_files.files
	scripts/embed-files table umpire_web_files web $(WEB_FILES) > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/scenario_files.c: scripts/embed-files $(SCENARIO_FILES) $(BUILD)/gen/scenario_files.files
	scripts/embed-files table umpire_scenario_files scenarios $(SCENARIO_FILES) > $@.tmp && mv $@.tmp $@

$(BUILD)/gen/openapi_base.c: scripts/embed-files $(OPENAPI_BASE)
	@mkdir -p $(dir $@)
	scripts/embed-files string umpire_openapi_base $(OPENAPI_BASE) > $@.tmp && mv $@.tmp $@

# Rewritten only when the list changes, so an unchanged list rebuilds nothing.
$(BUILD)/gen/%.files: FORCE
	@mkdir -p $(dir $@)
	@echo '$(if $(filter web_files,$*),$(WEB_FILES),$(SCENARIO_FILES))' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

FORCE:

$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/tests/%: tests/unit/%.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lcmocka $(LDLIBS)

$(BUILD)/tests/store_pg_harness: tests/pg/store_pg_harness.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/http_harness: tests/http/http_harness.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The build runs in a second make: this one listed the llhttp sources before deps installed them
# (on a fresh machine, none), so linking here would miss llhttp_init.
run: deps
	@$(MAKE) --no-print-directory all
	@mkdir -p data
	$(BUILD)/umpired $(ARGS)

# ---- tests: sanitizer build in build/asan -------------------------------------------------
ASAN_BUILD := build/asan
# A small quarantine keeps RSS meaningful for the memory-bound tests (ASan holds 256 MiB of
# freed memory by default); use-after-free is still caught within that window.
TEST_ENV   := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:quarantine_size_mb=16 UBSAN_OPTIONS=print_stacktrace=1

test: deps
	$(MAKE) --no-print-directory BUILD=$(ASAN_BUILD) SAN=1 test-build
	$(MAKE) --no-print-directory BUILD=$(ASAN_BUILD) SAN=1 test-run

test-build: $(BUILD)/umpired $(BUILD)/umpire-verify $(UNIT_BIN) $(BUILD)/tests/http_harness \
            $(BUILD)/tests/store_pg_harness

# Python suites: every tests/<dir>/ holding test_*.py (http, integration, fault, hostile, ...).
PY_SUITES = $(sort $(dir $(wildcard tests/*/test_*.py)))

test-run:
	$(PYTHON) scripts/check-layers --objects $(BUILD)/obj
	@scripts/run-unit-tests $(BUILD)/tests
	$(TEST_ENV) UMPIRED=$(BUILD)/umpired UMPIRE_VERIFY=$(BUILD)/umpire-verify HTTP_HARNESS=$(BUILD)/tests/http_harness STORE_PG_HARNESS=$(BUILD)/tests/store_pg_harness \
	  $(PYTHON) -m pytest -q -p no:cacheprovider $(PY_SUITES)
	$(TEST_ENV) UMPIRED=$(BUILD)/umpired UMPIRE_VERIFY=$(BUILD)/umpire-verify HTTP_HARNESS=$(BUILD)/tests/http_harness STORE_PG_HARNESS=$(BUILD)/tests/store_pg_harness \
	  UMPIRE_TEST_BACKEND=postgresql $(PYTHON) -m pytest -q -p no:cacheprovider tests/integration
	$(TEST_ENV) scripts/run-browser-tests $(BUILD)
	$(MAKE) --no-print-directory fuzz-smoke

# ---- fuzzing (fuzz/fuzz.mk: targets fuzz, fuzz-smoke), benchmark (bench/bench.mk: bench) -----
fuzz-smoke::
-include fuzz/fuzz.mk
-include bench/bench.mk

# ---- style -------------------------------------------------------------------------------
FORMAT_FILES = $(wildcard $(addsuffix /*.[ch],$(SRC_DIRS)) $(LIB_CXX) \
                 tests/unit/*.c tests/http/*.c tests/pg/*.c)

format:
	clang-format -i $(FORMAT_FILES)

check-format:
	clang-format --dry-run --Werror $(FORMAT_FILES)

lint: check-format
	$(PYTHON) scripts/check-layers
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability --inline-suppr \
	  --suppress=missingIncludeSystem -I. $(LIB_C) $(MAIN_SRC) $(VERIFY_SRC)

clean:
	rm -rf build

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
