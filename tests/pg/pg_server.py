"""A throwaway PostgreSQL server for the tests: a fresh cluster in a temp directory on a free
loopback port, one fresh database per create_database(). Importable without pytest; psycopg2
is imported only when a database is created or dropped.

    server = PgServer().start()
    uri = server.create_database()      # postgresql://umpire@127.0.0.1:PORT/NAME
    server.stop()

shared() is the process-wide server: started on first use, stopped at exit.
"""

import atexit
import glob
import itertools
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

SUPERUSER = "umpire"
START_TIMEOUT = 30.0
STOP_TIMEOUT = 30.0
RUN_AS = "postgres"   # PostgreSQL refuses to run as root: initdb and postgres run as this user


def find_bindir():
    """The directory of initdb/postgres: $UMPIRE_PG_BINDIR, `pg_config --bindir` if it holds
    initdb (libpq-dev's pg_config may name a server that is not installed), else the highest
    /usr/lib/postgresql/*/bin."""
    env = os.environ.get("UMPIRE_PG_BINDIR")
    if env:
        return env
    if shutil.which("pg_config"):
        try:
            out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True,
                                 timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            out = ""
        if out and os.path.exists(os.path.join(out, "initdb")):
            return out

    def version(path):
        v = path.split("/")[-2]
        return [int(p) if p.isdigit() else 0 for p in v.split(".")]
    dirs = [d for d in glob.glob("/usr/lib/postgresql/*/bin")
            if os.path.exists(os.path.join(d, "initdb"))]
    if not dirs:
        raise RuntimeError("no PostgreSQL server binaries (install the postgresql package)")
    return max(dirs, key=version)


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
    finally:
        s.close()


def _psycopg2():
    try:
        import psycopg2
    except ImportError:
        raise RuntimeError("psycopg2 is missing (install python3-psycopg2)") from None
    return psycopg2


class PgServer:
    def __init__(self, bindir=None):
        self.bindir = bindir or find_bindir()
        self.base = None
        self.data = None
        self.sockdir = None
        self.log_path = None
        self.port = None
        self.proc = None
        self._names = itertools.count(1)
        self._lock = threading.Lock()
        self.as_root = os.geteuid() == 0

    def _bin(self, name):
        return os.path.join(self.bindir, name)

    def _argv(self, argv):
        return ["runuser", "-u", RUN_AS, "--"] + argv if self.as_root else argv

    @staticmethod
    def _env():
        # A test may set LD_PRELOAD (a shim for umpired) when the shared server starts.
        return {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}

    def log_text(self):
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode("utf-8", "replace")
        except (OSError, TypeError):
            return ""

    def _fail(self, what):
        log = self.log_text()
        print(f"pg_server: {what}; server log {self.log_path}:\n{log}", file=sys.stderr)
        self.stop()
        raise RuntimeError(f"PostgreSQL: {what}; log tail:\n{log[-3000:]}")

    # ---- lifecycle ------------------------------------------------------------

    def start(self, timeout=START_TIMEOUT):
        self.base = tempfile.mkdtemp(prefix="umpire-pg-")
        self.data = os.path.join(self.base, "data")
        self.sockdir = os.path.join(self.base, "sock")
        self.log_path = os.path.join(self.base, "postgres.log")
        os.mkdir(self.sockdir)
        if self.as_root:
            for p in (self.base, self.sockdir):
                shutil.chown(p, RUN_AS, RUN_AS)
        p = subprocess.run(self._argv([self._bin("initdb"), "-D", self.data, "-U", SUPERUSER,
                                       "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"]),
                           cwd=self.base, env=self._env(), stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            with open(self.log_path, "a") as f:
                f.write(p.stdout + p.stderr)
            self._fail(f"initdb exited with {p.returncode}")
        for _ in range(3):
            self.port = free_port()
            with open(self.log_path, "ab") as log:
                log.write(f"--- postgres on port {self.port}\n".encode())
                log.flush()
                # fsync off: the tests kill umpired, never PostgreSQL, so its durability is
                # not under test and a crash-safe cluster is not needed.
                self.proc = subprocess.Popen(
                    self._argv([self._bin("postgres"), "-D", self.data, "-p", str(self.port),
                                "-k", self.sockdir, "-c", "listen_addresses=127.0.0.1",
                                "-c", "max_connections=300", "-c", "fsync=off",
                                "-c", "full_page_writes=off"]),
                    cwd=self.base, env=self._env(), stdin=subprocess.DEVNULL, stdout=log,
                    stderr=subprocess.STDOUT, start_new_session=True)
            if self._wait_ready(timeout):
                return self
            rc = self.proc.poll()
            if rc is not None and "already in use" in self.log_text()[-2000:]:
                continue  # lost the port race; try another port
            self._fail(f"postgres exited with {rc} during start-up" if rc is not None else
                       f"postgres did not accept connections within {timeout} s")
        self._fail("no free port after 3 attempts")

    def _wait_ready(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            p = subprocess.run([self._bin("pg_isready"), "-q", "-h", "127.0.0.1",
                                "-p", str(self.port), "-U", SUPERUSER, "-d", "postgres",
                                "-t", "1"], env=self._env(), stdin=subprocess.DEVNULL,
                               timeout=10)
            if p.returncode == 0:
                return True
            time.sleep(0.05)
        return False

    def _postmaster_pid(self):
        """postgres's own pid (under runuser, self.proc is runuser); None unless it is
        self.proc or its child."""
        try:
            with open(os.path.join(self.data, "postmaster.pid")) as f:
                pid = int(f.readline())
            if pid == self.proc.pid:
                return pid
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            return pid if ppid == self.proc.pid else None
        except (OSError, ValueError, IndexError):
            return None

    def stop(self, timeout=STOP_TIMEOUT):
        """Fast shutdown (SIGINT to the postmaster), wait, remove the directory."""
        if self.proc is not None and self.proc.poll() is None:
            pid = self._postmaster_pid() or self.proc.pid
            try:
                os.kill(pid, signal.SIGINT)
                self.proc.wait(timeout)
            except ProcessLookupError:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self.proc = None
        if self.base is not None:
            shutil.rmtree(self.base, ignore_errors=True)
            self.base = None

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    # ---- databases ------------------------------------------------------------

    def uri(self, dbname):
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{dbname}"

    def connect(self, dbname="postgres"):
        """A psycopg2 connection as the superuser (autocommit off, as psycopg2's default)."""
        return _psycopg2().connect(host="127.0.0.1", port=self.port, user=SUPERUSER,
                                   dbname=dbname, connect_timeout=10)

    def _admin(self, sql):
        con = self.connect()
        try:
            con.autocommit = True
            con.cursor().execute(sql)
        finally:
            con.close()

    def create_database(self):
        """A fresh, empty database; -> its URI."""
        with self._lock:
            name = f"umpire_{os.getpid()}_{next(self._names)}"
        self._admin(f'CREATE DATABASE "{name}"')
        return self.uri(name)

    def drop_database(self, uri_or_name):
        """Drops a database, disconnecting its clients (PostgreSQL 13+)."""
        name = uri_or_name.rsplit("/", 1)[-1]
        self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


_shared = None
_shared_error = None
_shared_lock = threading.Lock()


def shared():
    """The process-wide server, started on first use and stopped at exit. A failed start is
    remembered and raised again rather than retried."""
    global _shared, _shared_error
    with _shared_lock:
        if _shared_error is not None:
            raise RuntimeError(f"PostgreSQL did not start earlier: {_shared_error}")
        if _shared is None:
            try:
                server = PgServer()
                atexit.register(server.stop)
                _shared = server.start()
            except Exception as e:
                _shared_error = e
                raise
        return _shared


def create_database():
    return shared().create_database()
