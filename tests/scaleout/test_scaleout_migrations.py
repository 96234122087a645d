"""Nodes that start at the same moment on a fresh, empty database all come up: the migrations
run once, under PostgreSQL's advisory lock, and schema_migrations has each version once.
Three rounds (a fresh database each) of three nodes spawned back to back."""

import time

from scaleout_util import PG_MIGRATIONS, Client, check_log, verify_ok

ROUNDS = 3
NODES = 3


def test_nodes_starting_together_migrate_once(cluster):
    assert PG_MIGRATIONS, "no migrations/postgresql/*.sql"
    want = [int(name.split("_", 1)[0]) for name in PG_MIGRATIONS]
    spreads = []
    for rnd in range(ROUNDS):
        db = cluster.db if rnd == 0 else cluster.new_db()
        tables = cluster.sql("SELECT count(*) FROM information_schema.tables "
                             "WHERE table_schema = 'public'", db=db)[0][0]
        assert tables == 0, f"round {rnd}: the fresh database already has {tables} tables"
        nodes = [cluster.node(f"r{rnd}n{i}", db=db, start=False) for i in range(NODES)]
        t0 = time.monotonic()
        for n in nodes:
            n.spawn()
        spreads.append(time.monotonic() - t0)
        for n in nodes:
            n.ready(timeout=20)
        rows = cluster.sql("SELECT version, name FROM schema_migrations ORDER BY version", db=db)
        versions = [r[0] for r in rows]
        assert versions == want, \
            f"round {rnd}: schema_migrations holds versions {versions}, want each of {want} once"
        names = [f"{v:04d}_{nm}.sql" for v, nm in rows]
        assert names == PG_MIGRATIONS, f"round {rnd}: schema_migrations names {names}"
        applied = sum(n.stderr_text().count("applied") for n in nodes)
        # every node serves: a session made on one, acted on through the others, verified
        clients = [Client(n) for n in nodes]
        s = clients[0].create_session()
        sid, ref = s["session"]["id"], s["tokens"]["referee"]
        for i, c in enumerate(clients[1:] + clients[:1]):
            assert c.roll(sid, ref, "1d6").body["version"] == 2 + i
        evs, page = check_log(clients[-1], sid, ref)
        for c in clients:
            verify_ok(c, sid, ref, events=NODES + 1, head=page["head"])
            c.close()
        for n in nodes:
            rc = n.stop()
            assert rc == 0, f"{n.name}: exit code {rc} on SIGTERM\n{n.log_tail()}"
        print(f"{'' if rnd else chr(10)}migrations round {rnd}: {NODES} nodes spawned within "
              f"{spreads[-1] * 1000:.1f} ms, all up; schema_migrations = {versions}; "
              f"'applied' log lines: {applied}")
