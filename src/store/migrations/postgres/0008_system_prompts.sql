-- PostgreSQL's 0008_system_prompts.sql.
CREATE INDEX messages_system ON messages(ns, conversation_id, seq) WHERE role = 'system';
