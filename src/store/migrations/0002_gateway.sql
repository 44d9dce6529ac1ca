-- What the chat gateway keeps besides the messages: the owner's L2 profile
-- (curated), the per-turn records and usage log (operational), and the
-- summaries of the compression cycle (derived from messages).

-- L2: hand-kept documents (persona, user, relationship, rules, any other
-- name), injected into every turn inside the cached prefix.
CREATE TABLE profile_documents (
  name       TEXT PRIMARY KEY,         -- [a-z0-9][a-z0-9_-]{0,63}
  content    TEXT NOT NULL,            -- markdown, verbatim
  updated_at INTEGER NOT NULL          -- Unix ms
) WITHOUT ROWID;

-- One row per gateway request: usage, timing, and what was injected.
CREATE TABLE turns (
  id                 INTEGER PRIMARY KEY,
  started_at         INTEGER NOT NULL,           -- Unix ms
  local_day          TEXT NOT NULL,              -- YYYY-MM-DD in the owner's zone
  conversation_id    TEXT NOT NULL DEFAULT '',   -- external id; '' when none
  endpoint           TEXT NOT NULL,              -- chat.completions, messages
  requested_model    TEXT NOT NULL,
  upstream_model     TEXT NOT NULL,              -- <provider>/<id>
  streamed           INTEGER NOT NULL,
  http_status        INTEGER NOT NULL,
  error              TEXT NOT NULL DEFAULT '',
  input_tokens       INTEGER NOT NULL DEFAULT 0,
  output_tokens      INTEGER NOT NULL DEFAULT 0,
  cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
  cache_write_tokens INTEGER NOT NULL DEFAULT 0,
  first_byte_ms      INTEGER NOT NULL DEFAULT -1, -- -1: no byte reached the client
  total_ms           INTEGER NOT NULL DEFAULT 0,
  recall_rounds      INTEGER NOT NULL DEFAULT 0,
  injected           TEXT NOT NULL DEFAULT '{}'  -- JSON object, shaped by the gateway
);
CREATE INDEX turns_conversation ON turns(conversation_id, id);
CREATE INDEX turns_day ON turns(local_day, upstream_model);
CREATE INDEX turns_started ON turns(started_at);

-- The messages a turn's record quotes, so that forgetting a message finds
-- the records to scrub through an index.
CREATE TABLE turn_sources (
  turn_id         INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
  position        INTEGER NOT NULL,            -- order within the turn
  conversation_id TEXT NOT NULL,               -- external id
  message_id      TEXT NOT NULL,               -- public id: the caller's, or m_<n>
  PRIMARY KEY (turn_id, position)
) WITHOUT ROWID;
CREATE INDEX turn_sources_message ON turn_sources(conversation_id, message_id);

-- The compression cycle's summaries of a conversation's older part (the
-- BP3 block). Derived: a forget of a covered message drops them.
CREATE TABLE conversation_summaries (
  id              INTEGER PRIMARY KEY,
  conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  through_seq     INTEGER NOT NULL,            -- covers messages with seq < this
  text            TEXT NOT NULL,
  model           TEXT NOT NULL,               -- <provider>/<id> that wrote it
  kept_from_key   TEXT NOT NULL,               -- key (role + text) of the first message sent raw after it
  created_at      INTEGER NOT NULL
);
CREATE INDEX conversation_summaries_conv ON conversation_summaries(conversation_id, through_seq);
