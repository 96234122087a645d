"""Fixtures: one real umpired per test (free loopback port, temp SQLite db)."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from umpire_client import Client, Daemon  # noqa: E402

TEST_TIME_LIMIT = 60  # seconds, setup + call + teardown of one test


@pytest.fixture(autouse=True)
def _time_limit():
    from umpire_client import time_limit
    with time_limit(TEST_TIME_LIMIT, "test"):
        yield


@pytest.fixture
def daemon():
    """A started umpired. d.restart() (SIGTERM, exit 0, start on the same db),
    d.kill9(), d.crash_restart(), d.start(). At teardown: SIGTERM, exit code 0,
    no sanitizer report in stderr, no 5xx answered."""
    d = Daemon()
    try:
        d.start()
        yield d
        rc = d.stop() if d.alive() else None
        problems = []
        if rc is not None and rc != 0:
            problems.append(f"exit code {rc} on SIGTERM at teardown")
        found = d.sanitizer_findings()
        if found:
            problems.append(f"sanitizer report in stderr: {found}")
        fives = [r for r in d.responses if r[2] >= 500]
        if fives:
            problems.append(f"the daemon answered 5xx (bad input must never) to {fives[:5]}")
        assert not problems, "; ".join(problems) + "\nstderr tail:\n" + d.stderr_text()[-4000:]
    finally:
        d.cleanup()


@pytest.fixture
def umpire(daemon):
    """A keep-alive JSON client on the daemon (client.daemon is the Daemon)."""
    c = Client(daemon)
    try:
        yield c
    finally:
        c.close()
