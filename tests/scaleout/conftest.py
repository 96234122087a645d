"""Multi-node suite: several umpired nodes sharing one PostgreSQL database.

Fixtures: `pg` (the process-wide PostgreSQL server of tests/pg/pg_server.py), `cluster` (a
fresh database per test, cluster.db, and the nodes the test starts with cluster.node(...);
at teardown every node still running gets SIGTERM and must exit 0, and no node's stderr may
hold a sanitizer report)."""

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "integration"))
sys.path.insert(0, str(HERE.parent / "pg"))
sys.path.insert(0, str(HERE))

from scaleout_util import Cluster, pg_server  # noqa: E402

TEST_TIME_LIMIT = 150  # seconds, a safety net: each test is meant to take well under 60 s


@pytest.fixture(autouse=True)
def _time_limit():
    from umpire_client import time_limit
    with time_limit(TEST_TIME_LIMIT, "scaleout test"):
        yield


@pytest.fixture(scope="module")
def pg():
    return pg_server.shared()


@pytest.fixture
def cluster(pg):
    c = Cluster(pg)
    try:
        yield c
        problems = c.finish()
        assert not problems, "; ".join(problems) + "\n" + c.tails()
    finally:
        c.cleanup()
