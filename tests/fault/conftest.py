"""Fault suites: make the integration harness importable and bound each test's time."""

import os
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
    from umpire_client import time_limit
    with time_limit(FAULT_TIME_LIMIT, "fault test"):
        yield
