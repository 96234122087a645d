#!/usr/bin/env bash
# The live fan-out rows and the boardgame.io peer rows of `make bench` (bench/README.md, sections
# 8 and 9), on their own: bench/run.sh calls this at its end; run it alone to redo just these.
#
#   UMPIRED=build/umpired bench/peer/run_peer.sh [all|fanout|peer]      (default: all)
#
# Environment:
#   UMPIRED (build/umpired)   the daemon to measure (a fresh one is started, on a free port)
#   PEER_SECONDS              measured seconds per run, after 1 s of warm-up (default: half of
#                             BENCH_SECONDS, which defaults to 10; 1..120)
#   FANOUT_SUBS ("0 100 1000") subscriber counts of the fan-out rows; FANOUT_POSTERS (8);
#                             FANOUT_SUB_WORKERS (2) threads of the load generator reading them;
#                             FANOUT_RATE (50) actions/s on A in the paced rows
#   PEER_CLIENTS (50)         clients of the peer rows
#   BGIO_CLIENT (raw)         lib: boardgame.io's own client (boardgame.io/client + SocketIO);
#                             raw: socket.io-client speaking boardgame.io's protocol, no redux
#   BENCH_TMPDIR (build/bench) where the daemon's database lives (durable: synchronous=FULL)
#   PEER_RESULTS              a file the output is appended to as well (bench/run.sh's results)
# Loopback only; every process started here is stopped by the EXIT trap. Measures, never judges:
# the exit status is 0 unless the daemon could not be started or a load generator run failed.
# If npm ci cannot install boardgame.io (offline, say), the peer rows say so and are skipped.
set -euo pipefail
cd "$(dirname "$0")/../.."
PEER_DIR=bench/peer

what=${1:-all}
case $what in all | fanout | peer) ;; *) echo "usage: $0 [all|fanout|peer]" >&2; exit 2 ;; esac
UMPIRED=${UMPIRED:-build/umpired}
bs=${BENCH_SECONDS:-10}
[[ $bs =~ ^[0-9]+$ ]] || bs=10
SECS=${PEER_SECONDS:-$(((bs + 1) / 2))}
[[ $SECS =~ ^[0-9]+$ ]] && ((SECS >= 1 && SECS <= 120)) || { echo "run_peer: PEER_SECONDS=$SECS must be 1..120" >&2; exit 2; }
SUBS=${FANOUT_SUBS:-0 100 1000}
max_subs=0
for n in $SUBS; do
  [[ $n =~ ^[0-9]+$ ]] && ((n <= 100000)) || { echo "run_peer: FANOUT_SUBS must be counts 0..100000 ($n)" >&2; exit 2; }
  ((n > max_subs)) && max_subs=$n
done
MAX_CONNS=$((2 * max_subs + 1024))
((MAX_CONNS >= 4096)) || MAX_CONNS=4096
POSTERS=${FANOUT_POSTERS:-8}
SUB_WORKERS=${FANOUT_SUB_WORKERS:-2}
RATE=${FANOUT_RATE:-50}
[[ $RATE =~ ^[0-9]+$ ]] && ((RATE >= 1 && RATE <= 100000)) || { echo "run_peer: FANOUT_RATE must be 1..100000 actions/s ($RATE)" >&2; exit 2; }
CLIENTS=${PEER_CLIENTS:-50}
BGIO_CLIENT=${BGIO_CLIENT:-raw}
case $BGIO_CLIENT in lib | raw) ;; *) echo "run_peer: BGIO_CLIENT=$BGIO_CLIENT must be lib or raw" >&2; exit 2 ;; esac
TMPBASE=${BENCH_TMPDIR:-build/bench}

out() { # printf-style; to stdout and to PEER_RESULTS
  if [[ -n ${PEER_RESULTS:-} ]]; then printf "$@" | tee -a "$PEER_RESULTS"; else printf "$@"; fi
}

if ! command -v node >/dev/null; then
  out '\nLive fan-out and boardgame.io peer: skipped, node is not installed (scripts/install-deps installs it only without --bench)\n'
  exit 0
fi
[[ -x $UMPIRED ]] || { echo "run_peer: $UMPIRED is missing (make all)" >&2; exit 1; }

# 1,000 streams on the daemon's side and as many on the load generator's.
want=$((MAX_CONNS + 1024))
((want >= 8192)) || want=8192
hard=$(ulimit -Hn)
if [[ $hard == unlimited ]] || ((hard >= want)); then
  (($(ulimit -Sn) < want)) && ulimit -Sn "$want"
else
  ulimit -Sn "$hard"
fi

mkdir -p "$TMPBASE"
work=$(mktemp -d "$TMPBASE/peer.XXXXXX")
work=$(cd "$work" && pwd)
ump_pid="" bg_pid="" lg_pid=""
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  for p in $lg_pid $bg_pid $ump_pid; do kill -TERM "$p" 2>/dev/null || true; done
  for p in $lg_pid $bg_pid $ump_pid; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  rm -rf "$work"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

source bench/net.sh # free_port, wait_http
# lg ARGS...: one load generator run, in the background so that the trap can stop it.
lg() {
  local rc=0
  node "$PEER_DIR/loadgen.mjs" "$@" >"$work/lg.out" 2>"$work/lg.err" &
  lg_pid=$!
  wait "$lg_pid" || rc=$?
  lg_pid=""
  if ((rc != 0)); then
    echo "run_peer: loadgen.mjs $1 failed ($rc):" >&2; cat "$work/lg.err" >&2; return 1
  fi
  while IFS= read -r l; do out '  %s\n' "$l"; done <"$work/lg.out"
}

# ---- the daemon: durable, as shipped, with the bounds this load needs lifted ------------------
# One address (127.0.0.1) is every client here: the per-client rates and connection and stream
# caps are lifted, and so are the stream bounds per session and per token (1,000 subscribers on
# one session, all with the referee's token), and the streams' share of max_connections.
# Every row gets a fresh daemon on a fresh database (nothing left over from the row before: no
# cache, no WAL to checkpoint), and no other server runs beside it.
ump_n=0
start_ump() { # sets ump_pid ump_port
  ump_n=$((ump_n + 1))
  ump_port=$(free_port)
  mkdir -p "$work/u$ump_n"
  cat >"$work/u$ump_n/umpire.toml" <<TOML
[server]
listen = "127.0.0.1:$ump_port"
max_connections = $MAX_CONNS
max_connections_per_client = 1048576
stream_share_percent = 90
max_streams_per_client = 1048576
max_streams_per_session = 1048576
max_streams_per_token = 1048576
[storage]
db = "$work/u$ump_n/umpire.db"
synchronous = "full"
[log]
access_log = false
[limits]
create_per_minute = 1000000
create_burst = 1000000
actions_per_minute = 100000000
actions_burst = 1000000
max_events_per_session = 1000000000
max_session_bytes = 68719476736
TOML
  "$UMPIRED" --config "$work/u$ump_n/umpire.toml" 2>"$work/u$ump_n/umpired.log" &
  ump_pid=$!
  wait_http "http://127.0.0.1:$ump_port/v1/health" "$ump_pid" || {
    echo "run_peer: umpired did not start:" >&2; cat "$work/u$ump_n/umpired.log" >&2; exit 1; }
}
ump_warn=0 ump_logged=0 ump_first=""
stop_ump() { # SIGTERM, then the exit status and any warn/error lines; removes the database
  local rc=0 bad
  kill -TERM "$ump_pid" 2>/dev/null || true
  for _ in $(seq 150); do kill -0 "$ump_pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$ump_pid" 2>/dev/null || true
  wait "$ump_pid" || rc=$?
  ump_pid=""
  ((rc == 0)) || ump_warn=$((ump_warn + 1))
  bad=$(grep -cE '"level":"(warn|error)"' "$work/u$ump_n/umpired.log" || true)
  if ((bad > 0)); then
    ump_logged=$((ump_logged + bad))
    [[ -n $ump_first ]] || ump_first=$(grep -m1 -E '"level":"(warn|error)"' "$work/u$ump_n/umpired.log")
  fi
  rm -f "$work/u$ump_n"/umpire.db*
}

lgfail=0
if [[ $what != peer ]]; then
  out '\nLive fan-out (Umpire alone; umpired synchronous=FULL, %s s per row after 1 s of warm-up): session A has\n' "$SECS"
  out '%s connections posting the generic roll as fast as answered, and N live streams (SSE) reading\n' "$POSTERS"
  out 'every event; B is one client posting the same roll, one at a time, on another session. Load\n'
  out 'average at start: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
  fan_json=()
  # Flat out (rate 0), then A paced to FANOUT_RATE actions/s: the same load on A for every N, so
  # that B's p99 shows what N subscribers cost another session, not the machine's saturation.
  for rate in 0 "$RATE"; do
    ((rate == 0)) || out 'Then A paced to %s actions/s in all, the same for every N:\n' "$rate"
    for n in $SUBS; do
      start_ump
      if lg fanout --port "$ump_port" --server-pid "$ump_pid" --subs "$n" --posters "$POSTERS" --sub-workers "$SUB_WORKERS" \
        --rate "$rate" --seconds "$SECS" --json "$work/fan_${rate}_$n.json"; then fan_json+=("$work/fan_${rate}_$n.json"); else lgfail=1; fi
      stop_ump
    done
  done
  if ((${#fan_json[@]})); then lg ratios "${fan_json[@]}" || lgfail=1; fi
fi

if [[ $what != fanout ]]; then
  # boardgame.io from the npm registry, exactly as package-lock.json pins it; npm ci only when
  # node_modules is missing or was installed from another lock file.
  bgio_ok=1 why=""
  if ! command -v npm >/dev/null; then
    bgio_ok=0 why="npm is not installed"
  elif [[ ! -f $PEER_DIR/node_modules/.package-lock.json ]] || ! cmp -s "$PEER_DIR/package-lock.json" "$PEER_DIR/node_modules/.umpire-installed-lock" 2>/dev/null; then
    if (cd "$PEER_DIR" && timeout 300 npm ci --no-audit --no-fund --loglevel=error \
      --fetch-retries=1 --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=10000) >"$work/npm.log" 2>&1; then
      cp "$PEER_DIR/package-lock.json" "$PEER_DIR/node_modules/.umpire-installed-lock"
    else
      bgio_ok=0 why="npm ci failed: $(grep -m1 -iE 'err|fail' "$work/npm.log" || tail -n1 "$work/npm.log")"
    fi
  fi
  bgio_ver="(not installed)" sio_ver="?"
  if ((bgio_ok)); then
    bgio_ver=$(node -p 'require("./'"$PEER_DIR"'/node_modules/boardgame.io/package.json").version' 2>/dev/null || echo "?")
    sio_ver=$(node -p 'require("./'"$PEER_DIR"'/node_modules/socket.io/package.json").version' 2>/dev/null || echo "?")
  fi
  if [[ $BGIO_CLIENT == lib ]]; then bgio_cl="boardgame.io's own client"; else bgio_cl="socket.io-client speaking its protocol"; fi
  out '\nboardgame.io peer (%s clients on ONE shared session / match, closed loop: a move, its\n' "$CLIENTS"
  out 'acknowledgement, the next; the roll of 2d6; one load generator, bench/peer/loadgen.mjs; %s s per\n' "$SECS"
  out 'row after 1 s of warm-up). Umpire: durable (synchronous=FULL), acknowledged by its 2xx.\n'
  out 'boardgame.io %s: Server, in-memory store, socket.io %s, clients: %s;\n' "$bgio_ver" "$sio_ver" "$bgio_cl"
  out 'acknowledged by the broadcast state holding the move; without watchers each client is alone on\n'
  out 'a match of its own (bench/README.md, 9). Load average at start: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
  peer_json=()
  ((bgio_ok)) || out '  boardgame.io rows skipped: %s\n' "$why"
  # Each Umpire row is followed at once by its boardgame.io row, so that the two of a ratio see the
  # machine in the same state. A fresh server for every row (umpired as in the fan-out rows, a new
  # boardgame.io process): nothing left over from the row before.
  for watch in 0 1; do
    start_ump
    if lg peer --target umpire --watch "$watch" --clients "$CLIENTS" --port "$ump_port" --server-pid "$ump_pid" \
      --seconds "$SECS" --json "$work/peer_u$watch.json"; then peer_json+=("$work/peer_u$watch.json"); else lgfail=1; fi
    stop_ump
    ((bgio_ok)) || continue
    NODE_ENV=production node "$PEER_DIR/bgio_server.mjs" >"$work/bgio$watch.out" 2>"$work/bgio$watch.err" &
    bg_pid=$!
    bg_port=""
    for _ in $(seq 100); do
      bg_port=$(awk '$1 == "PORT" {print $2}' "$work/bgio$watch.out")
      [[ -n $bg_port ]] && break
      kill -0 "$bg_pid" 2>/dev/null || break
      sleep 0.1
    done
    if [[ -z $bg_port ]]; then
      out '  boardgame.io row skipped: its server did not start: %s\n' "$(head -c 300 "$work/bgio$watch.err" | tr '\n' ' ')"
      lgfail=1
    elif lg peer --target bgio --bgio-client "$BGIO_CLIENT" --watch "$watch" --clients "$CLIENTS" --port "$bg_port" \
      --server-pid "$bg_pid" --seconds "$SECS" --json "$work/peer_b$watch.json"; then
      peer_json+=("$work/peer_b$watch.json")
    else
      lgfail=1
    fi
    kill -TERM "$bg_pid" 2>/dev/null || true
    wait "$bg_pid" 2>/dev/null || true
    bg_pid=""
    bad=$(grep -c . "$work/bgio$watch.err" || true)
    ((bad == 0)) || out '  boardgame.io server stderr (%d lines), the first: %s\n' "$bad" "$(head -n1 "$work/bgio$watch.err")"
  done
  if ((${#peer_json[@]})); then lg ratios "${peer_json[@]}" || lgfail=1; fi
fi

((ump_warn == 0)) || out '  WARNING: umpired exited non-zero on SIGTERM %d times\n' "$ump_warn"
((ump_logged == 0)) || out '  umpired logged %d warn/error lines, the first: %s\n' "$ump_logged" "$ump_first"
exit $lgfail
