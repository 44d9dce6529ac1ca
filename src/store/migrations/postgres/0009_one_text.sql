-- PostgreSQL's 0009_one_text.sql: a message whose content is the JSON string
-- of its text stores content '' (see SQLite's 0009). PostgreSQL stores
-- started at this schema, so there are no older rows to rewrite: MessageRepo
-- writes '' from the first message on. The number is kept so that both
-- backends count the same versions.
SELECT 1;
