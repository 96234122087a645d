-- 0005 (PostgreSQL): as ../0005_webhook_mentions.sql.
ALTER TABLE webhooks ADD COLUMN mentions TEXT;
