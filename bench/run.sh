#!/usr/bin/env bash
# Umpire benchmark: everything measured side by side in one run, on loopback, with wrk.
# Run through `make bench` (installs wrk/nginx, builds the release build/umpired), or directly
# after `make all`. Environment:
#   BENCH_SECONDS (10)      wrk duration of each HTTP figure (1..300)
#   BENCH_CONNECTIONS (50)  wrk connections (1..10000); wrk threads: BENCH_THREADS (2)
#   BENCH_STORAGE_SECONDS (5)  duration of each SQLite ceiling mode (1..60)
#   BENCH_TMPDIR (build/bench) where the databases live: must be the disk you care about
# Prints one table; the same text goes to build/bench/results-latest.txt. See bench/README.md.
# Performance is measured and reported, never asserted: the exit status is 0 unless a step
# could not run at all.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

num() { # name value min max
  [[ $2 =~ ^[0-9]+$ ]] && (($2 >= $3 && $2 <= $4)) || { echo "bench: $1=$2 must be $3..$4" >&2; exit 2; }
}
SECS=${BENCH_SECONDS:-10}; num BENCH_SECONDS "$SECS" 1 300
CONNS=${BENCH_CONNECTIONS:-50}; num BENCH_CONNECTIONS "$CONNS" 1 10000
THREADS=${BENCH_THREADS:-2}; num BENCH_THREADS "$THREADS" 1 64
((THREADS > CONNS)) && THREADS=$CONNS
SSECS=${BENCH_STORAGE_SECONDS:-5}; num BENCH_STORAGE_SECONDS "$SSECS" 1 60
IDLE_N=1000
SESS_N=1000
ODDS_REPS=5

UMPIRED=${UMPIRED:-build/umpired}
OUTDIR=build/bench
mkdir -p "$OUTDIR"
TMPBASE=${BENCH_TMPDIR:-$OUTDIR}
mkdir -p "$TMPBASE"
for tool in wrk nginx curl python3 cc; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is missing (run scripts/install-deps --bench)" >&2; exit 1; }
done
[[ -x $UMPIRED ]] || { echo "bench: $UMPIRED is missing (make all)" >&2; exit 1; }

work=$(mktemp -d "$TMPBASE/run.XXXXXX")
work=$(cd "$work" && pwd)
ngdir=$(mktemp -d /tmp/umpire-bench-nginx.XXXXXX)
ump_pid="" ng_pid=""
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  for p in $ump_pid $ng_pid; do kill -TERM "$p" 2>/dev/null || true; done
  for p in $ump_pid $ng_pid; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  rm -rf "$work" "$ngdir"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# 1000 idle connections plus wrk's: raise the soft limit on open files (up to the hard one).
want=8192
hard=$(ulimit -Hn)
if [[ $hard == unlimited ]] || ((hard >= want)); then
  (($(ulimit -Sn) < want)) && ulimit -Sn "$want"
else
  ulimit -Sn "$hard"
  ((hard < IDLE_N + CONNS + 64)) && { IDLE_N=$((hard - CONNS - 64)); echo "bench: open files limited to $hard; idle connections: $IDLE_N" >&2; }
fi

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
wait_http() { # url pid
  for _ in $(seq 100); do
    curl -sf -o /dev/null "$1" && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

# ---- helpers built from bench/ ------------------------------------------------------------
cc -O2 -Wall -o "$work/sqlite_ceiling" bench/sqlite_ceiling.c -lsqlite3
cc -O2 -Wall -shared -fPIC -o "$work/fsync_count.so" bench/fsync_count.c -ldl

# ---- nginx: the HTTP ceiling --------------------------------------------------------------
ng_port=$(free_port)
# A fixed 200-byte JSON body.
body=$(python3 -c 'import json; b={"status":"ok","version":"0.0.0","pad":""}; n=200-len(json.dumps(b,separators=(",",":"))); b["pad"]="x"*n; s=json.dumps(b,separators=(",",":")); assert len(s)==200; print(s)')
mkdir -p "$ngdir/tmp" "$ngdir/logs"
cat >"$ngdir/nginx.conf" <<NGINX
daemon off;
worker_processes auto;
pid $ngdir/nginx.pid;
error_log $ngdir/logs/error.log warn;
events { worker_connections 8192; }
http {
  access_log off;
  keepalive_requests 100000000;
  client_body_temp_path $ngdir/tmp/body;
  proxy_temp_path $ngdir/tmp/proxy;
  fastcgi_temp_path $ngdir/tmp/fastcgi;
  uwsgi_temp_path $ngdir/tmp/uwsgi;
  scgi_temp_path $ngdir/tmp/scgi;
  server {
    listen 127.0.0.1:$ng_port;
    location = /health { default_type application/json; return 200 '$body'; }
  }
}
NGINX
as_user=()
if (($(id -u) == 0)); then # unprivileged: never run the ceiling as root
  chown -R nobody:nogroup "$ngdir"
  as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
fi
"${as_user[@]}" nginx -p "$ngdir/" -c "$ngdir/nginx.conf" -e "$ngdir/logs/error.log" 2>"$ngdir/logs/stderr" &
ng_pid=$!
wait_http "http://127.0.0.1:$ng_port/health" "$ng_pid" || { echo "bench: nginx did not start:" >&2; cat "$ngdir/logs/"* >&2; exit 1; }

# ---- umpired ------------------------------------------------------------------------------
ump_port=$(free_port)
cat >"$work/umpire.toml" <<TOML
[server]
listen = "127.0.0.1:$ump_port"
max_connections = $((IDLE_N + CONNS + 1024))
[storage]
db = "$work/umpire.db"
synchronous = "full"
[log]
access_log = false
TOML
BENCH_FSYNC_FILE=$work/fsyncs LD_PRELOAD=$work/fsync_count.so \
  "$UMPIRED" --config "$work/umpire.toml" 2>"$work/umpired.log" &
ump_pid=$!
base="http://127.0.0.1:$ump_port"
wait_http "$base/v1/health" "$ump_pid" || { echo "bench: umpired did not start:" >&2; cat "$work/umpired.log" >&2; exit 1; }
python3 bench/bench.py setup "$ump_port" "$work"

# ---- output -------------------------------------------------------------------------------
res=$OUTDIR/results-latest.txt
: >"$res.tmp"
out() { printf "$@" | tee -a "$res.tmp"; }
warnings=()

ceiling=""
WRK_OUT=""
# run_wrk NAME LUA URL: one table row; sets R_RPS R_OK (2xx responses).
run_wrk() {
  local name=$1 lua=$2 url=$3 args=()
  [[ $lua != - ]] && args=(-s "$work/$lua")
  WRK_OUT=$(wrk -t"$THREADS" -c"$CONNS" -d"${SECS}s" --timeout 10s --latency "${args[@]}" "$url" 2>&1) || {
    echo "bench: wrk failed for $name:" >&2; echo "$WRK_OUT" >&2; exit 1; }
  local rps p50 p99 non2xx total sockerr ratio
  rps=$(awk '/^Requests\/sec/ {print $2}' <<<"$WRK_OUT")
  p50=$(awk '$1=="50%" {print $2}' <<<"$WRK_OUT")
  p99=$(awk '$1=="99%" {print $2}' <<<"$WRK_OUT")
  non2xx=$(awk '/Non-2xx or 3xx/ {print $NF}' <<<"$WRK_OUT"); non2xx=${non2xx:-0}
  total=$(awk '/requests in/ {print $1}' <<<"$WRK_OUT")
  sockerr=$(grep -o 'Socket errors:.*' <<<"$WRK_OUT" || true)
  if [[ -z $ceiling ]]; then ceiling=$rps; ratio="1.000"; else
    ratio=$(awk -v a="$rps" -v b="$ceiling" 'BEGIN {printf "%.3f", a/b}'); fi
  out '%-34s %10.0f %9s %9s %8s %7s\n' "$name" "$rps" "$p50" "$p99" "$non2xx" "$ratio"
  ((non2xx == 0)) || warnings+=("WARNING: $name: $non2xx non-2xx responses of $total")
  [[ -z $sockerr ]] || warnings+=("WARNING: $name: $sockerr")
  R_RPS=$rps
  R_OK=$((total - non2xx))
}

cores=$(nproc)
out 'Umpire benchmark: umpired %s, %s cores, wrk -t%s -c%s -d%ss, loopback, %s\n' \
  "$("$UMPIRED" --version | awk '{print $2}')" "$cores" "$THREADS" "$CONNS" "$SECS" "$(date -u +%Y-%m-%dT%H:%MZ)"
out 'umpired: synchronous=FULL, access_log=false, database on %s (%s); load average at start: %s\n' \
  "$TMPBASE" "$(df -T "$work" | awk 'NR==2 {print $2}')" "$(cut -d' ' -f1-3 /proc/loadavg)"
out '\n%-34s %10s %9s %9s %8s %7s\n' "name" "req/s" "p50" "p99" "non-2xx" "ratio"
run_wrk "nginx /health (ceiling, 200 B)" - "http://127.0.0.1:$ng_port/health"
kill -TERM "$ng_pid" 2>/dev/null || true; wait "$ng_pid" 2>/dev/null || true; ng_pid=""

roll_rps="" durable_lines=() cpu_lines=()
while IFS=$'\t' read -r name lua path; do
  if [[ $name == *"(durable)" ]]; then
    sleep 0.5 # let the previous figure's tail commit
    read -r w0 o0 _ < <(python3 bench/bench.py fsyncs "$work/fsyncs")
    python3 bench/bench.py threads "$ump_pid" >"$work/cpu0"
    run_wrk "$name" "$lua" "$base$path"
    python3 bench/bench.py threads "$ump_pid" >"$work/cpu1"
    cpu_lines+=("$(printf '%s: %s' "${name% (durable)}" "$(python3 bench/bench.py per_action "$work/cpu0" "$work/cpu1" "$R_OK")")")
    sleep 0.5
    read -r w1 o1 _ < <(python3 bench/bench.py fsyncs "$work/fsyncs")
    [[ -z $roll_rps ]] && roll_rps=$R_RPS
    if [[ $w0 != - ]]; then
      tx=$(((w1 - w0) - (o1 - o0)))
      durable_lines+=("$(printf '%s: %d actions acknowledged, ~%d transactions (%d WAL syncs - %d checkpoint syncs), %.1f actions/transaction' \
        "${name% (durable)}" "$R_OK" "$tx" "$((w1 - w0))" "$((o1 - o0))" "$(awk -v a="$R_OK" -v t="$tx" 'BEGIN {print (t>0 ? a/t : 0)}')")")
    fi
  else
    run_wrk "$name" "$lua" "$base$path"
  fi
done <"$work/targets.tsv"
read -r _ hwm_load < <(python3 bench/bench.py rss "$ump_pid")

# ---- storage ceiling ----------------------------------------------------------------------
ceil_out=$("$work/sqlite_ceiling" "$work/ceiling.db" "$SSECS")
single=$(awk '$1=="single" {print $2}' <<<"$ceil_out")
batch=$(awk '$1=="batch64" {print $2}' <<<"$ceil_out")
rm -f "$work"/ceiling*.db*
out '\nStorage ceiling (SQLite %s, WAL, synchronous=FULL, ~600-byte rows, %ss each):\n' "$(python3 -c 'import sqlite3; print(sqlite3.sqlite_version)')" "$SSECS"
out '  (a) 1 INSERT per transaction:   %10.0f inserts/s\n' "$single"
out '  (b) 64 INSERTs per transaction: %10.0f inserts/s\n' "$batch"
out '  durable generic roll: %.0f req/s = %.3f x (a), %.3f x (b)\n' "$roll_rps" \
  "$(awk -v r="$roll_rps" -v s="$single" 'BEGIN {print r/s}')" "$(awk -v r="$roll_rps" -v s="$batch" 'BEGIN {print r/s}')"

out '\nGroup commit during the durable runs (fsync counts from LD_PRELOAD bench/fsync_count.c; the daemon logs no writer stats):\n'
if ((${#durable_lines[@]})); then for l in "${durable_lines[@]}"; do out '  %s\n' "$l"; done
else out '  not measured (counter file unreadable)\n'; fi

out '\nCPU per durable action, by umpired thread (microseconds; /proc/PID/task/*/stat over the wrk run):\n'
for l in "${cpu_lines[@]}"; do out '  %s\n' "$l"; done

# ---- memory -------------------------------------------------------------------------------
read -r idle_kib idle_b idle_a < <(python3 bench/bench.py idle "$ump_port" "$ump_pid" "$IDLE_N")
read -r sess_kib sess_b sess_a act_kib act_a < <(python3 bench/bench.py sessions "$ump_port" "$ump_pid" "$SESS_N")
read -r rss_end hwm_end < <(python3 bench/bench.py rss "$ump_pid")
out '\nMemory (umpired, /proc/PID/status):\n'
out '  peak RSS (VmHWM) after the HTTP runs: %d KiB; at the end: %d KiB (current RSS %d KiB)\n' "$hwm_load" "$hwm_end" "$rss_end"
out '  per idle keep-alive connection: %s KiB (%d connections, one request each; RSS %d -> %d KiB)\n' "$idle_kib" "$IDLE_N" "$idle_b" "$idle_a"
out '  per session, stored (not cached): %s KiB (%d created + each read once by GET, which reads SQLite; RSS %d -> %d KiB)\n' "$sess_kib" "$SESS_N" "$sess_b" "$sess_a"
if [[ -f server/session_cache.h ]]; then cache="the writer caches session rows it writes: server/session_cache.h, $(awk '/define SESSION_CACHE_SLOTS/ {print $3}' server/session_cache.h) direct-mapped slots"; else cache="no session cache in this build"; fi
out '  per session, after one roll each (%s): +%s KiB more (RSS %d -> %d KiB)\n' "$cache" "$act_kib" "$sess_a" "$act_a"

# ---- odds ---------------------------------------------------------------------------------
out '\nOdds (exact enumeration, median of %d requests, wall time per request incl. HTTP):\n' "$ODDS_REPS"
while IFS=$'\t' read -r rs obody n rate ms; do
  out '  %-10s %-34s %8s combinations  %12.0f enumerations/s  (%s ms)\n' "$rs" "$obody" "$n" "$rate" "$ms"
done < <(python3 bench/bench.py odds "$ump_port" "$work" "$ODDS_REPS")
while read -r note; do [[ -n $note ]] && out '  %s\n' "$note"; done <"$work/notes.txt"

# ---- shutdown: SIGTERM, and any writer statistics the daemon logs ---------------------------
kill -TERM "$ump_pid"
for _ in $(seq 150); do kill -0 "$ump_pid" 2>/dev/null || break; sleep 0.1; done
ump_rc=0; wait "$ump_pid" || ump_rc=$?; ump_pid=""
stats=$(grep -iE 'writer.*(commit|transaction)|group.commit' "$work/umpired.log" || true)
if [[ -n $stats ]]; then out '\nDaemon writer stats at shutdown:\n'; while read -r l; do out '  %s\n' "$l"; done <<<"$stats"; fi
((ump_rc == 0)) || warnings+=("WARNING: umpired exited $ump_rc on SIGTERM")

# ---- the cost of durability: the same roll on a daemon that does not fsync its commits ------
# Not a figure of Umpire as shipped (its default is synchronous=FULL and a 2xx means "on disk");
# it tells how much of the durable figure is the fsync and how much is CPU.
nrm_port=$(free_port)
mkdir -p "$work/normal"
sed -e "s/127.0.0.1:$ump_port/127.0.0.1:$nrm_port/" -e 's/synchronous = "full"/synchronous = "normal"/' \
  -e "s|$work/umpire.db|$work/normal/umpire.db|" "$work/umpire.toml" >"$work/normal/umpire.toml"
"$UMPIRED" --config "$work/normal/umpire.toml" 2>"$work/normal/umpired.log" &
ump_pid=$!
wait_http "http://127.0.0.1:$nrm_port/v1/health" "$ump_pid" || { echo "bench: umpired (normal) did not start:" >&2; cat "$work/normal/umpired.log" >&2; exit 1; }
python3 bench/bench.py setup "$nrm_port" "$work/normal" >/dev/null
IFS=$'\t' read -r _ nlua npath < <(grep '^POST generic roll' "$work/normal/targets.tsv")
out '\nThe cost of durability (the generic roll again, on a second daemon with synchronous=NORMAL:\n'
out 'commits are not fsynced, so a 2xx there is NOT durable; shown only to split the durable figure\n'
out 'into fsync and CPU):\n'
python3 bench/bench.py threads "$ump_pid" >"$work/cpu0"
run_wrk "POST generic roll (NORMAL, no fsync)" "normal/$nlua" "http://127.0.0.1:$nrm_port$npath"
python3 bench/bench.py threads "$ump_pid" >"$work/cpu1"
out '  durable / not durable: %.3f; CPU per action: %s\n' "$(awk -v a="$roll_rps" -v b="$R_RPS" 'BEGIN {print (b > 0 ? a/b : 0)}')" \
  "$(python3 bench/bench.py per_action "$work/cpu0" "$work/cpu1" "$R_OK")"
kill -TERM "$ump_pid" 2>/dev/null || true; wait "$ump_pid" 2>/dev/null || true; ump_pid=""

if ((${#warnings[@]})); then out '\n'; for w in "${warnings[@]}"; do out '%s\n' "$w"; done; fi
mv "$res.tmp" "$res"
echo "(also written to $res)"
