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
