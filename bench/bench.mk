# Benchmark (included by the Makefile; not part of `make test`). See bench/README.md.
#   make bench                          wrk -t2 -c50 -d10s per figure
#   make bench BENCH_SECONDS=5 BENCH_CONNECTIONS=100
#   make bench-peer                     only the live fan-out and boardgame.io peer rows
# Output: one table on stdout and in build/bench/results-latest.txt.
BENCH_SECONDS ?= 10
BENCH_CONNECTIONS ?= 50

bench:
	@scripts/install-deps --bench
	@$(MAKE) --no-print-directory BUILD=build SAN=0 all
	@BENCH_SECONDS=$(BENCH_SECONDS) BENCH_CONNECTIONS=$(BENCH_CONNECTIONS) UMPIRED=build/umpired bench/run.sh

# The live fan-out rows and the boardgame.io peer rows alone (bench/peer/run_peer.sh; needs node
# and npm; boardgame.io comes from the npm registry, pinned by bench/peer/package-lock.json).
.PHONY: bench-peer
bench-peer:
	@$(MAKE) --no-print-directory BUILD=build SAN=0 all
	@mkdir -p build/bench && : >build/bench/peer-latest.txt
	@BENCH_SECONDS=$(BENCH_SECONDS) PEER_RESULTS=build/bench/peer-latest.txt UMPIRED=build/umpired bench/peer/run_peer.sh all

# Ordinary traffic with and without each attack of the open-internet issue, side by side
# (bench/hostile_bench.py). HOSTILE_SECONDS per measurement.
HOSTILE_SECONDS ?= 5
hostile-bench:
	@$(MAKE) --no-print-directory BUILD=build SAN=0 all
	@mkdir -p build/bench
	@UMPIRED=build/umpired $(PYTHON) bench/hostile_bench.py $(HOSTILE_SECONDS) | tee build/bench/hostile-latest.txt
