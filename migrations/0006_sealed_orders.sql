-- 0006: sealed orders (docs/api.md, Sealed orders), kept here and nowhere else until their
-- reveal: one row a side, {"step", "turn", "orders", "salt"} as canonical JSON; the chain holds
-- only their commitment. The reveal deletes the session's rows in the transaction that appends
-- orders_revealed.
CREATE TABLE sealed_orders (
    session_id TEXT NOT NULL REFERENCES sessions(id),
    side       TEXT NOT NULL,
    body       TEXT NOT NULL,
    PRIMARY KEY (session_id, side)
) WITHOUT ROWID;
