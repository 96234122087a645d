# Benchmark (included by the Makefile; not part of `make test`). See bench/README.md.
#   make bench                          wrk -t2 -c50 -d10s per figure
#   make bench BENCH_SECONDS=5 BENCH_CONNECTIONS=100
# Output: one table on stdout and in build/bench/results-latest.txt.
BENCH_SECONDS ?= 10
BENCH_CONNECTIONS ?= 50

bench:
	@scripts/install-deps --bench
	@$(MAKE) --no-print-directory BUILD=build SAN=0 all
	@BENCH_SECONDS=$(BENCH_SECONDS) BENCH_CONNECTIONS=$(BENCH_CONNECTIONS) UMPIRED=build/umpired bench/run.sh

# Ordinary traffic with and without each attack of the open-internet issue, side by side
# (bench/hostile_bench.py). HOSTILE_SECONDS per measurement.
HOSTILE_SECONDS ?= 5
hostile-bench:
	@$(MAKE) --no-print-directory BUILD=build SAN=0 all
	@mkdir -p build/bench
	@UMPIRED=build/umpired $(PYTHON) bench/hostile_bench.py $(HOSTILE_SECONDS) | tee build/bench/hostile-latest.txt
