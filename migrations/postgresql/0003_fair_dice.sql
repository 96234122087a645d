-- 0003 (PostgreSQL): as ../0003_fair_dice.sql.

ALTER TABLE sessions ADD COLUMN dice_manual_by TEXT CHECK (dice_manual_by IN ('referee'));
ALTER TABLE sessions ADD COLUMN entropy TEXT;
ALTER TABLE sessions ADD COLUMN seed_first_nonce BIGINT NOT NULL DEFAULT 1;
UPDATE sessions s SET seed_first_nonce = coalesce((
    SELECT (e.data::json ->> 'last_nonce')::bigint + 1 FROM events e
    WHERE e.session_id = s.id AND e.type = 'dice_seed_revealed'
    ORDER BY e.seq DESC LIMIT 1), 1);

ALTER TABLE idempotency ADD COLUMN caller TEXT NOT NULL DEFAULT '';
UPDATE idempotency i SET caller = e.actor FROM events e
    WHERE e.session_id = i.session_id
      AND e.seq = (i.response::json -> 'events' -> 0 ->> 'seq')::bigint;
ALTER TABLE idempotency DROP CONSTRAINT idempotency_pkey;
ALTER TABLE idempotency ADD PRIMARY KEY (session_id, caller, key);
