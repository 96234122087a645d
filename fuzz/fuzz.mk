# Fuzzing with libFuzzer (clang 14). Included by the top-level Makefile.
#
#   make fuzz         build every target, fuzz each for FUZZ_SECONDS (2 at a time); new inputs go
#                     to build/fuzz/corpus/<target>/, crashes to build/fuzz/crashes/<target>/
#   make fuzz-smoke   build, replay fuzz/regressions/<target>/ and fuzz/corpus/<target>/, then
#                     fuzz each target for FUZZ_SMOKE_SECONDS; one line per target and a total
#
# Its own tree (build/fuzz/), whatever BUILD/SAN the caller uses: the library is compiled again
# with clang and -fsanitize=fuzzer-no-link,address,undefined. See fuzz/README.md.

FUZZ_CC       ?= clang
FUZZ_CXX      ?= clang++
FUZZ_SECONDS       ?= 600
FUZZ_SMOKE_SECONDS ?= 15
FUZZ_JOBS     ?= 2

FUZZ_DIR      ?= build/fuzz
FUZZ_OBJ      := $(FUZZ_DIR)/obj
FUZZ_BIN      := $(FUZZ_DIR)/bin
FUZZ_LIB      := $(FUZZ_DIR)/libumpire-fuzz.a

FUZZ_SAN      := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_OPT      := -O1 -g -fno-omit-frame-pointer
FUZZ_CPPFLAGS := -D_GNU_SOURCE -DUMPIRE_VERSION='"$(VERSION)"' -DUMPIRE_SOURCE_DIR='"$(CURDIR)"' \
                 -I. -I$(FUZZ_DIR)/gen -I$(LLHTTP_INC_DIR) -I/usr/include/postgresql
# No -Werror for the library: it is other people's code, compiled by a different compiler here.
FUZZ_LIB_CFLAGS   := -std=c11 -Wall -Wextra $(FUZZ_OPT) $(FUZZ_SAN) -fsanitize=fuzzer-no-link
FUZZ_LIB_CXXFLAGS := -std=c++17 -Wall -Wextra $(FUZZ_OPT) $(FUZZ_SAN) -fsanitize=fuzzer-no-link
FUZZ_CFLAGS   := -std=c11 -Wall -Wextra -Werror $(FUZZ_OPT) $(FUZZ_SAN) -fsanitize=fuzzer
FUZZ_LDLIBS   := -luv -ljansson -lsqlite3 -lpq -lcurl -lcrypto -lpthread -lstdc++ -lm

# target:max_len (bytes)
FUZZ_SPECS    := fuzz_http:16384 fuzz_action_decode:4096 fuzz_rules_resolve:2048 \
                 fuzz_notation:512 fuzz_config:4096 fuzz_verify:32768 \
                 fuzz_webhook_request:4096 fuzz_import:65536 fuzz_orders:4096
FUZZ_TARGETS  := $(foreach s,$(FUZZ_SPECS),$(firstword $(subst :, ,$(s))))
FUZZ_BINS     := $(FUZZ_TARGETS:%=$(FUZZ_BIN)/%)

FUZZ_LIB_C    := $(filter-out server/main.c server/audit/umpire_verify.c,\
                   $(wildcard $(addsuffix /*.c,$(SRC_DIRS))))
FUZZ_LIB_CXX  := $(wildcard $(addsuffix /*.cpp,$(SRC_DIRS)))
FUZZ_LIB_OBJ  := $(FUZZ_LIB_C:%.c=$(FUZZ_OBJ)/%.o) $(FUZZ_LIB_CXX:%.cpp=$(FUZZ_OBJ)/%.o) \
                 $(patsubst $(LLHTTP_SRC_DIR)/%.c,$(FUZZ_OBJ)/llhttp/%.o,$(wildcard $(LLHTTP_SRC_DIR)/*.c)) \
                 $(GEN_C:$(BUILD)/gen/%.c=$(FUZZ_OBJ)/gen/%.o)

.PHONY: fuzz fuzz-build fuzz-smoke

fuzz-build: $(FUZZ_BINS)

$(FUZZ_LIB): $(FUZZ_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(FUZZ_LIB_C:%.c=$(FUZZ_OBJ)/%.o): $(FUZZ_OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_LIB_CFLAGS) -MMD -MP -c $< -o $@

$(FUZZ_LIB_CXX:%.cpp=$(FUZZ_OBJ)/%.o): $(FUZZ_OBJ)/%.o: %.cpp
	@mkdir -p $(dir $@)
	$(FUZZ_CXX) $(FUZZ_CPPFLAGS) $(FUZZ_LIB_CXXFLAGS) -MMD -MP -c $< -o $@

$(FUZZ_OBJ)/llhttp/%.o: $(LLHTTP_SRC_DIR)/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -I$(LLHTTP_INC_DIR) -std=c11 $(FUZZ_OPT) $(FUZZ_SAN) -fsanitize=fuzzer-no-link -w -c $< -o $@

# The generated C (migrations, web client, scenarios, OpenAPI) is the main build's, recompiled.
$(FUZZ_OBJ)/gen/%.o: $(BUILD)/gen/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_LIB_CFLAGS) -c $< -o $@

# Linked with clang++ so that UBSan's C++ runtime parts (the shim) are there too.
$(FUZZ_BIN)/%: fuzz/%.c $(FUZZ_LIB)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) -MMD -MP -MT $@ -MF $(FUZZ_OBJ)/$*.d -c $< -o $(FUZZ_OBJ)/$*.o
	$(FUZZ_CXX) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $(FUZZ_OBJ)/$*.o $(FUZZ_LIB) $(FUZZ_LDLIBS)

# Runtime options: leaks are findings; a hang of more than FUZZ_TIMEOUT seconds on one input too.
FUZZ_TIMEOUT  ?= 10
FUZZ_ENV      := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:allocator_may_return_null=1 \
                 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# One target per line of `xargs -P$(FUZZ_JOBS)`: $1 = target:max_len, $2 = seconds, $3 = mode,
# $4 = this invocation's directory (its own, so that two makes running at once do not mix
# results). mode smoke: replay regressions + corpus, then fuzz into a scratch corpus under $4;
# mode long: fuzz only, new inputs kept in build/fuzz/corpus/<target>/. Writes $4/<t>.result.
define FUZZ_ONE
t=$${1%%:*}; len=$${1#*:}; secs=$$2; mode=$$3; out=$$4; \
bin=$(FUZZ_BIN)/$$t; log=$$out/$$t.log; res=$$out/$$t.result; \
if [ $$mode = smoke ]; then scratch=$$out/corpus/$$t; else scratch=$(FUZZ_DIR)/corpus/$$t; fi; \
crashes=$(FUZZ_DIR)/crashes/$$t; mkdir -p $$out $$scratch $$crashes; : > $$log; \
status=passed; why=; nrep=0; \
if [ $$mode = smoke ]; then \
  files=$$(find fuzz/regressions/$$t fuzz/corpus/$$t -type f 2>/dev/null | sort); \
  nrep=$$(printf "%s\n" "$$files" | grep -c . || true); \
  if [ -n "$$files" ]; then \
    $(FUZZ_ENV) $$bin -timeout=$(FUZZ_TIMEOUT) -artifact_prefix=$$crashes/ $$files >>$$log 2>&1 \
      || { status=FAILED; why=" replay failed: $$(grep "^Running: " $$log | tail -1 | sed "s/^Running: //") (log $$log)"; }; \
  fi; \
fi; \
if [ $$status = passed ]; then \
  $(FUZZ_ENV) $$bin -max_total_time=$$secs -max_len=$$len -timeout=$(FUZZ_TIMEOUT) \
    -artifact_prefix=$$crashes/ -print_final_stats=1 $$scratch fuzz/corpus/$$t >>$$log 2>&1 \
    || { status=FAILED; why=" crash: $$(grep -o "Test unit written to [^ ]*" $$log | tail -1 | sed "s/.* to //") (log $$log)"; }; \
fi; \
runs=$$(grep -o "stat::number_of_executed_units: *[0-9]*" $$log | tail -1 | grep -o "[0-9]*$$"); \
eps=$$(grep -o "stat::average_exec_per_sec: *[0-9]*" $$log | tail -1 | grep -o "[0-9]*$$"); \
echo "$$t: $$status (replayed $$nrep, fuzzed $${secs}s: $${runs:-0} runs, $${eps:-0} exec/s)$$why" > $$res; \
cat $$res; [ $$status = passed ]
endef

# $1 = the invocation's directory (a shell expression). Prints the per-target lines in order and
# the total; fails when any target failed.
define FUZZ_SUMMARY
pass=0; fail=0; for t in $(FUZZ_TARGETS); do \
  r=$(1)/$$t.result; \
  if [ -f $$r ] && grep -q ": passed" $$r; then pass=$$((pass+1)); else fail=$$((fail+1)); fi; \
  if [ -f $$r ]; then cat $$r; else echo "$$t: FAILED (did not run)"; fi; \
done; \
echo "fuzz targets: $$pass passed, $$fail failed"; [ $$fail -eq 0 ]
endef

fuzz-smoke:: fuzz-build
	@run=$(FUZZ_DIR)/smoke/run.$$$$; rm -rf $$run; mkdir -p $$run; \
	printf "%s\n" $(FUZZ_SPECS) | xargs -P$(FUZZ_JOBS) -I{} sh -c '$(FUZZ_ONE)' sh {} $(FUZZ_SMOKE_SECONDS) smoke $$run >/dev/null; \
	rm -rf $$run/corpus; $(call FUZZ_SUMMARY,$$run)

fuzz: fuzz-build
	@run=$(FUZZ_DIR)/long/run.$$$$; rm -rf $$run; mkdir -p $$run; \
	echo "fuzzing $(words $(FUZZ_TARGETS)) targets for $(FUZZ_SECONDS)s each, $(FUZZ_JOBS) at a time (logs: $$run/)"; \
	printf "%s\n" $(FUZZ_SPECS) | xargs -P$(FUZZ_JOBS) -I{} sh -c '$(FUZZ_ONE)' sh {} $(FUZZ_SECONDS) long $$run; \
	$(call FUZZ_SUMMARY,$$run)

-include $(shell find $(FUZZ_OBJ) -name '*.d' 2>/dev/null)
