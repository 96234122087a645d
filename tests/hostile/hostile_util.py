"""Helpers for the hostile-client tests: a real umpired started with a small config file.

Reuses tests/integration/umpire_client.py (binary path, free port, clients, raw sockets).
Every test is bounded by SIGALRM; at teardown the daemon must exit 0 on SIGTERM and its
stderr must hold no sanitizer report.
"""

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

INTEGRATION = Path(__file__).resolve().parents[1] / "integration"
if str(INTEGRATION) not in sys.path:
    sys.path.insert(0, str(INTEGRATION))

from umpire_client import TEST_LIMITS, Client, Daemon, free_port  # noqa: E402

__all__ = ["Client", "HostileDaemon", "access_lines", "finish", "parse_head", "percentile",
           "tcp_state", "wait_until"]

START_TIMEOUT = 15.0


def _toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'


class HostileDaemon(Daemon):
    """umpire_client.Daemon started with --config FILE (and optionally a preexec_fn, e.g. to
    lower RLIMIT_NOFILE). server/storage/log, and any other table given by keyword (limits=,
    work=, webhooks=...): dicts of keys written into the config file."""

    def __init__(self, server=None, storage=None, log=None, preexec_fn=None, **other_tables):
        super().__init__()
        self.preexec_fn = preexec_fn
        self.config_path = os.path.join(self.workdir, "umpire.toml")
        tables = {"server": dict(server or {}), "storage": dict(storage or {}),
                  "log": dict(log or {})}
        tables.update({name: dict(keys or {}) for name, keys in other_tables.items()})
        for name, keys in TEST_LIMITS.items():  # one address plays every client here too
            for k, v in keys.items():
                tables.setdefault(name, {}).setdefault(k, v)
        with open(self.config_path, "w") as f:
            for name, keys in tables.items():
                f.write(f"[{name}]\n")
                for k, v in keys.items():
                    f.write(f"{k} = {_toml_value(v)}\n")
        self.server_cfg = tables["server"]

    def start(self, timeout=START_TIMEOUT):
        if not os.path.exists(self.binary):
            raise RuntimeError(f"daemon binary {self.binary} does not exist (set UMPIRED)")
        for _ in range(3):
            self.port = free_port()
            env = dict(os.environ)
            env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")
            # RSS bounds are asserted: cap ASan's free-memory quarantine as `make test` does
            # (its default, 256 MB, would count freed answers as growth).
            asan = env.get("ASAN_OPTIONS", "")
            if "quarantine_size_mb" not in asan:
                env["ASAN_OPTIONS"] = (asan + ":" if asan else "") + "quarantine_size_mb=16"
            with open(self.stderr_path, "ab") as err, open(self.stdout_path, "ab") as out:
                err.write(f"--- start on port {self.port}\n".encode())
                err.flush()
                self.proc = subprocess.Popen(
                    [self.binary, "--config", self.config_path,
                     "--listen", f"127.0.0.1:{self.port}", "--db", self.db],
                    stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=self.workdir,
                    env=env, preexec_fn=self.preexec_fn)
            try:
                self.wait_healthy(timeout)
                return self
            except Exception as e:  # noqa: BLE001 - port race: retry on another port
                if self.proc.poll() is not None and "in use" in self.stderr_text()[-2000:].lower():
                    continue
                raise RuntimeError(str(e)) from None
        raise RuntimeError("daemon did not start (port races)")

    # ---- /proc ------------------------------------------------------------------------

    def rss_kb(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise AssertionError("no VmRSS")

    def cpu_seconds(self):
        """utime + stime of the whole process (all threads), in seconds."""
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def open_sockets(self):
        n = 0
        for fd in os.listdir(f"/proc/{self.proc.pid}/fd"):
            try:
                if os.readlink(f"/proc/{self.proc.pid}/fd/{fd}").startswith("socket:"):
                    n += 1
            except OSError:
                pass
        return n


def finish(d):
    """SIGTERM -> exit 0, no sanitizer report; returns a list of problems."""
    problems = []
    try:
        rc = d.stop() if d.alive() else d.proc.returncode
        if rc != 0:
            problems.append(f"exit code {rc} on SIGTERM at teardown")
    except AssertionError as e:
        problems.append(str(e))
    found = d.sanitizer_findings()
    if found:
        problems.append(f"sanitizer report in stderr: {found}")
    return problems


def access_lines(d):
    """The daemon's access-log entries (JSON lines with msg "access")."""
    out = []
    for line in d.stderr_text().splitlines():
        if '"access"' not in line:
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("msg") == "access":
            out.append(entry)
    return out


def wait_until(pred, timeout, step=0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(step)
    return pred()


def tcp_state(sock):
    """Linux TCP_INFO tcpi_state of our end: 1 ESTABLISHED, 7 CLOSE (reset), 8 CLOSE_WAIT (FIN
    received). Lets a test see that the peer closed without reading what it sent."""
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]


def parse_head(buf):
    """-> (status, {lower name: value}, rest) for a complete head in buf, else None."""
    if b"\r\n\r\n" not in buf:
        return None
    head, rest = buf.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers, rest


def percentile(values, p):
    s = sorted(values)
    k = min(len(s) - 1, max(0, int(round(p / 100.0 * len(s) + 0.5)) - 1))
    return s[k]
