-- A run that did its work but in which some items failed (a nightly day, an
-- extraction batch) ends "partial", not "ok": the owner sees it, and the
-- scheduler tries it again like a failed run. SQLite cannot change a CHECK
-- constraint in place, so job_runs is copied into a table that allows it.
CREATE TABLE job_runs_new (
  id         INTEGER PRIMARY KEY,
  job        TEXT NOT NULL,              -- extract, nightly, retention, reindex
  namespace  TEXT NOT NULL,
  started_by TEXT NOT NULL CHECK (started_by IN ('schedule', 'manual')),
  started_at INTEGER NOT NULL,
  ended_at   INTEGER,                    -- NULL while running
  outcome    TEXT NOT NULL CHECK (outcome IN ('running', 'ok', 'partial', 'skipped', 'failed')),
  error      TEXT NOT NULL DEFAULT '',
  items      INTEGER NOT NULL DEFAULT 0,
  detail     TEXT NOT NULL DEFAULT '{}'  -- JSON object, shaped by the job; a running extract run's is
                                         -- written after every batch, so its tokens count against
                                         -- the daily budget even when the process dies in the run
);
INSERT INTO job_runs_new(id, job, namespace, started_by, started_at, ended_at, outcome, error, items, detail)
  SELECT id, job, namespace, started_by, started_at, ended_at, outcome, error, items, detail FROM job_runs;
DROP TABLE job_runs;
ALTER TABLE job_runs_new RENAME TO job_runs;
CREATE INDEX job_runs_job ON job_runs(job, id);
CREATE INDEX job_runs_started ON job_runs(started_at);
