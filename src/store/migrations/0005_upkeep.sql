-- Memory that looks after itself: versions of the L2 profile, the glossary
-- and precious passages (curated), the nightly job's logs, digests and
-- rollups (derived by the cheap model, cited, carried by export), and the
-- job runs (operational: retention drops old ones).

-- Every content a profile document had before a PUT replaced it or a
-- DELETE removed it. Written by triggers, so no writer can forget it.
CREATE TABLE profile_versions (
  id         INTEGER PRIMARY KEY,
  name       TEXT NOT NULL,
  content    TEXT NOT NULL,
  updated_at INTEGER NOT NULL            -- when this content was written (Unix ms)
);
CREATE INDEX profile_versions_name ON profile_versions(name, id);
-- ProfileRepo::Put is INSERT OR REPLACE: the replaced row is deleted without
-- delete triggers (recursive_triggers is off), so the insert keeps it.
CREATE TRIGGER profile_documents_keep_replaced BEFORE INSERT ON profile_documents
  WHEN EXISTS (SELECT 1 FROM profile_documents WHERE name = new.name AND content <> new.content)
BEGIN
  INSERT INTO profile_versions(name, content, updated_at)
    SELECT name, content, updated_at FROM profile_documents WHERE name = new.name;
END;
CREATE TRIGGER profile_documents_keep_updated BEFORE UPDATE OF content ON profile_documents
  WHEN old.content <> new.content
BEGIN
  INSERT INTO profile_versions(name, content, updated_at) VALUES (old.name, old.content, old.updated_at);
END;
CREATE TRIGGER profile_documents_keep_deleted BEFORE DELETE ON profile_documents
BEGIN
  INSERT INTO profile_versions(name, content, updated_at) VALUES (old.name, old.content, old.updated_at);
END;

-- Terms with aliases and a definition; a term or alias in a turn puts the
-- line "term: definition" into the turn's volatile block.
CREATE TABLE glossary (
  term       TEXT PRIMARY KEY COLLATE NOCASE,  -- as written; unique regardless of ASCII case
  aliases    TEXT NOT NULL DEFAULT '[]',       -- JSON array of strings
  definition TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

-- Verbatim passages the owner pins, each citing the messages it was taken
-- from (public ids within one conversation). Append-only.
CREATE TABLE precious (
  id              INTEGER PRIMARY KEY,   -- shown as p_<id>
  content         TEXT NOT NULL,
  conversation_id TEXT NOT NULL,         -- external id
  message_ids     TEXT NOT NULL,         -- JSON array of public message ids
  author          TEXT NOT NULL CHECK (author IN ('owner', 'agent')),
  created_at      INTEGER NOT NULL
);
CREATE TRIGGER precious_append_only BEFORE UPDATE ON precious
BEGIN
  SELECT RAISE(ABORT, 'precious passages are append-only');
END;

-- One log per local day that had messages: what happened, each entry
-- citing the messages it rests on.
CREATE TABLE daily_logs (
  day        TEXT PRIMARY KEY,           -- YYYY-MM-DD in the owner's zone
  title      TEXT NOT NULL DEFAULT '',
  entries    TEXT NOT NULL,              -- JSON [{"text", "sources": [[conversation, message id], ...]}]
  messages   INTEGER NOT NULL,           -- messages the day had
  model      TEXT NOT NULL,              -- <provider>/<id> that wrote it
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;

-- The running digest (at most 500 characters), one row per revision; the
-- newest is the current one.
CREATE TABLE digests (
  id          INTEGER PRIMARY KEY,
  through_day TEXT NOT NULL,             -- the last day whose log it has read
  text        TEXT NOT NULL,
  model       TEXT NOT NULL,
  created_at  INTEGER NOT NULL
);

-- Weekly (ISO week, "2026-W22") and monthly ("2026-05") rollups of the
-- daily logs.
CREATE TABLE rollups (
  kind        TEXT NOT NULL CHECK (kind IN ('week', 'month')),
  period      TEXT NOT NULL,
  first_day   TEXT NOT NULL,
  last_day    TEXT NOT NULL,
  text        TEXT NOT NULL,
  source_days TEXT NOT NULL,             -- JSON array of the days whose logs it read
  model       TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  PRIMARY KEY (kind, period)
) WITHOUT ROWID;

-- The nightly job's work items ("day:2026-05-27", "week:2026-W22",
-- "month:2026-05"): done, or failed three times and skipped (visibly), so
-- that one bad item never holds back the ones after it.
CREATE TABLE nightly_items (
  item       TEXT PRIMARY KEY,
  status     TEXT NOT NULL CHECK (status IN ('ok', 'empty', 'pending', 'failed')),
  attempts   INTEGER NOT NULL DEFAULT 0,
  error      TEXT NOT NULL DEFAULT '',
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;

-- Small named values of the nightly job, e.g. "days_through": the last day
-- before which every day is settled.
CREATE TABLE upkeep_state (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;

-- The BP2 text of each local day, fixed at its first use so that the
-- cached prefix stays the same all day (the nightly run refreshes today's).
CREATE TABLE daily_packs (
  day        TEXT PRIMARY KEY,
  text       TEXT NOT NULL,
  created_at INTEGER NOT NULL
) WITHOUT ROWID;

-- Every run of a background job, scheduled or started by hand.
CREATE TABLE job_runs (
  id         INTEGER PRIMARY KEY,
  job        TEXT NOT NULL,              -- extract, nightly, retention, reindex
  namespace  TEXT NOT NULL,
  started_by TEXT NOT NULL CHECK (started_by IN ('schedule', 'manual')),
  started_at INTEGER NOT NULL,
  ended_at   INTEGER,                    -- NULL while running
  outcome    TEXT NOT NULL CHECK (outcome IN ('running', 'ok', 'skipped', 'failed')),
  error      TEXT NOT NULL DEFAULT '',
  items      INTEGER NOT NULL DEFAULT 0,
  detail     TEXT NOT NULL DEFAULT '{}'  -- JSON object, shaped by the job
);
CREATE INDEX job_runs_job ON job_runs(job, id);
CREATE INDEX job_runs_started ON job_runs(started_at);

-- The nightly job reads each local day's messages across conversations.
CREATE INDEX messages_created ON messages(created_at);
