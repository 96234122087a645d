-- 0005: a discord webhook's mentions, the Discord user or role id each side maps to, mentioned
-- when it is that side's turn or a claim waits for it: canonical JSON {"<side>": {"user"|"role":
-- "<id>"}}, NULL when none (docs/api.md, Webhooks).
ALTER TABLE webhooks ADD COLUMN mentions TEXT;
