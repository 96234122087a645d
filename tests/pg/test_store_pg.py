"""server/store/store_pg.c when its connection breaks (tests/pg/store_pg_harness.c): inside a
transaction nothing after the break may run on a new connection, so COMMIT fails and nothing
is written (an earlier version reset the connection there: the rest of the batch ran in
autocommit and COMMIT "succeeded" without the events); outside one, a read is retried on a new
connection."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import pg_server  # noqa: E402


def harness():
    p = os.environ.get("STORE_PG_HARNESS", "build/tests/store_pg_harness")
    if not os.path.isabs(p):
        p = str(HERE.parent.parent / p)
    if not os.path.exists(p):
        pytest.fail(f"{p} is missing (make test-build builds it; set STORE_PG_HARNESS)")
    return p


@pytest.mark.parametrize("scenario", ["midtx", "idle"])
def test_store_survives_a_broken_connection(scenario):
    uri = pg_server.shared().create_database()
    r = subprocess.run([harness(), uri, scenario], capture_output=True, text=True, timeout=60)
    print(r.stdout)
    assert r.returncode == 0 and r.stdout.rstrip().endswith("ok"), r.stdout + r.stderr
