#!/usr/bin/env bash
# Umpire benchmark: everything measured side by side in one run, on loopback, with wrk.
# Run through `make bench` (installs wrk/nginx/PostgreSQL, builds the release build/umpired), or
# directly after `make all`. The last section runs one and two umpired nodes on a PostgreSQL
# server the script starts itself (bench/pg_cluster.py, durable settings); then the live fan-out
# rows and the boardgame.io peer rows (bench/peer/run_peer.sh, which also runs alone). Environment:
#   BENCH_SECONDS (10)      wrk duration of each HTTP figure (1..300)
#   BENCH_CONNECTIONS (50)  wrk connections (1..10000); wrk threads: BENCH_THREADS (2)
#   BENCH_STORAGE_SECONDS (5)  duration of each SQLite ceiling mode (1..60)
#   BENCH_TMPDIR (build/bench) where the databases live (SQLite's and the PostgreSQL cluster's):
#                           must be the disk you care about
#   PEER_SECONDS (BENCH_SECONDS/2)  measured seconds of each fan-out and peer row
#   BENCH_PEER (1)          0 leaves out the fan-out and peer rows
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
# The PostgreSQL rows start a server of their own (bench/pg_cluster.py): its binaries must be here.
python3 bench/pg_cluster.py bindir >/dev/null || { echo "bench: no PostgreSQL server (run scripts/install-deps --bench)" >&2; exit 1; }
(($(id -u) != 0)) || command -v runuser >/dev/null || { echo "bench: runuser is missing (PostgreSQL cannot run as root)" >&2; exit 1; }

work=$(mktemp -d "$TMPBASE/run.XXXXXX")
work=$(cd "$work" && pwd)
ngdir=$(mktemp -d /tmp/umpire-bench-nginx.XXXXXX)
ump_pid="" ng_pid="" pga_pid="" pgb_pid="" wrk_pids="" pgdir="" peer_pid=""
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  # bench/peer/run_peer.sh stops its own daemons and load generators on SIGTERM (its EXIT trap).
  for p in $peer_pid $wrk_pids $ump_pid $pga_pid $pgb_pid $ng_pid; do kill -TERM "$p" 2>/dev/null || true; done
  for p in $peer_pid $wrk_pids $ump_pid $pga_pid $pgb_pid $ng_pid; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  # The PostgreSQL server (after its clients): fast shutdown, then immediate, then SIGKILL.
  [[ -z $pgdir ]] || python3 bench/pg_cluster.py stop "$pgdir" || true
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

source bench/net.sh # free_port, wait_http

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
# wrk is one client doing the work of many: the per-address rates of [limits] are lifted, and so
# are the bounds of one session, which each run fills with well over 100,000 actions.
LIFTED_LIMITS="[limits]
create_per_minute = 1000000
create_burst = 1000000
actions_per_minute = 100000000
actions_burst = 1000000
odds_per_minute = 1000000
odds_burst = 1000000
verify_per_minute = 1000000
verify_burst = 1000000
max_events_per_session = 1000000000
max_session_bytes = 68719476736"
ump_port=$(free_port)
cat >"$work/umpire.toml" <<TOML
[server]
listen = "127.0.0.1:$ump_port"
max_connections = $((IDLE_N + CONNS + 1024))
max_connections_per_client = 1048576
[storage]
db = "$work/umpire.db"
synchronous = "full"
[log]
access_log = false
$LIFTED_LIMITS
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
# wrk_parse OUTPUT: sets W_RPS W_P50 W_P99 (as wrk prints them) W_NON2XX W_TOTAL W_SOCKERR.
wrk_parse() {
  W_RPS=$(awk '/^Requests\/sec/ {print $2}' <<<"$1")
  W_P50=$(awk '$1=="50%" {print $2}' <<<"$1")
  W_P99=$(awk '$1=="99%" {print $2}' <<<"$1")
  W_NON2XX=$(awk '/Non-2xx or 3xx/ {print $NF}' <<<"$1"); W_NON2XX=${W_NON2XX:-0}
  W_TOTAL=$(awk '/requests in/ {print $1}' <<<"$1")
  W_SOCKERR=$(grep -o 'Socket errors:.*' <<<"$1" || true)
}
# row NAME RPS P50 P99 NON2XX TOTAL SOCKERR: prints one table row; sets R_RPS R_OK (2xx responses).
row() {
  local name=$1 rps=$2 p50=$3 p99=$4 non2xx=$5 total=$6 sockerr=$7 ratio
  if [[ -z $ceiling ]]; then ceiling=$rps; ratio="1.000"; else
    ratio=$(awk -v a="$rps" -v b="$ceiling" 'BEGIN {printf "%.3f", a/b}'); fi
  out '%-44s %10.0f %9s %9s %8s %7s\n' "$name" "$rps" "$p50" "$p99" "$non2xx" "$ratio"
  ((non2xx == 0)) || warnings+=("WARNING: $name: $non2xx non-2xx responses of $total")
  [[ -z $sockerr ]] || warnings+=("WARNING: $name: $sockerr")
  R_RPS=$rps
  R_OK=$((total - non2xx))
}
# run_wrk NAME LUA URL: one wrk, one table row; sets R_RPS R_OK.
run_wrk() {
  local name=$1 lua=$2 url=$3 args=()
  [[ $lua != - ]] && args=(-s "$work/$lua")
  WRK_OUT=$(wrk -t"$THREADS" -c"$CONNS" -d"${SECS}s" --timeout 10s --latency "${args[@]}" "$url" 2>&1) || {
    echo "bench: wrk failed for $name:" >&2; echo "$WRK_OUT" >&2; exit 1; }
  wrk_parse "$WRK_OUT"
  row "$name" "$W_RPS" "$W_P50" "$W_P99" "$W_NON2XX" "$W_TOTAL" "$W_SOCKERR"
}
# A wrk latency ("812.00us", "14.62ms", "1.20s", "2.00m") in microseconds.
lat_us() { awk -v s="$1" 'BEGIN { v = s + 0; if (s ~ /us$/) f = 1; else if (s ~ /ms$/) f = 1e3;
  else if (s ~ /m$/) f = 60e6; else if (s ~ /s$/) f = 1e6; else f = 1; printf "%.0f", v * f }'; }
# run_wrk2 NAME LUA_A URL_A LUA_B URL_B: two wrk processes at once (-t1 each; BENCH_CONNECTIONS
# split between them), one table row: req/s and non-2xx summed, p50/p99 the higher of the two.
# Sets R_RPS R_OK, and R_A R_B (each wrk's req/s, p50, p99, 2xx).
run_wrk2() {
  local name=$1 ca=$(((CONNS + 1) / 2)) cb=$((CONNS / 2)) pa pb fa=0 fb=0
  ((cb >= 1)) || cb=1
  wrk -t1 -c"$ca" -d"${SECS}s" --timeout 10s --latency -s "$work/$2" "$3" >"$work/wrk_a.out" 2>&1 &
  pa=$!
  wrk -t1 -c"$cb" -d"${SECS}s" --timeout 10s --latency -s "$work/$4" "$5" >"$work/wrk_b.out" 2>&1 &
  pb=$!
  wrk_pids="$pa $pb"
  wait "$pa" || fa=$?
  wait "$pb" || fb=$?
  wrk_pids=""
  ((fa == 0 && fb == 0)) || { echo "bench: wrk failed for $name:" >&2; cat "$work/wrk_a.out" "$work/wrk_b.out" >&2; exit 1; }
  local rps=0 p50="" p99="" p50u=-1 p99u=-1 non2xx=0 total=0 sockerr="" side
  R_A="" R_B=""
  for side in a b; do
    wrk_parse "$(cat "$work/wrk_$side.out")"
    rps=$(awk -v a="$rps" -v b="$W_RPS" 'BEGIN {printf "%.2f", a + b}')
    (($(lat_us "$W_P50") > p50u)) && { p50u=$(lat_us "$W_P50"); p50=$W_P50; }
    (($(lat_us "$W_P99") > p99u)) && { p99u=$(lat_us "$W_P99"); p99=$W_P99; }
    non2xx=$((non2xx + W_NON2XX)); total=$((total + W_TOTAL))
    [[ -z $W_SOCKERR ]] || sockerr="${sockerr:+$sockerr; }wrk $side: $W_SOCKERR"
    printf -v "R_${side^^}" '%.0f req/s, p50 %s, p99 %s, %d 2xx' "$W_RPS" "$W_P50" "$W_P99" "$((W_TOTAL - W_NON2XX))"
    printf -v "R_OK_${side^^}" '%d' "$((W_TOTAL - W_NON2XX))"
  done
  row "$name" "$rps" "$p50" "$p99" "$non2xx" "$total" "$sockerr"
}

cores=$(nproc)
out 'Umpire benchmark: umpired %s, %s cores, wrk -t%s -c%s -d%ss, loopback, %s\n' \
  "$("$UMPIRED" --version | awk '{print $2}')" "$cores" "$THREADS" "$CONNS" "$SECS" "$(date -u +%Y-%m-%dT%H:%MZ)"
out 'umpired: synchronous=FULL, access_log=false, database on %s (%s); load average at start: %s\n' \
  "$TMPBASE" "$(df -T "$work" | awk 'NR==2 {print $2}')" "$(cut -d' ' -f1-3 /proc/loadavg)"
out '\n%-44s %10s %9s %9s %8s %7s\n' "name" "req/s" "p50" "p99" "non-2xx" "ratio"
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
if [[ -f server/store/session_cache.h ]]; then cache="the writer caches session rows it writes: server/store/session_cache.h, $(awk '/define SESSION_CACHE_SLOTS/ {print $3}' server/store/session_cache.h) direct-mapped slots"; else cache="no session cache in this build"; fi
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

# ---- PostgreSQL: one node, then two nodes sharing the database ----------------------------
# A server of the bench's own (bench/pg_cluster.py) in $work/pg, durable: fsync, synchronous_commit
# and full_page_writes on, so a node's 200 means the action's commit reached the disk.
PG_READ_THREADS=4 # each node opens read_threads + 2 connections (readers, writer, listener)
pgdir=$work/pg
pg_uri=""
read -r _ pg_uri < <(python3 bench/pg_cluster.py start "$pgdir" "$((2 * (PG_READ_THREADS + 2) + 10))" "$work/fsync_count.so") || true
[[ -n $pg_uri ]] || { echo "bench: PostgreSQL did not start" >&2; cat "$pgdir/postgres.log" >&2 2>/dev/null || true; exit 1; }
pg_sql() { python3 bench/pg_cluster.py sql "$pgdir" "$1"; }
read -r pg_ver pg_fsync pg_sc pg_fpw pg_wsm pg_mc < <(pg_sql "select split_part(current_setting('server_version'), ' ', 1),
  current_setting('fsync'), current_setting('synchronous_commit'), current_setting('full_page_writes'),
  current_setting('wal_sync_method'), current_setting('max_connections')")

# start_node NAME PIDVAR: umpired on the PostgreSQL database; sets PIDVAR (for the cleanup trap,
# at once), NODE_PORT and NODE_UP (seconds until /v1/health answered).
start_node() {
  local port t0
  port=$(free_port)
  cat >"$work/pg_$1.toml" <<TOML
[server]
listen = "127.0.0.1:$port"
max_connections = $((CONNS + 1024))
max_connections_per_client = 1048576
[storage]
read_threads = $PG_READ_THREADS
[log]
access_log = false
$LIFTED_LIMITS
TOML
  t0=$(date +%s.%N)
  "$UMPIRED" --config "$work/pg_$1.toml" --db "$pg_uri" 2>"$work/pg_$1.log" &
  printf -v "$2" '%s' "$!"
  wait_http "http://127.0.0.1:$port/v1/health" "${!2}" || {
    echo "bench: umpired (PostgreSQL, node $1) did not start:" >&2; cat "$work/pg_$1.log" >&2; exit 1; }
  NODE_PORT=$port
  NODE_UP=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
}
# pg_snap FILE PID...: CPU ticks of the nodes' threads (FILE.thr) and of postgres (FILE.pg), and
# postgres's sync counters (FILE.fs: wal other total).
pg_snap() {
  local f=$1 p; shift
  for p; do python3 bench/bench.py threads "$p"; done >"$f.thr"
  python3 bench/pg_cluster.py cpu "$pgdir" >"$f.pg"
  python3 bench/bench.py fsyncs "$pgdir/fsyncs" >"$f.fs"
}
hz=$(getconf CLK_TCK)
pg_cpu_lines=() pg_wal_lines=()
# pg_cost LABEL ACTIONS: one CPU line and one WAL-sync line from the snapshots $work/s0, $work/s1.
pg_cost() {
  local pgus w0 o0 w1 o1
  pgus=$(awk -v a="$(cat "$work/s0.pg")" -v b="$(cat "$work/s1.pg")" -v hz="$hz" -v n="$2" \
    'BEGIN {printf "%.1f", (b - a) * 1e6 / hz / (n > 0 ? n : 1)}')
  pg_cpu_lines+=("$(printf '%s: %s; postgres %s' "$1" "$(python3 bench/bench.py per_action "$work/s0.thr" "$work/s1.thr" "$2")" "$pgus")")
  read -r w0 o0 _ <"$work/s0.fs"; read -r w1 o1 _ <"$work/s1.fs"
  if [[ $w0 != - && $w1 != - ]]; then
    pg_wal_lines+=("$(printf '%s: %d actions acknowledged, %d WAL syncs (+%d other), %.1f actions/WAL sync' \
      "$1" "$2" "$((w1 - w0))" "$((o1 - o0))" "$(awk -v a="$2" -v t="$((w1 - w0))" 'BEGIN {print (t > 0 ? a / t : 0)}')")")
  fi
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", (b > 0 ? a / b : 0)}'; }

start_node A pga_pid
pga_port=$NODE_PORT pga_up=$NODE_UP
# One session per figure, all created through node A (a token works on every node).
read -r s_one t_one < <(python3 bench/bench.py setup_roll "$pga_port" "$work" pg_one)
read -r s_shared t_shared < <(python3 bench/bench.py setup_roll "$pga_port" "$work" pg_shared)
read -r s_a t_a < <(python3 bench/bench.py setup_roll "$pga_port" "$work" pg_a)
read -r s_b t_b < <(python3 bench/bench.py setup_roll "$pga_port" "$work" pg_b)

out '\nPostgreSQL (umpired --db postgresql://...: PostgreSQL %s on loopback, fsync=%s, synchronous_commit=%s,\n' "$pg_ver" "$pg_fsync" "$pg_sc"
out 'full_page_writes=%s, wal_sync_method=%s, max_connections=%s, cluster on %s (%s); each node\n' \
  "$pg_fpw" "$pg_wsm" "$pg_mc" "$TMPBASE" "$(df -T "$work" | awk 'NR==2 {print $2}')"
out 'read_threads=%d; 2-node rows: two wrk -t1 -c%d at once, req/s summed, p50/p99 the higher of the two):\n' \
  "$PG_READ_THREADS" "$(((CONNS + 1) / 2))"
sleep 0.5
pg_snap "$work/s0" "$pga_pid"
run_wrk "PostgreSQL, 1 node: POST generic roll" pg_one.lua "http://127.0.0.1:$pga_port/v1/sessions/$s_one/actions"
pg_snap "$work/s1" "$pga_pid"
pg1_rps=$R_RPS pg1_ok=$R_OK
pg_cost "1 node" "$R_OK"

start_node B pgb_pid
pgb_port=$NODE_PORT pgb_up=$NODE_UP
sleep 0.5
pg_snap "$work/s0" "$pga_pid" "$pgb_pid"
run_wrk2 "PostgreSQL, 2 nodes, one session" \
  pg_shared.lua "http://127.0.0.1:$pga_port/v1/sessions/$s_shared/actions" \
  pg_shared.lua "http://127.0.0.1:$pgb_port/v1/sessions/$s_shared/actions"
pg_snap "$work/s1" "$pga_pid" "$pgb_pid"
pg2s_rps=$R_RPS pg2s_ok=$R_OK pg2s_a=$R_A pg2s_b=$R_B
pg_cost "2 nodes, one session (A+B)" "$R_OK"
sleep 0.5
pg_snap "$work/s0" "$pga_pid" "$pgb_pid"
run_wrk2 "PostgreSQL, 2 nodes, two sessions" \
  pg_a.lua "http://127.0.0.1:$pga_port/v1/sessions/$s_a/actions" \
  pg_b.lua "http://127.0.0.1:$pgb_port/v1/sessions/$s_b/actions"
pg_snap "$work/s1" "$pga_pid" "$pgb_pid"
pg2d_rps=$R_RPS pg2d_a=$R_A pg2d_b=$R_B pg2d_ok_a=$R_OK_A pg2d_ok_b=$R_OK_B
pg_cost "2 nodes, two sessions (A+B)" "$R_OK"

out '  2 nodes, one session:  node A %s\n  %23s node B %s\n' "$pg2s_a" "" "$pg2s_b"
out '  2 nodes, two sessions: node A %s\n  %23s node B %s\n' "$pg2d_a" "" "$pg2d_b"
out '  PostgreSQL 1 node / durable SQLite roll: %s (%.0f / %.0f req/s)\n' "$(ratio "$pg1_rps" "$roll_rps")" "$pg1_rps" "$roll_rps"
out '  2 nodes / 1 node: one session %s, two sessions %s\n' "$(ratio "$pg2s_rps" "$pg1_rps")" "$(ratio "$pg2d_rps" "$pg1_rps")"
out '  note: both nodes, PostgreSQL and wrk share this machine'"'"'s %s cores, so the 2-node rows measure\n' "$cores"
out '  correctness under contention more than scale-out (bench/README.md)\n'
out '  nodes up (GET /v1/health answered): A %s s after start (migrating the empty database), B %s s\n' "$pga_up" "$pgb_up"

# Correctness, cheaply: every benched session's chain, verified through node B, must be intact
# and hold at least every action a 2xx acknowledged (more: requests in flight when wrk stopped).
out '\nPostgreSQL verification (GET /v1/sessions/{id}/verify through node B, after the runs):\n'
while read -r label sid tok acked; do
  st="" n="" rest=""
  read -r st n rest < <(python3 bench/bench.py verify "$pgb_port" "$sid" "$tok") || true
  if [[ $st == ok ]]; then
    out '  %-22s chain verified: %d events (%d actions acknowledged to wrk, + the creation)\n' "$label" "$n" "$acked"
    ((n - 1 >= acked)) || warnings+=("WARNING: PostgreSQL $label: $((n - 1)) actions in the log but $acked were acknowledged")
  else
    out '  %-22s NOT verified: %s %s\n' "$label" "$n" "$rest"
    warnings+=("WARNING: PostgreSQL $label: verify says $st $n $rest")
  fi
done <<VERIFY
1-node $s_one $t_one $pg1_ok
2-nodes-one-session $s_shared $t_shared $pg2s_ok
2-nodes-session-1(A) $s_a $t_a $pg2d_ok_a
2-nodes-session-2(B) $s_b $t_b $pg2d_ok_b
VERIFY

out '\nPostgreSQL group commit (fsync/fdatasync calls of the postgres processes, LD_PRELOAD\n'
out 'bench/fsync_count.c; WAL = files under pg_wal/, other = anything else, e.g. a checkpoint):\n'
if ((${#pg_wal_lines[@]})); then for l in "${pg_wal_lines[@]}"; do out '  %s\n' "$l"; done
else out '  not measured (counter file unreadable)\n'; fi
out '\nPostgreSQL CPU per action (microseconds over the wrk run; umpired by thread, /proc/PID/task/*/stat,\n'
out 'and all postgres processes, /proc/PID/stat of the postmaster and its children):\n'
for l in "${pg_cpu_lines[@]}"; do out '  %s\n' "$l"; done

# Shutdown: each node on SIGTERM, then PostgreSQL (the cleanup trap would, too).
for n in a b; do
  v=pg${n}_pid
  kill -TERM "${!v}" 2>/dev/null || true
  for _ in $(seq 150); do kill -0 "${!v}" 2>/dev/null || break; sleep 0.1; done
  rc=0; wait "${!v}" || rc=$?; printf -v "$v" '%s' ""
  ((rc == 0)) || warnings+=("WARNING: umpired (PostgreSQL, node ${n^^}) exited $rc on SIGTERM")
  bad=$(grep -cE '"level":"(warn|error)"' "$work/pg_${n^^}.log" || true)
  ((bad == 0)) || warnings+=("WARNING: umpired (PostgreSQL, node ${n^^}) logged $bad warn/error lines, the first: $(grep -m1 -E '"level":"(warn|error)"' "$work/pg_${n^^}.log")")
done
python3 bench/pg_cluster.py stop "$pgdir"
pgdir=""

# ---- live fan-out and the boardgame.io peer (bench/peer/run_peer.sh; bench/README.md 8, 9) ----
# Their own fresh daemons (and boardgame.io's server, installed by npm ci from
# bench/peer/package-lock.json); rows appended to the results as they come. A peer that cannot be
# installed (offline) is a line saying so, not a failure.
if [[ ${BENCH_PEER:-1} != 0 ]]; then
  peer_rc=0
  PEER_RESULTS="$res.tmp" UMPIRED="$UMPIRED" BENCH_SECONDS="$SECS" BENCH_TMPDIR="$TMPBASE" bench/peer/run_peer.sh all &
  peer_pid=$!
  wait "$peer_pid" || peer_rc=$?
  peer_pid=""
  ((peer_rc == 0)) || warnings+=("WARNING: bench/peer/run_peer.sh exited $peer_rc: the fan-out or peer rows are incomplete")
fi

if ((${#warnings[@]})); then out '\n'; for w in "${warnings[@]}"; do out '%s\n' "$w"; done; fi
mv "$res.tmp" "$res"
echo "(also written to $res)"
