-- Finding the stored conversation a chat request continues, when the client
-- sends its history but no conversation id (memory/conversation_match.h).

-- Messages by role and the opening of their text (trimmed of ASCII
-- whitespace, the first 64 characters): a history message is looked up here
-- and then compared in full. Queries must repeat this expression exactly, or
-- SQLite does not use the index (store/conversation_match_repo.cpp).
CREATE INDEX messages_opening ON messages(role, substr(trim(text, char(9, 10, 11, 12, 13, 32)), 1, 64));

-- Which client user a gateway conversation belongs to: the OpenAI `user` or
-- Anthropic `metadata.user_id` field of the request that created it ('' when
-- the client sent none). Only tagged conversations are continued.
CREATE TABLE conversation_users (
  conversation_id INTEGER PRIMARY KEY REFERENCES conversations(id) ON DELETE CASCADE,
  client_user     TEXT NOT NULL
);
