#!/usr/bin/env bash
# Core benchmark: wrk on loopback against a release build, in one run and side by side:
#   GET /v1/health, and a durable generic `roll` (synchronous=FULL: each 200 is committed).
# Usage: bench/core.sh [seconds] [connections]. Needs wrk (installed if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-10}
CONNS=${2:-50}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
make -s all

dir=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
build/umpired --listen 127.0.0.1:$port --db "$dir/bench.db" 2>"$dir/umpired.log" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/v1/health" >/dev/null && break; sleep 0.1; done

session=$(curl -sf -X POST "http://127.0.0.1:$port/v1/sessions" -H 'Content-Type: application/json' \
  -d '{"ruleset":"generic","sides":["a","b"],"dice":{"mode":"server"}}')
sid=$(echo "$session" | python3 -c 'import json,sys; print(json.load(sys.stdin)["session"]["id"])')
ref=$(echo "$session" | python3 -c 'import json,sys; print(json.load(sys.stdin)["tokens"]["referee"])')
cat > "$dir/roll.lua" <<LUA
wrk.method = "POST"
wrk.body = '{"type":"roll","expr":"2d6+1"}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer $ref"
LUA

run() { # name, then wrk arguments
  local name=$1; shift
  local out
  out=$(wrk -t2 -c"$CONNS" -d"${SECS}s" --latency "$@")
  local rps p50 p99 non2xx
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  p50=$(echo "$out" | awk '$1=="50%" {print $2}')
  p99=$(echo "$out" | awk '$1=="99%" {print $2}')
  non2xx=$(echo "$out" | awk '/Non-2xx/ {print $NF}')
  printf '%-28s %10s req/s   p50 %-8s p99 %-8s non-2xx %s\n' "$name" "$rps" "$p50" "$p99" "${non2xx:-0}"
}
echo "umpired $(build/umpired --version | cut -d' ' -f2), $CONNS connections, ${SECS}s each, $(nproc) cores"
run "GET /v1/health" "http://127.0.0.1:$port/v1/health"
run "POST roll (durable, FULL)" -s "$dir/roll.lua" "http://127.0.0.1:$port/v1/sessions/$sid/actions"
version=$(curl -sf "http://127.0.0.1:$port/v1/sessions/$sid" -H "Authorization: Bearer $ref" \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["session"]["version"])')
echo "session version after the run: $version (events committed)"
