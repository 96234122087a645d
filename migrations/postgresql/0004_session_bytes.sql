-- 0004 (PostgreSQL): as ../0004_session_bytes.sql.

ALTER TABLE sessions ADD COLUMN data_bytes BIGINT NOT NULL DEFAULT 0;
UPDATE sessions s SET data_bytes = (
    SELECT coalesce(sum(octet_length(e.data)), 0) FROM events e WHERE e.session_id = s.id);
