-- 0004: the bytes of event data each session stores, a running total the writer keeps so that
-- limits.max_session_bytes is checked without summing the log at every append.

ALTER TABLE sessions ADD COLUMN data_bytes INTEGER NOT NULL DEFAULT 0;
-- Bytes, not characters: the data as stored (its JCS text in UTF-8).
UPDATE sessions SET data_bytes = (
    SELECT coalesce(sum(length(CAST(e.data AS BLOB))), 0) FROM events e
    WHERE e.session_id = sessions.id);
