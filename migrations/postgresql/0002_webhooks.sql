-- 0002 (PostgreSQL): webhooks, as ../0002_webhooks.sql.
CREATE TABLE webhooks (
    session_id TEXT NOT NULL REFERENCES sessions(id),
    position   INTEGER NOT NULL,
    url        TEXT NOT NULL,
    format     TEXT NOT NULL CHECK (format IN ('discord', 'event')),
    PRIMARY KEY (session_id, position)
);
