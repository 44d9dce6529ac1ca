-- PostgreSQL's 0003_conversation_match.sql (rules in 0001_archive.sql).

-- Messages by role and the opening of their text (trimmed of ASCII
-- whitespace, the first 64 characters); the query repeats this expression
-- (store/conversation_match_repo.cpp).
CREATE INDEX messages_opening ON messages(ns, role, substr(btrim(text, E' \t\n\x0B\f\r'), 1, 64));

CREATE TABLE conversation_users (
  ns              text NOT NULL DEFAULT current_setting('cilia.ns'),
  conversation_id bigint NOT NULL,
  client_user     text NOT NULL,
  PRIMARY KEY (ns, conversation_id),
  FOREIGN KEY (ns, conversation_id) REFERENCES conversations(ns, id) ON DELETE CASCADE
);
SELECT cilia_namespace_table('conversation_users');
