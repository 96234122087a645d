-- 0001 (PostgreSQL): sessions, their tokens, the hash-chained event log, idempotency keys.
-- The same tables and columns as ../0001_init.sql; INTEGER -> BIGINT, BLOB -> BYTEA. JSON
-- columns stay TEXT: `data` is the exact JCS text that was hashed, which jsonb would not keep.

CREATE TABLE sessions (
    id              TEXT PRIMARY KEY,
    ruleset         TEXT NOT NULL,
    ruleset_version INTEGER NOT NULL,
    title           TEXT NOT NULL,
    sides           TEXT NOT NULL,
    visibility      TEXT NOT NULL CHECK (visibility IN ('private', 'public')),
    options         TEXT NOT NULL,
    dice_mode       TEXT NOT NULL CHECK (dice_mode IN ('server', 'seeded', 'manual')),
    dice_seed       BYTEA,
    dice_commitment TEXT,
    next_nonce      BIGINT NOT NULL DEFAULT 1,
    version         BIGINT NOT NULL,
    head            TEXT NOT NULL,
    state           TEXT NOT NULL,
    created_at      TEXT NOT NULL
);

CREATE TABLE tokens (
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role       TEXT NOT NULL,
    digest     BYTEA NOT NULL,
    PRIMARY KEY (session_id, role)
);

-- (session_id, seq) is the primary key: two nodes can never both append seq n to a session.
CREATE TABLE events (
    session_id TEXT NOT NULL REFERENCES sessions(id),
    seq        BIGINT NOT NULL,
    ts         TEXT NOT NULL,
    actor      TEXT NOT NULL,
    type       TEXT NOT NULL,
    data       TEXT NOT NULL,
    prev       TEXT NOT NULL,
    hash       TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
);

CREATE TABLE idempotency (
    session_id  TEXT NOT NULL REFERENCES sessions(id),
    key         TEXT NOT NULL,
    body_digest BYTEA NOT NULL,
    response    TEXT NOT NULL,
    PRIMARY KEY (session_id, key)
);
