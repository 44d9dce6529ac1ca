-- L1 excerpts (curated: never wiped by a rebuild, carried by export), their
-- history, the candidates queue, and the extraction job's bookkeeping.

-- An excerpt rests on a verbatim quote: the code points [span_start,
-- span_end) of one message's text. Forgetting that message removes it.
CREATE TABLE excerpts (
  id              INTEGER PRIMARY KEY,      -- shown as x_<id>
  content         TEXT NOT NULL,            -- the memory, in the conversation's language
  quote           TEXT NOT NULL,            -- verbatim, = the span of the message's text
  conversation_id INTEGER NOT NULL REFERENCES conversations(id),
  message_id      INTEGER NOT NULL REFERENCES messages(id),
  span_start      INTEGER NOT NULL,
  span_end        INTEGER NOT NULL,
  type            TEXT NOT NULL,            -- fact preference event plan relationship rule project other
  fact_key        TEXT,                     -- e.g. "home_city"; NULL when none
  confidence      REAL NOT NULL,
  importance      REAL NOT NULL DEFAULT 0.5,
  valid_from      INTEGER,                  -- Unix ms; NULL: open
  valid_to        INTEGER,
  status          TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'superseded', 'archived')),
  superseded_by   INTEGER REFERENCES excerpts(id) ON DELETE SET NULL,
  pinned          INTEGER NOT NULL DEFAULT 0,
  author          TEXT NOT NULL CHECK (author IN ('extractor', 'agent', 'owner')),
  seen_count      INTEGER NOT NULL DEFAULT 1,  -- the extractor met the same fact again
  access_count    INTEGER NOT NULL DEFAULT 0,  -- real recalls only
  last_recalled   INTEGER,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL,
  words           TEXT NOT NULL             -- content and quote segmented: the in-memory BM25 index's input
);
CREATE INDEX excerpts_message ON excerpts(message_id);
CREATE INDEX excerpts_conversation ON excerpts(conversation_id);
CREATE INDEX excerpts_fact_key ON excerpts(fact_key, status) WHERE fact_key IS NOT NULL;
CREATE INDEX excerpts_status ON excerpts(status, id);

-- Every change of an excerpt: who made it, when, and the changed fields'
-- old and new values (JSON objects; old is null for a creation, new is null
-- for a deletion, which keeps the whole row in old). No foreign key: the
-- history of a deleted excerpt stays, so a deletion can be undone; only a
-- forget of its source removes it.
CREATE TABLE excerpt_history (
  id         INTEGER PRIMARY KEY,
  excerpt_id INTEGER NOT NULL,
  at         INTEGER NOT NULL,
  who        TEXT NOT NULL,                 -- extractor, agent, owner
  action     TEXT NOT NULL,                 -- create, update, seen, supersede, revive, archive, pin, unpin, delete
  old        TEXT,
  new        TEXT
);
CREATE INDEX excerpt_history_excerpt ON excerpt_history(excerpt_id, id);

-- Vectors of excerpts (content and quote), tagged with their embedder. A
-- table and an in-memory index of their own: excerpt ids and window ids are
-- separate id spaces.
CREATE TABLE excerpt_vectors (
  excerpt_id INTEGER PRIMARY KEY REFERENCES excerpts(id) ON DELETE CASCADE,
  embedder   TEXT NOT NULL,
  dim        INTEGER NOT NULL,
  vec        BLOB NOT NULL
);

-- Items the extractor was not sure enough of, or could not place, waiting
-- for the owner: approve, discard, merge into or supersede an excerpt.
CREATE TABLE candidates (
  id              INTEGER PRIMARY KEY,      -- shown as c_<id>
  content         TEXT NOT NULL,
  quote           TEXT NOT NULL,
  conversation_id INTEGER NOT NULL REFERENCES conversations(id),
  message_id      INTEGER NOT NULL REFERENCES messages(id),
  span_start      INTEGER NOT NULL,
  span_end        INTEGER NOT NULL,
  type            TEXT NOT NULL,
  fact_key        TEXT,
  confidence      REAL NOT NULL,
  date            TEXT NOT NULL DEFAULT '', -- the model's YYYY-MM-DD
  reason          TEXT NOT NULL,            -- why it waits: low_confidence, protected_target, unjudged
  target_id       INTEGER REFERENCES excerpts(id) ON DELETE SET NULL,  -- the excerpt it would update
  status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'discarded', 'merged')),
  result_id       INTEGER REFERENCES excerpts(id) ON DELETE SET NULL,  -- the excerpt a decision made or kept
  decided_by      TEXT NOT NULL DEFAULT '',
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL
);
CREATE INDEX candidates_status ON candidates(status, id);
CREATE INDEX candidates_message ON candidates(message_id);
CREATE INDEX candidates_conversation ON candidates(conversation_id);

-- Per conversation: messages with seq < through_seq have been extracted.
CREATE TABLE extraction_cursors (
  conversation_id INTEGER PRIMARY KEY REFERENCES conversations(id) ON DELETE CASCADE,
  through_seq     INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL
);

-- One row per batch start of a conversation: how often it was tried, and
-- the content hash once it succeeded (a succeeded batch is never sent
-- again). 'pending' failed fewer than three runs and is retried; 'failed'
-- failed three and was skipped, visibly.
CREATE TABLE extraction_batches (
  id              INTEGER PRIMARY KEY,
  conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  first_seq       INTEGER NOT NULL,         -- the first new (not overlap) message
  end_seq         INTEGER NOT NULL,         -- seq after the last message
  content_hash    TEXT NOT NULL,
  attempts        INTEGER NOT NULL DEFAULT 0,
  status          TEXT NOT NULL CHECK (status IN ('ok', 'pending', 'failed')),
  error           TEXT NOT NULL DEFAULT '',
  items           INTEGER NOT NULL DEFAULT 0,
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL,
  UNIQUE (conversation_id, first_seq)
);
CREATE INDEX extraction_batches_hash ON extraction_batches(content_hash) WHERE status = 'ok';
