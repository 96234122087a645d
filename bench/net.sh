# Shell helpers shared by bench/run.sh and bench/peer/run_peer.sh (sourced, not run).

free_port() { # a port on 127.0.0.1 nobody holds right now
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

wait_http() { # url pid: 0 once url answers 2xx within 10 s, 1 if pid died or it never did
  for _ in $(seq 100); do
    curl -sf -o /dev/null "$1" && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
