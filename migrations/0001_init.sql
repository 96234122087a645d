-- 0001: sessions, their tokens, the hash-chained event log, idempotency keys.

-- One row a session: its identity and the projection of its event log (version, head, state).
CREATE TABLE sessions (
    id              TEXT PRIMARY KEY,          -- 32 hex digits
    ruleset         TEXT NOT NULL,
    ruleset_version INTEGER NOT NULL,
    title           TEXT NOT NULL,
    sides           TEXT NOT NULL,             -- JSON array of side names
    visibility      TEXT NOT NULL CHECK (visibility IN ('private', 'public')),
    options         TEXT NOT NULL,             -- JSON object
    dice_mode       TEXT NOT NULL CHECK (dice_mode IN ('server', 'seeded', 'manual')),
    dice_seed       BLOB,                      -- server: the secret current seed; seeded: public
    dice_commitment TEXT,                      -- hex SHA-256 of dice_seed
    next_nonce      INTEGER NOT NULL DEFAULT 1,
    version         INTEGER NOT NULL,          -- seq of the last event
    head            TEXT NOT NULL,             -- hash of the last event
    state           TEXT NOT NULL,             -- JSON: the ruleset's projection
    created_at      TEXT NOT NULL
) WITHOUT ROWID;

-- Bearer tokens are stored only as SHA-256 digests.
CREATE TABLE tokens (
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role       TEXT NOT NULL,                  -- 'referee' or 'side:<name>'
    digest     BLOB NOT NULL,
    PRIMARY KEY (session_id, role)
) WITHOUT ROWID;

-- The auditable stream. `data` is the JSON whose JCS form was hashed.
CREATE TABLE events (
    session_id TEXT NOT NULL REFERENCES sessions(id),
    seq        INTEGER NOT NULL,
    ts         TEXT NOT NULL,
    actor      TEXT NOT NULL,
    type       TEXT NOT NULL,
    data       TEXT NOT NULL,
    prev       TEXT NOT NULL,
    hash       TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;

-- Idempotency-Key: the first answer to (session, key), replayed for the same body.
CREATE TABLE idempotency (
    session_id  TEXT NOT NULL REFERENCES sessions(id),
    key         TEXT NOT NULL,
    body_digest BLOB NOT NULL,
    response    TEXT NOT NULL,
    PRIMARY KEY (session_id, key)
) WITHOUT ROWID;
