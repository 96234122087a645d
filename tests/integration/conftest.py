"""Fixtures: one real umpired per test (free loopback port, temp SQLite db; with
UMPIRE_TEST_BACKEND=postgresql a fresh database of a PostgreSQL server the tests start)."""

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
        problems = d.stop_problems()
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
