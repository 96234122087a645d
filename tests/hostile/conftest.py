"""Fixtures for the hostile-client tests (helpers are in hostile_util.py)."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hostile_util import HostileDaemon, finish  # noqa: E402

TEST_TIME_LIMIT = 60  # seconds for setup + call + teardown of one test


@pytest.fixture(autouse=True)
def _time_limit():
    from umpire_client import time_limit
    with time_limit(TEST_TIME_LIMIT, "test"):
        yield


@pytest.fixture
def hostile():
    """hostile(server={...}, storage={...}, log={...}, limits={...}, ..., preexec_fn=None) ->
    started daemon."""
    started = []

    def _start(**kw):
        d = HostileDaemon(**kw)
        started.append(d)
        return d.start()

    try:
        yield _start
        problems = []
        for d in started:
            problems += finish(d)
        assert not problems, "; ".join(problems) + "\nstderr tail:\n" + \
            (started[-1].stderr_text()[-4000:] if started else "")
    finally:
        for d in started:
            d.cleanup()


