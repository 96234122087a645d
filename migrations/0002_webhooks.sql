-- 0002: webhooks, the URLs a session's referee asked to be told of each committed event.
-- Not part of the event stream: a Discord webhook URL is a secret, and setting one changes no
-- game state. Delivery progress is kept in memory (docs/api.md, Webhooks).
CREATE TABLE webhooks (
    session_id TEXT NOT NULL REFERENCES sessions(id),
    position   INTEGER NOT NULL,               -- 0.. in the order the referee listed them
    url        TEXT NOT NULL,
    format     TEXT NOT NULL CHECK (format IN ('discord', 'event')),
    PRIMARY KEY (session_id, position)
) WITHOUT ROWID;
