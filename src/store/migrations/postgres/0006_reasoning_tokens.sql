-- PostgreSQL's 0006_reasoning_tokens.sql.
ALTER TABLE turns ADD COLUMN reasoning_tokens bigint NOT NULL DEFAULT 0;
