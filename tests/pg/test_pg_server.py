"""pg_server starts a real PostgreSQL, hands out fresh databases and stops cleanly."""

import os
import sys
from pathlib import Path

import psycopg2
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pg_server  # noqa: E402


@pytest.fixture(scope="module")
def server():
    s = pg_server.PgServer().start()
    try:
        yield s
    finally:
        s.stop()


def tables(con):
    cur = con.cursor()
    cur.execute("SELECT table_name FROM information_schema.tables WHERE table_schema='public'")
    return [r[0] for r in cur.fetchall()]


def test_created_database_takes_create_insert_select(server):
    uri = server.create_database()
    assert uri.startswith(f"postgresql://umpire@127.0.0.1:{server.port}/"), uri
    con = psycopg2.connect(uri)
    try:
        cur = con.cursor()
        cur.execute("CREATE TABLE t (id BIGINT PRIMARY KEY, name TEXT NOT NULL, b BYTEA)")
        cur.execute("INSERT INTO t VALUES (%s, %s, %s), (%s, %s, %s)",
                    (1, "één", b"\x00\xff", 2, "two", None))
        con.commit()
        cur.execute("SELECT id, name, b FROM t ORDER BY id")
        rows = [(i, n, bytes(b) if b is not None else None) for i, n, b in cur.fetchall()]
        assert rows == [(1, "één", b"\x00\xff"), (2, "two", None)]
        cur.execute("SHOW server_encoding")
        assert cur.fetchone()[0] == "UTF8"
    finally:
        con.close()


def test_two_databases_are_distinct_and_empty(server):
    a, b = server.create_database(), server.create_database()
    assert a != b
    ca, cb = psycopg2.connect(a), psycopg2.connect(b)
    try:
        assert tables(ca) == [] and tables(cb) == []
        ca.cursor().execute("CREATE TABLE only_in_a (x INT)")
        ca.commit()
        assert tables(ca) == ["only_in_a"] and tables(cb) == []
    finally:
        ca.close()
        cb.close()
    server.drop_database(a)
    with pytest.raises(psycopg2.OperationalError):
        psycopg2.connect(a).close()


def test_stop_ends_the_server_and_removes_its_directory():
    s = pg_server.PgServer().start()
    base, port = s.base, s.port
    assert os.path.isdir(os.path.join(base, "data"))
    s.stop()
    assert not s.running() and not os.path.exists(base)
    with pytest.raises(psycopg2.OperationalError):
        psycopg2.connect(host="127.0.0.1", port=port, user="umpire", dbname="postgres",
                         connect_timeout=2).close()
    s.stop()   # a second stop is harmless
