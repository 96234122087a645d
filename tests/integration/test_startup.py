"""Start-up of the real daemon: config file errors, flags over the file, a database from a
newer schema, and the health-check client the container uses."""
import os
import subprocess
import tempfile

import pytest

from umpire_client import (ON_POSTGRESQL, Client, Daemon, DbConn, free_port, pg_server,
                           umpired_path)

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_daemon(args, timeout=10):
    """Runs umpired expecting it to exit by itself; returns (code, stderr)."""
    p = subprocess.run([umpired_path()] + args, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stderr


@pytest.fixture
def new_db(tmp_path):
    """--db for a database that does not exist yet: tmp_path/u.db, or an empty PostgreSQL
    database (dropped at teardown)."""
    if not ON_POSTGRESQL:
        yield str(tmp_path / "u.db")
        return
    uri = pg_server().create_database()
    yield uri
    pg_server().drop_database(uri)


def storage_created(db):
    """Whether a daemon created its storage: the SQLite file exists, or the PostgreSQL
    database holds a table."""
    if not ON_POSTGRESQL:
        return os.path.exists(db)
    con = DbConn(db)
    try:
        return bool(con.tables())
    finally:
        con.close()


def test_unknown_config_key_stops_start_up_with_key_and_line(tmp_path, new_db):
    cfg = tmp_path / "bad.toml"
    cfg.write_text("[server]\nmax_connections = 10\nlissten = \"127.0.0.1:1\"\n")
    code, err = run_daemon(["--config", str(cfg), "--db", new_db])
    assert code != 0
    assert "lissten" in err and ":3" in err, err
    assert not storage_created(new_db), "a bad config must stop start-up before storage"


def test_wrong_type_in_config_stops_start_up_with_key_and_line(tmp_path, new_db):
    cfg = tmp_path / "bad.toml"
    cfg.write_text("[storage]\n\ngroup_commit_max = \"many\"\n")
    code, err = run_daemon(["--config", str(cfg), "--db", new_db])
    assert code != 0
    assert "storage.group_commit_max" in err and ":3" in err, err


def test_example_config_starts_and_flags_override_the_file(new_db):
    """config.example.toml is a working config; --listen and --db win over its values."""
    port = free_port()
    db = new_db
    proc = subprocess.Popen([umpired_path(), "--config", os.path.join(REPO, "config.example.toml"),
                             "--listen", f"127.0.0.1:{port}", "--db", db],
                            stderr=subprocess.PIPE, text=True)
    try:
        url = f"http://127.0.0.1:{port}/v1/health"
        for _ in range(100):
            if subprocess.run([umpired_path(), "--check-health", url],
                              capture_output=True).returncode == 0:
                break
            proc.poll()
            assert proc.returncode is None, proc.stderr.read()
            subprocess.run(["sleep", "0.1"])
        else:
            pytest.fail("daemon did not become healthy")
        assert storage_created(db), "--db must override storage.db from the file"
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=15)
    assert proc.returncode == 0, err


def test_check_health_fails_when_nothing_listens():
    port = free_port()
    p = subprocess.run([umpired_path(), "--check-health", f"http://127.0.0.1:{port}/v1/health"],
                       capture_output=True, text=True, timeout=10)
    assert p.returncode != 0


def test_database_from_a_newer_version_is_refused(tmp_path):
    daemon = Daemon()
    try:
        daemon.start()
        db = daemon.db
        daemon.stop()
        daemon.sql("INSERT INTO schema_migrations(version, name, applied_at) "
                   "VALUES (9999, 'from_the_future', '2030-01-01T00:00:00Z')")
        code, err = run_daemon(["--listen", f"127.0.0.1:{free_port()}", "--db", db])
        assert code != 0
        assert "9999" in err and "newer" in err, err
    finally:
        daemon.cleanup()


def test_unknown_flag_is_a_usage_error():
    code, err = run_daemon(["--frobnicate", "1"])
    assert code == 2
    assert "usage" in err
