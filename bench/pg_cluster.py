#!/usr/bin/env python3
"""A durable PostgreSQL server for bench/run.sh (standard library only; loopback only).

Unlike the tests' throwaway server (tests/pg/pg_server.py, whose find_bindir() this reuses),
this one keeps PostgreSQL's durability on: fsync, synchronous_commit and full_page_writes,
written out explicitly. Its cluster lives in DIR (under the bench's work directory, so on the
same disk as the SQLite figures). When run as root, initdb, pg_ctl and postgres run as the
`postgres` user (`runuser -u postgres --`): PostgreSQL refuses to run as root.

  pg_cluster.py bindir                       prints the server's bindir (fails if none)
  pg_cluster.py start DIR MAX_CONNECTIONS [SHIM]
                                             initdb + start on a free port + createdb; prints
                                             "PORT URI". SHIM: bench/fsync_count.c built, loaded
                                             into postgres (LD_PRELOAD) counting into DIR/fsyncs
  pg_cluster.py stop DIR                     fast shutdown (then immediate, then SIGKILL); idempotent
  pg_cluster.py sql DIR QUERY                psql -XAt on the bench database; prints the rows
  pg_cluster.py cpu DIR                      CPU ticks of the postmaster and all its children
                                             (live ones, plus the reaped ones through cutime/cstime)
"""
import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "pg"))
from pg_server import find_bindir, free_port  # noqa: E402  (read-only reuse)

RUN_AS = "postgres"
SUPERUSER = "umpire"
DBNAME = "umpire_bench"
AS_ROOT = os.geteuid() == 0

# Durability as shipped by PostgreSQL, written out: a 200 from a node means the commit's WAL
# was fsynced. The rest keeps the server to loopback and its socket inside DIR.
SETTINGS = {
    "fsync": "on",
    "synchronous_commit": "on",
    "full_page_writes": "on",
    "listen_addresses": "'127.0.0.1'",
    "logging_collector": "off",
}


def env():
    return {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "BENCH_FSYNC_FILE")}


def as_pg(argv):
    return ["runuser", "-u", RUN_AS, "--"] + argv if AS_ROOT else argv


def run(argv, what, timeout=120, check=True):
    p = subprocess.run(argv, env=env(), stdin=subprocess.DEVNULL, capture_output=True,
                       text=True, timeout=timeout)
    if check and p.returncode != 0:
        raise SystemExit(f"pg_cluster: {what} exited {p.returncode}:\n{p.stdout}{p.stderr}")
    return p


def paths(d):
    d = os.path.abspath(d)
    return d, os.path.join(d, "data"), os.path.join(d, "sock"), os.path.join(d, "postgres.log")


def postmaster_pid(data):
    try:
        with open(os.path.join(data, "postmaster.pid")) as f:
            pid = int(f.readline())
    except (OSError, ValueError):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    return pid


def port_of(data):
    with open(os.path.join(data, "postmaster.pid")) as f:
        return int(f.read().splitlines()[3])


def start(d, max_conn, shim=None):
    d, data, sock, log = paths(d)
    bindir = find_bindir()
    os.makedirs(sock)
    if AS_ROOT:
        # The work directory is mktemp's 0700: let postgres traverse it (not list it).
        parent = os.path.dirname(d)
        os.chmod(parent, os.stat(parent).st_mode | 0o001)
        for p in (d, sock):
            shutil.chown(p, RUN_AS, RUN_AS)
        if run(as_pg(["test", "-w", d]), "test", check=False).returncode != 0:
            raise SystemExit(f"pg_cluster: user {RUN_AS} cannot write {d} (a directory on the "
                             "way is not traversable): set BENCH_TMPDIR to one it can reach")
    run(as_pg([os.path.join(bindir, "initdb"), "-D", data, "-U", SUPERUSER, "-A", "trust",
               "-E", "UTF8", "--locale=C"]), "initdb")
    with open(os.path.join(data, "postgresql.conf"), "a") as f:
        f.write("\n# bench/pg_cluster.py\n")
        for k, v in dict(SETTINGS, max_connections=str(max_conn),
                         unix_socket_directories=f"'{sock}'").items():
            f.write(f"{k} = {v}\n")
    preload = []
    if shim:  # set after runuser's switch to postgres, so the counter file is postgres's
        preload = ["env", f"LD_PRELOAD={os.path.abspath(shim)}",
                   f"BENCH_FSYNC_FILE={os.path.join(d, 'fsyncs')}"]
    for _ in range(3):
        port = free_port()
        # pg_ctl -w waits until the server accepts connections; the postmaster gets a session
        # of its own (so a ^C to the bench reaches the cleanup trap, not postgres).
        p = run(as_pg(preload + [os.path.join(bindir, "pg_ctl"), "start", "-D", data, "-l",
                                 log, "-w", "-t", "60", "-o", f"-p {port}"]),
                "pg_ctl start", check=False)
        if p.returncode == 0:
            break
        try:
            tail = open(log, errors="replace").read()[-3000:]
        except OSError:
            tail = ""
        if "already in use" not in tail:
            raise SystemExit(f"pg_cluster: pg_ctl start exited {p.returncode}:\n"
                             f"{p.stdout}{p.stderr}\n{tail}")
    else:
        raise SystemExit("pg_cluster: no free port after 3 attempts")
    run([os.path.join(bindir, "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U",
         SUPERUSER, DBNAME], "createdb")
    print(port, f"postgresql://{SUPERUSER}@127.0.0.1:{port}/{DBNAME}")


def stop(d):
    d, data, _, _ = paths(d)
    if postmaster_pid(data) is None:
        return
    pg_ctl = os.path.join(find_bindir(), "pg_ctl")
    for mode in ("fast", "immediate"):
        try:
            run(as_pg([pg_ctl, "stop", "-D", data, "-m", mode, "-w", "-t", "30"]),
                "pg_ctl stop", timeout=40, check=False)
        except subprocess.TimeoutExpired:
            pass
        if postmaster_pid(data) is None:
            return
    pid = postmaster_pid(data)
    if pid:
        os.kill(pid, signal.SIGKILL)  # its children exit when they see the postmaster die
        time.sleep(1)


def sql(d, query):
    _, data, _, _ = paths(d)
    p = run([os.path.join(find_bindir(), "psql"), "-X", "-A", "-t", "-q", "-F", " ",
             "-h", "127.0.0.1", "-p", str(port_of(data)), "-U", SUPERUSER, "-d", DBNAME,
             "-c", query], "psql", timeout=60)
    sys.stdout.write(p.stdout)


def stat_ticks(pid, children_too):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None, 0
    ppid = int(fields[1])
    t = int(fields[11]) + int(fields[12])  # utime, stime
    if children_too:
        t += int(fields[13]) + int(fields[14])  # cutime, cstime: reaped children
    return ppid, t


def cpu(d):
    _, data, _, _ = paths(d)
    pm = postmaster_pid(data)
    if pm is None:
        print("-")
        return
    total = stat_ticks(pm, True)[1]
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != pm:
            ppid, t = stat_ticks(name, True)
            if ppid == pm:
                total += t
    print(total)


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "bindir":
        try:
            print(find_bindir())
        except RuntimeError as e:
            raise SystemExit(f"pg_cluster: {e}")
    elif cmd == "start":
        start(args[0], int(args[1]), args[2] if len(args) > 2 else None)
    elif cmd == "stop":
        stop(args[0])
    elif cmd == "sql":
        sql(args[0], args[1])
    elif cmd == "cpu":
        cpu(args[0])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
