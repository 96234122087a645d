#!/usr/bin/env bash
# Kept for compatibility: the benchmark is bench/run.sh (or `make bench`).
# Usage: bench/core.sh [seconds] [connections]
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_SECONDS=${1:-${BENCH_SECONDS:-10}} BENCH_CONNECTIONS=${2:-${BENCH_CONNECTIONS:-50}} exec bench/run.sh
