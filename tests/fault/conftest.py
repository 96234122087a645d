"""Fault suites: make the integration harness importable and bound each test's time."""

import os
import signal
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "integration"))
sys.path.insert(0, str(HERE))

# The make-test variants are short; the long variants (UMPIRE_FAULT_RUNS, UMPIRE_FAULT_ALLOC_FULL)
# get an hour.
FAULT_TIME_LIMIT = 3600 if (os.environ.get("UMPIRE_FAULT_RUNS")
                            or os.environ.get("UMPIRE_FAULT_ALLOC_FULL")) else 150


@pytest.fixture(autouse=True)
def _fault_time_limit():
    def on_alarm(signum, frame):
        raise TimeoutError(f"fault test exceeded {FAULT_TIME_LIMIT} s")
    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(FAULT_TIME_LIMIT)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
