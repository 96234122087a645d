-- 0003: fair dice (issue 19): players' entropy, manual dice typed by the referee only, and
-- idempotency keys scoped to the caller.

-- 'referee': only the referee's token may type manual dice; NULL: any token (as before).
ALTER TABLE sessions ADD COLUMN dice_manual_by TEXT CHECK (dice_manual_by IN ('referee'));
-- The players' contributions in force, JSON {role: {"seed", "nonce"}} (nonce: the session's
-- next_nonce when the role last contributed); NULL: none. Cleared by a reveal.
ALTER TABLE sessions ADD COLUMN entropy TEXT;
-- The first nonce rolled under the current seed (a reveal needs a die rolled since then): after
-- the last reveal's last_nonce, or 1.
ALTER TABLE sessions ADD COLUMN seed_first_nonce INTEGER NOT NULL DEFAULT 1;
UPDATE sessions SET seed_first_nonce = coalesce((
    SELECT json_extract(e.data, '$.last_nonce') + 1 FROM events e
    WHERE e.session_id = sessions.id AND e.type = 'dice_seed_revealed' AND json_valid(e.data)
    ORDER BY e.seq DESC LIMIT 1), 1);

-- Idempotency-Key: the first answer to (session, caller, key). A key stored before this
-- migration belongs to the actor of the event its answer names (answers of actions list their
-- events); one whose event cannot be found gets caller '', which no caller matches.
CREATE TABLE idempotency_scoped (
    session_id  TEXT NOT NULL REFERENCES sessions(id),
    caller      TEXT NOT NULL,                 -- 'referee' or 'side:<name>'
    key         TEXT NOT NULL,
    body_digest BLOB NOT NULL,
    response    TEXT NOT NULL,
    PRIMARY KEY (session_id, caller, key)
) WITHOUT ROWID;
INSERT INTO idempotency_scoped (session_id, caller, key, body_digest, response)
    SELECT i.session_id,
           coalesce((SELECT e.actor FROM events e
                     WHERE e.session_id = i.session_id AND json_valid(i.response)
                       AND e.seq = json_extract(i.response, '$.events[0].seq')), ''),
           i.key, i.body_digest, i.response
    FROM idempotency i;
DROP TABLE idempotency;
ALTER TABLE idempotency_scoped RENAME TO idempotency;
