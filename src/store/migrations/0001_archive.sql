-- L0: conversations and their messages, verbatim; windows and their indexes
-- are derived and can be rebuilt from messages (cilia jobs run reindex).

CREATE TABLE conversations (
  id            INTEGER PRIMARY KEY,
  external_id   TEXT NOT NULL UNIQUE,        -- the conversation_id callers use
  title         TEXT NOT NULL DEFAULT '',
  created_at    INTEGER NOT NULL,            -- Unix ms of the first message
  updated_at    INTEGER NOT NULL,            -- Unix ms of the last message
  message_count INTEGER NOT NULL DEFAULT 0,
  next_seq      INTEGER NOT NULL DEFAULT 0,  -- position the next message gets
  indexed_seq   INTEGER NOT NULL DEFAULT 0   -- messages with seq < this are windowed
);

CREATE TABLE messages (
  id              INTEGER PRIMARY KEY,       -- cilia's id, shown as m_<id>
  conversation_id INTEGER NOT NULL REFERENCES conversations(id),
  seq             INTEGER NOT NULL,          -- position in the conversation
  caller_id       TEXT,                      -- the caller's id, unique per conversation
  role            TEXT NOT NULL,
  name            TEXT NOT NULL DEFAULT '',
  content         TEXT NOT NULL,             -- verbatim JSON: a string or a parts array
  text            TEXT NOT NULL,             -- the plain text of content
  content_hash    TEXT NOT NULL,
  created_at      INTEGER NOT NULL,
  stored_at       INTEGER NOT NULL,
  source          TEXT NOT NULL
);
CREATE UNIQUE INDEX messages_caller ON messages(conversation_id, caller_id) WHERE caller_id IS NOT NULL;
CREATE UNIQUE INDEX messages_seq ON messages(conversation_id, seq);

-- Image bytes live in files/<sha256> beside the database; messages refer to them.
CREATE TABLE files (
  sha256     TEXT PRIMARY KEY,
  mime       TEXT NOT NULL,
  size       INTEGER NOT NULL,
  created_at INTEGER NOT NULL
);

CREATE TABLE windows (
  id               INTEGER PRIMARY KEY,
  conversation_id  INTEGER NOT NULL REFERENCES conversations(id),
  first_seq        INTEGER NOT NULL,   -- seq of the message of the first segment
  first_segment    INTEGER NOT NULL,   -- index of that segment within its message
  last_seq         INTEGER NOT NULL,
  created_at       INTEGER NOT NULL,   -- time of the first message
  ended_at         INTEGER NOT NULL,   -- time of the last message
  spans            TEXT NOT NULL,      -- JSON [[message id, begin, end], ...] per segment, code points
  body             TEXT NOT NULL,      -- segment texts joined by "\n" (no header, no labels)
  words            TEXT NOT NULL,      -- body segmented into words; the in-memory BM25 index is built from it
  cjk              TEXT NOT NULL,      -- Han unigrams and bigrams, for 1-2 character lookups
  access_count     INTEGER NOT NULL DEFAULT 0,
  last_accessed    INTEGER
);
CREATE INDEX windows_conv ON windows(conversation_id, first_seq);
CREATE INDEX windows_created ON windows(created_at);

-- BM25 over `words` is served from memory (index/bm25_index.h): FTS5 scores
-- every matching row through its auxiliary-function API, ~100 ms at 100k
-- windows for common words. FTS5 serves exact lookups, where candidates are
-- verified against the body, so its tables keep only which rows hold a
-- token (detail=none), which also halves their cost at ingest.
CREATE VIRTUAL TABLE windows_trigram USING fts5(body, content='windows', content_rowid='id',
                                               tokenize='trigram', detail='none');
CREATE VIRTUAL TABLE windows_cjk USING fts5(cjk, content='windows', content_rowid='id',
                                           tokenize='unicode61', detail='none');
-- Every ingest commit writes a small index segment; merging 16 at a time
-- instead of 4 makes API ingest ~12 % faster (bench/RESULTS.md).
INSERT INTO windows_trigram(windows_trigram, rank) VALUES ('automerge', 16);
INSERT INTO windows_cjk(windows_cjk, rank) VALUES ('automerge', 16);

CREATE TRIGGER windows_ai AFTER INSERT ON windows BEGIN
  INSERT INTO windows_trigram(rowid, body) VALUES (new.id, new.body);
  INSERT INTO windows_cjk(rowid, cjk) VALUES (new.id, new.cjk);
END;
CREATE TRIGGER windows_ad AFTER DELETE ON windows BEGIN
  INSERT INTO windows_trigram(windows_trigram, rowid, body) VALUES ('delete', old.id, old.body);
  INSERT INTO windows_cjk(windows_cjk, rowid, cjk) VALUES ('delete', old.id, old.cjk);
END;

-- Vectors of windows, tagged with the embedder that made them; the in-memory
-- index is a cache of this table.
CREATE TABLE window_vectors (
  window_id INTEGER PRIMARY KEY REFERENCES windows(id) ON DELETE CASCADE,
  embedder  TEXT NOT NULL,
  dim       INTEGER NOT NULL,
  vec       BLOB NOT NULL
);

-- What each recall returned, for access counts and the owner's view.
CREATE TABLE recall_log (
  id         INTEGER PRIMARY KEY,
  at         INTEGER NOT NULL,
  query      TEXT NOT NULL,
  layer      TEXT NOT NULL,
  item_id    INTEGER NOT NULL,
  score      REAL NOT NULL
);
