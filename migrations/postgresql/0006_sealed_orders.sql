-- 0006 (PostgreSQL): as ../0006_sealed_orders.sql.
CREATE TABLE sealed_orders (
    session_id TEXT NOT NULL REFERENCES sessions(id),
    side       TEXT NOT NULL,
    body       TEXT NOT NULL,
    PRIMARY KEY (session_id, side)
);
